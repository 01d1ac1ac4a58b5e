"""Tokenization: jieba is the reference; rjieba is used only where it gives the same tokens."""

import rjieba

from dedup_pipeline.core.text import normalize
from dedup_pipeline.core.tokenize import cutter, jieba_cut, rjieba_cut, stop_words, tokenizer_name, words
from testing.corpus import news_sentences, reviews


def test_rjieba_gives_jiebas_tokens_on_normalized_real_documents():
    documents = news_sentences()[::4][:3000] + reviews()[::6][:3000]
    assert len(documents) >= 5000
    fast, reference = rjieba_cut(), jieba_cut()
    for doc in documents:
        text = normalize(doc, "space")
        assert fast(text) == reference(text), doc


def test_fast_tokenizer_is_chosen_only_for_space_punctuation():
    assert rjieba_cut() is rjieba.cut
    assert tokenizer_name(cutter("space")) == "rjieba"
    assert tokenizer_name(cutter("keep")) == "jieba"
    assert tokenizer_name(cutter("remove")) == "jieba"
    assert tokenizer_name(cutter("space", prefer_fast=False)) == "jieba"


def test_shipped_stop_words_are_removed_and_content_words_kept():
    tokens = words(jieba_cut()("我们 的 小区 物业 乱收费 了"), stop_words())
    assert tokens == ["小区", "物业", "乱收费"]


def test_negations_are_not_stop_words():
    assert {"不", "没有"}.isdisjoint(stop_words())
