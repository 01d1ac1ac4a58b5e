"""What reviewers decided, kept in `dedup_decision` in the source database (revision 0003):
append-only, each decision with the content hash both rows had when it was made. The last
decision of a pair stands; it is stale once either row has changed since, and the pair
goes back to the rule (and to the queue). Every path reads them through `verdicts` and
obeys them through `core.decision.obey`. Tables of one database share dedup_decision: a
decision is about two rows of the configured table, and only its decisions are read.

A decision can be made from what a reviewer saw (`seen`: the id of the latest decision
about the rows, 0 for none): it is refused (`Conflict`) when another has been made since,
the check and the write one at a time per table. An undo is an act of its own (its act
named `undo…`) that restores each pair's decision before the act undone, or, where there
was none, withdraws it (a row whose hashes are WITHDRAWN: it never stands).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import itertools
import json
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import sqlalchemy as sa

from ..core.decision import Verdict, pair_key
from ..core.features import content_hash
from ..errors import DedupError, InputError, UsageError
from .scoped import mine, tagged
from .source import SqlSource, SourceError

DECISION_TABLE = "dedup_decision"
SAME, DIFFERENT = "same", "different"
FIELDS = ("row_id", "other_id", "verdict", "reviewer", "decided_at", "note", "row_hash", "other_hash", "act",
          "proposed")
IN_IDS = 500  # ids per `IN (...)` of a lookup (asked of both columns)
UNDO = "undo"  # an undo's act begins so (never a uuid's hex, which is 0-9a-f)
WITHDRAWN = "withdrawn"  # the hashes of an undo of a pair's first decision: no row has them
LOCK_SECONDS = 10  # how long a decision waits for another being recorded on the same table


@dataclass(frozen=True)
class Decision:
    """One reviewer's decision about a pair (row_id before other_id, by pair_key)."""

    row_id: Any
    other_id: Any
    verdict: str
    reviewer: str
    decided_at: datetime | None
    note: str | None
    row_hash: str
    other_hash: str
    act: str
    proposed: str | None = None  # what the pipeline said of the pair then: auto, confirmed, possible, none
    stale: bool = False  # not kept: a row changed since (`history` says so), so it no longer stands
    id: int | None = field(default=None, compare=False)  # its place in dedup_decision, once read from it

    @property
    def pair(self) -> tuple[Any, Any]:
        return self.row_id, self.other_id

    @property
    def undo(self) -> bool:
        """Made by an undo (restoring the decision before the act undone, or withdrawing)."""
        return self.act.startswith(UNDO)

    @property
    def withdrawn(self) -> bool:
        """An undo of the pair's first decision: the pair has no decision again."""
        return self.row_hash == WITHDRAWN


class Conflict(DedupError):
    """A decision made from a view that is no longer current: `latest` is the decision made
    since, that the reviewer did not see (None: an undo found nothing of theirs to undo)."""

    def __init__(self, latest: Decision | None, message: str):
        super().__init__(message)
        self.latest = latest


def reflect(conn: sa.Connection) -> sa.Table:
    """dedup_decision, or an error saying to run `migrate` when it is not there."""
    if not sa.inspect(conn).has_table(DECISION_TABLE):
        raise SourceError(f"the source database has no {DECISION_TABLE} table: run `dedup-pipeline migrate` "
                          f"(or apply `dedup-pipeline migrate --sql`) first")
    return sa.Table(DECISION_TABLE, sa.MetaData(), autoload_with=conn)


def exists(source: SqlSource) -> bool:
    with source.errors("look for dedup_decision beside"), source.engine.connect() as conn:
        return sa.inspect(conn).has_table(DECISION_TABLE)


