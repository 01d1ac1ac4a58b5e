"""The worker that `watch` builds on, whichever way it learns of changes: it claims outbox
entries in batches (watch.py's path), or processes the rows the binary log names (binlog.py's
follower), keeping the index and dedup_match in step, and waits out an outage of the database
or MongoDB (`Worker.wait_out_outage`). How it works is told in watch.py's docstring."""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, fields
from typing import Any

import sqlalchemy as sa

from . import matches, matters
from .. import killpoints

from ..sql import matchtable
from ..sql.scoped import mine
from ..config import Config, ConfigError, mask_url
from .incremental import Incremental
from ..sql.source import SourceError, SqlSource

log = logging.getLogger("dedup_pipeline.jobs.watch")

OUTBOX_TABLE = "dedup_outbox"
ERROR_CHARS = 2000  # of an error kept in last_error
FIRST_BACKOFF_S = 0.5


class WatchError(SourceError):
    """The worker cannot start; the message says what to do."""


@dataclass(frozen=True)
class WatchSettings:
    """How the worker claims and retries (command-line options of `watch`)."""

    batch_size: int = 200
    poll: float = 0.05  # seconds between looks at an empty outbox
    max_attempts: int = 5  # an entry failing this often is kept with its error, not retried
    backoff_max: float = 30.0  # seconds, the longest wait between looks during an outage
    once: bool = False  # drain what is pending, then stop


@dataclass
class Tally:
    """What one batch (or the whole run) did."""

    claimed: int = 0
    rows: int = 0
    added: int = 0
    removed: int = 0
    matched: int = 0
    deferred: int = 0
    failed: int = 0
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def line(self) -> str:
        return " ".join(f"{f.name}={getattr(self, f.name):.3f}" if f.name == "seconds"
                        else f"{f.name}={getattr(self, f.name)}" for f in fields(self))


@dataclass(frozen=True)
class Entry:
    id: int
    row_id: Any


def tables(source: SqlSource) -> tuple[sa.Table | None, sa.Table]:
    """dedup_outbox (None where `migrate --from binlog` set up the binlog path instead) and
    dedup_match, or a WatchError saying to run `migrate`."""
    with source.engine.connect() as conn:
        matches = matchtable.reflect(conn)
        outbox = (sa.Table(OUTBOX_TABLE, sa.MetaData(), autoload_with=conn)
                  if sa.inspect(conn).has_table(OUTBOX_TABLE) else None)
    if matches is None:
        raise WatchError(f"{mask_url(source.config.source.url)} has no {OUTBOX_TABLE} and "
                         f"{matchtable.MATCH_TABLE}: run `dedup-pipeline migrate` first")
    return outbox, matches


