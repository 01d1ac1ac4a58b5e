"""Finding rows of the configured table, for the console's search: by id (exact), or by the
words of a query, each in one of the searched columns (the short and long fields: contains,
every word present). A row that equals the whole query (its id, or a whole short field) comes
first, then the newest (the configured date column), then the highest id; at most `limit`
rows, and whether there are more. LIKE's wildcards in the query (% _) are escaped, so they
match themselves. Fields of a legacy encoding (stored as bytes of GBK and the like) are not
searched: LIKE cannot compare them with the query's text; nor are the fields the caller names
`unsearched` (the console's masked phones, for a reviewer who may not see them: a search by
them would tell which numbers exist).

Each row comes with the rows dedup_match pairs it with (the rule's pairs and the confirmed),
read in one query for all of them.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Collection
from typing import Any, NamedTuple

import sqlalchemy as sa

from ..core.decision import id_order
from . import matchtable
from .source import SqlSource

LIMIT = 50  # rows a search returns
MAX_LENGTH = 200  # characters of a query taken
MAX_WORDS = 8  # words of a query taken


class Found(NamedTuple):
    """The rows found, best first (as `rows_by_id` gives them), whether more matched than
    were returned, and {row id: the rows dedup_match pairs it with, in id order}."""

    rows: list[dict[str, Any]]
    more: bool
    partners: dict[Any, list]


def words(text: str) -> list[str]:
    """A query's words as searched: split at white space, at most MAX_WORDS of them."""
    return text[:MAX_LENGTH].split()[:MAX_WORDS]


def find(source: SqlSource, text: str, limit: int = LIMIT, unsearched: Collection[str] = ()) -> Found:
    """The rows matching `text` (see the module's docstring), at most `limit` of them; the
    fields named `unsearched` are not compared with it."""
    wanted = words(text)
    if not wanted:
        return Found([], False, {})
    ids = _matching_ids(source, " ".join(wanted), wanted, limit + 1, set(unsearched))
    by_id = {row[source.id_column.name]: row for row in source.rows_by_id(ids[:limit])}
    rows = [by_id[i] for i in ids[:limit] if i in by_id]
    return Found(rows, len(ids) > limit, _partners(source, list(by_id)))


def _matching_ids(source: SqlSource, whole: str, wanted: list[str], limit: int,
                  unsearched: set[str]) -> list[Any]:
    """The ids of the matching rows, best first: one query."""
    short, searched = _searched(source, unsearched)
    every_word = sa.and_(*(sa.or_(sa.false(), *(c.contains(w, autoescape=True) for c in searched))
                           for w in wanted))
    exact = sa.or_(sa.false(), *_id_is(source.id_column, whole), *(c == whole for c in short))
    order = [sa.case((exact, 0), else_=1)]
    date = source.config.report.date_column
    if date:
        order.append(source.table.c[date].desc())
    query = (sa.select(source.id_column).where(sa.or_(exact, every_word))
             .order_by(*order, source.id_column.desc()).limit(limit))
    with source.errors("search"), source.engine.connect() as conn:
        return list(conn.execute(query).scalars())


def _searched(source: SqlSource, unsearched: set[str]) -> tuple[list[sa.ColumnElement], list[sa.ColumnElement]]:
    """(the short fields, the short and long fields) as text to compare, legacy encodings and
    the `unsearched` fields left out."""
    def text(name: str) -> sa.ColumnElement:
        column = source.table.c[name]
        return column if isinstance(column.type, sa.String) else sa.cast(column, sa.String)

    fields = [f for f in source.config.fields
              if f.role in ("short", "long") and codecs.lookup(f.encoding).name == "utf-8"
              and f.name not in unsearched]
    return [text(f.name) for f in fields if f.role == "short"], [text(f.name) for f in fields]


def _id_is(column: sa.Column, text: str) -> list[sa.ColumnElement]:
    """The conditions for an id written as `text`: as text in a text column, as a whole number
    in a numeric one (MySQL would compare '12abc' with 12 as the number 12), as either in a
    column of no such type (SQLite's untyped column holds 1 and 'a2' side by side)."""
    if isinstance(column.type, sa.String):
        return [column == text]
    whole = [column == int(text)] if re.fullmatch(r"-?[0-9]{1,18}", text) else []
    if isinstance(column.type, (sa.Integer, sa.Numeric)):
        return whole
    return [column == text, *whole]


def _partners(source: SqlSource, ids: list[Any]) -> dict[Any, list]:
    """{row: the rows dedup_match pairs it with} for these rows (none before `migrate`)."""
    if not ids:
        return {}
    with source.errors("read the pairs of"), source.engine.connect() as conn:
        table = matchtable.reflect(conn)
        if table is None:
            return {}
        found = matchtable.partners(conn, table, ids, source.config.source.table)
    return {row: sorted(others, key=id_order) for row, others in found.items()}