def record(source: SqlSource, pairs: Iterable[tuple[Any, Any]], verdict: str, reviewer: str,
           note: str | None = None, *, seen: int | None = None, among: Iterable[Any] | None = None) -> list[Decision]:
    """Decide these pairs (a group's decision is its pairs, made in one act), each with the
    content hash its rows have now; refused whole when a row is not in the table, and, when
    `seen` is given (the id of the latest decision about pairs of the rows `among` that the
    reviewer was shown, 0 for none), when another has been made since (`Conflict`)."""
    if verdict not in (SAME, DIFFERENT):
        raise UsageError(f"a verdict is {SAME!r} or {DIFFERENT!r}, not {verdict!r}")
    if not reviewer.strip():
        raise UsageError("a decision names its reviewer (--by NAME)")
    keyed = sorted({pair_key(a, b) for a, b in pairs if a != b}, key=lambda p: tuple(map(str, p)))
    if not keyed:
        raise InputError("a decision needs two different rows")
    hashes = current_hashes(source, {r for pair in keyed for r in pair})
    missing = sorted({r for pair in keyed for r in pair if r not in hashes}, key=str)
    if missing:
        raise InputError(f"no row with id {', '.join(map(str, missing[:5]))} in {source.config.source.table!r}: "
                         f"nothing was decided")
    act = uuid.uuid4().hex
    said = proposed(source, keyed)
    made = [Decision(a, b, verdict, reviewer.strip(), None, note, hashes[a], hashes[b], act, said[a, b])
            for a, b in keyed]
    rows = set(among) if among is not None else {r for pair in keyed for r in pair}
    with _one_at_a_time(source, "record decisions about rows of") as (conn, table):
        if seen is not None:
            _check_seen(_latest(conn, table, rows, source.config.source.table), seen)
        _insert(conn, table, made, source.config.source.table)
    return made


def _check_seen(latest: Decision | None, seen: int) -> None:
    """Refuse a decision made from a view that showed `seen` (0: none) as the latest decision."""
    if (latest.id if latest else 0) != seen:
        raise _since(latest)


def _since(latest: Decision | None) -> Conflict:
    """The refusal of a decision from a view older than `latest`, saying who decided what, when."""
    said = (f"{latest.reviewer} decided rows {latest.row_id} and {latest.other_id} {latest.verdict!r} "
            f"at {latest.decided_at}" if latest else "the decisions shown are gone")
    return Conflict(latest, f"{said} since this view was shown: nothing was decided; look again")


def undo(source: SqlSource, reviewer: str, act: str | None = None) -> list[Decision]:
    """Undo `reviewer`'s most recent act (only if it is `act`, when given), as an act of its
    own: each of its pairs gets a copy of its decision before it (hashes and all, so a stale
    one stays stale), or is withdrawn where it had none; refused (`Conflict`) when a pair
    has been decided since, or when the reviewer has nothing to undo."""
    name = source.config.source.table
    with _one_at_a_time(source, "undo a decision about rows of") as (conn, table):
        last = conn.execute(sa.select(table.c.act).where(table.c.reviewer == reviewer.strip(), mine(table, name))
                            .order_by(table.c.id.desc()).limit(1)).scalar()
        if last is None or (act is not None and last != act):
            raise Conflict(None, f"{reviewer} has no such decision to undo: it was undone, or they decided since")
        query = sa.select(table).where(table.c.act == last, mine(table, name)).order_by(table.c.id)
        undone = list({d.pair: d for d in map(_decision, conn.execute(query))}.values())
        decided = _among(conn, table, {r for d in undone for r in d.pair}, name)
        made = [_restored(d, [e for e in decided if e.pair == d.pair], reviewer.strip(), act=new)
                for new in [UNDO + uuid.uuid4().hex[:28]] for d in undone]
        _insert(conn, table, made, name)
    return made


def _restored(undone: Decision, decided: list[Decision], reviewer: str, act: str) -> Decision:
    """What undoing `undone` records of its pair (`decided`: the pair's decisions, oldest first)."""
    if decided[-1].act != undone.act:
        raise _since(decided[-1])
    before = [d for d in decided if d.id < undone.id]
    was = before[-1] if before else replace(undone, row_hash=WITHDRAWN, other_hash=WITHDRAWN)
    return replace(was, reviewer=reviewer, decided_at=None, note=None, act=act, stale=False, id=None)


def among(source: SqlSource, rows: Iterable[Any]) -> list[Decision]:
    """Every decision about a pair of these rows (a group's), oldest first, stale marked."""
    rows = set(rows)
    with source.errors("read the decisions about rows of"), source.engine.connect() as conn:
        if not sa.inspect(conn).has_table(DECISION_TABLE):
            return []
        decided = _among(conn, reflect(conn), rows, source.config.source.table)
    return [replace(d, stale=stale) for d, stale in zip(decided, changed(source, decided))]


