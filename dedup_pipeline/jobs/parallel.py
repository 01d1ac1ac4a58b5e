"""Chunks of rows worked on every core: each worker process builds its state once (the
scheme, whichever it is: tokenizers do not cross processes), results come back in order,
a few chunks ahead of the reader, so that a slow consumer never queues the table up."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..config import Config

Mapper = Callable[[Iterable[Sequence[Mapping]]], Iterator[Any]]
_state: Any = None


def _start(make: Callable[[Config], Any], config: Config) -> None:
    global _state
    _state = make(config)


def _run(work: Callable[[Sequence[Mapping], Any], Any], rows: Sequence[Mapping]) -> Any:
    return work(rows, _state)


@contextmanager
def chunks_mapped(config: Config, processes: int | None, make: Callable[[Config], Any],
                  work: Callable[[Sequence[Mapping], Any], Any]) -> Iterator[Mapper]:
    """A function giving `work(chunk, make(config))` of each chunk, in order, on `processes`
    cores (default: all). `make` and `work` are module-level functions (they are pickled).
    The workers start now: start them before the caller grows, for a child forked later
    is counted (by the kernel, in its peak RSS) as large as its parent was."""
    processes = processes or config.batch.processes or os.cpu_count() or 1
    if processes == 1:
        state = make(config)
        yield lambda chunks: (work(rows, state) for rows in chunks)
        return
    # spawn, not fork: the parent may hold database connections and their threads.
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, initializer=_start, initargs=(make, config)) as pool:
        def mapped(chunks: Iterable[Sequence[Mapping]]) -> Iterator[Any]:
            pending: deque = deque()
            for rows in chunks:
                pending.append(pool.apply_async(_run, (work, rows)))
                if len(pending) > 2 * processes:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()
        yield mapped

