"""集中处理, the scheduled job: read the whole table and fingerprint every row.

(Finding every similar pair and storing the results builds on this; see the README.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .config import Config
from .parallel import fingerprint_chunks
from .source import SqlSource


@dataclass
class BatchResult:
    ids: list
    fingerprints: np.ndarray
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(self.ids)


def run_batch(config: Config, on_progress: Callable[[int], None] = lambda n: None,
              processes: int | None = None) -> BatchResult:
    """Fingerprint every row of the configured table, in id order."""
    start = time.perf_counter()
    source = SqlSource(config)
    ids: list = []

    def chunks():
        for chunk in source.rows():
            ids.extend(row[config.source.id_column] for row in chunk)
            yield chunk

    parts = []
    for part in fingerprint_chunks(chunks(), config, processes):
        parts.append(part)
        on_progress(len(part))
    fingerprints = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    return BatchResult(ids, fingerprints, {"read+fingerprint": time.perf_counter() - start})
