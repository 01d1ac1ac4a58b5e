"""The server's binary log, for `watch --from binlog` (jobs/binlog.py), in SQL: whether the
server logs what the worker needs, where its log ends now, whether a position can still
be read, and the position the worker has reached.

The position is kept in `dedup_binlog_position` (one row per followed table), written in
the same transaction as the dedup_match writes it stands for, so it is never ahead of the
work; rows whose processing failed with both servers up are kept in `dedup_binlog_failed`
with their error. `batch` sets a new position when the stored one cannot be followed (none
yet, purged, or the worker stopped at a change it cannot follow): `baseline` before it
reads the table, `set_baseline` when it is done. The replication stream itself is
binlogstream.py's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from ..config import Config, mask_url
from .matchtable import INCREMENTAL, MATCH_TABLE
from .scoped import mine
from .source import SourceError, SqlSource, parse_url

POSITION_TABLE = "dedup_binlog_position"
FAILED_TABLE = "dedup_binlog_failed"
ERROR_CHARS = 2000  # of an error kept in last_error
ACCESS_DENIED = (1045, 1227, 1142, 1044)  # MySQL's codes for a privilege the account lacks
PARSE_ERROR = 1064
SETUP_HINT = "`dedup-pipeline migrate --from binlog --sql` shows the settings and grants"


class BinlogError(SourceError):
    """The binary log cannot be followed from where the worker is; the message says why
    and what to do, in one line."""


@functools.total_ordering
@dataclass(frozen=True)
class Position:
    """A place in the binary log: a file and the offset in it where the next event starts."""

    file: str
    offset: int

    def __str__(self) -> str:
        return f"{self.file}:{self.offset}"

    def _key(self) -> tuple:
        base, _, number = self.file.rpartition(".")  # binlog.000012: files are numbered in order
        return (base, int(number), self.offset) if number.isdigit() else (self.file, 0, self.offset)

    def __lt__(self, other: Position) -> bool:
        return self._key() < other._key()


@dataclass(frozen=True)
class Stored:
    """A row of dedup_binlog_position."""

    position: Position
    gtid: str | None
    stopped: str | None  # why the worker cannot go on from here, until `batch` sets a new position
    set_by: str


@dataclass(frozen=True)
class Settings:
    """What the server says about its binary log."""

    log_bin: bool
    binlog_format: str
    binlog_row_image: str
    binlog_row_metadata: str  # "" where the server has no such setting (before MySQL 8.0.14, MariaDB 10.5)
    version: str

    def missing(self) -> list[str]:
        """What the worker needs and the server does not do, each as a setting to make."""
        if not self.log_bin:
            return ["log_bin (binary logging is off: start the server with log-bin)"]
        wrong = []
        if self.binlog_format.upper() != "ROW":
            wrong.append(f"binlog_format=ROW (it is {self.binlog_format})")
        if self.binlog_row_image.upper() != "FULL":
            wrong.append(f"binlog_row_image=FULL (it is {self.binlog_row_image})")
        return wrong

    @property
    def names_logged(self) -> bool:
        """Whether row events name their columns (then an ALTER TABLE cannot mislead the worker)."""
        return self.binlog_row_metadata.upper() == "FULL"


def settings(conn: sa.Connection) -> Settings:
    log_bin, fmt, image, version = conn.execute(sa.text(
        "SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image, VERSION()")).one()
    metadata = conn.execute(sa.text("SHOW GLOBAL VARIABLES LIKE 'binlog_row_metadata'")).first()
    return Settings(str(log_bin) in ("1", "ON"), str(fmt), str(image), str(metadata[1]) if metadata else "",
                    str(version))


def current(conn: sa.Connection) -> Position | None:
    """Where the server's binary log ends now (None: binary logging is off)."""
    try:
        status = conn.exec_driver_sql("SHOW MASTER STATUS").first()
    except sa.exc.ProgrammingError as e:  # MySQL 8.4 knows only the new name
        if _code(e) != PARSE_ERROR:
            raise
        status = conn.exec_driver_sql("SHOW BINARY LOG STATUS").first()
    return Position(status[0], int(status[1])) if status else None


def logs(conn: sa.Connection) -> dict[str, int]:
    """The server's binary log files and their sizes, oldest first."""
    return {row[0]: int(row[1]) for row in conn.exec_driver_sql("SHOW BINARY LOGS")}


def unreadable(position: Position, files: Mapping[str, int]) -> str | None:
    """Why the log cannot be read from `position`, or None when it can."""
    if position.file not in files:
        names = list(files)
        if names and position < Position(names[0], 0):
            return f"its file {position.file} has been purged (the oldest log is {names[0]})"
        return (f"its file {position.file} is not among the server's binary logs "
                f"({', '.join(names[:1] + names[-1:]) or 'none'}): the log was reset, or is another server's")
    if position.offset > files[position.file]:
        return (f"{position.file} holds {files[position.file]:,} bytes, not {position.offset:,}: "
                f"the log was reset, or is another server's")
    return None


