"""Matters (热点事项) in the source database (revisions 0007, 0008): `dedup_matter`, one row per
row of the table with a mark (core.matters), with its matter and the matter's object, problem,
days, people and rows; `dedup_matter_key`, the keys each is filed under; `dedup_matter_event`,
the matters merged, split and renamed (`record`). The batch writes what
changed since the last (`write`); `watch` keeps them in step row by row (`filed_under`,
`keep`); reports and `check` read them (`matters`, `matter_of`, `events`). Several tables of one
database share both, each row naming its table (`source_table`, scoped.py)."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import sqlalchemy as sa

from .scoped import SOURCE_TABLE
from .source import IN_IDS, SqlSource

MATTER_TABLE, KEY_TABLE, EVENT_TABLE, DECISION_TABLE = ("dedup_matter", "dedup_matter_key", "dedup_matter_event",
                                                      "dedup_matter_decision")
APART, BACK, TOGETHER, SEPARATE = "apart", "back", "together", "separate"  # what reviewers decide (`decide`)
CHUNK = 5000  # rows per INSERT statement


class Entry(NamedTuple):
    """One marked row as dedup_matter keeps it: its mark (JSON), keys, and its matter's
    summary (matter None: no second person wrote about it)."""

    row_id: Any
    mark: str
    keys: tuple[str, ...]
    day: dt.date
    object: str
    problem: str
    matter: Any
    first: dt.date
    last: dt.date
    people: int
    rows: int


class Tables(NamedTuple):
    matter: sa.Table
    key: sa.Table
    event: sa.Table
    decision: sa.Table


def key_hash(key: Any) -> str:
    """A link key as dedup_matter_key files it: 16 hex digits of its text's BLAKE2b."""
    return hashlib.blake2b(repr(key).encode("utf-8"), digest_size=8).hexdigest()


def reflect(conn: sa.Connection) -> Tables | None:
    """The matters' tables of this database, or None before `migrate` made them."""
    inspector = sa.inspect(conn)
    names = (MATTER_TABLE, KEY_TABLE, EVENT_TABLE, DECISION_TABLE)
    if not all(inspector.has_table(name) for name in names):
        return None
    meta = sa.MetaData()
    return Tables(*(sa.Table(name, meta, autoload_with=conn) for name in names))


class Held(NamedTuple):
    """What dedup_matter holds of a row: its mark (JSON) and its entry as `summary` makes it."""

    mark: str
    summary: tuple

    @property
    def matter(self) -> Any:
        """The row's matter as held (None: in none)."""
        return self.summary[1]


def held(conn: sa.Connection, tables: Tables, source_table: str) -> dict[Any, tuple]:
    """{row id: its entry as `summary` makes it} of every marked row of the table."""
    m = tables.matter
    rows = conn.execute(sa.select(*_summarised(m)).where(m.c[SOURCE_TABLE] == source_table))
    return {r.row_id: _summary_of(r) for r in rows}


def filed(conn: sa.Connection, tables: Tables, source_table: str) -> dict[Any, tuple[str, ...]]:
    """{row id: the keys it is filed under, sorted} of every marked row of the table."""
    k = tables.key
    keys: dict[Any, list[str]] = {}
    for row, key in conn.execute(sa.select(k.c.row_id, k.c.link_key).where(k.c[SOURCE_TABLE] == source_table)).all():
        keys.setdefault(row, []).append(key)
    return {row: tuple(sorted(held)) for row, held in keys.items()}


def _summarised(m: sa.Table) -> list[sa.Column]:
    return [m.c.row_id, m.c.mark, m.c.matter_id, m.c.first_day, m.c.last_day, m.c.people, m.c.rows]


def _summary_of(r: Any) -> tuple:
    return r.mark, r.matter_id, _day(r.first_day), _day(r.last_day), r.people, r.rows


def summary(entry: Entry) -> tuple:
    """What of an entry `held` compares: a row whose summary is unchanged need not be written."""
    return entry.mark, entry.matter, entry.first, entry.last, entry.people, entry.rows


def write(conn: sa.Connection, tables: Tables, source_table: str, entries: Iterable[Entry]) -> tuple[int, int]:
    """Make the table's matters these entries, writing only the rows that changed and
    removing those no longer marked, and recording what became of the matters' ids:
    (rows written, rows removed)."""
    before = held(conn, tables, source_table)
    entries = list(entries)
    now = {e.row_id for e in entries}
    gone = [row for row in before if row not in now]
    written = keep(conn, tables, source_table, entries, before, gone, filed(conn, tables, source_table))
    record(conn, tables, source_table, history({row: s[1] for row, s in before.items()},
                                               {e.row_id: e.matter for e in entries}))
    return written, len(gone)


