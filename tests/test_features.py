"""Row -> weighted features, by field role."""

import datetime as dt
from decimal import Decimal

import pytest

from dedup_pipeline.core.features import SEPARATOR, FeatureError, Featurizer, Field, chunks, value_text
from dedup_pipeline.core.weighting import Weighting, idf

FIELDS = [Field("name", "short"), Field("phone", "short"), Field("content", "long")]


@pytest.fixture(scope="module")
def featurizer():
    return Featurizer(FIELDS)


def test_short_field_is_one_whole_value_feature_of_weight_two(featurizer):
    assert list(featurizer.segments({"name": "张 三"})) == [([f"name{SEPARATOR}张三"], 2.0)]


def test_short_values_ignore_spaces_and_punctuation(featurizer):
    a = list(featurizer.segments({"phone": "138-1234-5678"}))
    b = list(featurizer.segments({"phone": "138 1234 5678"}))
    assert a == b


def test_long_field_yields_each_word_occurrence_with_the_field_weight(featurizer):
    (tokens, weight), = featurizer.segments({"content": "物业乱收费，物业不管"})
    assert weight == 1.0 and tokens.count("物业") == 2


def test_explain_sums_term_frequency_times_weight(featurizer):
    explained = featurizer.explain({"name": "张三", "content": "物业乱收费，物业不管"})
    assert ("content", "物业", 2.0) in explained
    assert ("name", "张三", 2.0) in explained


def test_explain_sums_term_frequency_times_the_words_weight_under_a_weighting():
    featurizer = Featurizer(FIELDS, weighting=Weighting("tfidf"))
    explained = featurizer.explain({"name": "张三", "content": "物业乱收费，物业不管"})
    assert ("content", "物业", 2 * idf("物业")) in explained
    assert ("name", "张三", 2.0) in explained


def test_a_weighting_leaves_short_fields_at_their_own_weight():
    featurizer = Featurizer(FIELDS, weighting=Weighting("tfidf", "minmax", noun=2.0, title=5.0))
    assert list(featurizer.segments({"name": "张 三"})) == [([f"name{SEPARATOR}张三"], 2.0)]


def test_a_weighted_text_over_one_chunk_weighs_its_words_by_the_whole_texts_lengths():
    featurizer = Featurizer(FIELDS, weighting=Weighting("tf", "minmax"))
    text = "综上所述。" + "业主乱收费。" * 12_000  # the longest word only in the first chunk
    segments = list(featurizer.segments({"content": text}))
    assert len([words for words, _ in segments if words[0] == "乱收费"]) >= 2  # in every chunk
    assert {weight for words, weight in segments if words[0] == "乱收费"} == {1.5}


@pytest.mark.parametrize("blank", [None, "", "   ", "\u3000"])
def test_null_and_blank_values_contribute_nothing(featurizer, blank):
    assert list(featurizer.segments({"name": blank, "content": blank})) == []


def test_ignored_fields_contribute_nothing():
    featurizer = Featurizer([Field("name", "ignore"), Field("content", "long")])
    assert list(featurizer.segments({"name": "张三"})) == []


def test_configured_weight_replaces_the_default():
    featurizer = Featurizer([Field("name", "short", weight=5)])
    assert list(featurizer.segments({"name": "张三"}))[0][1] == 5


@pytest.mark.parametrize("value, text", [
    (42, "42"), (Decimal("3.50"), "3.50"), (dt.date(2026, 1, 2), "2026-01-02"),
    (dt.datetime(2026, 1, 2, 3, 4), "2026-01-02T03:04:00"), ("文本", "文本"), (None, None),
])
def test_database_values_read_as_text(value, text):
    assert value_text(value, Field("x")) == text


def test_bytes_are_decoded_with_the_fields_encoding():
    assert value_text("信访".encode("gbk"), Field("x", encoding="gbk")) == "信访"


def test_bytes_in_the_wrong_encoding_raise_an_error_naming_the_column_and_the_fix():
    with pytest.raises(FeatureError, match=r"column 'content'.*not valid utf-8.*encoding"):
        value_text("信访".encode("gbk"), Field("content"))


def test_long_text_is_read_in_bounded_chunks_cut_at_word_boundaries():
    text = ("物业乱收费问题严重。" * 20000)
    pieces = list(chunks(text, size=1000))
    assert "".join(pieces) == text
    assert max(map(len, pieces)) <= 1000
    assert all(p.endswith("。") for p in pieces[:-1])
