"""Several tables of one database (来信, 来访, 网上信访, each configured apart) share the
dedup tables: each row of dedup_match, dedup_possible and dedup_decision names the table it
is about, `source_table`; the rows there before are the table's being migrated now (a
database followed one table until this revision; `migrate` refuses another table's
configuration first). The review branch, applied either way.

Revision ID: 0004
Revises: 0003

dedup_match's key becomes (row_id, similar_id, source_table), dedup_possible's (item,
row_id, source_table): two tables' rows may share ids. A row's matches stay one
primary-key range read, `WHERE row_id = ...`, with the table or without. The column's
default is the table migrated now, so that a dedup-pipeline before this revision, still
writing without it, writes that table's rows.
"""

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

MATCH, POSSIBLE, DECISION = "dedup_match", "dedup_possible", "dedup_decision"
SOURCE_TABLE = "source_table"
NAME = sa.String(64)  # MySQL's longest table name
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
TABLE_OPTIONS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
KEYS = {MATCH: ["row_id", "similar_id"], POSSIBLE: ["item", "row_id"]}
INDEXES = {MATCH: ("ix_dedup_match_similar_id", ["similar_id"]), POSSIBLE: ("ix_dedup_possible_row_id", ["row_id"])}


def upgrade() -> None:
    table = context.config.attributes["dedup"].table
    for name in (MATCH, POSSIBLE):
        _rekey(name, table, with_table=True)
    op.add_column(DECISION, _column(table))


def downgrade() -> None:
    table = context.config.attributes["dedup"].table
    for name in (DECISION, MATCH, POSSIBLE):  # another table's rows would be this one's
        op.execute(sa.table(name, sa.column(SOURCE_TABLE)).delete().where(sa.column(SOURCE_TABLE) != table))
    with op.batch_alter_table(DECISION, recreate="never") as batch:  # SQLite 3.35+ drops a column itself
        batch.drop_column(SOURCE_TABLE)
    for name in (MATCH, POSSIBLE):
        _rekey(name, table, with_table=False)


def _column(table: str) -> sa.Column:
    return sa.Column(SOURCE_TABLE, NAME, nullable=False, server_default=table)


def _rekey(name: str, table: str, with_table: bool) -> None:
    """Add `source_table` to the table `name` and its primary key (or take it out of both)."""
    key = KEYS[name] + ([SOURCE_TABLE] if with_table else [])
    if op.get_context().dialect.name == "sqlite":
        return _rebuilt(name, table, key, with_table)
    quoted = ", ".join(key)
    if with_table:
        op.add_column(name, _column(table))
        op.execute(f"ALTER TABLE {name} DROP PRIMARY KEY, ADD PRIMARY KEY ({quoted})")
    else:
        op.execute(f"ALTER TABLE {name} DROP PRIMARY KEY, DROP COLUMN {SOURCE_TABLE}, ADD PRIMARY KEY ({quoted})")


def _rebuilt(name: str, table: str, key: list[str], with_table: bool) -> None:
    """SQLite cannot change a primary key: the table made again under the new key, its rows
    copied (as Alembic's batch mode does, written out so that the SQL for a DBA has it too)."""
    old = f"_{name}_before_0004"
    columns = [c.name for c in _columns(name, "")]
    op.rename_table(name, old)
    op.create_table(name, *_columns(name, table if with_table else ""), sa.PrimaryKeyConstraint(*key),
                    **TABLE_OPTIONS)
    copied = columns + ([SOURCE_TABLE] if with_table else [])
    values = columns + ([f"'{table.replace(chr(39), chr(39) * 2)}'"] if with_table else [])
    op.execute(f"INSERT INTO {name} ({', '.join(copied)}) SELECT {', '.join(values)} FROM {old}")
    op.drop_table(old)
    op.create_index(INDEXES[name][0], name, INDEXES[name][1])


def _columns(name: str, table: str) -> list[sa.Column]:
    """The columns of `name` as revisions 0000 and 0003 made them, with `source_table` when `table`."""
    id_type = context.config.attributes["dedup"].id_type
    found_at = sa.Column("found_at", TIMESTAMP, nullable=False,
                         server_default=sa.text("(strftime('%Y-%m-%d %H:%M:%f', 'now'))"))
    if name == MATCH:
        columns = [sa.Column("row_id", id_type, nullable=False), sa.Column("similar_id", id_type, nullable=False),
                   sa.Column("distance", sa.Float, nullable=False), found_at,
                   sa.Column("source", sa.Enum("batch", "incremental", name="dedup_match_source"), nullable=False),
                   sa.Column("status", sa.Enum("auto", "confirmed", name="dedup_match_status"), nullable=False,
                             server_default="auto")]
    else:
        columns = [sa.Column("item", id_type, nullable=False), sa.Column("row_id", id_type, nullable=False),
                   sa.Column("distance", sa.Float, nullable=False), found_at]
    return columns + ([_column(table)] if table else [])