class Worker:
    """Claims outbox entries in batches and keeps the index and dedup_match in step."""

    def __init__(self, config: Config, settings: WatchSettings, source: SqlSource,
                 index: Incremental, worker_tables: tuple[sa.Table | None, sa.Table], name: str = ""):
        self.config, self.settings, self.source, self.index = config, settings, source, index
        self.outbox, self.matches = worker_tables
        self.engine = source.engine
        self.matter_tables = None  # the matters stage's tables, reflected once, not each batch (None: not kept)
        if config.matters.find:
            with self.engine.connect() as conn:
                self.matter_tables = matters.tables_of(config, conn)
        self.mysql = self.engine.dialect.name in ("mysql", "mariadb")
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.stopping, self.wake = False, threading.Event()
        self.totals = Tally()
        self._claimed: list[Entry] = []

    # -- the loop

    def run(self) -> Tally:
        """Process batches until stopped; with `once`, until nothing is pending."""
        while not self.stopping:
            tally = self.step()
            if tally is None:
                continue  # an outage was waited out: look again at once
            self.totals.add(tally)
            if tally.claimed:
                log.info("batch %s", tally.line())
            if tally.claimed == tally.deferred:  # nothing processed: the outbox is empty
                if self.settings.once and not tally.claimed:
                    break
                self.wake.wait(self.settings.poll)
        return self.totals

    def stop(self) -> None:
        """Stop after the current batch."""
        self.stopping = True
        self.wake.set()

    def handle_signals(self) -> dict:
        """SIGTERM and SIGINT stop the worker after the current batch; returns the
        handlers they had."""
        return {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}

    def _on_signal(self, signum: int, frame: Any) -> None:
        log.info("%s: stopping after the current batch", signal.Signals(signum).name)
        self.stop()

    def step(self) -> Tally | None:
        """One batch; after a failure, the outage waited out (None) or the batch's rows
        retried one by one, failures recorded; a ConfigError (the live batch made with other
        scheme settings, store.MongoStore.require) stops the worker."""
        try:
            return self.batch(self.settings.batch_size)
        except ConfigError:
            raise  # the live batch was made with other settings: no row can be checked
        except Exception as error:
            failed = list(self._claimed)
            if self.wait_out_outage(error):
                return None
            return self._one_by_one(failed, error)

    # -- one batch, one transaction

    def batch(self, limit: int, rows: list | None = None) -> Tally:
        """Claim up to `limit` entries (of `rows` only, if given), process, mark done."""
        start = time.perf_counter()
        self._claimed = []
        with self.engine.connect() as conn, conn.begin():
            entries, claimed_at = self._claim(conn, limit, rows)
            self._claimed = entries
            if not entries:
                return Tally()
            busy = self._busy(conn, entries)
            mine = [e for e in entries if e.row_id not in busy]
            tally = self.process(conn, sorted({e.row_id for e in mine}))
            killpoints.reached("watch.synced")
            self._mark_done(conn, [e.id for e in mine], claimed_at)
        killpoints.reached("watch.committed")
        tally.claimed, tally.deferred = len(entries), len(entries) - len(mine)
        tally.seconds = time.perf_counter() - start
        return tally

    def _pending(self) -> sa.ColumnElement:
        """The configured table's entries still to process (tables of one database share the outbox)."""
        ob = self.outbox
        return sa.and_(ob.c.done_at.is_(None), ob.c.attempts < self.settings.max_attempts,
                       mine(ob, self.config.source.table))

    def _claim(self, conn: sa.Connection, limit: int, rows: list | None) -> tuple[list[Entry], Any]:
        """Lock the oldest pending entries, then every other pending entry of their rows
        that no other worker holds; and the server's time."""
        ob = self.outbox
        first = sa.select(ob.c.id, ob.c.row_id, self._now().label("now")).where(self._pending())
        if rows is not None:
            first = first.where(ob.c.row_id.in_(rows))
        found = conn.execute(first.order_by(ob.c.id).limit(limit).with_for_update(skip_locked=True)).all()
        if not found:
            return [], None
        row_ids = sorted({r.row_id for r in found})
        every = conn.execute(sa.select(ob.c.id, ob.c.row_id).where(self._pending(), ob.c.row_id.in_(row_ids))
                             .order_by(ob.c.id).with_for_update(skip_locked=True)).all()
        now = found[0].now
        return [Entry(r.id, r.row_id) for r in every], dt.datetime.fromisoformat(now) if isinstance(now, str) else now

    def _busy(self, conn: sa.Connection, entries: list[Entry]) -> set:
        """Rows with an older pending entry this worker does not hold: another worker is
        on them, so they wait for the next batch (one row, one worker at a time)."""
        ob, ours = self.outbox, {e.id for e in entries}
        lowest: dict[Any, int] = {}
        for e in entries:
            lowest[e.row_id] = min(lowest.get(e.row_id, e.id), e.id)
        visible = conn.execute(sa.select(ob.c.id, ob.c.row_id)
                               .where(self._pending(), ob.c.row_id.in_(sorted(lowest)))).all()
        return {r.row_id for r in visible if r.id not in ours and r.id < lowest[r.row_id]}

    def process(self, conn: sa.Connection, row_ids: list) -> Tally:
        """File the rows that are there, remove those that are gone, write their matches
        (matches.apply; the batch calls this too, for the rows changed while it ran)."""
        id_column = self.config.source.id_column
        present = {row[id_column]: row for row in self.source.rows_by_id(row_ids, conn)}
        absent = [i for i in row_ids if i not in present]
        found = matchtable.SqlMatches(conn, self.matches, matchtable.INCREMENTAL, self.config.source.table)
        done = matches.apply(self.index, found, present, absent)
        matters.follow(conn, self.matter_tables, self.config, present, absent)
        self.index.store.sync()  # before the entries are marked done: a MongoDB crash loses nothing
        return Tally(rows=len(row_ids), added=done.added, removed=done.removed, matched=done.matched)

    def _mark_done(self, conn: sa.Connection, ids: list[int], claimed_at: Any) -> None:
        ob = self.outbox
        if ids:
            conn.execute(ob.update().where(ob.c.id.in_(ids)).values(
                done_at=self._now(), claimed_by=self.name, claimed_at=claimed_at, attempts=ob.c.attempts + 1))

    def _now(self) -> sa.ColumnElement:
        """The database server's time, as the outbox's other timestamps."""
        if self.mysql:
            return sa.func.now(6)
        return sa.func.strftime("%Y-%m-%d %H:%M:%f", "now")

    # -- failures

    def _one_by_one(self, entries: list[Entry], error: Exception) -> Tally:
        """After a failed batch: each of its rows in a transaction of its own, so that one
        bad row holds up no other; a row that fails has its entries' error recorded."""
        if not entries:
            raise error  # the claim itself failed with both servers up: nothing to retry
        tally = Tally()
        rows = sorted({e.row_id for e in entries}, key=str)
        if len(rows) <= 1:
            self._record_failure(entries, error)
            return Tally(claimed=len(entries), failed=len(rows))
        for row in rows:
            if self.stopping:
                break
            try:
                tally.add(self.batch(self.settings.batch_size, [row]))
            except ConfigError:
                raise
            except Exception as single_error:
                failed = list(self._claimed)
                if self.wait_out_outage(single_error):
                    break
                self._record_failure(failed, single_error)
                tally.claimed += len(failed)
                tally.failed += 1
        return tally

    def _record_failure(self, entries: list[Entry], error: Exception) -> None:
        """Count an attempt and keep the error, in a transaction of its own."""
        if not entries:
            return
        ob, text = self.outbox, describe(error)
        try:
            with self.engine.begin() as conn:
                conn.execute(ob.update().where(ob.c.id.in_([e.id for e in entries])).values(
                    attempts=ob.c.attempts + 1, last_error=text[:ERROR_CHARS], claimed_by=self.name,
                    claimed_at=self._now()))
                attempts = conn.execute(sa.select(sa.func.max(ob.c.attempts))
                                        .where(ob.c.id.in_([e.id for e in entries]))).scalar_one()
        except Exception as record_error:
            log.warning("cannot record the failure of row %s: %s", entries[0].row_id, describe(record_error))
            return
        final = attempts >= self.settings.max_attempts
        log.warning("row %s failed (attempt %d of %d%s): %s", entries[0].row_id, attempts,
                    self.settings.max_attempts, "; kept with its error, no longer retried" if final else "",
                    text)

    def wait_out_outage(self, error: Exception) -> bool:
        """If the database or MongoDB is unreachable, log it and wait until both answer,
        backing off exponentially; False when both answer at once (the error was the batch's)."""
        down = self.unreachable()
        if down is None:
            return False
        log.warning("%s is unreachable (%s); the batch was rolled back and will be retried",
                    down, describe(error))
        started, delay = time.monotonic(), FIRST_BACKOFF_S
        while not self.stopping:
            self.wake.wait(delay)
            down = self.unreachable()
            if down is None:
                log.info("reachable again after %.1f s; resuming", time.monotonic() - started)
                break
            delay = min(delay * 2, self.settings.backoff_max)
            log.warning("%s is still unreachable; next try in %.1f s", down, delay)
        return True

    def unreachable(self) -> str | None:
        """Which of the source database and MongoDB does not answer, else None."""
        try:
            with self.engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
        except Exception:
            return f"the source database {mask_url(self.config.source.url)}"
        try:
            self.index.store.ping()
        except Exception:
            if not self.index.store.revive():  # the embedded server is brought back, or a StoreError ends the worker
                return f"MongoDB at {self.index.store.where}"
            log.warning("the embedded MongoDB at %s had ended; started it again", self.index.store.where)
        return None


def describe(error: BaseException) -> str:
    """An error as one line for logs and last_error, passwords masked."""
    cause = getattr(error, "orig", None) or error
    text = " ".join(str(cause).split())
    return mask_url(f"{type(cause).__name__}: {text}")


def pending_count(source: SqlSource) -> int:
    """Entries of the configured table not done yet (given up ones included)."""
    with source.engine.connect() as conn:
        outbox = sa.Table(OUTBOX_TABLE, sa.MetaData(), autoload_with=conn)
        return conn.execute(sa.select(sa.func.count()).where(
            outbox.c.done_at.is_(None), mine(outbox, source.config.source.table))).scalar_one()
