"""The server's binary log as plain events, read by PyPI's `mysql-replication` (package
`pymysqlreplication`) in a thread of its own, so that the worker takes whatever has arrived
at once and waits for more without blocking on the socket.

Only what the worker needs leaves the thread: where each transaction begins (its GTID) and
ends (the position after it), the ids of the configured table's rows each row event holds
(inserted, deleted, and both images of an update, so that a changed id is seen both ways),
and every other statement (DDL), classified by `touches`: a statement that changes the
table whole (ALTER, RENAME, DROP, TRUNCATE, or a change logged as a statement) ends the
reading, for the worker to decide what to do before any row logged after it is read.

A lost connection is never resumed here: the library would reconnect in the middle of a
transaction, and the worker restarts from the last position it stored instead.

Table ids: a row event names its table by an id that the table-map event before it, in the
same transaction, maps to a table. The library keeps that map across transactions and reads
the table-map events of the configured table only, while a restarted server numbers its
tables again: another table may take the id the configured table had, and its rows would be
decoded by the configured table's stale map (misread, or `AssertionError: Result length not
requested length`). So the map is forgotten as each transaction begins (`_forget_table_ids`),
and a row event whose table map was skipped is another table's, which the library passes
over. That reaches into the library: it is done for its REPLICATION_SERIES only.
"""

from __future__ import annotations

import logging
import queue
import random
import re
import socket
import threading
from dataclasses import dataclass
from importlib import metadata
from typing import Any, NamedTuple

import pymysql

from ..config import Config, mask_url
from .binlog import ACCESS_DENIED, SETUP_HINT, BinlogError, Position
from .source import parse_url

# The library's advice on binlog_row_metadata is ours to give (binlog.setup_sql), once.
logging.getLogger("pymysqlreplication").setLevel(logging.ERROR)

LOST = (2006, 2013)  # the server has gone away, the connection was lost
CANNOT_READ = 1236  # the server cannot send the log from there (purged, corrupt)
HEARTBEAT_S = 1.0  # the server says it is there this often when the log is quiet
READ_TIMEOUT_S = 30.0  # no packet for this long, heartbeats included: the connection is dead
QUEUE_EVENTS = 20_000  # events read ahead of the worker at most
STANDALONE = 1  # MariaDB's GTID flag: the group is one statement (DDL), without BEGIN and COMMIT
REPLICATION_SERIES = "1.0"  # of mysql-replication, whose `table_map` this module clears
REPLICATION_REQUIREMENT = "mysql-replication>=1.0.9,<1.1"  # pyproject's [binlog] says the same


# -- what leaves the reading thread


class Begin(NamedTuple):
    """A transaction (event group) begins."""

    gtid: str | None
    standalone: bool  # one statement, no BEGIN nor COMMIT (MariaDB's DDL)


class Rows(NamedTuple):
    """Ids of the table's rows one row event changed."""

    ids: tuple


class Commit(NamedTuple):
    """The transaction ends: committed (XID, COMMIT), or ROLLBACK (logged only when a
    non-transactional table, which keeps its changes, was written)."""

    after: Position


class Statement(NamedTuple):
    """A statement logged as such (DDL, mostly), and what it does to the table, if anything."""

    text: str
    after: Position
    touching: str | None  # touches()'s kind, None when the table is not concerned


class Moved(NamedTuple):
    """Any other event: where the log is now (a boundary when no transaction is open)."""

    after: Position


class End(NamedTuple):
    """The end of the log (reading without blocking), or of the reading (a statement touching the table)."""


class Failed(NamedTuple):
    error: BaseException


Event = Begin | Rows | Commit | Statement | Moved | End | Failed


# -- the table's id in a row event


class LayoutError(BinlogError):
    """A row event whose columns are not the table's as the worker read it."""


@dataclass(frozen=True)
class IdColumn:
    """Where a row event holds the id: by name when the log names columns
    (binlog_row_metadata = FULL), else by position, the table's as it was read, checked
    against the event's column count and the value's type."""

    table: str
    name: str
    ordinal: int  # 0-based, in the table as read
    columns: int  # how many columns the table had
    integer: bool  # whether ids are whole numbers

    def value(self, values: dict, logged: int) -> Any:
        if self.name in values:
            return values[self.name]
        value = values.get(f"UNKNOWN_COL{self.ordinal}")
        if logged != self.columns:
            raise LayoutError(f"a row event of {self.table} has {logged} columns where the table had "
                              f"{self.columns} as the worker read it: {ALTERED}")
        if value is not None and isinstance(value, int) != self.integer:
            raise LayoutError(f"a row event of {self.table} holds {type(value).__name__} values where the id "
                              f"column {self.name} is in the table as the worker read it: {ALTERED}")
        return value


