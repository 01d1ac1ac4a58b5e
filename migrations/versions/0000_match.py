"""dedup_match: the similar pairs batch and incremental runs find. The base both ways of
following the table's changes build on: the `triggers` branch (0001, `migrate`) and the
`binlog` branch (0002, `migrate --from binlog`).

Revision ID: 0000
Revises:

Similar pairs are stored in both directions, so a row's matches are one primary-key range
read; `similar_id` is indexed for the reverse lookup.
"""

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0000"
down_revision = None
branch_labels = None
depends_on = None

MATCH = "dedup_match"
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    id_type = context.config.attributes["dedup"].id_type
    op.create_table(
        MATCH,
        sa.Column("row_id", id_type, primary_key=True),
        sa.Column("similar_id", id_type, primary_key=True),
        # Hamming distance for SimHash schemes; a scheme confirming by Jaccard stores 1 - J.
        sa.Column("distance", sa.Float, nullable=False),
        sa.Column("found_at", TIMESTAMP, nullable=False, server_default=_now()),
        sa.Column("source", sa.Enum("batch", "incremental", name="dedup_match_source"), nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_match_similar_id", MATCH, ["similar_id"])


def downgrade() -> None:
    op.drop_table(MATCH)


def _now() -> sa.TextClause:
    if op.get_context().dialect.name == "sqlite":
        return sa.text("(strftime('%Y-%m-%d %H:%M:%f', 'now'))")
    return sa.text("CURRENT_TIMESTAMP(6)")
