"""SimHash fingerprints: stable, local under small edits, spread out for unrelated texts."""

import random
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dedup_pipeline.core.features import SEPARATOR, Featurizer, Field
from dedup_pipeline.core.tokenize import cutter
from dedup_pipeline.core.simhash import feature_hash, fingerprint, fingerprint_many, hamming
from dedup_pipeline.core.weighting import Weighting
from testing.corpus import documents, reviews

FIELDS = [Field("title", "short"), Field("name", "short"), Field("content", "long")]


@pytest.fixture(scope="module")
def featurizer():
    return Featurizer(FIELDS)


def fp(featurizer, **row):
    return fingerprint(row, featurizer)


def test_identical_input_gives_identical_fingerprint(featurizer):
    text = documents(500, 1)[0]
    assert fp(featurizer, content=text) == fp(featurizer, content=str(text))


def test_fingerprint_is_a_64_bit_unsigned_integer(featurizer):
    value = fp(featurizer, content=documents(300, 1)[0])
    assert 0 <= value < 2**64


def test_one_changed_character_in_500_characters_moves_few_bits(featurizer):
    rng = random.Random(7)
    distances = []
    for text in documents(500, 200):
        i = rng.randrange(len(text))
        edited = text[:i] + "某" + text[i + 1:]
        distances.append(hamming(fp(featurizer, content=text), fp(featurizer, content=edited)))
    assert statistics.median(distances) <= 3
    assert max(distances) <= 10


def test_unrelated_texts_are_about_32_bits_apart(featurizer):
    texts = documents(300, 1000)  # consecutive documents share an article: pair distant ones
    prints = [int(x) for x in fingerprint_many([{"content": t} for t in texts], featurizer)]
    distances = [hamming(prints[i], prints[(i + 500) % 1000]) for i in range(1000)]
    assert 30 <= statistics.mean(distances) <= 34
    assert min(distances) > 10


def test_short_field_weight_pulls_the_fingerprint_toward_that_field(featurizer):
    text = documents(150, 1)[0]
    name_hash = feature_hash(f"name{SEPARATOR}张三")
    distances = []
    for weight in (0, 2, 8, 1000):
        f = Featurizer([Field("name", "short", weight=weight), Field("content", "long")])
        distances.append(hamming(fingerprint({"name": "张三", "content": text}, f), name_hash))
    assert distances == sorted(distances, reverse=True) and distances[0] > distances[-1]
    assert distances[-1] == 0
    f0 = Featurizer([Field("name", "short", weight=0), Field("content", "long")])
    assert fingerprint({"name": "张三", "content": text}, f0) == fp(featurizer, content=text)


@pytest.mark.parametrize("blank", [None, ""])
def test_null_and_empty_fields_leave_the_fingerprint_unchanged(featurizer, blank):
    text = documents(150, 1)[0]
    assert fp(featurizer, content=text, title=blank, name=blank) == fp(featurizer, content=text)


def test_a_row_with_no_features_fingerprints_to_zero(featurizer):
    assert fp(featurizer, content=None, title="", name="  ") == 0


def test_emoji_and_other_4_byte_characters_are_features(featurizer):
    plain = fp(featurizer, content="物业乱收费，业主很生气")
    assert fp(featurizer, content="物业乱收费，业主很生气😡😡𠮷") != plain
    assert fp(featurizer, content="😡") != 0


def test_mojibake_fingerprints_deterministically(featurizer):
    mojibake = "物业乱收费问题".encode("utf-8").decode("latin-1")
    assert fp(featurizer, content=mojibake) == fp(featurizer, content=mojibake)
    assert fp(featurizer, content=mojibake) != fp(featurizer, content="物业乱收费问题")