ALTERED = ("the table was altered after this point of the log, and the log does not name its columns "
           "(binlog_row_metadata = FULL would)")


def ids_of(event: Any, id_column: IdColumn) -> tuple:
    """The ids a row event of the table holds: every row's, both images of an update."""
    logged = len(event.columns)
    found = []
    for row in event.rows:
        for key in ("values", "before_values", "after_values"):
            if key in row:
                found.append(id_column.value(row[key], logged))
    return tuple(found)


# -- statements that change the table whole

_COMMENTS = re.compile(r"/\*(?!!).*?\*/|/\*!\d*|\*/|(?:--\s|#)[^\n]*", re.S)  # /*!...*/ is kept: MySQL runs it
_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_QUALIFIED = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_PARTS = re.compile(rf"(?:({_NAME})\s*\.\s*)?({_NAME})")
_ALTER = re.compile(rf"alter\s+(?:online\s+)?(?:ignore\s+)?table\s+(?:if\s+exists\s+)?({_QUALIFIED})", re.I)
_RENAMES = re.compile(r"\brename\s+(?!column\b|index\b|key\b|constraint\b|partition\b)", re.I)
_RENAME_PAIRS = re.compile(rf"({_QUALIFIED})\s+to\s+({_QUALIFIED})", re.I)
_DROP = re.compile(r"drop\s+(?:temporary\s+)?tables?\s+(?:if\s+exists\s+)?", re.I)
_DROP_TAIL = re.compile(r"\s+(?:wait\s+\d+|nowait|restrict|cascade)\b.*$", re.I | re.S)
_DROP_DATABASE = re.compile(rf"drop\s+(?:database|schema)\s+(?:if\s+exists\s+)?({_NAME})", re.I)
_TRUNCATE = re.compile(rf"truncate\s+(?:table\s+)?({_QUALIFIED})", re.I)
# A plain CREATE TABLE of the table follows its DROP or RENAME, which stopped the worker already;
# CREATE TABLE IF NOT EXISTS of a table that is there changes nothing.
_REPLACE = re.compile(rf"create\s+or\s+replace\s+(?:temporary\s+)?table\s+({_QUALIFIED})", re.I)
_DML = re.compile(r"(?:insert|replace|update|delete|load\s+data)\b", re.I)


def touches(statement: str, default_schema: str, schema: str, table: str) -> str | None:
    """What a statement logged as a statement does to `schema`.`table`: "altered",
    "renamed", "dropped", "truncated", "replaced" (another table renamed or created in its
    place), "statement" (its rows changed by a statement: binlog_format was not ROW for
    that session), or None. Pure."""
    text = _COMMENTS.sub(" ", statement).strip()

    def ours(name: str) -> bool:
        owner, named = _PARTS.fullmatch(name.strip()).groups()
        return (_unquoted(owner) if owner else default_schema) == schema and _unquoted(named) == table

    if re.match(r"alter\s+(?:online\s+)?(?:ignore\s+)?table\b", text, re.I):
        target = _ALTER.match(text)
        if not (target and ours(target.group(1))):
            return None
        return "renamed" if _RENAMES.search(text, target.end()) else "altered"
    if re.match(r"rename\s+tables?\b", text, re.I):
        pairs = _RENAME_PAIRS.findall(re.sub(r"(?i)^rename\s+tables?\s+", "", text))
        if any(ours(old) for old, _ in pairs):
            return "renamed"
        return "replaced" if any(ours(new) for _, new in pairs) else None
    if _DROP.match(text):
        listed = _DROP_TAIL.sub("", _DROP.sub("", text, count=1))
        return "dropped" if any(ours(name) for name in re.findall(_QUALIFIED, listed)) else None
    if _DROP_DATABASE.match(text):
        return "dropped" if _unquoted(_DROP_DATABASE.match(text).group(1)) == schema else None
    if _TRUNCATE.match(text):
        return "truncated" if ours(_TRUNCATE.match(text).group(1)) else None
    if _REPLACE.match(text):
        return "replaced" if ours(_REPLACE.match(text).group(1)) else None
    if _DML.match(text):
        return "statement" if any(ours(name) for name in re.findall(_QUALIFIED, text)) else None
    return None


