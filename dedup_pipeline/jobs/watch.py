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
backoff; the embedded MongoDB's server, if it ended, is started again at once (or the worker
ends with an error, for its service manager to restart it). SIGTERM or SIGINT: finish the batch, then stop.

With `[watch] changes = "binlog"` (`watch --from binlog`), binlog.py's worker runs instead:
the server's binary log says which rows changed, and `Worker.process` processes them as here.
The worker is worker.py's, which both paths build on; this module starts the one configured.
"""

from __future__ import annotations

import logging
import signal

from ..masking import mask_url
from ..pipeline import Using, config_of, holding
from .worker import (ERROR_CHARS, FIRST_BACKOFF_S, OUTBOX_TABLE, Entry, Tally, WatchError,  # noqa: F401  (watch.X, as before)
                     WatchSettings, Worker, describe, pending_count, tables)

log = logging.getLogger("dedup_pipeline.jobs.watch")


def watch(using: Using, settings: WatchSettings, handle_signals: bool = True) -> Tally:
    """Run a worker until stopped (or, with `once`, until the outbox is drained), on the
    process's Pipeline (or one opened on a Config); with `[watch] changes = "binlog"`
    (`--from binlog`), the worker of binlog.py, which follows the server's binary log
    instead of the outbox."""
    if config_of(using).watch.changes == "binlog":
        from .binlog import follow

        return follow(using, settings, handle_signals)
    with holding(using) as pipe:
        config, source = pipe.config, pipe.source
        worker_tables = tables(source)
        if worker_tables[0] is None:
            raise WatchError(f"{mask_url(config.source.url)} has no {OUTBOX_TABLE}: run `dedup-pipeline migrate` "
                             f"first (or, set up with `migrate --from binlog`, `dedup-pipeline watch --from binlog`)")
        index = pipe.incremental()
        index.ready()
        worker = Worker(config, settings, source, index, worker_tables)
        previous = worker.handle_signals() if handle_signals else {}
        log.info("watching %s in %s as %s (batch size %d, poll %.3f s)", config.source.table,
                 mask_url(config.source.url), worker.name, settings.batch_size, settings.poll)
        try:
            return worker.run()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
