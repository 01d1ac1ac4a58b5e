"""The matters stage (热点事项) every path shares: each row's mark (core.matters: its object,
problem, day and writer) read from the configured columns (`[matters]`), matters as the
connected parts of the links between marks, and dedup_matter kept as they are (sql/matters.py).

The first batch marks every row in its sketching workers and writes what changed
(`settle_all`; Spark's reads the table for them, `find`); a night, `watch`, `add` and the
batch's replay mark the rows that changed and work out again only the parts they touch
(`settle_changed`, `follow`): the rows under their keys, and under those rows' keys, until
no key is new. A part's rows all lie within that closure, so one row at a time gives the
batch's partition."""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from typing import Any, Iterable, Mapping, NamedTuple

from ..config import Config
from ..core import matters as core
from ..core.decision import id_order
from ..sql import matters as stored
from ..sql.source import SqlSource

# The field names each column is read from by default (any case).
TITLES = ("title", "subject", "标题")
ADDRESSES = ("address", "addr", "地址", "住址")
DATES = ("created_at", "created", "date", "filed_at", "日期", "时间")


class Columns(NamedTuple):
    """Where a row's title, content, address, day and writer are read ("" or (): none)."""

    title: str
    content: str
    address: str
    date: str
    people: tuple[str, ...]


def columns_of(config: Config) -> Columns:
    """The columns of `[matters]`, each by default the one the configuration or a table of
    this kind names so (TITLES, ADDRESSES, DATES; the first long field; [scheme] submitter)."""
    chosen, names = config.matters, [f.name for f in config.fields]
    longs = [f.name for f in config.fields if f.role == "long"]

    def named(said: str, candidates: Iterable[str]) -> str:
        return said or next((n for n in names if n.lower() in candidates), "")
    date = chosen.date or config.scheme.filed or config.report.date_column
    return Columns(named(chosen.title, TITLES), chosen.content or (longs[0] if longs else ""),
                   named(chosen.address, ADDRESSES), named(date, DATES),
                   tuple(chosen.people) or tuple(config.scheme.submitter))


def mark(row: Mapping[str, Any], columns: Columns, id_column: str) -> core.Mark | None:
    """A row's mark, or None: no object, no problem, or no day to place it in an episode."""
    return reading(row, columns, id_column).mark


def reading(row: Mapping[str, Any], columns: Columns, id_column: str) -> core.Reading:
    """What the core reads in a row (its mark, or why it has none), from the configured columns."""
    day = row.get(columns.date) if columns.date else None
    try:
        core.day_of(day)
    except (TypeError, ValueError):
        return core.Reading(None, reason=f"no day in {columns.date or '[matters] date'} to place it in an episode")
    said = {"title": row.get(columns.title) if columns.title else None,
            "content": row.get(columns.content) if columns.content else None,
            "address": row.get(columns.address) if columns.address else None, "created_at": day}
    return core.read(said, _writer(row, columns, id_column))


