"""Where `watch --from binlog` has got to in the server's binary log: the `binlog` branch
(`migrate --from binlog`), no trigger and no outbox on the configured table.

Revision ID: 0002
Revises: 0000 (dedup_match)

- `dedup_binlog_position`: one row per followed table: the position in the binary log
  (file and offset) up to which its changes are in dedup_match and the block index,
  written in the same transaction as the dedup_match writes it stands for; the GTID of
  the last transaction read, where the server gives one (for a DBA: the worker resumes
  by file and offset); `stopped`, why the worker cannot go on from there (the table was
  renamed, say), until `batch` sets a new position; `set_by`, `watch` or `batch`.
- `dedup_binlog_failed`: rows whose processing failed with both servers up (a value the
  configured encoding cannot decode, say), kept with their error so that the worker can
  go on; a worker tries them again when it starts.
"""

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0002"
down_revision = "0000"
branch_labels = ("binlog",)
depends_on = None

POSITION, FAILED = "dedup_binlog_position", "dedup_binlog_failed"
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
NAME = sa.String(64)  # MySQL's longest table name


def upgrade() -> None:
    id_type = context.config.attributes["dedup"].id_type
    op.create_table(
        POSITION,
        sa.Column("source_table", NAME, primary_key=True),
        sa.Column("log_file", sa.String(512), nullable=False),
        sa.Column("log_pos", sa.BigInteger, nullable=False),
        sa.Column("gtid", sa.String(255)),
        sa.Column("stopped", sa.Text),
        sa.Column("set_by", sa.String(16), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False, server_default=sa.text("CURRENT_TIMESTAMP(6)")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        FAILED,
        sa.Column("source_table", NAME, primary_key=True),
        sa.Column("row_id", id_type, primary_key=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="1"),
        sa.Column("last_error", sa.Text),
        sa.Column("failed_at", TIMESTAMP, nullable=False, server_default=sa.text("CURRENT_TIMESTAMP(6)")),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table(FAILED)
    op.drop_table(POSITION)
