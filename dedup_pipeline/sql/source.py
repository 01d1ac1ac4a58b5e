"""Rows from SQL: any SQLAlchemy URL (MySQL/MariaDB through PyMySQL, SQLite for the demo).

Table and column names come from configuration and are checked against the real schema
before any query; SQLAlchemy quotes them. The id column must be unique: the PRIMARY KEY or
a UNIQUE index on it alone (a view has none: its ids are taken as unique, `check_ids` checks
its rows, and it cannot be followed through the binary log).

Rows stream in id order by keyset pagination: each page is one query (`WHERE id > last
ORDER BY id LIMIT page`) read through a server-side cursor a chunk at a time. Client
memory is bounded by the chunk size, no query stays open longer than one page takes to
consume (MySQL drops a client that reads too slowly), and no row is read twice or skipped.

Legacy columns: a text column whose field sets an `encoding` other than UTF-8 is
selected as binary (`CAST(... AS BINARY)`) and its bytes decoded here with that
encoding. That is how GBK bytes stored in a latin1 column come back as Chinese: read as
text, MySQL would convert them from its latin1 (cp1252, where 0x80-0x9F are other
characters) and the bytes could not always be recovered. In SQLite, such bytes are
stored as BLOBs.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import functools
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from ..config import Config, ConfigError, mask_url
from ..errors import DedupError
from ..core.decision import id_order
from ..core.features import FeatureError, Field, value_text

CONNECT_TIMEOUT_S = 5
PAGE_CHUNKS = 50  # a keyset page is this many chunks: one query, streamed
IN_IDS = 1000  # ids per `id IN (...)` query


class SourceError(DedupError, RuntimeError):
    """The source database cannot be reached or read; the message says what to do."""


class LeftOut(NamedTuple):
    """A row left out of a read of every row (`readable`): its id, the column a value of
    which cannot be read as text, and why in a few words."""

    row: Any
    column: str | None
    why: str

    @classmethod
    def of(cls, row: Sequence, error: FeatureError) -> LeftOut:
        """A row read (`tuples`: its id first) left out for the error reading it."""
        return cls(row[0], error.column, error.why)


class SqlSource:
    """The configured table, read through SQLAlchemy. Close it (or use `with`) when done."""

    def __init__(self, config: Config):
        self.config = config
        if config.source.sample and not _sqlite_exists(config.source.url):
            create_sample(config.source.url)
        self.engine = _engine(config.source.url)
        try:
            self.table, self.is_view = self._reflect()
        except Exception:
            self.engine.dispose()
            raise
        self.id_column = self.table.c[config.source.id_column]
        self._legacy = {f.name: f for f in config.fields if _is_legacy(f, self.table.c[f.name])}
        self.columns = [self.id_column.name, *(f.name for f in config.fields)]  # of a row read (`tuples`)

    def rows(self, chunk_size: int | None = None, page_size: int | None = None, after: Any = None,
             until: Any = None, left_out: list[LeftOut] | None = None) -> Iterator[list[dict[str, Any]]]:
        """Every row as {column: value}, in chunks, in id order; only ids in (after, until]
        when given (a range of the table, such as a Spark partition reads). With `left_out`,
        a row that cannot be read as text is appended there (`readable`) rather than failing
        the read, so that one bad row does not stop a reader of every row (the batch)."""
        for chunk in self.tuples(chunk_size, page_size, after, until):
            if left_out is None:
                yield self.dicts(chunk)
                continue
            read, left = self.readable(chunk)
            left_out += left
            if read:
                yield read

    def tuples(self, chunk_size: int | None = None, page_size: int | None = None, after: Any = None,
               until: Any = None, encoded: bool = False) -> Iterator[list[sa.Row]]:
        """`rows()` as read: a tuple of the `columns` for each row (bytes not decoded yet),
        which `dicts` makes rows of; for a reader of every row that needs few as rows. With
        `encoded`, text comes as its UTF-8 bytes where the source stores it so (`encodes`),
        undecoded: for a reader that hashes every row and decodes few (`decoded`)."""
        chunk_size = chunk_size or self.config.batch.chunk_size
        page_size = page_size or chunk_size * PAGE_CHUNKS
        last = after
        while True:
            read = 0
            for chunk in self._page(last, page_size, chunk_size, until, encoded and self.encodes):
                read += len(chunk)
                last = chunk[-1][0]
                yield chunk
            if read < page_size:
                return

    def rows_by_id(self, ids: Iterable[Any], conn: sa.Connection | None = None) -> list[dict[str, Any]]:
        """The rows with these ids, in id order; ids with no row are left out. Any number of
        ids: they are asked for IN_IDS at a time, through `conn` if given (the caller's
        transaction), else a connection of its own."""
        ids = sorted(set(ids), key=id_order)
        rows: list[dict[str, Any]] = []
        with self.errors("read rows of"), contextlib.nullcontext(conn) if conn is not None else self._connect() as conn:
            for start in range(0, len(ids), IN_IDS):
                query = self._select().where(self.id_column.in_(ids[start:start + IN_IDS])).order_by(self.id_column)
                result = conn.execute(query)
                rows += self.dicts(result)
        return rows

    def row(self, row_id: Any) -> dict[str, Any] | None:
        """One row by id, as `rows()` gives it, or None when there is no such row."""
        found = self.rows_by_id([row_id])
        return found[0] if found else None

    def row_by_written_id(self, text: str) -> dict[str, Any] | None:
        """One row by an id written as text (the command line's): the row whose id is that
        text or, in a column not of a text type, that whole number (an untyped SQLite
        column holds 1 and 'a2' side by side, and 1 is not '1' there); the number first."""
        found = self.rows_by_id(self.written_ids(text))
        return found[0] if found else None

    def written_ids(self, text: str) -> list[Any]:
        """The ids an id written as text may be (`row_by_written_id`), the number last (one
        that a 64-bit integer holds: no column holds more)."""
        if re.fullmatch(r"-?[0-9]{1,19}", text) and not isinstance(self.id_column.type, sa.String):
            if -(1 << 63) <= int(text) < 1 << 63:
                return [text, int(text)]
        return [text]

    def id_range(self) -> tuple[Any, Any, int]:
        """The smallest and largest id and the number of rows (None, None, 0: none), in one query."""
        with self.engine.connect() as conn:
            low, high, count = conn.execute(sa.select(sa.func.min(self.id_column), sa.func.max(self.id_column),
                                                      sa.func.count())).one()
        return low, high, count

    def count(self) -> int:
        with self.errors("count the rows of"), self._connect() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(self.table)).scalar_one()

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> SqlSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @functools.cached_property
    def encodes(self) -> bool:
        """Whether `tuples(encoded=True)` gives text as UTF-8 bytes: SQLite (its text_factory),
        every field's text UTF-8 and no column one SQLAlchemy converts (a date, a decimal)."""
        dialect = self.engine.dialect
        return (dialect.name == "sqlite" and all(codecs.lookup(f.encoding).name == "utf-8" for f in self.config.fields)
                and all(c.type.dialect_impl(dialect).result_processor(dialect, None) is None
                        for c in self._select().selected_columns))

    def decoded(self, rows: Iterable[Sequence]) -> list[tuple]:
        """Rows read `encoded` as `tuples` reads them otherwise: text decoded (bytes that are
        not UTF-8 stay bytes, as a BLOB would, for `dicts` to report)."""
        if not self.encodes:
            return list(rows)
        return [tuple(_utf8_text(v) if type(v) is bytes else v for v in row) for row in rows]

    def _page(self, after: Any, limit: int, chunk_size: int, until: Any = None,
              encoded: bool = False) -> Iterator[list[sa.Row]]:
        """The `limit` rows after `after`, in chunks. sqlite3 fails a whole fetch at a text that
        is not UTF-8: the rest of the page is then read again with each text decoded here, one
        that is not UTF-8 left as its bytes, as a BLOB's, for `dicts` to name with its row."""
        read = 0
        try:
            for chunk in self._query_page(after, limit, chunk_size, until, bytes if encoded else None):
                read, after = read + len(chunk), chunk[-1][0]
                yield chunk
        except _NotUtf8:
            yield from self._query_page(after, limit - read, chunk_size, until, _utf8_text)

    def _query_page(self, after: Any, limit: int, chunk_size: int, until: Any,
                    text_factory: Any) -> Iterator[list[sa.Row]]:
        """One keyset page's query, read a chunk at a time; with sqlite3's `text_factory` when given."""
        query = self._select().order_by(self.id_column).limit(limit)
        if after is not None:
            query = query.where(self.id_column > after)
        if until is not None:
            query = query.where(self.id_column <= until)
        with self.errors("read rows of"), self._connect() as conn:
            driver = conn.connection.driver_connection
            if text_factory is not None:  # bytes: sqlite3 decodes every text otherwise, a fifth of reading a row
                driver.text_factory = text_factory
            try:
                result = conn.execution_options(stream_results=True, yield_per=chunk_size).execute(query)
                yield from (_text_ids(chunk) if text_factory is bytes else chunk for chunk in result.partitions())
            except sa.exc.OperationalError as e:
                if _NOT_UTF8 in str(e.orig):
                    raise _NotUtf8() from None
                raise
            finally:
                if text_factory is not None:
                    driver.text_factory = str

    def _select(self) -> sa.Select:
        columns = [self.id_column]
        for f in self.config.fields:
            column = self.table.c[f.name]
            columns.append(sa.cast(column, sa.LargeBinary).label(f.name) if f.name in self._legacy else column)
        return sa.select(*columns)

    def readable(self, rows: Iterable[Sequence]) -> tuple[list[dict[str, Any]], list[LeftOut]]:
        """`dicts` of the rows whose values can all be read as text, and the others left out
        (LeftOut), found one row at a time once the rows together fail."""
        rows = list(rows)
        try:
            return self.dicts(rows), []
        except FeatureError:
            pass
        read: list[dict[str, Any]] = []
        left: list[LeftOut] = []
        for row in rows:
            try:
                read += self.dicts([row])
            except FeatureError as e:
                left.append(LeftOut.of(row, e))
        return read, left

    def dicts(self, rows: Iterable[sa.Row]) -> list[dict[str, Any]]:
        """Rows read (`tuples`) as {column: value}, text decoded."""
        dicts = [dict(zip(self.columns, row)) for row in rows]  # much faster than RowMapping
        for field in self.config.fields:
            legacy = field.name in self._legacy
            if legacy or field.role != "ignore":
                for row in dicts:
                    if legacy or isinstance(row[field.name], (bytes, bytearray, memoryview)):
                        row[field.name] = self._text(row, field)
        return dicts

    def _text(self, row: dict[str, Any], field: Field) -> str | None:
        """A value as text, decoded here (SQLite keeps bytes in a TEXT column as a BLOB) so
        that bytes in another encoding are named by row, column and setting."""
        try:
            return value_text(row[field.name], field)
        except FeatureError as e:
            id_column = self.id_column.name
            raise FeatureError(f"row {id_column} = {row[id_column]!r} of {self.config.source.table!r}, read "
                               f"by [fields] {field.name}: {e}", e.column, e.why) from None

    def _reflect(self) -> tuple[sa.Table, bool]:
        """The configured table as the database has it, checked (its columns, its id), and
        whether it is a view."""
        src = self.config.source
        try:
            with self._connect() as conn:
                table = sa.Table(src.table, sa.MetaData(), autoload_with=conn)
                view = src.table in sa.inspect(conn).get_view_names()
        except sa.exc.NoSuchTableError:
            raise ConfigError(f"[source] table {src.table!r} does not exist in "
                              f"{mask_url(src.url)}; check the table name") from None
        except sa.exc.SQLAlchemyError as e:
            if _name_refused(e):
                raise ConfigError(f"[source] table {src.table!r} is not a name {mask_url(src.url)} accepts "
                                  f"({_reason(e)}); check the table name: at most 64 characters, not ending "
                                  f"with a space") from None
            raise SourceError(f"cannot read the schema of {mask_url(src.url)}: {_reason(e)}") from None
        wanted = [src.id_column] + [f.name for f in self.config.fields]
        missing = [c for c in wanted if c not in table.c]
        if missing:
            raise ConfigError(f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)} not in table "
                              f"{src.table!r} (it has: {', '.join(table.c.keys())}); fix [fields] or "
                              f"[source] id_column")
        if view:
            _check_view(self.config)
        else:
            _check_unique_id(src.table, table, src.id_column)
        return table, view

    def check_ids(self) -> None:
        """A view's ids unique in its rows now (a table's PRIMARY KEY or UNIQUE index was
        checked as it opened; a view has none to show): a ConfigError naming one it repeats."""
        if not self.is_view:
            return
        count = sa.func.count()
        query = sa.select(self.id_column, count).group_by(self.id_column).having(count > 1).limit(1)
        with self.errors("check the ids of"), self._connect() as conn:
            repeated = conn.execute(query).first()
        if repeated is not None:
            src = self.config.source
            raise ConfigError(f"[source] table {src.table!r} is a view, and {repeated[1]} of its rows have "
                              f"{src.id_column} = {repeated[0]!r}: a view's id column must be unique, as a PRIMARY "
                              f"KEY is, and only the view's definition can keep it so; fix the view, or set "
                              f"[source] id_column to a column unique in it")

    def _connect(self) -> sa.Connection:
        try:
            return self.engine.connect()
        except sa.exc.DBAPIError as e:
            url = self.config.source.url
            raise SourceError(f"cannot connect to the source database {_host(url)}({mask_url(url)}): "
                              f"{_reason(e)}; check that it is running and reachable, and [source] url "
                              f"(or DEDUP_SQL_URL)") from None

    @contextlib.contextmanager
    def errors(self, doing: str) -> Iterator[None]:
        """A database error inside as a SourceError: "cannot <doing> <table> in <url>: why"."""
        try:
            yield
        except sa.exc.DBAPIError as e:
            raise SourceError(f"cannot {doing} {self.config.source.table!r} in "
                              f"{mask_url(self.config.source.url)}: {_reason(e)}") from None


