"""A row's content hash (whether the store must write it again) is the hash of its fields'
values and the scheme's settings, whether rows are hashed one by one or a chunk at once."""

import datetime as dt
from decimal import Decimal

import pytest

from cityhash import CityHash64
from hypothesis import given, settings, strategies as st

from dedup_pipeline.core.features import SEPARATOR, FeatureError, Field, value_text
from dedup_pipeline.core.features import column_hashes, content_hash, content_hashes

FIELDS = [Field("title", "short"), Field("content", "long"), Field("name", "short", encoding="gbk")]
VALUE = st.one_of(st.none(), st.text(max_size=20), st.integers(), st.floats(allow_nan=False),
                  st.decimals(allow_nan=False, allow_infinity=False), st.dates())


def defined(row, fields, settings_text):
    """The content hash by its definition: one text, hashed."""
    text = settings_text + "\x1d" + "\x1e".join(f"{f.name}{SEPARATOR}{value_text(row.get(f.name), f) or ''}"
                                                for f in fields)
    return f"{CityHash64(text):016x}"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"title": VALUE, "content": VALUE, "name": VALUE | st.just(b"\xd5\xc5")}),
                max_size=6),
       st.text(max_size=30))
def test_the_content_hashes_of_many_rows_are_each_rows_by_the_definition(rows, settings_text):
    assert content_hashes(rows, FIELDS, settings_text) == [defined(r, FIELDS, settings_text) for r in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"title": VALUE, "content": VALUE}), max_size=6), st.text(max_size=30))
def test_text_given_as_its_utf8_bytes_hashes_as_the_text_itself(rows, settings_text):
    utf8 = FIELDS[:2]
    columns = {f.name: [r[f.name].encode() if isinstance(r[f.name], str) else r[f.name] for r in rows] for f in utf8}
    assert column_hashes(columns, len(rows), utf8, settings_text, encoded=True) == \
        [defined(r, utf8, settings_text) for r in rows]


def test_a_rows_content_hash_is_its_hash_among_many():
    row = {"title": "讨薪", "content": Decimal("7.50"), "name": None, "other": dt.date(2024, 5, 1)}
    assert content_hash(row, FIELDS, "s") == content_hashes([{}, row], FIELDS, "s")[1] == defined(row, FIELDS, "s")


def test_without_fields_a_row_hashes_the_settings_alone():
    assert content_hashes([{"a": 1}, {}], [], "s") == [defined({}, [], "s")] * 2


def test_a_value_its_field_cannot_decode_is_an_error_among_many_too():
    with pytest.raises(FeatureError, match="'content' holds bytes that are not valid utf-8"):
        content_hashes([{"content": "好"}, {"content": b"\xd5\xc5"}], FIELDS)
