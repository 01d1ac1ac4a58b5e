"""Chunks of rows worked on every core: each worker process builds its state once (the
scheme, whichever it is: tokenizers do not cross processes), results come back in order,
a few chunks ahead of the reader, so that a slow consumer never queues the table up."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import threading
from collections import deque
from contextlib import contextmanager
from multiprocessing.context import SpawnProcess
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..config import Config

Mapper = Callable[..., Iterator[Any]]
_state: Any = None


def _start(make: Callable[[Config], Any], config: Config) -> None:
    global _state
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a worker the pool starts later inherits no SIG_IGN
    _state = make(config)


def _run(work: Callable[[Any, Any], Any], rows: Any) -> Any:
    return work(rows, _state)


def cores(config: Config, processes: int | None) -> int:
    """How many processes (or threads) a batch runs at once: as asked, configured, else one a core."""
    return processes or config.batch.processes or os.cpu_count() or 1


@contextmanager
def chunks_mapped(config: Config, processes: int | None, make: Callable[[Config], Any],
                  work: Callable[[Sequence[Mapping], Any], Any]) -> Iterator[Mapper]:
    """A function giving `work(chunk, make(config))` of each chunk (or `how(chunk, ...)`,
    given as its second argument), in order, on `processes` cores (default: all). `make`,
    `work` and `how` are module-level functions (they are pickled).
    The workers start now: start them before the caller grows, for a child forked later
    is counted (by the kernel, in its peak RSS) as large as its parent was."""
    processes = cores(config, processes)
    if processes == 1:
        state = make(config)
        yield lambda chunks, how=work: (how(rows, state) for rows in chunks)
        return
    # spawn, not fork: the parent may hold database connections and their threads.
    _quiet_resource_tracker()
    with _ctrl_c_ignored():  # from their first instruction: Ctrl-C reaches the whole process group
        pool = _Pool(processes, initializer=_start, initargs=(make, config),
                     context=multiprocessing.get_context("spawn"))
    def mapped(chunks: Iterable[Any], how: Callable[[Any, Any], Any] = work) -> Iterator[Any]:
        pending: deque = deque()
        for rows in chunks:
            pending.append(pool.apply_async(_run, (how, rows)))
            if len(pending) > 2 * processes:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
    try:
        yield mapped
    except BaseException:
        pool.abandon()
        raise
    pool.terminate()


# What multiprocessing's resource tracker says, cleaning up the pool's semaphores after its
# parent was killed; a -W option of this process, which the tracker (started with the first
# pool) takes over.
TRACKER_WARNING = "ignore:resource_tracker:UserWarning"


def _quiet_resource_tracker() -> None:
    """A batch killed (SIGKILL) leaves no "leaked semaphore objects" warning: the tracker
    removes them, and a user can do nothing about it."""
    if TRACKER_WARNING not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNING)


class _Worker(SpawnProcess):
    """A worker process that leaves without a traceback when its parent is gone (killed,
    or stopped by Ctrl-C): a result it can no longer send is nobody's loss."""

    def run(self) -> None:
        try:
            super().run()
        except BrokenPipeError:
            pass


class _Pool(multiprocessing.pool.Pool):
    """A pool of `_Worker`s."""

    @staticmethod
    def Process(ctx: Any, *args: Any, **kwargs: Any) -> _Worker:
        return _Worker(*args, **kwargs)

    def abandon(self) -> None:
        """Stop at once, the batch failing or interrupted: kill the workers and leave the
        pool's threads (daemons) be. terminate() can wait for ever on the results queue's
        lock, held by a worker it killed in the middle of sending a result. The pool's
        handler is stopped first, or it would start workers in the place of those killed."""
        self._state = self._worker_handler._state = multiprocessing.pool.TERMINATE
        self._change_notifier.put(None)
        self._worker_handler.join()
        for worker in self._pool:
            worker.kill()
        self._terminate.cancel()


@contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """Ctrl-C ignored meanwhile, here and in the processes started now, which keep ignoring
    it: the parent alone answers it and stops its workers (one of them interrupted inside
    the pool's queues could leave the parent waiting for ever)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread sets signal handlers; the workers' _start ignores Ctrl-C anyway
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
