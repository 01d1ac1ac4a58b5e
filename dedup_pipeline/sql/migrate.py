"""Schema changes in the source database, applied with Alembic (scripts in `migrations/`).

What the incremental path needs beside the user's table: `dedup_match`, the similar pairs
found by batch and incremental runs (revision 0000), and what `watch` follows the table's
changes by, one of two branches on it (`[watch] changes`, `--from`): `triggers` (0001),
`dedup_outbox` filled by AFTER INSERT/UPDATE/DELETE triggers on the configured table; or
`binlog` (0002), the position `watch --from binlog` has reached in the server's binary log,
and nothing on the table itself. Alembic is embedded: no alembic.ini, the URL and table
come from our configuration, and the applied revisions are kept in their own table
(`dedup_alembic_version`) so they never meet an application's own Alembic.

`upgrade_sql()` renders the same changes as SQL for DBAs who apply them by hand. It does
not connect, so it assumes an integer id (BIGINT); online, the id columns of the new
tables take the type of the real id column.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.util import CommandError

from ..config import Config, ConfigError, mask_url
from . import triggers
from .source import SourceError, SqlSource, parse_url


def _migrations_dir() -> Path:
    """The Alembic scripts: inside the package in an installed wheel (pyproject maps the
    repository's top-level migrations/ to dedup_pipeline.migrations), else in the checkout."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "migrations"
    return packaged if (packaged / "env.py").is_file() else package.parent / "migrations"


MIGRATIONS = _migrations_dir()
VERSION_TABLE = "dedup_alembic_version"
OUTBOX_TABLE = "dedup_outbox"
MATCH_TABLE = "dedup_match"
BACKENDS = ("mysql", "mariadb", "sqlite")  # the migration's triggers are written for these
BINLOG_BACKENDS = ("mysql", "mariadb")  # a binary log is theirs
HEADS = {"triggers": "triggers@head", "binlog": "binlog@head"}  # [watch] changes -> its branch
LAST = {"triggers": "0005", "binlog": "0002"}  # each branch's last revision: where --downgrade --sql starts
REVIEW, REVIEW_LAST = "review@head", "0008"  # what reviewers decide: applied either way
# The tables several source tables share, each row naming its table (scoped.py; the binlog's from the start).
SHARED = (MATCH_TABLE, OUTBOX_TABLE, "dedup_decision", "dedup_possible", "dedup_binlog_position",
          "dedup_binlog_failed", "dedup_access", "dedup_matter", "dedup_matter_key",
          "dedup_matter_event", "dedup_matter_decision")
PRIVILEGE_HINT = ("; creating triggers needs the TRIGGER privilege, and with binary logging "
                  "SUPER or log_bin_trust_function_creators = 1")


class MigrationError(SourceError):
    """A migration could not be applied; the message names the database and the cause."""


@dataclass(frozen=True)
class Target:
    """What the migration scripts need to know about the configured table."""

    url: str
    table: str
    id_column: str
    id_type: sa.types.TypeEngine
    version_table: str = VERSION_TABLE


def upgrade(config: Config) -> None:
    """Create dedup_match, what `watch` follows changes by (`[watch] changes`: the outbox
    and the configured table's triggers, or the binlog position tables) and what reviewers
    decide; another table of the database gets its own triggers beside. Nothing is written
    unless the configured table and columns exist."""
    _check_backend(config)
    with SqlSource(config) as source, _errors(config, "upgrade"):
        _check_table(config, source)
        with source.engine.begin() as conn:
            _check_first(conn, config)
            alembic = _alembic_config(_target(config, source.id_column.type), connection=conn)
            command.upgrade(alembic, HEADS[config.watch.changes])
            command.upgrade(alembic, REVIEW)
            if config.watch.changes == "triggers":
                triggers.ensure(conn, config.source.table, config.source.id_column)


def _check_first(conn: sa.Connection, config: Config) -> None:
    """Before revisions 0004 and 0005 a database followed one table, whose rows they name:
    a MigrationError when that is another table than the configured one (its configuration
    migrates first)."""
    inspector = sa.inspect(conn)
    unnamed = [name for name in (MATCH_TABLE, OUTBOX_TABLE) if inspector.has_table(name)
               and "source_table" not in {c["name"] for c in inspector.get_columns(name)}]
    if not unnamed or triggers.on(conn, config.source.table):
        return
    followed = triggers.others(conn, config.source.table)
    if inspector.has_table("dedup_binlog_position"):
        followed |= {r[0] for r in conn.execute(sa.text("SELECT source_table FROM dedup_binlog_position"))}
    if followed and config.source.table not in followed:
        raise MigrationError(f"{mask_url(config.source.url)} follows {', '.join(sorted(followed))} from before "
                             f"several tables could share {', '.join(unnamed)}: run `dedup-pipeline migrate` with "
                             f"its configuration first (its rows are named for it), then with this one")


def ensure_store_indexes(config: Config) -> str:
    """Create the MongoDB indexes the store needs (idempotent); returns where, password
    masked. The configured MongoDB, else the embedded one (see `store.open_store`)."""
    from ..store.index import StoreError, open_store

    try:
        with open_store(config) as store:  # the indexes are ensured as it opens
            return store.where
    except StoreError as e:
        raise StoreError(f"the SQL migrations are applied, but not the MongoDB indexes: {e}") from None


def downgrade(config: Config) -> set[str]:
    """Remove everything `upgrade` adds, either way (the triggers, dedup_outbox, the binlog
    position tables, dedup_match) and the version table; while other tables of the database
    use them, only the configured table's triggers and rows. Returns those other tables."""
    _check_backend(config)
    with SqlSource(config) as source, _errors(config, "downgrade"):
        with source.engine.begin() as conn:
            triggers.drop(conn, config.source.table)
            others = _others(conn, config.source.table)
            if others:
                _forget(conn, config.source.table)
                return others
            alembic = _alembic_config(_target(config, source.id_column.type), connection=conn)
            command.downgrade(alembic, "review@base")
            command.downgrade(alembic, "base")
            conn.execute(_drop_version_table())
    return set()


def _named(conn: sa.Connection) -> list[sa.Table]:
    """The shared tables there whose rows name their table."""
    inspector = sa.inspect(conn)
    found = [sa.Table(name, sa.MetaData(), autoload_with=conn) for name in SHARED if inspector.has_table(name)]
    return [table for table in found if "source_table" in table.c]


def _others(conn: sa.Connection, table: str) -> set[str]:
    """The other tables of the database the dedup tables hold rows of, or that have triggers."""
    found = triggers.others(conn, table)
    for shared in _named(conn):
        found |= {r[0] for r in conn.execute(sa.select(shared.c.source_table).distinct()
                                             .where(shared.c.source_table != table))}
    return found


def _forget(conn: sa.Connection, table: str) -> None:
    """Delete the rows of `table` from the shared tables."""
    for shared in _named(conn):
        conn.execute(shared.delete().where(shared.c.source_table == table))


def upgrade_sql(config: Config) -> str:
    """The SQL of `upgrade` into an empty database, values inlined, without connecting."""
    return (_offline_sql(config, command.upgrade, HEADS[config.watch.changes])
            + _offline_sql(config, command.upgrade, f"{LAST[config.watch.changes]}:{REVIEW}"))


def downgrade_sql(config: Config) -> str:
    """The SQL of `downgrade` from what `upgrade_sql` makes, values inlined, without connecting."""
    sql = (_offline_sql(config, command.downgrade, f"{REVIEW_LAST}:review@base")
           + _offline_sql(config, command.downgrade, f"{LAST[config.watch.changes]}:base"))
    dialect = parse_url(config.source.url).get_dialect()()
    return f"{sql}{_drop_version_table().compile(dialect=dialect)};\n"


def _offline_sql(config: Config, action: Callable[..., None], revision: str) -> str:
    _check_backend(config)
    buffer = io.StringIO()
    with _errors(config, "render"):
        action(_alembic_config(_target(config, sa.BigInteger()), output_buffer=buffer), revision, sql=True)
    return buffer.getvalue()


def _target(config: Config, id_type: sa.types.TypeEngine) -> Target:
    return Target(config.source.url, config.source.table, config.source.id_column, id_type)


def _alembic_config(target: Target, output_buffer: io.StringIO | None = None,
                    connection: sa.Connection | None = None) -> AlembicConfig:
    cfg = AlembicConfig(output_buffer=output_buffer)
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["dedup"] = target
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def _drop_version_table() -> sa.schema.DropTable:
    return sa.schema.DropTable(sa.Table(VERSION_TABLE, sa.MetaData()), if_exists=True)


def _check_backend(config: Config) -> None:
    backend = parse_url(config.source.url).get_backend_name()
    if config.watch.changes == "binlog" and backend not in BINLOG_BACKENDS:
        raise ConfigError(f"[source] url {mask_url(config.source.url)}: --from binlog follows the binary log "
                          f"of MySQL or MariaDB, not {backend}; use the triggers (`--from triggers`)")
    if backend not in BACKENDS:
        raise ConfigError(f"[source] url {mask_url(config.source.url)}: migrations (the outbox "
                          f"triggers) are written for MySQL/MariaDB and SQLite, not {backend}")


def _check_table(config: Config, source: SqlSource) -> None:
    """Before any DDL (MySQL commits each statement: a revision failing halfway would leave
    its first tables made): what the revisions need of the configured table. A view takes
    no trigger (the binary log's refusal of a view is SqlSource's)."""
    if source.is_view and config.watch.changes == "triggers":
        raise ConfigError(f"[source] table {config.source.table!r} is a view, and triggers go on tables: `watch` "
                          f"would see no change of it; follow the table it reads instead (set [source] table and "
                          f"id_column to it), or run `batch` alone, which reads the view")


@contextlib.contextmanager
def _errors(config: Config, doing: str) -> Iterator[None]:
    try:
        yield
    except sa.exc.DBAPIError as e:
        cause = e.orig or e
        triggers = config.watch.changes == "triggers"
        denied = any(w in str(cause).lower() for w in ("denied", "privilege"))
        hint = PRIVILEGE_HINT if triggers and denied else ""
        what = "the dedup tables and triggers on" if triggers else "the dedup tables for"
        raise MigrationError(f"cannot {doing} {what} {config.source.table!r} "
                             f"in {mask_url(config.source.url)}: {type(cause).__name__}: "
                             f"{mask_url(str(cause))}{hint}") from None
    except CommandError as e:
        raise MigrationError(f"cannot {doing} the dedup migrations: {e}") from None