def why(config: Config, a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """For `explain`: whether two rows are linked as one matter and why (core.why), with what was read in each."""
    columns, id_column = columns_of(config), config.source.id_column
    found = core.why(reading(a, columns, id_column), reading(b, columns, id_column), config.matters.window_days)
    return {"linked": found.linked, "reason": found.reason, "days_apart": found.days_apart,
            "read": [{"object": r.mark.object, "problem": r.mark.problem, "found_in": r.source} if r.mark
                     else {"none": r.reason} for r in (found.a, found.b)]}


def _writer(row: Mapping[str, Any], columns: Columns, id_column: str) -> str:
    """Who wrote the row: its writer columns' values (phones by their digits); the row alone
    when it says nobody (so that it counts as one more person, never as someone else)."""
    values = [str(row.get(c) or "").strip() for c in columns.people]
    if not any(values):
        return f"#{row[id_column]}"
    return core.person_of({"phone": row.get("phone"), "name": "|".join(values), "address": ""}) \
        if "phone" in columns.people else "|".join(values)


class Found(NamedTuple):
    """What the stage did: rows marked, matters, rows in them, rows written and removed, seconds."""

    marked: int
    matters: int
    in_matters: int
    written: int
    removed: int
    seconds: float


def find(config: Config, source: SqlSource) -> Found | None:
    """The stage for an engine that did not mark the rows it read (Spark): every row read
    and marked here, then `settle_all`."""
    with source.errors("read the matters of"), source.engine.connect() as conn:
        if tables_of(config, conn) is None:
            return None
    columns, id_column = columns_of(config), config.source.id_column
    marks = {row[id_column]: m for chunk in source.rows(left_out=[]) for row in chunk
             if (m := mark(row, columns, id_column)) is not None}
    return settle_all(config, source, marks)


def settle_all(config: Config, source: SqlSource, marks: Mapping[Any, core.Mark]) -> Found | None:
    """The batch's stage, from the marks of every row of the table (those with none left
    out): its matters found and dedup_matter made them, writing what changed. None when the
    table has no dedup_matter (`migrate` not run since it came) or `[matters] find` is off."""
    start = time.perf_counter()
    with source.errors("write the matters of"), source.engine.begin() as conn:
        tables = tables_of(config, conn)
        if tables is None:
            return None
        decided = stored.decided(conn, tables, config.source.table)
        entries = entries_of(marks, config.matters.window_days, decided)
        written, removed = stored.write(conn, tables, config.source.table, entries)
    in_matters = [e for e in entries if e.matter is not None]
    return Found(len(marks), len({e.matter for e in in_matters}), len(in_matters), written, removed,
                 time.perf_counter() - start)


def settle_changed(config: Config, source: SqlSource, marks: Mapping[Any, core.Mark | None], gone: Iterable) -> Found | None:
    """A re-run's stage, from the marks of the rows it read again (None: a row with none) and
    the rows gone: only the parts they were and are in worked out again (`follow_marks`)."""
    start = time.perf_counter()
    with source.errors("write the matters of"), source.engine.begin() as conn:
        tables = tables_of(config, conn)
        if tables is None:
            return None
        written = follow_marks(conn, tables, config, marks, gone)
        counted = stored.counts(conn, tables, config.source.table)
    return Found(counted.marked, counted.matters, counted.in_matters, written, 0, time.perf_counter() - start)


def settings(config: Config) -> str:
    """What the matters of a batch were found with, as its live pointer keeps it: a re-run
    works out again only what changed when the last batch's matters were found so."""
    return f"window_days={config.matters.window_days},{columns_of(config)},rules={core.RULES}"


def tables_of(config: Config, conn: Any) -> stored.Tables | None:
    """dedup_matter and its keys when the matters are kept: `[matters] find`, and the tables
    there (`migrate`); else None."""
    return stored.reflect(conn) if config.matters.find else None


def marks_of(rows: Iterable[Mapping[str, Any]], config: Config) -> list[core.Mark | None]:
    """Each row's mark (None: none), or [] when `[matters] find` is off: what an engine's
    sketching workers read beside the sketches."""
    if not config.matters.find:
        return []
    columns, id_column = columns_of(config), config.source.id_column
    return [mark(row, columns, id_column) for row in rows]


def entries_of(marks: Mapping[Any, core.Mark], window: int, decided: stored.Decided = stored.Decided()
               ) -> list[stored.Entry]:
    """dedup_matter's rows for these marks: each with its matter (core.matters_of, as
    reviewers decided: `obeyed`) and the matter's summary."""
    matter_of = obeyed(core.matters_of({r: m for r, m in marks.items() if r not in decided.apart}, window),
                       decided.together)
    parts: dict[Any, list] = {}
    for row, matter in matter_of.items():
        parts.setdefault(matter, []).append(row)
    summary = {matter: _summary([marks[r] for r in rows]) for matter, rows in parts.items()}
    entries = []
    for row, m in marks.items():
        matter = matter_of.get(row)
        first, last, people, count = summary[matter][2:] if matter is not None else (_date(m.day),) * 2 + (1, 1)
        obj, problem = summary[matter][:2] if matter is not None else (m.object, m.problem)
        entries.append(stored.Entry(row, core.mark_to_json(m), tuple(stored.key_hash(k) for k in core.link_keys(m)),
                                    _date(m.day), obj, problem, matter, first, last, people, count))
    return entries


def obeyed(matter_of: Mapping[Any, Any], together: Iterable[tuple]) -> dict[Any, Any]:
    """The matters (row -> matter) with those of each pair of rows reviewers put together
    made one, its id the smallest (a pair with a row in no matter changes nothing)."""
    parent: dict[Any, Any] = {}

    def root(m: Any) -> Any:
        while parent.get(m, m) != m:
            m = parent[m]
        return m
    for a, b in together:
        if a in matter_of and b in matter_of:
            ra, rb = sorted((root(matter_of[a]), root(matter_of[b])), key=id_order)
            parent[rb] = ra
    return {row: root(m) for row, m in matter_of.items()}


def _summary(marks: list[core.Mark]) -> tuple[str, str, dt.date, dt.date, int, int]:
    """A matter's object and problem (the most said), first and last day, people, rows."""
    days = [m.day for m in marks]
    obj = Counter(m.object for m in marks).most_common(1)[0][0]
    problem = Counter(m.problem for m in marks).most_common(1)[0][0]
    return obj, problem, _date(min(days)), _date(max(days)), len({m.person for m in marks}), len(marks)


def _date(day: int) -> dt.date:
    return dt.date.fromordinal(day)


def follow(conn: Any, tables: stored.Tables | None, config: Config, present: Mapping[Any, Mapping[str, Any]],
           absent: Iterable) -> int:
    """Keep dedup_matter (`tables`, as `tables_of` gave them) in step with rows changed
    (`present`, as read now) and removed (`absent`), in the caller's transaction (an
    SQLAlchemy connection of the source's engine): `follow_marks`. Returns how many rows of
    dedup_matter were written or removed (0 when the matters are not kept: `tables` None)."""
    if tables is None:
        return 0
    columns, id_column = columns_of(config), config.source.id_column
    return follow_marks(conn, tables, config, {row: mark(values, columns, id_column)
                                               for row, values in present.items()}, absent)


def follow_marks(conn: Any, tables: stored.Tables, config: Config, marks: Mapping[Any, core.Mark | None],
                 absent: Iterable) -> int:
    """dedup_matter with these rows' marks (None: the row has none now) and without the rows
    `absent`, one writer at a time (sql.matters.serialised): the parts they were and are in
    worked out again, whole. Returns how many rows of dedup_matter were written or removed."""
    table = config.source.table
    stored.serialised(conn, tables)
    touched = set(marks) | set(absent)
    new = {row: m for row, m in marks.items() if m is not None}
    before = stored.of_rows(conn, tables, table, touched)
    keys = {k for held in before.values() for k in held.keys} | {
        stored.key_hash(k) for m in new.values() for k in core.link_keys(m)}
    around, decided = _around(conn, tables, table, keys, before, touched)
    held_marks = {row: core.mark_from_json(held.mark) for row, held in around.items() if row not in touched}
    entries = entries_of({**held_marks, **new}, config.matters.window_days, decided)
    changed = [e for e in entries if e.row_id not in around or around[e.row_id].summary != stored.summary(e)]
    unmarked = set(around) - {e.row_id for e in entries}
    stored.replace(conn, tables, table, changed, [*unmarked, *(e.row_id for e in changed if e.row_id in around)])
    stored.record(conn, tables, table, stored.history({row: held.summary[1] for row, held in around.items()},
                                                      {e.row_id: e.matter for e in entries}))
    return len(changed) + len(unmarked)


def _around(conn: Any, tables: stored.Tables, table: str, keys: set[str], before: Mapping[Any, stored.Held],
            touched: set) -> tuple[dict[Any, stored.Held], stored.Decided]:
    """Every row whose matter may change with the rows touched (filed under these keys, and
    so on), with the matters reviewers put together with theirs, and what reviewers decided of
    them all."""
    around = {**_closure(conn, tables, table, keys), **before}
    while True:
        decided = stored.decided(conn, tables, table, set(around) | touched)
        partners = {row for pair in decided.together for row in pair} - set(around) - touched
        held = stored.of_rows(conn, tables, table, partners) if partners else {}
        if not held:  # none, or none marked: nothing more to read
            return around, decided
        around.update(held)
        around.update(_closure(conn, tables, table, {k for h in held.values() for k in h.keys}))


def decide(conn: Any, tables: stored.Tables, config: Config, verdict: str, row: Any, other: Any, matter: Any,
           reviewer: str) -> int:
    """Keep a reviewer's decision on matters (sql.matters: APART, BACK of `row`; TOGETHER,
    SEPARATE of the matters of `row` and `other`) and make dedup_matter obey it at once, in the
    caller's transaction (`follow_marks`: batches and `watch` obey it as they work parts out).
    Returns how many rows of dedup_matter changed."""
    table = config.source.table
    stored.serialised(conn, tables)
    held = stored.of_rows(conn, tables, table, [r for r in (row, other) if r is not None])
    stored.decide(conn, tables, table, verdict, row, other, matter, reviewer)
    return follow_marks(conn, tables, config, {r: core.mark_from_json(h.mark) for r, h in held.items()}, [])


def _closure(conn: Any, tables: stored.Tables, table: str, keys: set[str]) -> dict[Any, stored.Held]:
    """Every row filed under these keys, under those rows' keys, and so on: the parts they may join."""
    found: dict[Any, stored.Held] = {}
    seen: set[str] = set()
    while keys - seen:
        fresh = keys - seen
        seen |= fresh
        read = stored.of_keys(conn, tables, table, fresh)
        found.update(read)
        keys = seen | {k for held in read.values() for k in held.keys}
    return found
