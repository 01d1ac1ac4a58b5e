"""Several tables of one database (来信, 来访, 网上信访, each configured apart) share the
dedup tables: each row of dedup_match, dedup_possible, dedup_decision and dedup_outbox
names the table it is about in `source_table` (revisions 0004 and 0005, which give the rows
before them the table migrated then), and every reader and writer keeps to its configured
table's. A database not migrated since has no such column: its dedup tables are one
table's, read and written whole, as before.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

SOURCE_TABLE = "source_table"


def mine(table: sa.Table, source_table: str) -> sa.ColumnElement[bool]:
    """The rows of `table` about `source_table` (every row, before the column came)."""
    return table.c[SOURCE_TABLE] == source_table if SOURCE_TABLE in table.c else sa.true()


def tagged(table: sa.Table, source_table: str) -> dict[str, Any]:
    """What a row written to `table` about `source_table` carries ({} before the column came)."""
    return {SOURCE_TABLE: source_table} if SOURCE_TABLE in table.c else {}
