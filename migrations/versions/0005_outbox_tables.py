"""Several tables of one database share dedup_outbox: each entry names the table whose
trigger wrote it, `source_table`, and each table's worker claims its own. The `triggers`
branch (`migrate`).

Revision ID: 0005
Revises: 0001

The entries there before are the table's being migrated now, whose triggers revision 0001
made (`migrate` refuses another table's configuration first); the column's default is that
table, so that its triggers, which name no table, keep writing its entries. The triggers of
every other table name theirs (sql/triggers.py, which `migrate` runs for a table that has
none). Workers claim `source_table = ... AND done_at IS NULL ORDER BY id`, which the new
index serves.
"""

import sqlalchemy as sa
from alembic import context, op

revision = "0005"
down_revision = "0001"
branch_labels = None
depends_on = None

OUTBOX, SOURCE_TABLE = "dedup_outbox", "source_table"
INDEX = "ix_dedup_outbox_table_pending"
NAME = sa.String(64)  # MySQL's longest table name


def upgrade() -> None:
    table = context.config.attributes["dedup"].table
    op.add_column(OUTBOX, sa.Column(SOURCE_TABLE, NAME, nullable=False, server_default=table))
    op.create_index(INDEX, OUTBOX, [SOURCE_TABLE, "done_at", "id"])


def downgrade() -> None:
    op.drop_index(INDEX, OUTBOX)
    with op.batch_alter_table(OUTBOX, recreate="never") as batch:  # SQLite 3.35+ drops a column itself
        batch.drop_column(SOURCE_TABLE)
