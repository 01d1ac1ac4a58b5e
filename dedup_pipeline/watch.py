"""The outbox worker (`dedup-pipeline watch`): check rows as they arrive.

The triggers that `migrate` creates enqueue every inserted, updated and deleted row id in
`dedup_outbox`. A worker repeats, in one SQL transaction (READ COMMITTED on MySQL, as the
source sets it, so its locks never hold up the application's inserts):

1. claim the oldest pending entries, `FOR UPDATE SKIP LOCKED`, so several workers share
   the work, and with them every other pending entry of the same rows;
2. read those rows: a row that is there is fingerprinted and filed in the block index
   (new or changed), a row that is gone is removed; the entry's operation is only a hint;
3. look up every filed row's similar rows (one lookup for the whole batch), replace the
   rows' matches in `dedup_match`, both directions, and re-check each partner outside
   the batch against its current fingerprint (it may have changed meanwhile); a pair of
   two other rows that a changed or deleted row may have linked is decided again;
4. wait until MongoDB has the batch's writes in its journal, mark the entries done, commit.

A worker killed anywhere rolls back, so its entries are claimed again, and processing
twice gives the same result (filing an unchanged row changes nothing, matches are
upserts); a MongoDB that crashes keeps every write of a batch marked done. A row another
worker holds an older entry of is left for later, so no two workers process one row at
once. An entry that fails is retried, `max_attempts` times, then kept with its error
(never deleted). A database or MongoDB outage is logged and waited out with exponential
backoff. SIGTERM or SIGINT: finish the batch, then stop.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, fields
from itertools import product
from typing import Any

import sqlalchemy as sa

from . import matchtable
from .config import Config, ConfigError, mask_url
from .corroboration import corroborated
from .incremental import Incremental, open_incremental
from .source import SourceError, SqlSource

log = logging.getLogger("dedup_pipeline.watch")

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


def watch(config: Config, settings: WatchSettings, handle_signals: bool = True) -> Tally:
    """Run a worker until stopped (or, with `once`, until the outbox is drained)."""
    with SqlSource(config) as source:
        worker_tables = tables(source)
        with open_incremental(config) as index:
            worker = Worker(config, settings, source, index, worker_tables)
            previous = worker.handle_signals() if handle_signals else {}
            log.info("watching %s in %s as %s (batch size %d, poll %.3f s)", config.source.table,
                     mask_url(config.source.url), worker.name, settings.batch_size, settings.poll)
            try:
                return worker.run()
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)


def tables(source: SqlSource) -> tuple[sa.Table, sa.Table]:
    """dedup_outbox and dedup_match, or a WatchError saying to run `migrate`."""
    with source.engine.connect() as conn:
        matches = matchtable.reflect(conn)
        outbox = (sa.Table(OUTBOX_TABLE, sa.MetaData(), autoload_with=conn)
                  if sa.inspect(conn).has_table(OUTBOX_TABLE) else None)
    if outbox is None or matches is None:
        raise WatchError(f"{mask_url(source.config.source.url)} has no {OUTBOX_TABLE} and "
                         f"{matchtable.MATCH_TABLE}: run `dedup-pipeline migrate` first")
    return outbox, matches


class Worker:
    """Claims outbox entries in batches and keeps the index and dedup_match in step."""

    def __init__(self, config: Config, settings: WatchSettings, source: SqlSource,
                 index: Incremental, worker_tables: tuple[sa.Table, sa.Table], name: str = ""):
        self.config, self.settings, self.source, self.index = config, settings, source, index
        self.outbox, self.matches = worker_tables
        self.engine = source.engine
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
            if self._wait_out_outage(error):
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
            self._mark_done(conn, [e.id for e in mine], claimed_at)
        tally.claimed, tally.deferred = len(entries), len(entries) - len(mine)
        tally.seconds = time.perf_counter() - start
        return tally

    def _pending(self) -> sa.ColumnElement:
        ob = self.outbox
        return sa.and_(ob.c.done_at.is_(None), ob.c.attempts < self.settings.max_attempts)

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
        (the batch calls this too, for the rows changed while it ran)."""
        id_column = self.config.source.id_column
        present = {row[id_column]: row for row in self.source.rows_by_id(row_ids, conn)}
        absent = [i for i in row_ids if i not in present]
        linked = self._linked_through(conn, row_ids)
        orphans = self._copies_of(conn, row_ids)
        # Before filing: a pair another worker writes after this, from a lookup that saw
        # these rows filed, is not this batch's to delete.
        matchtable.forget_rows(conn, self.matches, row_ids)
        probes, added = self._file(present)
        removed = self.index.store.remove(self.index.table, absent) if absent else 0
        found, moved = self._linked_copies(*self.index.pairs_seen(probes), probes, orphans, row_ids)
        matchtable.forget_pairs(conn, self.matches, moved)
        matchtable.upsert(conn, self.matches, matchtable.both_directions(
            ((a, b, d) for (a, b), d in found.items()), matchtable.INCREMENTAL))
        matched = self._recheck(conn, found, probes)
        self._unlink(conn, linked, found)
        self.index.store.sync()  # before the entries are marked done: a MongoDB crash loses nothing
        return Tally(rows=len(row_ids), added=added, removed=removed, matched=matched)

    def _file(self, rows: dict[Any, dict]) -> tuple[dict[Any, Any], int]:
        """Probe rows together and file them; unchanged rows are skipped. Returns their
        probes (what the scheme compares them by) and how many were written."""
        if not rows:
            return {}, 0
        ids = list(rows)
        probes = dict(zip(ids, self.index.scheme.probes([rows[i] for i in ids])))
        return probes, self.index.file_many((i, rows[i], probes[i]) for i in ids)

    def _copies_of(self, conn: sa.Connection, row_ids: list) -> dict[Any, set]:
        """{row: its copies} of the rows of the batch that are the first of their text: the
        copies are linked to it alone (pairs.Similar), and it may be changing or gone."""
        identity = self.index.scheme.identity
        near = matchtable.partners(conn, self.matches, row_ids, distance=0)  # copies are at 0
        if not near:
            return {}
        before = self.index.current(near)
        now = self.index.current(set().union(*near.values()) - set(row_ids))
        out = {}
        for row, partners in near.items():
            if row not in before:
                continue
            mine = identity(before[row])
            copies = {m for m in partners if m in now and identity(now[m]) == mine}
            if copies and _first(copies | {row}) == row:
                out[row] = copies
        return out

    def _linked_copies(self, found: dict[tuple, Any], seen: dict[Any, Any], probes: dict[Any, Any],
                       orphans: dict[Any, set], batch: list) -> tuple[dict[tuple, Any], set[tuple]]:
        """The pairs found, with rows of one text linked to the first of them rather than to
        each other, as the batch stores them (pairs.Similar); and the links to forget: those
        to a first row that a row of the batch now precedes. Copies whose first row changed
        or went (`orphans`) are linked to the next. `seen`: the probes the pairs were found with."""
        identity = self.index.scheme.identity
        text = {row: identity(p) for row, p in seen.items()}
        out, moved, copies = {}, set(), {}
        for (a, b), distance in found.items():
            if text.get(a) and text.get(a) == text.get(b):
                for row, other in ((a, b), (b, a)):
                    if row in probes:
                        copies.setdefault(row, {}).update({row: distance, other: distance})
            else:
                out[a, b] = distance
        for row, mine in copies.items():
            first = _first(mine)
            if first != row:
                out[row, first] = mine[first]
                continue
            previous = _first(set(mine) - {row})
            out.update(((other, row), d) for other, d in mine.items() if other != row)
            moved.update((other, previous) for other in mine if other not in (row, previous))
        for row, rest in orphans.items():
            if row in copies or rest & copies.keys():
                continue  # a row of the batch still of this text linked them
            rest = {m for m in rest if m not in batch}
            first = _first(rest) if rest else None
            out.update(((m, first), 0) for m in rest if m != first)
        return out, moved

    def _recheck(self, conn: sa.Connection, found: dict[tuple, Any], probes: dict[Any, Any]) -> int:
        """Check each pair with a row outside the batch against what that row is now: another
        worker may have changed or removed it after the lookup, and cleared its matches
        before this transaction wrote the pair. Returns the pairs kept."""
        scheme = self.index.scheme
        now = {**self.index.current({r for pair in found for r in pair if r not in probes}), **probes}
        stale, moved = [], []
        for (a, b), distance in found.items():
            if a in probes and b in probes:
                continue
            # the text alone: a pair linked through a third row has no evidence of its own
            d = scheme.relate(now[a], now[b])[0] if a in now and b in now else None
            if d is None:
                stale.append((a, b))
            elif d != distance:
                moved.append((a, b, d))
        matchtable.forget_pairs(conn, self.matches, stale)
        matchtable.upsert(conn, self.matches, matchtable.both_directions(moved, matchtable.INCREMENTAL))
        return len(found) - len(stale)

    def _linked_through(self, conn: sa.Connection, row_ids: list) -> set[tuple]:
        """The stored pairs of two rows outside the batch that both match one of its rows,
        both directions: that row may be what linked them (corroboration.py), and it is
        changing or gone."""
        if not self.index.scheme.links:
            return set()
        batch = set(row_ids)
        groups = [near - batch for near in matchtable.partners(conn, self.matches, row_ids).values()]
        groups = [group for group in groups if len(group) > 1]
        around = sorted(set().union(*groups), key=str)
        return {(a, b) for a, b in matchtable.pairs_among(conn, self.matches, around)
                if any(a in group and b in group for group in groups)}

    def _unlink(self, conn: sa.Connection, linked: set[tuple], found: dict[tuple, Any]) -> None:
        """Forget the pairs of `linked` that this batch did not find again and that are pairs
        no more: neither similar with evidence of their own nor corroborated by a row both
        match (in dedup_match as this transaction leaves it), each row as the index holds it."""
        doubtful = {_ordered(pair) for pair in linked} - {_ordered(pair) for pair in found}
        if not doubtful:
            return
        near = matchtable.partners(conn, self.matches, sorted({r for pair in doubtful for r in pair}, key=str))
        common = {(a, b): (near.get(a, set()) & near.get(b, set())) - {a, b} for a, b in doubtful}
        now = self.index.current({r for pair in doubtful for r in pair} | set().union(*common.values()))
        relate = self.index.scheme.relate
        edges, weak, kept = {}, [], set()
        for a, b in doubtful:
            distance, evidence = relate(now[a], now[b]) if a in now and b in now else (None, 0)
            if evidence:
                kept.add((a, b))
            elif distance is not None:
                weak.append((a, b))
                for row, other in product((a, b), common[a, b] & now.keys()):
                    edges[row, other] = relate(now[row], now[other])[1]
        kept.update(corroborated({pair: e for pair, e in edges.items() if e}, weak))
        matchtable.forget_pairs(conn, self.matches, doubtful - kept)

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
                if self._wait_out_outage(single_error):
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

    def _wait_out_outage(self, error: Exception) -> bool:
        """If the database or MongoDB is unreachable, log it and wait until both answer,
        backing off exponentially; False when both answer at once (the error was the batch's)."""
        down = self._unreachable()
        if down is None:
            return False
        log.warning("%s is unreachable (%s); the batch was rolled back and will be retried",
                    down, describe(error))
        started, delay = time.monotonic(), FIRST_BACKOFF_S
        while not self.stopping:
            self.wake.wait(delay)
            down = self._unreachable()
            if down is None:
                log.info("reachable again after %.1f s; resuming", time.monotonic() - started)
                break
            delay = min(delay * 2, self.settings.backoff_max)
            log.warning("%s is still unreachable; next try in %.1f s", down, delay)
        return True

    def _unreachable(self) -> str | None:
        """Which of the source database and MongoDB does not answer, else None."""
        try:
            with self.engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
        except Exception:
            return f"the source database {mask_url(self.config.source.url)}"
        try:
            self.index.store.db.command("ping")
        except Exception:
            return f"MongoDB at {self.index.store.where}"
        return None


def _ordered(pair: tuple) -> tuple:
    return tuple(sorted(pair, key=str))


def _first(rows: set) -> Any:
    """The first of rows in id order, as the batch reads them: the one copies link to."""
    return min(rows)


def describe(error: BaseException) -> str:
    """An error as one line for logs and last_error, passwords masked."""
    cause = getattr(error, "orig", None) or error
    text = " ".join(str(cause).split())
    return mask_url(f"{type(cause).__name__}: {text}")


def pending_count(source: SqlSource) -> int:
    """Entries not done yet (given up ones included)."""
    with source.engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT COUNT(*) FROM {OUTBOX_TABLE} WHERE done_at IS NULL")).scalar_one()