def _among(conn: sa.Connection, table: sa.Table, rows: set, source_table: str) -> list[Decision]:
    """The decisions about a pair of these rows, oldest first."""
    query = _about_pairs_of(table, rows, source_table).order_by(table.c.id)
    return [_decision(row) for row in conn.execute(query)]


def _latest(conn: sa.Connection, table: sa.Table, rows: set, source_table: str) -> Decision | None:
    """The latest decision about a pair of these rows, None when there is none."""
    row = conn.execute(_about_pairs_of(table, rows, source_table).order_by(table.c.id.desc()).limit(1)).first()
    return _decision(row) if row is not None else None


def _about_pairs_of(table: sa.Table, rows: set, source_table: str) -> sa.Select:
    """The decisions about a pair of these rows of `source_table`, unordered."""
    rows_list = list(rows)
    return sa.select(table).where(table.c.row_id.in_(rows_list), table.c.other_id.in_(rows_list),
                                  mine(table, source_table))


@contextlib.contextmanager
def _one_at_a_time(source: SqlSource, doing: str) -> Iterator[tuple[sa.Connection, sa.Table]]:
    """A transaction (and dedup_decision) in which no other decision about rows of the
    configured table is checked or written: MySQL/MariaDB's named lock, SQLite's write lock
    (taken by a first, empty, update), so that a check and its write are one."""
    with source.errors(doing), source.engine.connect() as conn:
        table = reflect(conn)
        name = _lock_name(conn, source.config.source.table)
        if name and conn.execute(sa.text("SELECT GET_LOCK(:name, :seconds)"),
                                 {"name": name, "seconds": LOCK_SECONDS}).scalar() != 1:
            raise SourceError(f"cannot {doing} {source.config.source.table!r}: another decision was being "
                              f"recorded for {LOCK_SECONDS} s; try again")
        try:
            if conn.dialect.name == "sqlite":
                conn.execute(table.update().where(sa.false()).values(act=table.c.act))
            yield conn, table
            conn.commit()
        finally:
            if name:
                conn.rollback()
                conn.execute(sa.text("SELECT RELEASE_LOCK(:name)"), {"name": name})


def _lock_name(conn: sa.Connection, source_table: str) -> str | None:
    """The named lock of decisions about `source_table` (None where there are no named locks)."""
    if conn.dialect.name not in ("mysql", "mariadb"):
        return None
    where = f"{conn.engine.url.database}.{source_table}".encode()
    return "dedup_decision:" + hashlib.sha1(where).hexdigest()  # 55 characters: MySQL allows 64


def proposed(source: SqlSource, pairs: Sequence[tuple[Any, Any]]) -> dict[tuple[Any, Any], str]:
    """What the pipeline says of each pair now: its status in dedup_match (auto,
    confirmed), `possible` when both rows are in one item of the queue, else `none`."""
    from .matchtable import reflect as matches_table
    from .possible import reflect as possible_table

    rows = sorted({r for pair in pairs for r in pair}, key=str)
    with source.errors("read what was found of rows of"), source.engine.connect() as conn:
        said = {}
        matches = matches_table(conn)
        if matches is not None:
            status = matches.c.get("status")
            query = sa.select(matches.c.row_id, matches.c.similar_id, status if status is not None else sa.literal("auto"))
            query = query.where(matches.c.row_id.in_(rows), mine(matches, source.config.source.table))
            said = {(a, b): s for a, b, s in conn.execute(query)}
        items: dict[Any, set] = {}
        possible = possible_table(conn)
        if possible is not None:
            query = sa.select(possible.c.item, possible.c.row_id).where(
                possible.c.row_id.in_(rows), mine(possible, source.config.source.table))
            for item, row in conn.execute(query):
                items.setdefault(row, set()).add(item)
    return {(a, b): said.get((a, b)) or ("possible" if items.get(a, set()) & items.get(b, set()) else "none")
            for a, b in pairs}


def write(source: SqlSource, decisions: Sequence[Decision]) -> list[Decision]:
    """Append these decisions about rows of the configured table in one transaction, in
    order (`id` is the order they stand in); a `decided_at` of None is the server's now."""
    with source.errors("record decisions about rows of"), source.engine.begin() as conn:
        _insert(conn, reflect(conn), decisions, source.config.source.table)
    return list(decisions)