def missing_grants(conn: sa.Connection) -> list[str]:
    """The replication privileges the account lacks that a query can show: REPLICATION
    CLIENT (BINLOG MONITOR in MariaDB 10.5+) reads the log's files and end. REPLICATION
    SLAVE, which reads the log itself, is tried by binlogstream.can_read."""
    try:
        logs(conn)
        current(conn)
    except sa.exc.DBAPIError as e:
        if _code(e) in ACCESS_DENIED:
            return ["REPLICATION CLIENT"]
        raise
    return []


# -- the worker's tables


def position_table(conn: sa.Connection) -> sa.Table | None:
    """dedup_binlog_position, or None before `migrate --from binlog` made it."""
    return _reflect(conn, POSITION_TABLE)


def failed_table(conn: sa.Connection) -> sa.Table | None:
    return _reflect(conn, FAILED_TABLE)


def _reflect(conn: sa.Connection, name: str) -> sa.Table | None:
    if not sa.inspect(conn).has_table(name):
        return None
    return sa.Table(name, sa.MetaData(), autoload_with=conn)


def stored(conn: sa.Connection, table: sa.Table, source_table: str, lock: bool = False) -> Stored | None:
    """The position stored for `source_table`; with `lock`, locked until the transaction
    ends (a second worker, or a batch setting a new one, waits)."""
    query = sa.select(table).where(table.c.source_table == source_table)
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        return None
    return Stored(Position(row.log_file, int(row.log_pos)), row.gtid, row.stopped, row.set_by)


def store(conn: sa.Connection, table: sa.Table, source_table: str, position: Position, *, set_by: str,
          gtid: str | None = None, stopped: str | None = None) -> None:
    """Write the position of `source_table` (in the caller's transaction)."""
    values = {"log_file": position.file, "log_pos": position.offset, "gtid": gtid, "stopped": stopped,
              "set_by": set_by, "updated_at": sa.func.now(6)}
    statement = mysql.insert(table).values(source_table=source_table, **values)
    conn.execute(statement.on_duplicate_key_update(**{k: statement.inserted[k] for k in values}))


def failed_rows(conn: sa.Connection, table: sa.Table, source_table: str) -> list:
    return [r[0] for r in conn.execute(sa.select(table.c.row_id).where(table.c.source_table == source_table)
                                       .order_by(table.c.row_id))]


def record_failed(conn: sa.Connection, table: sa.Table, source_table: str, errors: Mapping[Any, str]) -> None:
    """Keep these rows with their errors (an attempt more for a row kept already)."""
    for row, error in sorted(errors.items(), key=lambda item: str(item[0])):
        statement = mysql.insert(table).values(source_table=source_table, row_id=row, attempts=1,
                                               last_error=error[:ERROR_CHARS], failed_at=sa.func.now(6))
        conn.execute(statement.on_duplicate_key_update(attempts=table.c.attempts + 1,
                                                       last_error=statement.inserted.last_error,
                                                       failed_at=statement.inserted.failed_at))


def forget_failed(conn: sa.Connection, table: sa.Table, source_table: str, rows: Iterable) -> None:
    rows = list(rows)
    if rows:
        conn.execute(table.delete().where(table.c.source_table == source_table, table.c.row_id.in_(rows)))


# -- how far behind the log the worker is (`status`)


@dataclass(frozen=True)
class Lag:
    """The stored position of a table against the server's binary log: `stored` (None: none
    yet, `batch` stores the first), `age`, the seconds since it was stored (the server's
    clock), `end`, where the log ends now (None: binary logging is off), `behind`, the bytes
    of log after the position (None when it cannot be read from there, `unreadable` saying
    why, or binary logging is off)."""

    stored: Stored | None
    age: float | None
    end: Position | None
    behind: int | None
    unreadable: str | None = None


def lag(conn: sa.Connection, table: sa.Table, source_table: str) -> Lag:
    """How far the position stored for `source_table` is behind the end of the log. A worker
    following the log stores its position at least every POSITION_EVERY_S (jobs/binlog.py)
    while the log moves; so a position behind the end and stored long ago is a worker that
    is not following."""
    held = stored(conn, table, source_table)
    end = current(conn)
    if held is None:
        return Lag(None, None, end, None)
    stored_at, now = conn.execute(sa.select(table.c.updated_at, sa.func.now(6))
                                  .where(table.c.source_table == source_table)).one()
    age = max(0.0, (now - stored_at).total_seconds())
    if end is None:
        return Lag(held, age, None, None)
    files = logs(conn)
    why = unreadable(held.position, files)
    return Lag(held, age, end, None if why else between(held.position, end, files), why)