def keep(conn: sa.Connection, tables: Tables, source_table: str, entries: Sequence[Entry],
         before: Mapping[Any, tuple], gone: Iterable, keys: Mapping[Any, tuple] | None = None) -> int:
    """dedup_matter with these entries where they differ from what it held (`before`: row ->
    `summary`; `keys`, row -> its keys sorted, when other rules may have filed a mark under
    other keys), and without the rows `gone`. A row whose mark and keys are unchanged only
    takes its matter's new summary, one UPDATE a matter (a row joining a matter of 300 changes
    300 summaries, not 300 marks). Returns how many entries were written."""
    fresh, marked = [], []
    for e in entries:
        held = before.get(e.row_id)
        if held is None or held[0] != e.mark or (keys is not None and keys.get(e.row_id, ()) != tuple(sorted(e.keys))):
            fresh.append(e)
        elif held != summary(e):
            marked.append(e)
    replace(conn, tables, source_table, fresh, [*gone, *(e.row_id for e in fresh if e.row_id in before)])
    _summarise(conn, tables, source_table, marked)
    return len(fresh) + len(marked)


def _summarise(conn: sa.Connection, tables: Tables, source_table: str, entries: Sequence[Entry]) -> None:
    """These rows' matter and its summary written over what was held, one UPDATE for the rows of one summary."""
    m = tables.matter
    by_summary: dict[tuple, list] = {}
    for e in entries:
        by_summary.setdefault((e.matter, e.object[:191], e.problem[:64], e.first, e.last, e.people, e.rows),
                              []).append(e.row_id)
    for (matter, obj, problem, first, last, people, count), rows in by_summary.items():
        values = {"matter_id": matter, "object": obj, "problem": problem, "first_day": first, "last_day": last,
                  "people": people, "rows": count}
        for start in range(0, len(rows), IN_IDS):
            conn.execute(m.update().where(m.c[SOURCE_TABLE] == source_table,
                                          m.c.row_id.in_(rows[start:start + IN_IDS])).values(values))


class Event(NamedTuple):
    """What became of a matter's id: `kind` (merged, split, renamed), the matter whose rows
    moved (`other`), the matter they are in now (`matter`), how many."""

    kind: str
    matter: Any
    other: Any
    rows: int


