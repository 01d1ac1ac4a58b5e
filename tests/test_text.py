"""Normalization: the same complaint typed differently reads the same."""

import sys
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from dedup_pipeline.core import text
from dedup_pipeline.core.text import normalize, normalize_many
from testing.corpus import news_sentences, reviews


def test_full_width_letters_digits_and_spaces_fold_to_half_width():
    assert normalize("ＡＢＣ　１２３") == "abc 123"


def test_latin_text_is_lower_cased():
    assert normalize("Hello WORLD") == "hello world"


def test_whitespace_and_control_characters_collapse_to_one_space():
    assert normalize("  a\t\n b\x00\x07c  ") == "a b c"


@pytest.mark.parametrize("mode, expected", [
    ("space", "物业 乱收费 再次反映"),
    ("remove", "物业乱收费再次反映"),
    ("keep", "物业,乱收费!再次反映"),
])
def test_punctuation_is_replaced_removed_or_kept(mode, expected):
    assert normalize("物业，乱收费！再次反映", mode) == expected


def test_lone_surrogates_become_replacement_characters():
    assert normalize("a\ud800b") == "a\ufffdb"


def test_blank_text_normalizes_to_empty():
    assert normalize(" \u3000\n") == ""


def test_batch_normalization_equals_one_text_normalization_on_real_text():
    texts = news_sentences()[:3000] + reviews()[:3000]
    for mode in ("space", "remove", "keep"):
        assert normalize_many(texts, mode) == [normalize(t, mode) for t in texts]


@pytest.mark.parametrize("sample", [
    "e\u0301", "ΑΣ Σ", "İ", "\ufb01", "①②", "\u1100\u1161", "𠮷野家", "😀!", "ｶﾞ", "a\u2028b", "",
    "…", "a…b", " ‼ ", "…\u0301", "℃", "⑵",
])
def test_batch_normalization_equals_one_text_normalization_on_tricky_characters(sample):
    for mode in text.PUNCTUATION_MODES:
        assert normalize_many([sample, "前" + sample + "后"], mode) == \
            [normalize(sample, mode), normalize("前" + sample + "后", mode)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=8), st.sampled_from(text.PUNCTUATION_MODES))
def test_batch_normalization_equals_one_text_normalization_on_any_unicode(texts, mode):
    assert normalize_many(texts, mode) == [normalize(t, mode) for t in texts]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=8), st.sampled_from(text.PUNCTUATION_MODES))
def test_batch_normalization_without_spaces_equals_one_text_normalization_on_any_unicode(texts, mode):
    assert normalize_many(texts, mode, join="") == [normalize(t, mode, join="") for t in texts]


# whitespace of every kind, in runs, at either end and between words, beside punctuation
SPACED = st.text(alphabet=st.sampled_from(" \t\n\x00\x1f\x85\u3000\u2028\u00a0a好，!…‼Σ\u0301"), max_size=30)


@settings(max_examples=500, deadline=None)
@given(st.lists(SPACED, max_size=8), st.sampled_from(text.PUNCTUATION_MODES), st.sampled_from([" ", ""]))
def test_batch_normalization_collapses_runs_of_whitespace_as_one_text_normalization_does(texts, mode, join):
    assert normalize_many(texts, mode, join) == [normalize(t, mode, join) for t in texts]


def test_normalization_without_spaces_is_normalization_with_its_spaces_removed():
    assert normalize(" 物业，乱收费\u3000再次 反映 ", "remove", join="") == "物业乱收费再次反映"


@pytest.mark.parametrize("mode", text.PUNCTUATION_MODES)
def test_every_character_of_the_lookup_table_normalizes_as_one_text_normalization_does(mode):
    texts = [f"a{chr(code)}b {chr(code)}" for code in range(0x10000) if not 0xD800 <= code < 0xE000]
    assert normalize_many(texts, mode) == [normalize(t, mode) for t in texts]


def test_planes_above_two_hold_no_punctuation_controls_or_compositions():
    # text.py scans only below 0x20000 for these; this proves the shortcut exact.
    for code in range(text._SCANNED, sys.maxunicode + 1):
        char = chr(code)
        assert unicodedata.category(char)[0] != "P" and unicodedata.category(char) != "Cc"
        parts = unicodedata.decomposition(char).split()
        assert not (len(parts) == 2 and not parts[0].startswith("<")), hex(code)
