"""`dedup-pipeline watch --from binlog`: the worker of watch.py, told which rows changed by
the server's row-based binary log instead of an outbox filled by triggers, so the table
needs no trigger (the pattern of Debezium and Canal).

The log is read from the position stored in `dedup_binlog_position` (binlogstream.py reads
it, in a thread). Its events are folded into transactions (`Transactions`: the ids of the
configured table's rows each one changed, and the position after it); whole transactions
are gathered into a batch until `batch_size` rows or until nothing more has arrived, and
each batch is one SQL transaction:

1. lock the stored position, and check it is the one this worker read from (a batch that
   set a new one, or a second worker, moved it: read again from there);
2. `Worker.process` the batch's rows, as the trigger path does (the same module, the same
   dedup_match writes, MongoDB synced);
3. store the position after the batch's last transaction; commit.

So the position is never ahead of the work: a kill anywhere rolls back 1-3, and the log
is read again from the stored position; processing a row twice gives the same result. A
transaction of more rows than `batch_size` (one UPDATE of 100,000 rows) is processed a
batch at a time, the position moved only with its last part. Before step 1 the batch's
rows are read with a shared lock in a transaction of their own: the log may hold a
transaction a moment before the table shows it committed, and the lock waits for that.

`once` reads up to where the log ended when the worker started, then stops (for cron). A
lost connection or a server restarted is waited out, then reading resumes from the stored
position. A statement that changes the table whole is handled before any row after it is
read: an ALTER TABLE is followed (the table's columns read again); a rename, drop,
truncate, replacement, or a change logged as a statement stops the worker with a line
saying why, the position stored before it and marked stopped, until `batch` sets a new
one. A row that fails with both servers up is kept in `dedup_binlog_failed` with its
error, tried again when a worker starts, and the worker goes on.
"""

from __future__ import annotations

import logging
import signal
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import sqlalchemy as sa

from .. import killpoints
from ..config import Config, ConfigError, mask_url
from ..pipeline import Using, config_of, holding
from ..sql import binlog, matchtable
from ..sql.binlog import BinlogError, Position
from ..sql.binlogstream import (Begin, Commit, End, Event, Failed, IdColumn, LayoutError, Moved, Rows, Statement,
                                Stream, StreamLost)
from ..sql.source import IN_IDS, SqlSource, parse_url
from .incremental import Incremental
from .worker import FIRST_BACKOFF_S, Tally, WatchError, WatchSettings, Worker, describe

log = logging.getLogger("dedup_pipeline.jobs.binlog")

POSITION_EVERY_S = 10.0  # a position moved only by other tables' transactions is stored at most this often
STATEMENT_CHARS = 120  # of a statement quoted in a message
BINLOG_BACKENDS = ("mysql", "mariadb")


@dataclass
class BinlogTally(Tally):
    """What a batch (or the run) did: `claimed` counts the row changes read from the log."""

    transactions: int = 0


class Done(NamedTuple):
    """A transaction of the log: the ids of the table's rows it changed, first seen first,
    and the position after it."""

    rows: list
    end: Position
    gtid: str | None


class Transactions:
    """The stream's plain events folded into transactions (pure). `boundary` is the last
    position between two transactions: where reading may start again."""

    def __init__(self, start: Position):
        self.boundary = start
        self.open, self.standalone, self.gtid = False, False, None
        self.rows: dict[Any, None] = {}

    def feed(self, event: Event) -> Done | None:
        """The transaction `event` ends, if it ends one (an empty one for a statement alone)."""
        if isinstance(event, Begin):
            if not (event.gtid is None and self.open):  # MySQL's BEGIN after its GTID event
                self.open, self.standalone, self.gtid, self.rows = True, event.standalone, event.gtid, {}
        elif isinstance(event, Rows):
            self.open = True
            self.rows.update(dict.fromkeys(event.ids))
        elif isinstance(event, Commit):
            return self._end(event.after)  # rolled back too: a non-transactional table keeps its changes
        elif isinstance(event, Statement):
            if not self.open or self.standalone:
                return self._end(event.after)  # DDL: a transaction of its own
        elif isinstance(event, Moved) and not self.open:
            self.boundary = event.after
        return None

    def _end(self, after: Position) -> Done:
        done = Done(list(self.rows), after, self.gtid)
        self.open, self.standalone, self.gtid, self.rows = False, False, None, {}
        self.boundary = after
        return done