def history(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> list[Event]:
    """The events between two assignments of rows to matters ({row: matter id}, None: in
    none; rows of only one side came or went, which merges and splits nothing): a matter
    that took rows of two matters or more merged them; a matter whose rows went to two or
    more split; one whose rows all went to one other, which took none from elsewhere, was
    renamed (its smallest row went, or an older row joined it)."""
    moved: dict[tuple[Any, Any], int] = {}
    for row, was in before.items():
        now = after.get(row)
        if was is not None and now is not None:
            moved[was, now] = moved.get((was, now), 0) + 1
    sources: dict[Any, set] = {}
    targets: dict[Any, set] = {}
    for was, now in moved:
        sources.setdefault(now, set()).add(was)
        targets.setdefault(was, set()).add(now)
    events = []
    for (was, now), rows in sorted(moved.items(), key=str):
        if was == now:
            continue
        if len(targets[was]) > 1:
            events.append(Event("split", now, was, rows))
        if len(sources[now]) > 1:
            events.append(Event("merged", now, was, rows))
        elif len(targets[was]) == 1:
            events.append(Event("renamed", now, was, rows))
    return events


def record(conn: sa.Connection, tables: Tables, source_table: str, events: Sequence[Event]) -> None:
    """Keep these events, dated now (UTC)."""
    if events:
        at = _utc_now()
        conn.execute(tables.event.insert(), [{SOURCE_TABLE: source_table, "matter_id": e.matter, "kind": e.kind,
                                               "other_id": e.other, "rows": e.rows, "at": at} for e in events])


def _utc_now() -> dt.datetime:
    """Now, in UTC to the second, as the matters' tables keep their times."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)


def events(source: SqlSource, written: str) -> list[tuple[dt.datetime, Event]]:
    """What became of other matters' ids in the matter of this id (written as text), and of
    its own, oldest first."""
    def query(tables: Tables, ids: list) -> sa.Select:
        e = tables.event
        return sa.select(e).where(e.c[SOURCE_TABLE] == source.config.source.table,
                                  sa.or_(e.c.matter_id.in_(ids), e.c.other_id.in_(ids))).order_by(e.c.id)
    read = _about(source, written, query)
    return [(r.at, Event(r.kind, r.matter_id, r.other_id, r.rows)) for r in read]


def replace(conn: sa.Connection, tables: Tables, source_table: str, entries: Sequence[Entry],
            forget: Sequence) -> None:
    """Forget the rows `forget` (and their keys), then write `entries` (rows not held, or forgotten)."""
    m, k = tables.matter, tables.key
    for start in range(0, len(forget), IN_IDS):
        part = list(forget[start:start + IN_IDS])
        for table in (m, k):
            conn.execute(table.delete().where(table.c[SOURCE_TABLE] == source_table, table.c.row_id.in_(part)))
    for start in range(0, len(entries), CHUNK):
        part = entries[start:start + CHUNK]
        conn.execute(m.insert(), [{SOURCE_TABLE: source_table, "row_id": e.row_id, "matter_id": e.matter,
                                   "object": e.object[:191], "problem": e.problem[:64], "day": e.day,
                                   "first_day": e.first, "last_day": e.last, "people": e.people, "rows": e.rows,
                                   "mark": e.mark} for e in part])
        keys = {(key, e.row_id) for e in part for key in e.keys}
        if keys:
            conn.execute(k.insert(), [{SOURCE_TABLE: source_table, "link_key": key, "row_id": row}
                                      for key, row in sorted(keys, key=str)])


def filed_under(conn: sa.Connection, tables: Tables, source_table: str, keys: Iterable[str]) -> dict[str, set]:
    """The rows filed under each of these keys (a key none is filed under: no rows), locked
    (and the keys' gaps: InnoDB) until the caller's transaction ends."""
    k = tables.key
    keys = sorted(set(keys))
    filed: dict[str, set] = {key: set() for key in keys}
    for start in range(0, len(keys), IN_IDS):
        for key, row in conn.execute(sa.select(k.c.link_key, k.c.row_id).where(
                k.c[SOURCE_TABLE] == source_table, k.c.link_key.in_(keys[start:start + IN_IDS])).with_for_update()).all():
            filed[key].add(row)
    return filed


def of_matters(conn: sa.Connection, tables: Tables, source_table: str, matters: Iterable) -> dict[Any, Held]:
    """What dedup_matter holds of every row of these matters, locked until the caller's transaction ends."""
    return _held_in(conn, tables, source_table, tables.matter.c.matter_id, matters)


def of_rows(conn: sa.Connection, tables: Tables, source_table: str, rows: Iterable) -> dict[Any, Held]:
    """What dedup_matter holds of these rows, those marked; locked until the caller's transaction ends."""
    return _held_in(conn, tables, source_table, tables.matter.c.row_id, rows)


def _held_in(conn: sa.Connection, tables: Tables, source_table: str, column: sa.Column, values: Iterable
             ) -> dict[Any, Held]:
    """What dedup_matter holds of its rows whose `column` is one of these values, locked."""
    m = tables.matter
    values = sorted(set(values), key=str)
    found: dict[Any, Held] = {}
    for start in range(0, len(values), IN_IDS):
        read = conn.execute(sa.select(*_summarised(m)).where(m.c[SOURCE_TABLE] == source_table,
                                                             column.in_(values[start:start + IN_IDS]))
                            .with_for_update()).all()
        found.update((r.row_id, Held(r.mark, _summary_of(r))) for r in read)
    return found


def _about(source: SqlSource, written: str, query: Callable[[Tables, list], sa.Select]) -> list:
    """What a query of the matters' tables reads about the matter of an id written as text
    (the ids it may be), none before `migrate` made the tables."""
    ids = source.written_ids(written)
    with source.errors("read the matters of"), source.engine.connect() as conn:
        tables = reflect(conn)
        return [] if tables is None else conn.execute(query(tables, ids)).all()


class Decided(NamedTuple):
    """What reviewers decided of matters, as it holds now: rows in no matter whatever they
    name (`apart`), and pairs of rows whose matters are one (`together`, each pair sorted)."""

    apart: frozenset = frozenset()
    together: frozenset = frozenset()


def decided(conn: sa.Connection, tables: Tables, source_table: str, rows: Iterable | None = None) -> Decided:
    """What reviewers decided, as it holds now (the last decision on a row, or a pair, holds):
    of every row, or of these rows (a pair with one of them in it)."""
    d = tables.decision
    query = sa.select(d.c.id, d.c.row_id, d.c.other_id, d.c.verdict).where(d.c[SOURCE_TABLE] == source_table)
    if rows is None:
        read = conn.execute(query).all()
    else:
        wanted = sorted(set(rows), key=str)
        read = [r for start in range(0, len(wanted), IN_IDS) for r in conn.execute(query.where(sa.or_(
            d.c.row_id.in_(wanted[start:start + IN_IDS]), d.c.other_id.in_(wanted[start:start + IN_IDS]))))]
    last: dict[Any, str] = {}
    for r in sorted({r.id: r for r in read}.values(), key=lambda r: r.id):
        last[about(r.row_id, r.other_id)] = r.verdict
    return Decided(frozenset(row for row, verdict in last.items() if verdict == APART),
                   frozenset(pair for pair, verdict in last.items() if verdict == TOGETHER))


def about(row: Any, other: Any = None) -> Any:
    """What a decision is about, as `decided` keys it: its row, or its pair of rows in one
    order whichever way it was written."""
    return row if other is None else tuple(sorted((row, other), key=str))


def decide(conn: sa.Connection, tables: Tables, source_table: str, verdict: str, row: Any, other: Any,
           matter: Any, reviewer: str) -> None:
    """Keep a reviewer's decision (`verdict` of row, or of the pair row, other), made looking at `matter`."""
    conn.execute(tables.decision.insert().values(**{SOURCE_TABLE: source_table}, row_id=row, other_id=other,
                                                 matter_id=matter, verdict=verdict, reviewer=reviewer,
                                                 decided_at=_utc_now()))


class Decision(NamedTuple):
    """A reviewer's decision on a matter, as its page lists it."""

    verdict: str
    row: Any
    other: Any
    reviewer: str
    at: dt.datetime


def decisions_on(source: SqlSource, written: str) -> list[Decision]:
    """The decisions reviewers made looking at the matter of this id (written as text), oldest first."""
    def query(tables: Tables, ids: list) -> sa.Select:
        d = tables.decision
        return sa.select(d).where(d.c[SOURCE_TABLE] == source.config.source.table,
                                  d.c.matter_id.in_(ids)).order_by(d.c.id)
    read = _about(source, written, query)
    return [Decision(r.verdict, r.row_id, r.other_id, r.reviewer, r.decided_at) for r in read]


class Counts(NamedTuple):
    marked: int
    matters: int
    in_matters: int


def counts(conn: sa.Connection, tables: Tables, source_table: str) -> Counts:
    """The table's marked rows, matters, and rows in them."""
    m = tables.matter
    mine = m.c[SOURCE_TABLE] == source_table
    marked, in_matters, matters_ = conn.execute(sa.select(
        sa.func.count(), sa.func.count(m.c.matter_id), sa.func.count(sa.distinct(m.c.matter_id))).where(mine)).one()
    return Counts(marked, matters_, in_matters)


def serialised(conn: sa.Connection, tables: Tables) -> None:
    """One writer of a part at a time, to the end of the caller's transaction: two workers
    working a part out from what each read would each write half of it. SQLite: its write
    lock, taken before reading (a write that changes nothing); MySQL and MariaDB: `filed_under`
    and `of_rows` lock what they read and the gaps beside (InnoDB's next-key locks), so a row
    another worker files under those keys waits."""
    if conn.dialect.name == "sqlite":
        key = tables.key
        conn.execute(key.update().where(sa.false()).values(row_id=key.c.row_id))


class Matter(NamedTuple):
    """A matter as staff see it: its id, rows (by day), object, problem, people, first and last day."""

    matter: Any
    rows: list
    object: str
    problem: str
    people: int
    first: dt.date
    last: dt.date


def matters(source: SqlSource) -> list[Matter]:
    """Every matter of the configured table, the largest first (by people, then rows)."""
    found: dict[Any, Matter] = {}
    for r in _in_matters(source):
        held = found.get(r.matter_id)
        if held is None:
            found[r.matter_id] = Matter(r.matter_id, [r.row_id], r.object, r.problem, r.people, _day(r.first_day),
                                        _day(r.last_day))
        else:
            held.rows.append(r.row_id)
    return sorted(found.values(), key=lambda m: (-m.people, -len(m.rows), str(m.matter)))


def _in_matters(source: SqlSource) -> Iterator[Any]:
    with source.errors("read the matters of"), source.engine.connect() as conn:
        tables = reflect(conn)
        if tables is None:
            return
        m = tables.matter
        yield from conn.execute(sa.select(m).where(m.c[SOURCE_TABLE] == source.config.source.table,
                                                   m.c.matter_id.is_not(None)).order_by(m.c.matter_id, m.c.day,
                                                                                       m.c.row_id))


def matter_of(source: SqlSource, row_id: Any) -> Matter | None:
    """The matter a row belongs to, with all its rows; None when it belongs to none."""
    with source.errors("read the matter of a row of"), source.engine.connect() as conn:
        tables = reflect(conn)
        if tables is None:
            return None
        m = tables.matter
        table = source.config.source.table
        matter = conn.execute(sa.select(m.c.matter_id).where(m.c[SOURCE_TABLE] == table,
                                                             m.c.row_id == row_id)).scalar()
        if matter is None:
            return None
        rows = conn.execute(sa.select(m).where(m.c[SOURCE_TABLE] == table, m.c.matter_id == matter)
                            .order_by(m.c.day, m.c.row_id)).all()
    first = rows[0]
    return Matter(matter, [r.row_id for r in rows], first.object, first.problem, first.people,
                  _day(first.first_day), _day(first.last_day))


def _day(value: Any) -> dt.date:
    """A DATE as read (SQLite gives text)."""
    return dt.date.fromisoformat(value) if isinstance(value, str) else value
