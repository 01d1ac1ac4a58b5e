"""What reviewers decide: the `review` branch, applied by every `migrate` whichever way
`watch` follows the table.

Revision ID: 0003
Revises: (a root of its own: applied after 0000, dedup_match, and removed before it)

- `dedup_decision`: append-only. Each row says that two rows are the same petition or are
  not, who said so, when, why, and the content hash each row had then (`content_hash` of
  the configured fields), so that a decision whose rows have changed since is known to be
  stale. An undo is a new decision; the last one of a pair stands. A decision about a
  group is one row per pair it implies, sharing an `act`.
- `dedup_reviewer`: who may decide in the console, with a scrypt hash of the password.
- `dedup_possible`: the queue, what the rule cannot settle: rows whose texts are similar
  but that nothing else links (another person's copy with more edits than a copy's, a
  form letter), never duplicates; kept apart from dedup_match so that no reader of
  duplicates meets them by accident. One row per member of an item (a pair, or the rows
  of one form letter as one item), `item` being its first row.
- `dedup_match.status`: `auto` (the rule paired them) or `confirmed` (a reviewer did).
"""

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0003"
down_revision = None
branch_labels = ("review",)
depends_on = None  # alters dedup_match, so applied after a branch, and removed before it

DECISION, REVIEWER, POSSIBLE, MATCH = "dedup_decision", "dedup_reviewer", "dedup_possible", "dedup_match"
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    id_type = context.config.attributes["dedup"].id_type
    op.create_table(
        DECISION,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("row_id", id_type, nullable=False),  # the smaller id of the pair
        sa.Column("other_id", id_type, nullable=False),
        sa.Column("verdict", sa.Enum("same", "different", name="dedup_decision_verdict"), nullable=False),
        sa.Column("reviewer", sa.String(64), nullable=False),
        sa.Column("decided_at", TIMESTAMP, nullable=False, server_default=_now()),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("row_hash", sa.String(16), nullable=False),
        sa.Column("other_hash", sa.String(16), nullable=False),
        sa.Column("act", sa.String(32), nullable=False),  # the decisions made together (a group's)
        # what the pipeline said of the pair when it was decided: `auto` (its pair),
        # `confirmed`, `possible` (in the queue) or `none`: the rule's precision is read here
        sa.Column("proposed", sa.String(16), nullable=True),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_decision_row_id", DECISION, ["row_id"])
    op.create_index("ix_dedup_decision_other_id", DECISION, ["other_id"])
    op.create_table(
        REVIEWER,
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("password", sa.String(255), nullable=False),  # scrypt: salt and hash, never the password
        sa.Column("created_at", TIMESTAMP, nullable=False, server_default=_now()),
        **TABLE_OPTIONS,
    )
    op.create_table(
        POSSIBLE,
        sa.Column("item", id_type, primary_key=True),
        sa.Column("row_id", id_type, primary_key=True),
        sa.Column("distance", sa.Float, nullable=False),  # the row's nearest in the item, as in dedup_match
        sa.Column("found_at", TIMESTAMP, nullable=False, server_default=_now()),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_dedup_possible_row_id", POSSIBLE, ["row_id"])
    op.add_column(MATCH, sa.Column("status", sa.Enum("auto", "confirmed", name="dedup_match_status"),
                                   nullable=False, server_default="auto"))


def downgrade() -> None:
    with op.batch_alter_table(MATCH, recreate="never") as table:  # SQLite 3.35+ drops a column itself
        table.drop_column("status")
    op.drop_table(POSSIBLE)
    op.drop_table(REVIEWER)
    op.drop_table(DECISION)


def _now() -> sa.TextClause:
    if op.get_context().dialect.name == "sqlite":
        return sa.text("(strftime('%Y-%m-%d %H:%M:%f', 'now'))")
    return sa.text("CURRENT_TIMESTAMP(6)")
