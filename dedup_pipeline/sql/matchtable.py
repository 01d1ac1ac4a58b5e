"""Similar pairs into `dedup_match`, the source database's table of matches (created by
`dedup-pipeline migrate`), written by `watch` (source "incremental") and `batch`.

Every pair is stored in both directions, so a row's matches are one primary-key range
read. Writes are upserts (MySQL `INSERT ... ON DUPLICATE KEY UPDATE`, SQLite `ON
CONFLICT DO UPDATE`), so writing the same pairs twice leaves them once. Several tables of
one database share it, each pair naming its table (`source_table`, scoped.py): every
function here reads and writes the pairs of one table.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.dialects import mysql, sqlite

from ..config import Config
from ..core.decision import AUTO, CONFIRMED  # dedup_match.status: the rule's pair, or a reviewer's
from .scoped import SOURCE_TABLE, mine, tagged
from .source import SqlSource

MATCH_TABLE = "dedup_match"
INCREMENTAL, BATCH = "incremental", "batch"
CHUNK = 5000  # rows per INSERT statement
DIGITS = 4  # a distance's decimals (1 - similarity is rounded to 4; a FLOAT column holds about 7 digits)

Pair = tuple[Any, Any, float]  # (row id, similar row id, distance)


def reflect(conn: sa.Connection) -> sa.Table | None:
    """The dedup_match table of this database, or None before `migrate` created it."""
    if not sa.inspect(conn).has_table(MATCH_TABLE):
        return None
    return sa.Table(MATCH_TABLE, sa.MetaData(), autoload_with=conn)


def both_directions(pairs: Iterable[Pair], source: str, confirmed: frozenset | None = None) -> list[dict]:
    """The rows of dedup_match for these pairs: (a, b) and (b, a), sorted by key so that
    concurrent writers lock rows in the same order; with their status when `confirmed`
    (the pairs a reviewer made the same) is given."""
    rows = {}
    for a, b, distance in pairs:
        status = {} if confirmed is None else {"status": CONFIRMED if (a, b) in confirmed else AUTO}
        for x, y in ((a, b), (b, a)):
            rows[(x, y)] = {"row_id": x, "similar_id": y, "distance": float(distance), "source": source, **status}
    return [rows[key] for key in sorted(rows)]


def upsert(conn: sa.Connection, table: sa.Table, rows: Sequence[dict], source_table: str) -> None:
    """Insert these rows, pairs of `source_table`; a pair already there takes the new distance and source."""
    mark = tagged(table, source_table)
    for start in range(0, len(rows), CHUNK):
        conn.execute(_upsert_statement(conn, table), [{**row, **mark} for row in rows[start:start + CHUNK]])


def _upsert_statement(conn: sa.Connection, table: sa.Table) -> sa.Insert:
    taken = ["distance", "source"] + (["status"] if "status" in table.c else [])
    if conn.dialect.name in ("mysql", "mariadb"):
        statement = mysql.insert(table)
        return statement.on_duplicate_key_update({c: statement.inserted[c] for c in taken})
    if conn.dialect.name == "sqlite":
        statement = sqlite.insert(table)
        key = [table.c.row_id, table.c.similar_id, *(table.c[c] for c in (SOURCE_TABLE,) if c in table.c)]
        return statement.on_conflict_do_update(index_elements=key, set_={c: statement.excluded[c] for c in taken})
    raise NotImplementedError(f"dedup_match upserts are written for MySQL/MariaDB and SQLite, "
                              f"not {conn.dialect.name}")


def forget_rows(conn: sa.Connection, table: sa.Table, row_ids: Sequence, source_table: str) -> None:
    """Delete every match of these rows of `source_table`, both directions (each an indexed lookup)."""
    if row_ids:
        conn.execute(table.delete().where(table.c.row_id.in_(row_ids), mine(table, source_table)))
        conn.execute(table.delete().where(table.c.similar_id.in_(row_ids), mine(table, source_table)))


def partners(conn: sa.Connection, table: sa.Table, row_ids: Sequence, source_table: str,
             distance: float | None = None) -> dict[Any, set]:
    """{row: the rows it is paired with (at `distance`, if given)} for these rows of
    `source_table` (those that have any)."""
    found: dict[Any, set] = {}
    if row_ids:
        query = sa.select(table.c.row_id, table.c.similar_id).where(table.c.row_id.in_(row_ids),
                                                                     mine(table, source_table))
        if distance is not None:
            query = query.where(table.c.distance == distance)
        for row, similar in conn.execute(query):
            found.setdefault(row, set()).add(similar)
    return found


def pairs_among(conn: sa.Connection, table: sa.Table, rows: Sequence, source_table: str) -> set[tuple[Any, Any]]:
    """The pairs stored between these rows of `source_table`, both directions, locked until
    the transaction ends: a concurrent writer of one of them waits, and then writes it again."""
    if not rows:
        return set()
    among = set(rows)  # filtered here: SQLite takes the square of the rows to filter both sides
    query = sa.select(table.c.row_id, table.c.similar_id).where(table.c.row_id.in_(rows), mine(table, source_table))
    return {(a, b) for a, b in conn.execute(query.with_for_update()) if b in among}


def forget_pairs(conn: sa.Connection, table: sa.Table, pairs: Iterable[tuple[Any, Any]], source_table: str) -> None:
    """Delete these pairs of `source_table`, both directions."""
    keys = sorted({key for a, b in pairs for key in ((a, b), (b, a))})
    for a, b in keys:
        conn.execute(table.delete().where(table.c.row_id == a, table.c.similar_id == b, mine(table, source_table)))


class SqlMatches:
    """dedup_match in one transaction, as `matches.Matches`: the pairs of `source_table`,
    written as `source`."""

    def __init__(self, conn: sa.Connection, table: sa.Table, source: str, source_table: str):
        self.conn, self.table, self.source, self.source_table = conn, table, source, source_table

    def forget_rows(self, rows: Sequence) -> None:
        forget_rows(self.conn, self.table, rows, self.source_table)

    def write(self, pairs: Iterable[Pair], confirmed: frozenset = frozenset()) -> None:
        status = confirmed if "status" in self.table.c else None  # before revision 0003 there is none
        upsert(self.conn, self.table, both_directions(pairs, self.source, status), self.source_table)

    def partners(self, rows: Sequence, distance: float | None = None) -> dict[Any, set]:
        return partners(self.conn, self.table, rows, self.source_table, distance)

    def distances(self, rows: Sequence) -> dict[tuple[Any, Any], float]:
        """{(row, partner): distance} of the pairs stored of these rows."""
        query = sa.select(self.table.c.row_id, self.table.c.similar_id, self.table.c.distance)
        return {(a, b): x for a, b, x in self.conn.execute(
            query.where(self.table.c.row_id.in_(rows), mine(self.table, self.source_table)))} if rows else {}

    def pairs_among(self, rows: Sequence) -> set[tuple[Any, Any]]:
        return pairs_among(self.conn, self.table, rows, self.source_table)

    def forget_pairs(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        forget_pairs(self.conn, self.table, pairs, self.source_table)


def write_batch(config: Config, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray,
                confirmed: np.ndarray | None = None, then: Callable[[], Any] = lambda: None) -> int | None:
    """Make dedup_match hold exactly these pairs (positions into `ids`), both ways, in one
    transaction, each with its status (`confirmed`: those a reviewer made the same; the
    others `auto`): the rows it holds otherwise (an earlier batch's, or a worker's that a
    change since made stale) deleted, those missing or changed written, the rest left.
    `then` is called once they are written, before the transaction commits (whether or not
    the table exists): the batch's switch, so that dedup_match changes with it and only
    with it. Only the configured table's pairs are touched (several tables share
    dedup_match). Returns the rows it holds, or None when the table does not exist (the
    migrations were not applied)."""
    with SqlSource(config) as source, source.errors("write the batch's pairs to dedup_match for"), \
            source.engine.begin() as conn:
        table = reflect(conn)
        if table is None:
            then()
            return None
        status = table.c.get("status")  # before revision 0003 there is none
        made = np.zeros(len(i), bool) if confirmed is None else confirmed
        wanted = {}
        for x, y, z, c in zip(i.tolist(), j.tolist(), d.tolist(), made.tolist()):
            wanted[ids[x], ids[y]] = wanted[ids[y], ids[x]] = (round(float(z), DIGITS), CONFIRMED if c else AUTO)
        stale = []
        held = [table.c.row_id, table.c.similar_id, table.c.distance] + ([status] if status is not None else [])
        for a, b, distance, *was in conn.execute(sa.select(*held).where(mine(table, config.source.table))):
            if wanted.get((a, b)) == (round(distance, DIGITS), was[0] if was else AUTO):
                del wanted[a, b]  # held as it is
            else:
                stale.append({"a": a, "b": b})
        for start in range(0, len(stale), CHUNK):
            conn.execute(table.delete().where(table.c.row_id == sa.bindparam("a"),
                                              table.c.similar_id == sa.bindparam("b"),
                                              mine(table, config.source.table)), stale[start:start + CHUNK])
        rows = [{"row_id": a, "similar_id": b, "distance": z, "source": BATCH, **({"status": s} if status is not None else {})}
                for (a, b), (z, s) in sorted(wanted.items())]
        upsert(conn, table, rows, config.source.table)  # a worker may have written one since the read
        then()
        return 2 * len(i)
