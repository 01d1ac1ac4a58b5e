"""Matters' history and reviewers' decisions on them: the review branch, applied either way.

Revision ID: 0008
Revises: 0007

- `dedup_matter_event`: what happened to matters' ids as rows came, changed and went, one row
  per event: `merged` (matter `other_id` joined `matter_id`), `split` (rows of `other_id` are
  in `matter_id` now, and `other_id` lives on or split in several), `renamed` (every row of
  `other_id` is in `matter_id`, a new id: its smallest row went, or an older row joined),
  with the rows that moved and when. A matter's id is the smallest of its row ids, so it
  stays as later rows join it; this says where the others went.
- `dedup_matter_decision`: what reviewers decided of matters, kept and obeyed by every path:
  `apart` (the row `row_id` is in no matter, whatever it names), `back` (undoes it),
  `together` (the matters of rows `row_id` and `other_id` are one), `separate` (undoes it);
  the last decision on a row, or on a pair, holds; `matter_id` is the matter the reviewer was
  looking at.
"""

import sqlalchemy as sa
from alembic import context, op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

EVENT, DECISION = "dedup_matter_event", "dedup_matter_decision"
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
NAME = sa.String(64)  # MySQL's longest table name


def upgrade() -> None:
    target = context.config.attributes["dedup"]
    op.create_table(
        EVENT,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("source_table", NAME, nullable=False),
        sa.Column("matter_id", target.id_type, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("other_id", target.id_type, nullable=False),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_matter_event_matter", EVENT, ["source_table", "matter_id"])
    op.create_index("ix_dedup_matter_event_other", EVENT, ["source_table", "other_id"])
    op.create_table(
        DECISION,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("source_table", NAME, nullable=False),
        sa.Column("row_id", target.id_type, nullable=False),
        sa.Column("other_id", target.id_type, nullable=True),
        sa.Column("matter_id", target.id_type, nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("reviewer", sa.String(64), nullable=False),
        sa.Column("decided_at", sa.DateTime, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_matter_decision_row", DECISION, ["source_table", "row_id"])
    op.create_index("ix_dedup_matter_decision_other", DECISION, ["source_table", "other_id"])
    op.create_index("ix_dedup_matter_decision_matter", DECISION, ["source_table", "matter_id"])


def downgrade() -> None:
    op.drop_table(DECISION)
    op.drop_table(EVENT)