def _check_unique_id(name: str, table: sa.Table, id_column: str) -> None:
    """A ConfigError unless the PRIMARY KEY or a UNIQUE index is on the id column alone:
    rows that share an id would be taken for one row."""
    why = _not_unique(table, id_column)
    if why:
        raise ConfigError(f"[source] id_column {id_column!r} of table {name!r} is not unique: {why}; rows that "
                          f"share an id would be taken for one row; make it unique (CREATE UNIQUE INDEX "
                          f"{name}_{id_column}_unique ON {name} ({id_column})), or set [source] id_column to a "
                          f"column that is (the PRIMARY KEY, or under a UNIQUE index of its own)")


def _not_unique(table: sa.Table, column: str) -> str | None:
    """Why the keys of a reflected table do not make `column` unique, or None when one is on
    it alone: its non-unique indexes first, then the unique keys it shares with other columns."""
    keys = [("the PRIMARY KEY", True, [c.name for c in table.primary_key.columns])]
    keys += [(f"the UNIQUE index {ix.name}" if ix.unique else f"its index {ix.name}", bool(ix.unique),
              [c.name for c in ix.columns]) for ix in table.indexes]
    keys += [(f"the UNIQUE constraint {uc.name or ''}".rstrip(), True, [c.name for c in uc.columns])
             for uc in table.constraints if isinstance(uc, sa.UniqueConstraint)]
    if any(unique and names == [column] for _, unique, names in keys):
        return None
    reasons = [f"{what} ({', '.join(names)}) is not UNIQUE" if not unique else
               f"it is one of the columns of {what} ({', '.join(names)}), unique only together"
               for what, unique, names in sorted(keys, key=lambda key: key[1]) if column in names]
    return "; ".join(reasons) or "it has no PRIMARY KEY nor UNIQUE index"


