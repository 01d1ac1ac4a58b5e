"""dedup_outbox filled by triggers on the configured table: the `triggers` branch, which
`watch` follows (`migrate`).

Revision ID: 0001
Revises: 0000 (dedup_match). Before the binlog branch this revision was the base and made
dedup_match itself: a database it was applied to has the table 0000 makes.

The configured table is `context.config.attributes["dedup"]` (a dedup_pipeline.sql.migrate.Target).

- `dedup_outbox`: one entry per change of a source row, written by AFTER INSERT / UPDATE /
  DELETE triggers in the same transaction as the change, so no committed change is
  missed. Workers claim pending entries (`done_at IS NULL`, oldest first), record
  attempts and the last error, and set `done_at` when the row's matches are written.
  An update that changes the id enqueues the new id as 'update' and the old one as 'delete'.

Triggers are written for MySQL/MariaDB (one statement each, so the offline SQL runs in
the `mysql` client without DELIMITER) and SQLite.
"""

import hashlib

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0001"
down_revision = "0000"
branch_labels = ("triggers",)
depends_on = None

OUTBOX = "dedup_outbox"
OPS = ("insert", "update", "delete")
MAX_IDENTIFIER = 64  # MySQL's limit for a trigger name
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    target = context.config.attributes["dedup"]
    _create_outbox(target.id_type)
    for operation in OPS:
        op.execute(_create_trigger(target.table, target.id_column, operation))


def downgrade() -> None:
    target = context.config.attributes["dedup"]
    for operation in OPS:
        op.execute(f"DROP TRIGGER IF EXISTS {_quote(_trigger_name(target.table, operation))}")
    op.drop_table(OUTBOX)


def _create_outbox(id_type: sa.types.TypeEngine) -> None:
    op.create_table(
        OUTBOX,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True,
                  autoincrement=True),
        sa.Column("row_id", id_type, nullable=False),
        sa.Column("op", sa.Enum(*OPS, name="dedup_outbox_op"), nullable=False),
        sa.Column("enqueued_at", TIMESTAMP, nullable=False, server_default=_now()),
        sa.Column("claimed_by", sa.String(128)),
        sa.Column("claimed_at", TIMESTAMP),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text),
        sa.Column("done_at", TIMESTAMP),
        **TABLE_OPTIONS,
    )
    # Claiming reads `done_at IS NULL ORDER BY id`; purging reads `done_at < ...`.
    op.create_index("ix_dedup_outbox_pending", OUTBOX, ["done_at", "id"])
    op.create_index("ix_dedup_outbox_row_id", OUTBOX, ["row_id"])


def _create_trigger(table: str, id_column: str, operation: str) -> str:
    q, sqlite = _quote, _dialect() == "sqlite"
    row = "OLD" if operation == "delete" else "NEW"
    enqueue = f"INSERT INTO {q(OUTBOX)} ({q('row_id')}, {q('op')}) SELECT {row}.{q(id_column)}, '{operation}'"
    if operation == "update":
        from_dual = "" if sqlite else " FROM DUAL"  # MySQL needs a FROM before WHERE
        enqueue += (f" UNION ALL SELECT OLD.{q(id_column)}, 'delete'{from_dual}"
                    f" WHERE OLD.{q(id_column)} <> NEW.{q(id_column)}")
    body = f"BEGIN {enqueue}; END" if sqlite else enqueue
    return (f"CREATE TRIGGER {q(_trigger_name(table, operation))} AFTER {operation.upper()} "
            f"ON {q(table)} FOR EACH ROW {body}")


def _trigger_name(table: str, operation: str) -> str:
    name = f"dedup_{table}_{operation}"
    if len(name) > MAX_IDENTIFIER:
        name = f"dedup_{hashlib.sha1(table.encode()).hexdigest()[:16]}_{operation}"
    return name


def _now() -> sa.TextClause:
    if _dialect() == "sqlite":
        return sa.text("(strftime('%Y-%m-%d %H:%M:%f', 'now'))")
    return sa.text("CURRENT_TIMESTAMP(6)")


def _quote(identifier: str) -> str:
    return op.get_context().dialect.identifier_preparer.quote(identifier)


def _dialect() -> str:
    return op.get_context().dialect.name