def _insert(conn: sa.Connection, table: sa.Table, decisions: Sequence[Decision], source_table: str) -> None:
    rows = [{k: v for k, v in _kept(d).items() if not (k == "decided_at" and v is None)} for d in decisions]
    rows = [{**row, **tagged(table, source_table)} for row in rows]
    for _, alike in itertools.groupby(rows, key=lambda row: "decided_at" in row):  # a statement a run
        conn.execute(table.insert(), list(alike))


def current_hashes(source: SqlSource, ids: Iterable[Any]) -> dict[Any, str]:
    """{row: its content hash as a decision records it} of the rows the table has: the
    configured fields only, so that a change of scheme settings leaves decisions standing."""
    ids = list(ids)
    fields = source.config.fields
    return {row[source.config.source.id_column]: content_hash(row, fields) for row in source.rows_by_id(ids)} \
        if ids else {}


def every(source: SqlSource) -> list[Decision]:
    """Every decision about rows of the configured table, oldest first."""
    with source.errors("read the decisions about rows of"), source.engine.connect() as conn:
        table = reflect(conn)
        query = sa.select(table).where(mine(table, source.config.source.table)).order_by(table.c.id)
        return [_decision(row) for row in conn.execute(query)]


def acts_since(source: SqlSource, since: datetime) -> int:
    """How many acts (a pair decided, or a group decided as one) were recorded since then."""
    with source.errors("count the decisions about rows of"), source.engine.connect() as conn:
        table = reflect(conn)
        return conn.execute(sa.select(sa.func.count(sa.distinct(table.c.act))).where(
            table.c.decided_at >= since, mine(table, source.config.source.table))).scalar_one()


def touching(source: SqlSource, ids: Iterable[Any]) -> list[Decision]:
    """The decisions about a pair with one of these rows in it, oldest first."""
    with source.errors("read the decisions about rows of"), source.engine.connect() as conn:
        if not sa.inspect(conn).has_table(DECISION_TABLE):
            return []
        return _touching(conn, reflect(conn), ids, source.config.source.table)


def _touching(conn: sa.Connection, table: sa.Table, ids: Iterable[Any], source_table: str) -> list[Decision]:
    """The decisions about a pair of rows of `source_table` with one of these rows in it, oldest first."""
    ids = list(set(ids))
    found: dict[int, Decision] = {}
    for start in range(0, len(ids), IN_IDS):
        part = ids[start:start + IN_IDS]
        query = sa.select(table).where(table.c.row_id.in_(part) | table.c.other_id.in_(part),
                                       mine(table, source_table))
        found.update((row.id, _decision(row)) for row in conn.execute(query))
    return [found[n] for n in sorted(found)]


def history(source: SqlSource, a: Any, b: Any) -> list[Decision]:
    """Every decision about the pair (a, b), oldest first."""
    key = pair_key(a, b)
    decided = [d for d in touching(source, [a]) if d.pair == key]
    return [replace(d, stale=stale) for d, stale in zip(decided, changed(source, decided))]


def verdicts(source: SqlSource, ids: Iterable[Any] | None = None) -> dict[tuple[Any, Any], Verdict]:
    """{pair: the verdict that stands} of every pair decided (or of those with one of `ids`
    in them): the last decision of each, stale when a row has changed since or is gone."""
    if ids is None:
        return standing(source, every(source) if exists(source) else [])
    return standing(source, touching(source, ids))


def standing(source: SqlSource, decided: Sequence[Decision]) -> dict[tuple[Any, Any], Verdict]:
    """The verdict of each pair from its decisions, oldest first (`verdicts`)."""
    last = [d for d in {d.pair: d for d in decided}.values() if not d.withdrawn]  # withdrawn: no decision
    return {d.pair: Verdict(d.verdict == SAME, stale) for d, stale in zip(last, changed(source, last))}


def changed(source: SqlSource, decided: Sequence[Decision]) -> list[bool]:
    """Whether a row of each decision has changed since it was made, or is gone."""
    hashes = current_hashes(source, {r for d in decided for r in d.pair})
    return [hashes.get(d.row_id) != d.row_hash or hashes.get(d.other_id) != d.other_hash for d in decided]