def _check_view(config: Config) -> None:
    """A view's id column is taken as unique (`check_ids` checks its rows now), but a view
    cannot be followed through the binary log: a ConfigError with `--from binlog`."""
    if config.watch.changes == "binlog":
        raise ConfigError(f"[source] table {config.source.table!r} is a view, and the binary log holds the "
                          f"changes of tables, never of a view, so `watch --from binlog` would see none of them; "
                          f"follow the table it reads instead (set [source] table and id_column to it)")


def id_type(source: SqlSource) -> Any:
    """An id as the id column holds it, from its text in a file (a callable)."""
    return int if isinstance(source.id_column.type, sa.Integer) else (lambda x: x)


def absolute_sqlite_url(url: str) -> str | None:
    """An SQLite URL with its relative path made absolute (password kept), else None: the URL
    is not SQLite's, names no file, or is absolute already."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or os.path.isabs(parsed.database):
        return None
    return parsed.set(database=os.path.abspath(parsed.database)).render_as_string(hide_password=False)


def parse_url(url: str) -> sa.URL:
    """The source URL parsed by SQLAlchemy, or a ConfigError naming what is wrong with it
    (an unescaped @ in the password, a port that is not a number), password masked."""
    where = f"[source] url (or DEDUP_SQL_URL) {mask_url(url)}"
    try:
        parsed = make_url(url)
    except ValueError as e:  # the port: SQLAlchemy's int() of what follows host:
        if "@" in url.partition("://")[2].rpartition("@")[0]:
            raise ConfigError(f"{where}: {UNESCAPED_AT}") from None
        port = str(e).rpartition(": ")[2]
        raise ConfigError(f"{where}: the port {port} is not a number; write host:port as "
                          f"127.0.0.1:3306, or leave out :port for the default") from None
    except sa.exc.ArgumentError as e:
        raise ConfigError(f"{where} cannot be used: {mask_url(str(e))}") from None
    if parsed.password is not None and "@" in f"{parsed.host}/{parsed.database}":
        # SQLAlchemy ends the password at its first @: the rest would be looked up as a host
        raise ConfigError(f"{where}: {UNESCAPED_AT}")
    return parsed


UNESCAPED_AT = "its password holds an @ that is not escaped; write each @ in it as %40 (and each % as %25)"


def _engine(url: str) -> sa.Engine:
    parsed = parse_url(url)
    _check_sqlite_file(parsed, url)
    try:
        dialect = parsed.get_dialect()
        connect_args = {}
        if dialect.driver in ("pymysql", "mysqldb") and "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S  # fail fast on an unreachable host
        # READ COMMITTED on MySQL, set once per connection: the watch worker's locks then never
        # hold up the application's inserts, and reads see nothing older than a statement.
        mysql = dialect.name in ("mysql", "mariadb")
        return sa.create_engine(parsed, pool_pre_ping=True, connect_args=connect_args,
                                **({"isolation_level": "READ COMMITTED"} if mysql else {}))
    except (sa.exc.ArgumentError, ImportError) as e:
        raise ConfigError(f"[source] url {mask_url(url)} cannot be used: {mask_url(str(e))}") from None


def _check_sqlite_file(parsed: sa.URL, url: str) -> None:
    """An SQLite database file must exist: SQLite would create an empty one, and the table
    would be "missing" from a file nobody meant."""
    database = parsed.database
    if (parsed.get_backend_name() != "sqlite" or not database or database == ":memory:"
            or parsed.query.get("uri") == "true"):  # a file: URI, opened as it says
        return
    path = Path(database).absolute()
    if not path.exists():
        raise ConfigError(f"[source] url (or DEDUP_SQL_URL) {mask_url(url)}: the SQLite database file {path} "
                          f"does not exist; check the path (sqlite:///name.db is relative to the current "
                          f"folder, sqlite:////path/name.db absolute)")


def _host(url: str) -> str:
    """'host:port ' of a server URL, '' for a file (SQLite)."""
    parsed = parse_url(url)
    return f"{parsed.host}:{parsed.port or 'default port'} " if parsed.host else ""


_NOT_UTF8 = "Could not decode to UTF-8"  # how sqlite3 fails a fetch at a text that is not UTF-8


class _NotUtf8(Exception):
    """sqlite3 failed a fetch at a text that is not UTF-8 (_NOT_UTF8)."""


def _text_ids(rows: list) -> list:
    """Rows read encoded, their ids as text: a page starts after the last id read, and SQLite
    ranks every text before any bytes."""
    if bytes not in {type(row[0]) for row in rows}:
        return rows
    return [(_utf8_text(row[0]), *row[1:]) if type(row[0]) is bytes else row for row in rows]


def _utf8_text(value: bytes) -> str | bytes:
    try:
        return value.decode()
    except UnicodeDecodeError:
        return value


def _is_legacy(field: Field, column: sa.Column) -> bool:
    """A text column whose bytes are in another encoding than UTF-8."""
    return codecs.lookup(field.encoding).name != "utf-8" and isinstance(column.type, sa.String)


NAME_REFUSED = (1059, 1103)  # MySQL's ER_TOO_LONG_IDENT, ER_WRONG_TABLE_NAME


def _name_refused(error: sa.exc.SQLAlchemyError) -> bool:
    """Whether the server refused a name itself (too long, ending with a space), not a query."""
    args = getattr(getattr(error, "orig", None), "args", ())
    return bool(args) and args[0] in NAME_REFUSED


def _reason(error: sa.exc.SQLAlchemyError) -> str:
    cause = getattr(error, "orig", None) or error
    return f"{type(cause).__name__}: {mask_url(str(cause))}"


def create_sample(url: str) -> None:
    """Create the bundled sample table (petition-like rows) in a new SQLite database."""
    parsed = parse_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        raise ConfigError(f"[source] sample = true needs an SQLite URL, got {mask_url(url)}")
    Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    sample = resources.files("dedup_pipeline").joinpath("data/sample_petitions.csv")
    with sample.open(encoding="utf-8", newline="") as f:
        rows = [{k: (None if v == "" else v) for k, v in row.items()} for row in csv.DictReader(f)]
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    table = sa.Table("petition", meta, sa.Column("id", sa.Integer, primary_key=True),
                     *(sa.Column(c, sa.Text) for c in rows[0] if c != "id"))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), [{**r, "id": int(r["id"])} for r in rows])
    engine.dispose()


def _sqlite_exists(url: str) -> bool:
    database = parse_url(url).database
    return bool(database) and Path(database).exists()
