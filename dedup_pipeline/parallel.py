"""Fingerprinting on every core: chunks of rows go to worker processes, results come back
in order. Each worker builds its own Featurizer (tokenizers do not cross processes)."""

from __future__ import annotations

import itertools
import multiprocessing
import os
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from .config import Config
from .features import Featurizer
from .simhash import fingerprint_many

_featurizer: Featurizer | None = None


def _start(config: Config) -> None:
    global _featurizer
    _featurizer = config.featurizer()


def _work(rows: Sequence[Mapping]) -> np.ndarray:
    assert _featurizer is not None, "worker started without a featurizer"
    return fingerprint_many(rows, _featurizer)


def fingerprint_chunks(chunks: Iterable[Sequence[Mapping]], config: Config,
                       processes: int | None = None) -> Iterator[np.ndarray]:
    """Fingerprints of each chunk of rows, in the order given. One process, or a single
    chunk (not worth starting workers for), runs in-line."""
    processes = processes or config.batch.processes or os.cpu_count() or 1
    chunks = iter(chunks)
    head = list(itertools.islice(chunks, 2))
    chunks = itertools.chain(head, chunks)
    if processes == 1 or len(head) < 2:
        featurizer = config.featurizer()
        yield from (fingerprint_many(chunk, featurizer) for chunk in chunks)
        return
    # spawn, not fork: the parent may hold database connections and their threads.
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, initializer=_start, initargs=(config,)) as pool:
        yield from pool.imap(_work, chunks)