def reader(source: SqlSource) -> Callable[[Iterable[Any]], dict[tuple[Any, Any], Verdict]] | None:
    """`verdicts` of pairs with one of some rows, for Incremental.verdicts (the table
    reflected once: a worker asks on every batch); None when the source database has no
    dedup_decision (migrate not run since it came)."""
    with source.errors("look for dedup_decision beside"), source.engine.connect() as conn:
        if not sa.inspect(conn).has_table(DECISION_TABLE):
            return None
        table = reflect(conn)

    def read(ids: Iterable[Any]) -> dict[tuple[Any, Any], Verdict]:
        ids = list(ids)
        if not ids:
            return {}
        with source.errors("read the decisions about rows of"), source.engine.connect() as conn:
            decided = _touching(conn, table, ids, source.config.source.table)
        return standing(source, decided) if decided else {}

    return read


def export(decisions: Iterable[Decision], out: Any, fmt: str) -> int:
    """Write decisions to the open text file `out` as csv or jsonl; returns how many."""
    n = 0
    if fmt == "csv":
        writer = csv.DictWriter(out, FIELDS)
        writer.writeheader()
    for n, d in enumerate(decisions, 1):
        row = {k: (v.isoformat(sep=" ") if isinstance(v, datetime) else v) for k, v in _kept(d).items()}
        if fmt == "csv":
            writer.writerow(row)
        else:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return n


def parse(lines: Iterable[str], name: str) -> Iterator[Decision]:
    """Decisions read from an export (csv with its header, or jsonl, by the first line)."""
    lines = iter(lines)
    first = next(lines, "")
    if first.lstrip().startswith("{"):
        records: Iterable[Mapping[str, Any]] = (json.loads(line) for line in [first, *lines] if line.strip())
    else:
        records = csv.DictReader([first, *lines])
    for n, r in enumerate(records, 1):
        try:
            verdict = r["verdict"]
            if verdict not in (SAME, DIFFERENT):
                raise ValueError(f"verdict {verdict!r}")
            at = r.get("decided_at") or None
            a, b = pair_key(r["row_id"], r["other_id"])
            yield Decision(a, b, verdict, r["reviewer"], datetime.fromisoformat(at) if at else None,
                           r.get("note") or None, r["row_hash"], r["other_hash"], r.get("act") or uuid.uuid4().hex,
                           r.get("proposed") or None)
        except (KeyError, ValueError, TypeError, json.JSONDecodeError) as e:
            raise InputError(f"{name}: decision {n} cannot be read ({type(e).__name__}: {e}); "
                             f"give a file `decisions --format csv|jsonl` wrote") from None


class Precision(NamedTuple):
    """What the reviewers' decisions tell of the rule on this table: of the audit's pairs
    decided (抽检, sql.queue.audit), how many were the same (with a 95% Wilson interval),
    how many pairs the audit drew, and of the queue's items."""

    confirmed: int
    decided: int
    low: float
    high: float
    queue_same: int
    queue_decided: int
    sampled: int = 0


def precision(decided: Iterable[Decision], audited: Iterable[tuple] = (), sampled: int = 0) -> Precision:
    """The rule's precision, estimated from the last decision of each of the audit's pairs
    decided (`audited`, of the `sampled` drawn: a random sample of the rule's pairs, never
    the pairs decided on the way), and the queue's share of duplicates; a group decided is
    one item."""
    last = {d.pair: d for d in decided}
    last = {pair: d for pair, d in last.items() if not d.withdrawn}
    audit = [last[pair] for pair in set(audited) if pair in last]
    items = {d.act: d.verdict == SAME for d in last.values() if d.proposed == "possible"}
    same = sum(d.verdict == SAME for d in audit)
    return Precision(same, len(audit), *wilson(same, len(audit)), sum(items.values()), len(items), sampled)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre, half = p + z * z / (2 * n), z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


def _kept(d: Decision) -> dict[str, Any]:
    """A decision's columns in dedup_decision."""
    return {k: getattr(d, k) for k in FIELDS}


def _decision(row: sa.Row) -> Decision:
    return Decision(row.row_id, row.other_id, row.verdict, row.reviewer, row.decided_at, row.note,
                    row.row_hash, row.other_hash, row.act, row.proposed, id=row.id)
