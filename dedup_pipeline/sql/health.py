"""What `dedup-pipeline status` reads in the source database: the changes `watch` has not
processed yet (the outbox's backlog, or how far the stored position is behind the binary
log), the review queue's open items, and the decisions made today. Each function
reads one part; None when its table is not there (`migrate` not run, or run for the other
way of following changes). Ages are measured by the database's clock, which wrote the times.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa

from . import binlog, decisions, queue
from .migrate import OUTBOX_TABLE
from .scoped import mine
from .source import SqlSource


@dataclass(frozen=True)
class Backlog:
    """The outbox's entries not processed yet (`failed`: of them, those whose last attempt
    failed, their error in last_error), and the oldest of them: when the trigger wrote it,
    and how many seconds ago."""

    pending: int
    failed: int
    oldest: dt.datetime | None
    age: float | None


def outbox(source: SqlSource) -> Backlog | None:
    """The backlog of the configured table in dedup_outbox; None before `migrate` made it."""
    with source.errors("read dedup_outbox beside"), source.engine.connect() as conn:
        if not sa.inspect(conn).has_table(OUTBOX_TABLE):
            return None
        table = sa.Table(OUTBOX_TABLE, sa.MetaData(), autoload_with=conn)
        pending, failed, oldest, now = conn.execute(
            sa.select(sa.func.count(), sa.func.count(table.c.last_error), sa.func.min(table.c.enqueued_at),
                      _now(conn)).where(table.c.done_at.is_(None), mine(table, source.config.source.table))).one()
    age = None if oldest is None else max(0.0, (now - oldest).total_seconds())
    return Backlog(pending, failed, oldest, age)


def _now(conn: sa.Connection) -> sa.ColumnElement:
    """The database's time now, as it writes the outbox's times (SQLite: UTC, to the second)."""
    if conn.dialect.name in ("mysql", "mariadb"):
        return sa.func.now(6)
    return sa.func.now()


def binlog_lag(source: SqlSource) -> binlog.Lag | None:
    """How far the position stored for the configured table is behind the binary log
    (binlog.lag); None before `migrate --from binlog` made the position table."""
    with source.errors("read the binary log position of"), source.engine.connect() as conn:
        table = binlog.position_table(conn)
        if table is None:
            return None
        return binlog.lag(conn, table, source.config.source.table)


def open_queue(source: SqlSource) -> list[queue.Item] | None:
    """The queue's items still open (queue.open_items); None before `migrate` made dedup_possible."""
    with source.errors("read the queue of possible pairs of"), source.engine.connect() as conn:
        if queue.reflect(conn) is None:
            return None
    return queue.open_items(source)


def decided_today(source: SqlSource) -> int | None:
    """The acts (a pair decided, or a group as one) recorded since midnight, by the
    database's clock, which writes their times; None before `migrate` made dedup_decision."""
    if not decisions.exists(source):
        return None
    with source.errors("read the time of"), source.engine.connect() as conn:
        now = conn.execute(sa.select(_now(conn))).scalar_one()
    return decisions.acts_since(source, dt.datetime.combine(now.date(), dt.time()))