def _unquoted(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


# -- reading


def connection_settings(config: Config) -> dict[str, Any]:
    """pymysql's settings for the source URL's server and account."""
    url = parse_url(config.source.url)
    settings: dict[str, Any] = {"host": url.host or "localhost", "port": url.port or 3306,
                                "user": url.username or "", "password": url.password or "",
                                "connect_timeout": 5, "read_timeout": READ_TIMEOUT_S, "charset": "utf8mb4"}
    query = dict(url.query)
    if "unix_socket" in query:
        settings["unix_socket"] = query["unix_socket"]
    ssl = {key[len("ssl_"):]: value for key, value in query.items() if key.startswith("ssl_")}
    if ssl:
        settings["ssl"] = ssl
    return settings


class _Connection(pymysql.connections.Connection):
    """A connection whose loss is an error, not something the library retries in the
    middle of a transaction (binlogstream's docstring)."""

    def _read_packet(self, packet_type: Any = pymysql.protocol.MysqlPacket) -> Any:
        try:
            return super()._read_packet(packet_type)
        except pymysql.err.OperationalError as e:
            if e.args and e.args[0] in LOST:
                raise StreamLost(f"the connection reading the binary log was lost: {e.args[-1]}") from None
            raise


class StreamLost(ConnectionError):
    """The connection reading the log is gone (the server went away)."""


class Stream:
    """The binary log from `start`, read in a thread of its own into a queue of plain
    events. `blocking`: wait for new events at the end of the log (else End there)."""

    def __init__(self, config: Config, start: Position, id_column: IdColumn, *, blocking: bool,
                 server_id: int = 0):
        try:
            from pymysqlreplication import BinLogStreamReader
        except ImportError:
            raise BinlogError("--from binlog reads the binary log with PyPI's mysql-replication, which is not "
                              "installed: pip install 'dedup-pipeline[binlog]'") from None

        _check_version()
        self.config, self.id_column, self.start = config, id_column, start
        self.schema = parse_url(config.source.url).database or ""
        self.events: queue.Queue = queue.Queue(QUEUE_EVENTS)
        self.closing = threading.Event()
        self.reader = BinLogStreamReader(
            connection_settings(config), server_id=server_id or random.randint(2**31, 2**32 - 1),
            log_file=start.file, log_pos=start.offset, resume_stream=True, blocking=blocking,
            only_schemas=[self.schema], only_tables=[config.source.table], only_events=_wanted(),
            slave_heartbeat=HEARTBEAT_S if blocking else None, pymysql_wrapper=_Connection, enable_logging=False,
            ignore_decode_errors=True)  # only the id is read: another column's bytes are not ours to decode
        self.thread = threading.Thread(target=self._read, name="binlog-reader", daemon=True)
        self.thread.start()

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event, or None when none comes within `timeout` seconds (0: none waiting)."""
        try:
            return self.events.get(timeout=timeout) if timeout else self.events.get_nowait()
        except queue.Empty:
            return None

    def close(self) -> None:
        """Stop reading and close the connections."""
        self.closing.set()
        connection = getattr(self.reader, "_stream_connection", None)
        sock = getattr(connection, "_sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # a read blocked on it returns
            except OSError:
                pass
        self.thread.join(timeout=READ_TIMEOUT_S)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self) -> None:
        try:
            try:
                for event in iter(self.reader.fetchone, None):
                    if self.closing.is_set():
                        return
                    plain = self._plain(event)
                    if isinstance(plain, Begin):
                        self._forget_table_ids()
                    if plain is not None and not self._put(plain):
                        return
                    if isinstance(plain, Statement) and plain.touching:
                        break  # the worker decides before anything after it is read
                self._put(End())
            finally:
                self.reader.close()
        except BaseException as e:  # noqa: BLE001 - every failure goes to the worker
            if not self.closing.is_set():
                self._put(Failed(self._explained(e)))

    def _forget_table_ids(self) -> None:
        """Forget which table each table id named: a transaction's row events are decoded by
        the table maps of that transaction only (the module's docstring)."""
        self.reader.table_map.clear()

    def _put(self, event: Event) -> bool:
        while not self.closing.is_set():
            try:
                self.events.put(event, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _plain(self, event: Any) -> Event | None:
        from pymysqlreplication import event as ev
        from pymysqlreplication import row_event as rows

        after = Position(self.reader.log_file, int(self.reader.log_pos))
        if isinstance(event, (rows.WriteRowsEvent, rows.UpdateRowsEvent, rows.DeleteRowsEvent)):
            return Rows(ids_of(event, self.id_column))
        if isinstance(event, ev.MariadbGtidEvent):
            return Begin(event.gtid, bool(event.flags & STANDALONE))
        if isinstance(event, ev.GtidEvent):
            return Begin(event.gtid, False)  # MySQL: a transaction has its BEGIN
        if isinstance(event, ev.XidEvent):
            return Commit(after)
        if isinstance(event, ev.QueryEvent):
            return self._query(event, after)
        if isinstance(event, ev.HeartbeatLogEvent):
            return None
        return Moved(after)

    def _query(self, event: Any, after: Position) -> Event:
        text = event.query if isinstance(event.query, str) else event.query.decode("utf-8", "replace")
        word = text.strip().rstrip(";").upper()
        if word == "BEGIN":
            return Begin(None, False)
        if word in ("COMMIT", "ROLLBACK"):
            return Commit(after)
        schema = event.schema.decode("utf-8", "replace") if isinstance(event.schema, bytes) else event.schema
        return Statement(text, after, touches(text, schema or "", self.schema, self.config.source.table))

    def _explained(self, error: BaseException) -> BaseException:
        """The library's and the server's errors as ours, in one line."""
        if isinstance(error, (BinlogError, StreamLost)):
            return error
        code = error.args[0] if isinstance(error, pymysql.err.MySQLError) and error.args else None
        where = mask_url(self.config.source.url)
        if code == CANNOT_READ:
            return BinlogError(f"{where} cannot send its binary log from {self.start}: {error.args[-1]}; "
                               f"run `dedup-pipeline batch`: it files the table as it is and sets a new position")
        if code in ACCESS_DENIED:
            return BinlogError(f"{where} refuses to send its binary log to this account ({error.args[-1]}): it "
                               f"needs REPLICATION SLAVE; {SETUP_HINT}")
        return error


def _check_version() -> None:
    """Refuse, in one line, a mysql-replication of another series than the one this module
    reaches into (its table maps)."""
    found = metadata.version("mysql-replication")
    if found.split(".")[:2] != REPLICATION_SERIES.split("."):
        raise BinlogError(f"mysql-replication {found} is installed, but `--from binlog` is written for its "
                          f"{REPLICATION_SERIES}.x releases: pip install '{REPLICATION_REQUIREMENT}'")


def _wanted() -> list:
    from pymysqlreplication import event as ev
    from pymysqlreplication import row_event as rows

    return [rows.WriteRowsEvent, rows.UpdateRowsEvent, rows.DeleteRowsEvent, ev.MariadbGtidEvent, ev.GtidEvent,
            ev.XidEvent, ev.QueryEvent, ev.RotateEvent, ev.HeartbeatLogEvent, ev.MariadbGtidListEvent,
            ev.MariadbBinLogCheckPointEvent, ev.FormatDescriptionEvent]


GRANT_PROBE = Position("dedup-grant-probe.000001", 4)  # no such file: a server that lets the account read says so


def can_read(config: Config) -> bool:
    """Whether the account may read the binary log (REPLICATION SLAVE): the server checks
    the grant before it looks for the file asked for, and a file of no server is asked for."""
    id_column = IdColumn(config.source.table, config.source.id_column, 0, 0, True)
    with Stream(config, GRANT_PROBE, id_column, blocking=False, server_id=config.watch.server_id) as stream:
        event = stream.get(timeout=READ_TIMEOUT_S)
    if isinstance(event, Failed) and isinstance(event.error, BinlogError):
        return "REPLICATION SLAVE" not in str(event.error)
    if isinstance(event, Failed):
        raise event.error
    return True
