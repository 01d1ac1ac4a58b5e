"""Matters (热点事项): the review branch, applied either way.

Revision ID: 0007
Revises: 0006

- `dedup_matter`: one row per row of the table the matters stage read an object and a problem
  in (its `mark`, core.matters as JSON), with the matter it belongs to (`matter_id`: the
  smallest row id of the matter; NULL while no second person wrote about it), the matter's
  object, problem, first and last day, distinct people and rows. Staff read `matter_id IS NOT
  NULL`; `report --matters` exports it.
- `dedup_matter_key`: the keys each marked row is filed under (a hash of core.matters.link_keys),
  by which a new row finds the rows it may link with, one indexed read.
"""

import sqlalchemy as sa
from alembic import context, op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

MATTER, MATTER_KEY = "dedup_matter", "dedup_matter_key"
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
NAME = sa.String(64)  # MySQL's longest table name
KEY = sa.String(16)  # a link key's hash, hex


def upgrade() -> None:
    target = context.config.attributes["dedup"]
    op.create_table(
        MATTER,
        sa.Column("source_table", NAME, primary_key=True),
        sa.Column("row_id", target.id_type, primary_key=True),
        sa.Column("matter_id", target.id_type, nullable=True),
        sa.Column("object", sa.String(191), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("first_day", sa.Date, nullable=False),
        sa.Column("last_day", sa.Date, nullable=False),
        sa.Column("people", sa.Integer, nullable=False),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("mark", sa.Text, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_matter_matter", MATTER, ["source_table", "matter_id"])
    op.create_table(
        MATTER_KEY,
        sa.Column("source_table", NAME, primary_key=True),
        sa.Column("link_key", KEY, primary_key=True),
        sa.Column("row_id", target.id_type, primary_key=True),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table(MATTER_KEY)
    op.drop_table(MATTER)