MEMORY_PROBE = """
import resource, sys
from testing.corpus import news_sentences
from dedup_pipeline.core.features import Featurizer, Field
from dedup_pipeline.core.tokenize import cutter
from dedup_pipeline.core.simhash import fingerprint
featurizer = Featurizer([Field("content", "long")])
fingerprint({"content": "预热 词典"}, featurizer)
text = "".join(news_sentences()[:3000])
text = (text * (10_000_000 // len(text.encode("utf-8")) + 1))[: 10_000_000 // 3]
assert len(text.encode("utf-8")) >= 9_900_000
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
fingerprint({"content": text}, featurizer)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


@pytest.mark.servers  # a process of its own, to measure its memory
def test_a_10_mb_text_fingerprints_in_bounded_memory():
    # Peak resident memory of a fresh process, native allocations (the tokenizer's) included.
    # Tokenized whole, the text would be ~2 million word objects, well over 100 MB.
    result = subprocess.run([sys.executable, "-c", MEMORY_PROBE], capture_output=True, text=True,
                            cwd=Path(__file__).parent.parent, check=True)
    growth_kb = int(result.stdout.strip())
    assert growth_kb < 40_000, f"peak memory grew by {growth_kb} kB"


def rows_from_corpus(count):
    rng = random.Random(11)
    texts = reviews()[:count]
    rows = []
    for i, t in enumerate(texts):
        rows.append({
            "title": t[:rng.randrange(0, 12)] if i % 3 else None,
            "name": rng.choice(["张三", "李四", "", None, "Ｗａｎｇ Wu"]),
            "content": t if i % 17 else rng.choice(["", "的 了", "😀", "e\u0301", None]),
        })
    return rows


def test_batch_path_is_bit_identical_to_the_one_row_path(featurizer):
    rows = rows_from_corpus(4000)
    rows.append({"content": "物业" * 40_000})  # longer than one chunk: takes the one-row path
    batch = fingerprint_many(rows, featurizer)
    assert batch.dtype == np.uint64
    assert [int(x) for x in batch] == [fingerprint(r, featurizer) for r in rows]


# every option of weighting.py, alone and together (the last two read the row: text and title)
WEIGHTINGS = [Weighting("tfidf"), Weighting("tfidf", "normal"), Weighting("tf", "minmax"),
              Weighting(noun=2.0, verb=1.5), Weighting(marker=5.0), Weighting(title=5.0),
              Weighting("tfidf", "minmax", noun=1.5, verb=1.2, marker=5.0, title=5.0)]


@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=repr)
def test_batch_path_is_bit_identical_to_the_one_row_path_with_every_weighting(weighting):
    featurizer = Featurizer(FIELDS, weighting=weighting)
    rows = rows_from_corpus(1500) + [{"title": "物业", "content": "物业乱收费，" * 15_000}]  # over one chunk
    assert [int(x) for x in fingerprint_many(rows, featurizer)] == [fingerprint(r, featurizer) for r in rows]


@pytest.mark.parametrize("weighting", WEIGHTINGS[-1:], ids=repr)
@pytest.mark.parametrize("punctuation, prefer_fast", [("space", False), ("keep", True), ("remove", True)])
def test_weighted_batch_path_equals_one_row_path_with_every_tokenizer_and_punctuation_mode(
        weighting, punctuation, prefer_fast):
    featurizer = Featurizer(FIELDS, punctuation, cutter(punctuation, prefer_fast), weighting)
    rows = rows_from_corpus(400)
    assert [int(x) for x in fingerprint_many(rows, featurizer)] == [fingerprint(r, featurizer) for r in rows]


def test_a_weighted_fingerprint_does_not_depend_on_the_other_rows_of_the_batch():
    # the IDF table is jieba's, not the rows': a batch and an incremental check agree
    featurizer = Featurizer(FIELDS, weighting=Weighting("tfidf", "minmax", title=5.0))
    rows = rows_from_corpus(300)
    together = [int(x) for x in fingerprint_many(rows, featurizer)]
    assert together == [int(fingerprint_many([r], featurizer)[0]) for r in rows]


def test_tfidf_moves_the_fingerprint_of_a_text_with_rare_words():
    text = "信访人反映物业乱收费的问题"
    plain = fingerprint({"content": text}, Featurizer(FIELDS))
    assert fingerprint({"content": text}, Featurizer(FIELDS, weighting=Weighting("tfidf"))) != plain


@pytest.mark.parametrize("punctuation, prefer_fast", [("space", False), ("keep", True), ("remove", True)])
def test_batch_path_equals_one_row_path_with_every_tokenizer_and_punctuation_mode(punctuation, prefer_fast):
    featurizer = Featurizer(FIELDS, punctuation, cutter(punctuation, prefer_fast))
    rows = rows_from_corpus(400)
    assert [int(x) for x in fingerprint_many(rows, featurizer)] == [fingerprint(r, featurizer) for r in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({
    "title": st.one_of(st.none(), st.text(max_size=10)),
    "content": st.one_of(st.none(), st.text(alphabet=st.sampled_from("物业乱收费的了 ，。ab1😀\u0301"), max_size=60)),
}), max_size=12))
def test_batch_path_equals_one_row_path_on_any_rows(featurizer, rows):
    assert [int(x) for x in fingerprint_many(rows, featurizer)] == [fingerprint(r, featurizer) for r in rows]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(WEIGHTINGS), st.lists(st.fixed_dictionaries({
    "title": st.one_of(st.none(), st.text(alphabet=st.sampled_from("物业收费综上所述 a"), max_size=10)),
    "content": st.one_of(st.none(), st.text(alphabet=st.sampled_from("物业乱收费综上所述的了 ，。ab1😀\u0301"),
                                            max_size=60)),
}), max_size=12))
def test_weighted_batch_path_equals_one_row_path_on_any_rows(weighting, rows):
    featurizer = Featurizer(FIELDS, weighting=weighting)
    assert [int(x) for x in fingerprint_many(rows, featurizer)] == [fingerprint(r, featurizer) for r in rows]


def test_hamming_distance_counts_differing_bits():
    assert hamming(0, 0) == 0
    assert hamming(0b1011, 0b0001) == 2
    assert hamming(0, 2**64 - 1) == 64