def between(start: Position, end: Position, files: Mapping[str, int]) -> int:
    """The bytes of log from `start` to `end` (0 when `start` is not before it), the files in
    between counted whole, as `logs` gives their sizes."""
    if not start < end:
        return 0
    if start.file == end.file:
        return end.offset - start.offset
    later = [name for name in files if start < Position(name, 0) and Position(name, 0) < Position(end.file, 0)]
    return files.get(start.file, start.offset) - start.offset + sum(files[name] for name in later) + end.offset


# -- a new position, set by a batch


@dataclass(frozen=True)
class Baseline:
    """The position a batch stores when done: where the log was before it read the table."""

    position: Position
    reason: str  # why the stored position is replaced


def baseline(config: Config) -> Baseline | None:
    """Before a batch reads the table: None unless the binlog path is set up (its position
    table is there) and the stored position cannot be followed (none yet, purged, or
    stopped). Then the server's position now, for `set_baseline` once the batch is done,
    and the table's incremental rows of dedup_match are forgotten, in case changes the
    worker never read made them stale: the batch writes the table's pairs."""
    with SqlSource(config) as source, source.errors("set a binary log position for"), \
            source.engine.begin() as conn:
        table = position_table(conn)
        if table is None:
            return None
        reason = _replaced(conn, table, config.source.table)
        if reason is None:
            return None
        now = _current_or_refuse(conn, config)
        matches = sa.Table(MATCH_TABLE, sa.MetaData(), autoload_with=conn)
        conn.execute(matches.delete().where(matches.c.source == INCREMENTAL, mine(matches, config.source.table)))
        return Baseline(now, reason)


def set_baseline(config: Config, base: Baseline) -> None:
    """Store the position a batch took before it read the table."""
    with SqlSource(config) as source, source.errors("store the binary log position of"), \
            source.engine.begin() as conn:
        table = position_table(conn)
        stored(conn, table, config.source.table, lock=True)
        store(conn, table, config.source.table, base.position, set_by="batch")


def _replaced(conn: sa.Connection, table: sa.Table, source_table: str) -> str | None:
    held = stored(conn, table, source_table)
    if held is None:
        return "no position was stored yet"
    if held.stopped:
        return f"the worker stopped at {held.position}"
    why = unreadable(held.position, logs(conn))
    return f"the stored position {held.position} cannot be read: {why}" if why else None


def _current_or_refuse(conn: sa.Connection, config: Config) -> Position:
    try:
        now = current(conn)
    except sa.exc.DBAPIError as e:
        if _code(e) in ACCESS_DENIED:
            raise BinlogError(f"{_where(config)}: cannot read where the binary log ends, for `watch --from "
                              f"binlog`: the account needs REPLICATION CLIENT; {SETUP_HINT}") from None
        raise
    if now is None:
        raise BinlogError(f"{_where(config)}: binary logging is off, and `migrate --from binlog` set up "
                          f"`watch --from binlog`: start the server with log-bin; {SETUP_HINT}")
    return now


# -- what a DBA reviews


def setup_sql(config: Config) -> str:
    """The server settings and grants `watch --from binlog` needs, as SQL comments and GRANT
    statements for the configured account, database and table."""
    url = parse_url(config.source.url)
    account = f"'{url.username or 'dedup'}'@'%'"
    db = url.database or "petitions"
    q = lambda name: f"`{name}`"
    lines = [
        f"-- dedup-pipeline watch --from binlog: follows {db}.{config.source.table} in the server's binary log.",
        "-- The server's settings (my.cnf, [mysqld]; log_bin takes a restart):",
        "--   log_bin = binlog             binary logging on",
        "--   binlog_format = ROW           each changed row logged, not the statement",
        "--   binlog_row_image = FULL       (the default)",
        "--   binlog_row_metadata = FULL    advised (MySQL 8.0.14+, MariaDB 10.5+): rows name their columns,",
        "--                                 so an ALTER TABLE never makes the worker misread an id",
        "--   expire_logs_days (MariaDB) or binlog_expire_logs_seconds (MySQL): longer than the worker may",
        "--     be stopped; a position purged from the log needs `dedup-pipeline batch` to set a new one",
        f"-- The worker's account ({account}: the user of [source] url; make it first with CREATE USER):",
        f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {account};",
        f"GRANT SELECT ON {q(db)}.{q(config.source.table)} TO {account};",
        *(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {q(db)}.{q(name)} TO {account};"
          for name in (MATCH_TABLE, POSITION_TABLE, FAILED_TABLE)),
        "-- The tables (no trigger, no outbox):",
        "",
    ]
    return "\n".join(lines)


def _where(config: Config) -> str:
    return mask_url(config.source.url)


def _code(error: sa.exc.DBAPIError) -> int | None:
    args = getattr(getattr(error, "orig", None), "args", ())
    return args[0] if args and isinstance(args[0], int) else None
