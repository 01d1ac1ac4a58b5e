"""The queue's table, `dedup_possible`, found by name: below both the queue (sql/queue.py),
which writes and reads it, and the decisions (sql/decisions.py), which ask what it proposes."""

from __future__ import annotations

import sqlalchemy as sa

POSSIBLE_TABLE = "dedup_possible"


def reflect(conn: sa.Connection) -> sa.Table | None:
    """dedup_possible, or None before `migrate` created it."""
    if not sa.inspect(conn).has_table(POSSIBLE_TABLE):
        return None
    return sa.Table(POSSIBLE_TABLE, sa.MetaData(), autoload_with=conn)