class PositionMoved(Exception):
    """The stored position is not the one this worker read from: a batch set a new one,
    or another worker moved it."""


class Batch:
    """Whole transactions gathered for one SQL transaction."""

    def __init__(self) -> None:
        self.rows: dict[Any, None] = {}
        self.end: Position | None = None
        self.gtid: str | None = None
        self.transactions = self.changes = 0

    def add(self, done: Done) -> None:
        self.rows.update(dict.fromkeys(done.rows))
        self.end, self.gtid = done.end, done.gtid or self.gtid
        self.transactions += 1
        self.changes += len(done.rows)

    def __len__(self) -> int:
        return len(self.rows)


def follow(using: Using, settings: WatchSettings, handle_signals: bool = True) -> BinlogTally:
    """Follow the configured table in the binary log until stopped (with `once`, until
    where the log ended at the start), on the process's Pipeline (or one opened on a Config)."""
    _check_backend(config_of(using))
    with holding(using) as pipe:
        config, source = pipe.config, pipe.source
        with source.errors("read the dedup tables beside"), source.engine.connect() as conn:
            matches = matchtable.reflect(conn)
            position, failed = binlog.position_table(conn), binlog.failed_table(conn)
            server = binlog.settings(conn)
        if matches is None or position is None or failed is None:
            raise WatchError(f"{mask_url(config.source.url)} has no {binlog.POSITION_TABLE}: run "
                             f"`dedup-pipeline migrate --from binlog` first, then `dedup-pipeline batch`")
        refuse_settings(config, server)
        index = pipe.incremental()
        index.ready()
        follower = Follower(config, settings, source, index, matches, position, failed, server)
        previous = follower.worker.handle_signals() if handle_signals else {}
        try:
            return follower.run()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def check(config: Config) -> Position:
    """What `config --check` verifies for `watch --from binlog`: the server's settings
    (binary logging on, binlog_format = ROW, binlog_row_image = FULL), the account's grants
    (REPLICATION CLIENT, REPLICATION SLAVE; SELECT on the table is the table check's), and the
    position table `migrate --from binlog` makes. Where the log ends now, or a BinlogError
    naming everything missing in one line."""
    _check_backend(config)
    with SqlSource(config) as source, source.errors("check the binary log of"), source.engine.connect() as conn:
        server = binlog.settings(conn)
        missing = server.missing()
        if server.log_bin:
            missing += binlog.missing_grants(conn)
        now = binlog.current(conn) if not missing else None
        if binlog.position_table(conn) is None or binlog.failed_table(conn) is None:
            missing.append(f"{binlog.POSITION_TABLE} (`dedup-pipeline migrate --from binlog` makes it)")
    from ..sql.binlogstream import can_read

    if not can_read(config):
        missing.append("REPLICATION SLAVE")
    if missing:
        raise BinlogError(f"{mask_url(config.source.url)}: `watch --from binlog` needs {'; '.join(missing)}; "
                          f"{binlog.SETUP_HINT}")
    return now


def _check_backend(config: Config) -> None:
    backend = parse_url(config.source.url).get_backend_name()
    if backend not in BINLOG_BACKENDS:
        raise ConfigError(f"[source] url {mask_url(config.source.url)}: --from binlog follows the binary log of "
                          f"MySQL or MariaDB, not {backend}; use the triggers (`--from triggers`)")


def refuse_settings(config: Config, server: binlog.Settings) -> None:
    """A BinlogError naming every setting the server lacks, if any."""
    missing = server.missing()
    if missing:
        raise BinlogError(f"{mask_url(config.source.url)} does not log what `watch --from binlog` needs: "
                          f"{'; '.join(missing)}; {binlog.SETUP_HINT}")


