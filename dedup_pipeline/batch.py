"""集中处理, the scheduled job: read the whole table, turn every row into what the scheme
compares (schemes.py), find every similar pair by its block keys, group them, and store a
new generation (block index, pairs, groups) aside, switched live whole when complete
(results.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import results
from .config import Config
from .incremental import Incremental, content_hash
from .pairs import groups, single_pass_pairs
from .parallel import fingerprint_chunks
from .schemes import Scheme, scheme_of
from .source import SqlSource
from .store import MongoStore


@dataclass
class BatchResult:
    ids: list
    fingerprints: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]
    groups: list[list]
    seconds: dict[str, float] = field(default_factory=dict)
    hashes: list[str] = field(default_factory=list)  # of each row's content (incremental.content_hash)
    probes: list = field(default_factory=list)  # what the scheme compares each row by
    run: str = ""
    replayed: int = 0  # rows changed by incremental writers while the batch ran

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def rows_with_similar(self) -> int:
        return sum(len(g) for g in self.groups)


def run_batch(config: Config, store: MongoStore, on_progress: Callable[[int], None] = lambda n: None,
              processes: int | None = None, algorithm: str = "blocks") -> BatchResult:
    """Fingerprint every row of the configured table (in id order), find its pairs and
    groups (by block classification, or by the paper's Single-Pass baseline, O(n^2)), and
    make them and a rebuilt block index live together."""
    run = results.new_run(store.db, config.masked())  # before reading: later writes are logged
    scheme = scheme_of(config)
    result = _compute(config, scheme, on_progress, processes, algorithm)
    result.run = run
    _store(config, scheme, store, result)
    return result


def _compute(config: Config, scheme: Scheme, on_progress: Callable[[int], None], processes: int | None,
             algorithm: str) -> BatchResult:
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    source = SqlSource(config)
    ids: list = []
    hashes: list[str] = []

    def chunks():
        for chunk in source.rows():
            ids.extend(row[config.source.id_column] for row in chunk)
            hashes.extend(content_hash(row, config.fields) for row in chunk)
            yield chunk

    if config.shingles:
        probes = []
        for chunk in chunks():
            probes += scheme.probes(chunk)
            on_progress(len(chunk))
        fingerprints = np.array([scheme.fingerprint(p) for p in probes], dtype=np.uint64)
    else:
        parts = []
        for part in fingerprint_chunks(chunks(), config, processes):
            parts.append(part)
            on_progress(len(part))
        fingerprints = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
        probes = fingerprints.tolist()
    seconds["read+fingerprint"] = time.perf_counter() - start

    start = time.perf_counter()
    if algorithm == "single-pass":
        pairs = single_pass_pairs(fingerprints, config.fingerprint.k)
    else:
        pairs = scheme.pairs(probes)
    seconds["all-pairs"] = time.perf_counter() - start

    start = time.perf_counter()
    found = _groups(ids, pairs)
    seconds["groups"] = time.perf_counter() - start
    return BatchResult(ids, fingerprints, pairs, found, seconds, hashes, probes)


def _groups(ids: list, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[list]:
    """Groups of two or more row ids, largest first, then by first id."""
    label = groups(len(ids), pairs[0], pairs[1])
    members: dict[int, list] = {}
    for position in np.union1d(pairs[0], pairs[1]).tolist():
        members.setdefault(int(label[position]), []).append(ids[position])
    return sorted(members.values(), key=lambda g: (-len(g), g[0]))


def _store(config: Config, scheme: Scheme, store: MongoStore, result: BatchResult) -> None:
    """Build the run's generation aside, switch it live, then replay into it what incremental
    writers changed meanwhile."""
    db, run = store.db, result.run
    start = time.perf_counter()
    table = config.source.table
    store.aside(run).file_many(table, (
        (i, fp, content, scheme.keys(p), scheme.sketch(p))
        for i, fp, content, p in zip(result.ids, result.fingerprints.tolist(), result.hashes, result.probes)))
    result.seconds["index"] = time.perf_counter() - start

    start = time.perf_counter()
    results.write_matches(db, run, result.ids, *result.pairs)
    results.write_groups(db, run, result.groups)
    results.switch(db, run, {
        "rows": result.rows, "pairs": len(result.pairs[0]), "groups": len(result.groups),
        "rows_with_similar": result.rows_with_similar})
    result.seconds["store"] = time.perf_counter() - start
    result.replayed = _replay(config, store)


def _replay(config: Config, store: MongoStore) -> int:
    """File (or remove) in the live generation each row an incremental writer changed while
    the batch ran, as the table has it now."""
    changes = store.db[results.CHANGES]
    ids = [doc["row"] for doc in changes.find({"table": config.source.table}, {"row": 1})]
    index = Incremental(store, config)
    with SqlSource(config) as source:
        present = {row[config.source.id_column]: row for row in source.rows_by_id(ids)}
    for row_id in ids:
        if row_id in present:
            index.add(row_id, present[row_id])
        else:
            index.remove(row_id)
    # Writers log only while `building` is set, which the switch cleared: this log is done.
    changes.delete_many({})
    return len(ids)
