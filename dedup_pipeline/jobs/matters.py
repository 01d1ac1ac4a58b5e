"""The matters stage (热点事项) every path shares: each row's mark (core.matters: its object,
problem, day and writer) read from the configured columns (`[matters]`), matters as the
connected parts of the links between marks, and dedup_matter kept as they are (sql/matters.py).

The first batch marks every row in its sketching workers and writes what changed
(`settle_all`; Spark's reads the table for them, `find`); a night, `watch`, `add` and the
batch's replay mark the rows that changed and work out again only the parts they were and
are in (`settle_changed`, `follow`): a part no changed row was in keeps its links, so the
new parts are the changed rows with the old parts they link with, and one row at a time
gives the batch's partition."""

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
    table, window = config.source.table, config.matters.window_days
    stored.serialised(conn, tables)
    touched = set(marks) | set(absent)
    new = {row: m for row, m in marks.items() if m is not None}
    before = stored.of_rows(conn, tables, table, touched)
    around, decided = _around(conn, tables, table, window, new, before, touched)
    held_marks = {row: core.mark_from_json(held.mark) for row, held in around.items() if row not in touched}
    entries = entries_of({**held_marks, **new}, window, decided)
    unmarked = set(around) - {e.row_id for e in entries}
    written = stored.keep(conn, tables, table, entries, {row: held.summary for row, held in around.items()}, unmarked)
    stored.record(conn, tables, table, stored.history({row: held.matter for row, held in around.items()},
                                                      {e.row_id: e.matter for e in entries}))
    return written + len(unmarked)


def _around(conn: Any, tables: stored.Tables, table: str, window: int, new: Mapping[Any, core.Mark],
            before: Mapping[Any, stored.Held], touched: set) -> tuple[dict[Any, stored.Held], stored.Decided]:
    """Every row whose matter may change with the rows touched: the parts they were in
    (`before`) and the parts their new marks (`new`) link with, whole, with the matters
    reviewers put together with any of them; and what reviewers decided of them all.

    A part untouched before keeps its links, so the new parts are the touched rows and the
    old parts they link with. A row in a matter brings the matter's rows at once; a row in
    none (its part one person's) brings the rows it links with, followed in turn."""
    around = dict(before)
    parts = _Parts(conn, tables, table, window, around)
    parts.reach(before.values(), [(row, core.mark_from_json(h.mark)) for row, h in before.items()
                                  if h.matter is None])
    parts.follow(list(new.items()), touched)
    while True:
        decided = stored.decided(conn, tables, table, set(around) | touched)
        partners = {row for pair in decided.together for row in pair} - set(around) - touched
        held = stored.of_rows(conn, tables, table, partners) if partners else {}
        if not held:  # none, or none marked: nothing more to read
            return around, decided
        around.update(held)
        parts.reach(held.values(), [(row, core.mark_from_json(h.mark)) for row, h in held.items()
                                    if h.matter is None])


class _Parts:
    """Reads the parts of rows reached into `around`: a matter's rows by its id, a row in
    none by the rows it links with (those filed under its keys), until nothing new is reached."""

    def __init__(self, conn: Any, tables: stored.Tables, table: str, window: int, around: dict) -> None:
        self.conn, self.tables, self.table, self.window, self.around = conn, tables, table, window, around
        self.filed: dict[str, set] = {}  # key -> the rows filed under it, for the keys read
        self.read: dict[Any, stored.Held] = {}  # what was read of the rows filed under them
        self.marks: dict[Any, core.Mark] = {}

    def reach(self, held: Iterable[stored.Held], loose: list[tuple[Any, core.Mark]]) -> None:
        """The matters of these rows read whole, and the parts of the rows in none (`loose`) followed."""
        matters = {h.matter for h in held if h.matter is not None}
        if matters:
            self.around.update(stored.of_matters(self.conn, self.tables, self.table, matters))
        if loose:
            self.follow(loose, set())

    def follow(self, marked: list[tuple[Any, core.Mark]], skip: set) -> None:
        """The rows these marks link with (not in `skip`), and their parts, until no row is new."""
        while marked:
            filed = [(m, [stored.key_hash(k) for k in core.link_keys(m)]) for _, m in marked]
            self._read_keys({key for _, keys in filed for key in keys})
            joined = {row: self.read[row] for m, keys in filed for key in keys for row in self.filed[key]
                      if row not in self.around and row not in skip and core.linked(m, self._mark(row), self.window)}
            self.around.update(joined)
            matters = {h.matter for h in joined.values() if h.matter is not None}
            if matters:
                self.around.update(stored.of_matters(self.conn, self.tables, self.table, matters))
            marked = [(row, self._mark(row)) for row, h in joined.items() if h.matter is None]

    def _read_keys(self, keys: set[str]) -> None:
        """The rows filed under those of these keys not read yet, and what is held of them."""
        fresh = keys - set(self.filed)
        if fresh:
            filed = stored.filed_under(self.conn, self.tables, self.table, fresh)
            self.filed.update(filed)
            unread = set().union(*filed.values()) - set(self.read) - set(self.around)
            self.read.update(stored.of_rows(self.conn, self.tables, self.table, unread))

    def _mark(self, row: Any) -> core.Mark:
        if row not in self.marks:
            self.marks[row] = core.mark_from_json(self.read[row].mark)
        return self.marks[row]


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