class Follower:
    """Reads the log in batches of whole transactions and keeps the index, dedup_match and
    the stored position in step (the module's docstring)."""

    def __init__(self, config: Config, settings: WatchSettings, source: SqlSource, index: Incremental,
                 matches: sa.Table, position: sa.Table, failed: sa.Table, server: binlog.Settings):
        self.config, self.settings, self.source = config, settings, source
        self.worker = Worker(config, settings, source, index, (None, matches))
        self.position, self.failed, self.server = position, failed, server
        self.table = config.source.table
        self.engine = source.engine
        self.totals = BinlogTally()
        self.expected: Position | None = None  # the stored position this worker reads from
        self.stored_at = time.monotonic()

    # -- the loop

    def run(self) -> BinlogTally:
        self._retry_failed()
        delay = FIRST_BACKOFF_S
        while not self.worker.stopping:
            try:
                if self._follow():
                    break
                delay = FIRST_BACKOFF_S
            except PositionMoved as moved:
                log.info("%s; reading again from there", moved)
            except (BinlogError, ConfigError):
                raise
            except Exception as error:
                if self.worker.wait_out_outage(error):
                    continue  # both servers answer again: read again from the stored position
                if not _passing(error):
                    raise
                log.warning("%s; reading again from the stored position in %.1f s", describe(error), delay)
                self.worker.wake.wait(delay)
                delay = min(delay * 2, self.settings.backoff_max)
        return self.totals

    def _follow(self) -> bool:
        """Read from the stored position until stopped, the end (`once`), or a statement that
        changes the table whole; True when done, False to read again from the stored position."""
        start = self._start()
        target = self._current() if self.settings.once else None
        if target is not None and start >= target:
            return True
        self.expected = start
        log.info("following %s in %s from %s%s (batch size %d)", self.table, mask_url(self.config.source.url),
                 start, f" to {target}" if target else "", self.settings.batch_size)
        folded, batch = Transactions(start), Batch()
        with Stream(self.config, start, self._id_column(), blocking=target is None,
                    server_id=self.config.watch.server_id) as stream:
            while not self.worker.stopping:
                event = stream.get(timeout=self.settings.poll) if not len(batch) else stream.get()
                if event is None:
                    self._flush(batch, folded)  # nothing more has arrived
                    batch = Batch()
                    continue
                if isinstance(event, Failed):
                    self._flush(batch, folded)
                    return self._failed(event.error, folded)
                if isinstance(event, Statement) and event.touching:
                    self._flush(batch, folded)
                    return self._changed_whole(event, folded)
                if isinstance(event, End):
                    break
                done = folded.feed(event)
                if done is not None:
                    batch = self._gather(batch, done, folded)
                if target is not None and not folded.open and folded.boundary >= target:
                    break
            self._flush(batch, folded, last=True)
        return True

    def _gather(self, batch: Batch, done: Done, folded: Transactions) -> Batch:
        """Add a transaction to the batch; process the batch when it is full. A transaction
        larger than a batch is processed a batch at a time, the position moved with its last part."""
        size = self.settings.batch_size
        if len(done.rows) > size:
            self._flush(batch, folded)
            parts = [done.rows[start:start + size] for start in range(0, len(done.rows), size)]
            for part in parts[:-1]:
                self._commit(part, None, None, transactions=0)
            last = Batch()
            last.add(done._replace(rows=parts[-1]))
            self._flush(last, folded)
            return Batch()
        batch.add(done)
        if len(batch) >= size:
            self._flush(batch, folded)
            return Batch()
        return batch

    def _flush(self, batch: Batch, folded: Transactions, last: bool = False) -> None:
        """Process the batch's rows and store the position after it; with no rows, store the
        position only now and then (other tables' transactions move it), and when stopping."""
        if len(batch):
            self._commit(list(batch.rows), batch.end, batch.gtid, batch.transactions, batch.changes)
            return
        end = batch.end if folded.open else folded.boundary
        due = last or time.monotonic() - self.stored_at > POSITION_EVERY_S
        if end is not None and end != self.expected and due:
            self._commit([], end, batch.gtid, batch.transactions)

    # -- one batch, one transaction

    def _commit(self, rows: list, end: Position | None, gtid: str | None, transactions: int,
                changes: int | None = None) -> None:
        start = time.perf_counter()
        if rows:
            self._visible(rows)
        try:
            with self.engine.connect() as conn, conn.begin():
                self._lock(conn)
                tally = self._process(conn, rows)
                killpoints.reached("binlog.processed")
                if end is not None:
                    binlog.store(conn, self.position, self.table, end, set_by="watch", gtid=gtid)
                killpoints.reached("binlog.positioned")
        except (PositionMoved, ConfigError):
            raise
        except Exception as error:
            if not rows or self.worker.unreachable() is not None or _passing(error):
                raise
            tally = self._one_by_one(rows, end, gtid, error)
        killpoints.reached("binlog.committed")
        self._moved_to(end)
        tally.claimed = len(rows) if changes is None else changes
        tally.transactions, tally.seconds = transactions, time.perf_counter() - start
        self.totals.add(tally)
        if rows:
            log.info("batch %s position=%s", tally.line(), end or "(unchanged: within a transaction)")

    def _process(self, conn: sa.Connection, rows: list) -> BinlogTally:
        done = self.worker.process(conn, rows) if rows else Tally()
        return BinlogTally(rows=done.rows, added=done.added, removed=done.removed, matched=done.matched)

    def _lock(self, conn: sa.Connection) -> None:
        held = binlog.stored(conn, self.position, self.table, lock=True)
        if held is None or held.position != self.expected or held.stopped:
            now = "removed" if held is None else f"{held.position}{' (stopped)' if held.stopped else ''}"
            raise PositionMoved(f"the stored position of {self.table} is now {now}, not {self.expected}")

    def _moved_to(self, end: Position | None) -> None:
        if end is not None:
            self.expected, self.stored_at = end, time.monotonic()

    def _visible(self, rows: list) -> None:
        """Wait until the transactions that changed these rows are committed in the table:
        a locking read waits for the locks they hold (the log may have them a moment
        before), and releases its own at once."""
        id_column = self.source.id_column
        with self.engine.connect() as conn, conn.begin():
            for start in range(0, len(rows), IN_IDS):
                part = rows[start:start + IN_IDS]
                conn.execute(sa.select(id_column).where(id_column.in_(part)).with_for_update(read=True)).all()

    def _one_by_one(self, rows: list, end: Position | None, gtid: str | None, error: Exception) -> BinlogTally:
        """After a failed batch with both servers up: each row in a transaction of its own;
        the rows that fail are kept with their errors, and the position moves on."""
        log.warning("a batch of %d rows failed (%s); processing them one by one", len(rows), describe(error))
        tally, errors = BinlogTally(), {}
        for row in rows:
            try:
                with self.engine.connect() as conn, conn.begin():
                    self._lock(conn)
                    tally.add(self._process(conn, [row]))
            except (PositionMoved, ConfigError):
                raise
            except Exception as single:
                if self.worker.unreachable() is not None or _passing(single):
                    raise
                errors[row] = describe(single)
                log.warning("row %s failed; kept in %s with its error: %s", row, binlog.FAILED_TABLE, errors[row])
        with self.engine.connect() as conn, conn.begin():
            self._lock(conn)
            binlog.record_failed(conn, self.failed, self.table, errors)
            if end is not None:
                binlog.store(conn, self.position, self.table, end, set_by="watch", gtid=gtid)
        tally.failed = len(errors)
        return tally

    def _retry_failed(self) -> None:
        """The rows kept with an error, tried again: those that pass leave the table."""
        with self.engine.connect() as conn:
            rows = binlog.failed_rows(conn, self.failed, self.table)
        if rows:
            log.info("trying again %d row(s) kept in %s", len(rows), binlog.FAILED_TABLE)
        for row in rows:
            try:
                with self.engine.connect() as conn, conn.begin():
                    binlog.stored(conn, self.position, self.table, lock=True)
                    self.totals.add(self._process(conn, [row]))
                    binlog.forget_failed(conn, self.failed, self.table, [row])
            except ConfigError:
                raise
            except Exception as error:
                if self.worker.unreachable() is not None:
                    raise
                with self.engine.begin() as conn:
                    binlog.record_failed(conn, self.failed, self.table, {row: describe(error)})
                log.warning("row %s failed again: %s", row, describe(error))

    # -- where to read from

    def _start(self) -> Position:
        """The stored position, or a BinlogError saying why the log cannot be followed from it."""
        with self.source.errors("read the binary log position of"), self.engine.connect() as conn:
            held = binlog.stored(conn, self.position, self.table)
            if held is None:
                raise BinlogError(f"no binary log position is stored for {self.table} in "
                                  f"{mask_url(self.config.source.url)}: run `dedup-pipeline batch` first: it files the "
                                  f"rows there now and stores where the log is")
            if held.stopped:
                raise BinlogError(held.stopped)
            why = binlog.unreadable(held.position, self._logs(conn))
        if why:
            raise BinlogError(f"cannot follow {self.table} from the stored position {held.position}: {why}, so the "
                              f"changes since are lost to the worker; run `dedup-pipeline batch`: it files the table "
                              f"as it is and sets a new position")
        return held.position

    def _logs(self, conn: sa.Connection) -> dict[str, int]:
        try:
            return binlog.logs(conn)
        except sa.exc.DBAPIError as e:
            if binlog._code(e) in binlog.ACCESS_DENIED:
                raise BinlogError(f"{mask_url(self.config.source.url)} refuses to list its binary logs to this "
                                  f"account: it needs REPLICATION CLIENT; {binlog.SETUP_HINT}") from None
            raise

    def _current(self) -> Position:
        with self.engine.connect() as conn:
            now = binlog.current(conn)
        if now is None:
            raise BinlogError(f"binary logging is off on {mask_url(self.config.source.url)}: start the server with "
                              f"log-bin; {binlog.SETUP_HINT}")
        return now

    def _id_column(self) -> IdColumn:
        """Where a row event holds the id, from the table's columns as they are now."""
        with self.engine.connect() as conn:
            columns = sa.inspect(conn).get_columns(self.table)
        names = [c["name"] for c in columns]
        missing = [c for c in [self.config.source.id_column, *(f.name for f in self.config.fields)] if c not in names]
        if missing:
            raise ConfigError(f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)} not in table "
                              f"{self.table!r} (it has: {', '.join(names)}); fix [fields] or [source] id_column")
        ordinal = names.index(self.config.source.id_column)
        return IdColumn(self.table, names[ordinal], ordinal, len(names), isinstance(columns[ordinal]["type"], sa.Integer))

    # -- what stops the worker

    def _changed_whole(self, event: Statement, folded: Transactions) -> bool:
        """A statement that changes the table whole: an ALTER is followed (False: read again,
        with the columns as they are now); anything else stops the worker."""
        quoted = " ".join(event.text.split())[:STATEMENT_CHARS]
        if event.touching == "altered":
            self._id_column()  # the configured columns are still there, or a ConfigError says which is not
            self._store_position(event.after)
            log.info("%s was altered at %s (%s); following on with its columns as they are now", self.table,
                     folded.boundary, quoted)
            return False
        after = {"renamed": "set [source] table to the table to follow, then run `dedup-pipeline batch`",
                 "truncated": "its rows left without a row event each; run `dedup-pipeline batch`: it forgets them",
                 "statement": ("which rows it changed is not in the log; make binlog_format = ROW for every session, "
                               "then run `dedup-pipeline batch`")}.get(event.touching, "run `dedup-pipeline batch`")
        what = {"statement": f"a change to {self.table} was logged as a statement, not as rows"}.get(
            event.touching, f"{self.table} was {event.touching}")
        return self._stop(f"{what} at {folded.boundary} ({quoted}): {after} (it sets a new position), then start "
                          f"watch again", folded.boundary)

    def _failed(self, error: BaseException, folded: Transactions) -> bool:
        if isinstance(error, LayoutError):
            return self._stop(f"{error}; run `dedup-pipeline batch` (it sets a new position), then start watch again",
                              folded.boundary)
        raise error

    def _stop(self, reason: str, at: Position) -> bool:
        """Store the position before the statement as stopped, with the reason, and stop."""
        with self.engine.connect() as conn, conn.begin():
            self._lock(conn)
            binlog.store(conn, self.position, self.table, at, set_by="watch", stopped=reason)
        self._moved_to(at)
        raise BinlogError(reason)

    def _store_position(self, at: Position) -> None:
        with self.engine.connect() as conn, conn.begin():
            self._lock(conn)
            binlog.store(conn, self.position, self.table, at, set_by="watch")
        self._moved_to(at)


TRANSIENT = (1205, 1213)  # MySQL's lock wait timeout and deadlock: the transaction is rolled back, try again


def _passing(error: BaseException) -> bool:
    """A failure that another try may not meet: the log's connection lost, a deadlock."""
    if isinstance(error, StreamLost):
        return True
    code = getattr(getattr(error, "orig", None), "args", (None,))[0] if isinstance(error, sa.exc.DBAPIError) else None
    return code in TRANSIENT or (isinstance(error, sa.exc.DBAPIError) and error.connection_invalidated)
