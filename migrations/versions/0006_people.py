"""Who may see what in the console, and a record of it: the review branch, applied either way.

Revision ID: 0006
Revises: 0004

- `dedup_reviewer` gains `generation` (raised by a sign-out, a new password or `reviewer
  disable`: every session of that reviewer carries the generation it began in and ends when it
  changes), `disabled` (`reviewer disable`: no sign-in, no session) and `sees_phones` (a
  reviewer shown phone numbers unmasked, `reviewer add --sees-phones`).
- `dedup_login_failure`: one row per failed sign-in, once for the name tried and once for the
  client's address (`kind`), at `failed_at` (UTC): the console's login limit, kept here so
  that it survives a restart of `serve` and holds for every process serving it.
- `dedup_access`: the access log, one row per row of the table a page showed a reviewer: when,
  who, which page, the row's id, the client's address, and the table it is a row of
  (`source_table`, as in revision 0004). `access-log` exports it.
"""

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0006"
down_revision = "0004"
branch_labels = None
depends_on = None

REVIEWER, FAILURE, ACCESS = "dedup_reviewer", "dedup_login_failure", "dedup_access"
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
ADDRESS = sa.String(45)  # the longest IPv6 address as text


def upgrade() -> None:
    target = context.config.attributes["dedup"]
    op.add_column(REVIEWER, sa.Column("generation", sa.Integer, nullable=False, server_default="0"))
    op.add_column(REVIEWER, sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column(REVIEWER, sa.Column("sees_phones", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        FAILURE,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(8), nullable=False),  # "name" or "address"
        sa.Column("subject", sa.String(64), nullable=False),  # the name tried, or the client's address
        sa.Column("failed_at", TIMESTAMP, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_login_failure_subject", FAILURE, ["kind", "subject", "failed_at"])
    op.create_index("ix_dedup_login_failure_failed_at", FAILURE, ["failed_at"])
    op.create_table(
        ACCESS,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("viewed_at", TIMESTAMP, nullable=False, server_default=_now()),
        sa.Column("reviewer", sa.String(64), nullable=False),
        sa.Column("page", sa.String(16), nullable=False),
        sa.Column("row_id", target.id_type, nullable=False),
        sa.Column("address", ADDRESS, nullable=True),
        sa.Column("source_table", sa.String(64), nullable=False, server_default=target.table),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_access_viewed_at", ACCESS, ["viewed_at"])
    op.create_index("ix_dedup_access_row_id", ACCESS, ["row_id"])


def downgrade() -> None:
    op.drop_table(ACCESS)
    op.drop_table(FAILURE)
    with op.batch_alter_table(REVIEWER, recreate="never") as table:  # SQLite 3.35+ drops a column itself
        table.drop_column("sees_phones")
        table.drop_column("disabled")
        table.drop_column("generation")


def _now() -> sa.TextClause:
    if op.get_context().dialect.name == "sqlite":
        return sa.text("(strftime('%Y-%m-%d %H:%M:%f', 'now'))")
    return sa.text("CURRENT_TIMESTAMP(6)")
