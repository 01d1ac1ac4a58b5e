"""集中处理, the scheduled job: read the whole table, fingerprint every row, find every pair
within k by block classification, group them, and store the pairs and groups.

(Rebuilding the MongoDB block index aside and the interruption tests are the next steps
of issue 9.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from pymongo.database import Database

from . import results
from .config import Config
from .pairs import groups, similar_pairs, single_pass_pairs
from .parallel import fingerprint_chunks
from .source import SqlSource


@dataclass
class BatchResult:
    ids: list
    fingerprints: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]
    groups: list[list]
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def rows_with_similar(self) -> int:
        return sum(len(g) for g in self.groups)


def run_batch(config: Config, on_progress: Callable[[int], None] = lambda n: None,
              processes: int | None = None, algorithm: str = "blocks") -> BatchResult:
    """Fingerprint every row of the configured table (in id order), and find its pairs and
    groups: by block classification, or by the paper's Single-Pass baseline (O(n^2))."""
    seconds: dict[str, float] = {}
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
    seconds["read+fingerprint"] = time.perf_counter() - start

    start = time.perf_counter()
    if algorithm == "single-pass":
        pairs = single_pass_pairs(fingerprints, config.fingerprint.k)
    else:
        pairs = similar_pairs(fingerprints, config.block_scheme())
    seconds["all-pairs"] = time.perf_counter() - start

    start = time.perf_counter()
    found = _groups(ids, pairs)
    seconds["groups"] = time.perf_counter() - start
    return BatchResult(ids, fingerprints, pairs, found, seconds)


def _groups(ids: list, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[list]:
    """Groups of two or more row ids, largest first, then by first id."""
    label = groups(len(ids), pairs[0], pairs[1])
    members: dict[int, list] = {}
    for position in np.union1d(pairs[0], pairs[1]).tolist():
        members.setdefault(int(label[position]), []).append(ids[position])
    return sorted(members.values(), key=lambda g: (-len(g), g[0]))


def store_results(config: Config, db: Database, result: BatchResult) -> str:
    """Write the pairs and groups aside and publish them; returns the run id."""
    start = time.perf_counter()
    run = results.new_run(db, config.masked())
    results.write_matches(db, run, result.ids, *result.pairs)
    results.write_groups(db, run, result.groups)
    results.publish(db, run, results.RESULTS, {
        "rows": result.rows, "pairs": len(result.pairs[0]), "groups": len(result.groups),
        "rows_with_similar": result.rows_with_similar})
    result.seconds["store"] = time.perf_counter() - start
    return run
