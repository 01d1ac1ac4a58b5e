"""集中处理, the scheduled job: read the whole table, turn every row into what the scheme
compares (schemes.py) on every core, find every similar pair by its block keys, group them,
and store a new generation (buckets of the block index, pairs, groups) aside, switched live
whole when complete. The stages Spark runs too are stages.py's; this module runs them on one
machine, its cores sketching, and finds the pairs with the scheme's own all-pairs.

Only rows added, changed (their content hash) or removed since the store last held them
are written as row documents; the buckets, pairs and groups are written new. What the batch
holds per row while it runs: its id, content hash, fingerprint and keys in memory, and the
sets it compares (`SketchTable`) in a temporary file, read back as they are needed.
"""

from __future__ import annotations

import mmap
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..config import Config, ConfigError
from ..core.pairs import Similar, single_pass_pairs
from .parallel import chunks_mapped
from ..core.schemes import scheme_of
from ..core.shingles import Sets, SketchTable
from ..sql.source import SqlSource
from ..store.index import Held, Store, bucket_bits
from .stages import Chunk, Found, file_chunk, go_live, groups_of, replay, sketch, sketcher, trim


@dataclass
class BatchResult:
    ids: list
    fingerprints: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]  # each copy linked to its original (pairs.Similar)
    groups: list[list]
    seconds: dict[str, float] = field(default_factory=dict)
    run: str = ""
    added: int = 0  # row documents written: rows new to the store
    changed: int = 0  # rows whose content changed since the store held them
    removed: int = 0  # rows the store held that the table no longer has
    replayed: int = 0  # rows changed by incremental writers while the batch ran
    dedup_match: int | None = None  # rows written to dedup_match (None: the table is not there)
    copies: int = 0  # rows with the text of an earlier row, linked to it rather than to each other

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def rows_with_similar(self) -> int:
        return sum(len(g) for g in self.groups)


ALGORITHMS = ("blocks", "single-pass")


def check_algorithm(config: Config, algorithm: str) -> None:
    """Refuse an algorithm the configured scheme has not: single-pass compares SimHash
    fingerprints (the paper's baseline)."""
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm {algorithm!r} is unknown; available: {', '.join(ALGORITHMS)}")
    if algorithm == "single-pass" and config.shingles:
        raise ConfigError("--algorithm single-pass compares SimHash fingerprints: set [scheme] name = "
                          "\"simhash\" to use it")


def run_batch(config: Config, store: Store, on_progress: Callable[[int], None] = lambda n: None,
              processes: int | None = None, algorithm: str = "blocks") -> BatchResult:
    """Fingerprint every row of the configured table (in id order), find its pairs and
    groups (by block keys, or by the paper's Single-Pass baseline, O(n^2)), and make them
    and a rebuilt block index live together, and write them to dedup_match; holding the
    batch lease (lock.py) throughout, so that two batches never overlap (LockHeld)."""
    check_algorithm(config, algorithm)
    with store.lease("batch"):
        return _run(config, store, on_progress, processes, algorithm)


def _run(config: Config, store: Store, on_progress: Callable[[int], None], processes: int | None,
         algorithm: str) -> BatchResult:
    run = store.new_run(config.masked(), scheme_of(config).settings)  # before reading: later writes are logged
    seconds: dict[str, float] = {}
    with (chunks_mapped(config, processes, sketcher, sketch) as sketched,
          tempfile.TemporaryDirectory(prefix="dedup-batch-") as scratch):
        start = time.perf_counter()
        held = store.stored(config.source.table)
        seconds["read store"] = time.perf_counter() - start
        start = time.perf_counter()
        read = _read(config, store, run, held.rows, on_progress, sketched, scratch)
        seconds["read+fingerprint"] = time.perf_counter() - start

        trim()
        start = time.perf_counter()
        scheme = scheme_of(config)
        if algorithm == "single-pass":
            similar = _single_pass(read.fingerprints, config.fingerprint.k)
        else:
            similar = scheme.similar(read.table if read.table is not None else read.fingerprints)
        pairs = similar.linked()
        seconds["all-pairs"] = time.perf_counter() - start

    trim()
    start = time.perf_counter()
    found = groups_of(read.ids, pairs)
    seconds["groups"] = time.perf_counter() - start
    result = BatchResult(read.ids, read.fingerprints, pairs, found, seconds, run, read.added, read.changed,
                         copies=len(similar.copies))
    _store(config, store, result, read, held)
    return result


def _single_pass(fingerprints: np.ndarray, k: int) -> Similar:
    """The paper's Single-Pass pairs as the blocks give them: rows of one fingerprint are
    copies of the first of them (pairs.Similar), the other pairs listed."""
    identity = np.unique(fingerprints, return_inverse=True)[1].ravel() + 1  # never 0: every row has one
    return Similar.of_every_pair(single_pass_pairs(fingerprints, k), identity)


class _Read(NamedTuple):
    ids: list
    hashes: list[str]
    fingerprints: np.ndarray
    keys: Sets
    table: SketchTable | None
    added: int
    changed: int


def _read(config: Config, store: Store, run: str, held: dict, on_progress: Callable[[int], None],
          sketched: Callable[[Iterable[list[dict]]], Iterator[Chunk]], scratch: str) -> _Read:
    """Read and sketch every row, writing the run's manifest and the row documents of those
    new or changed, the manifest first (a kill in between leaves a list of what was filed)."""
    ids: list = []
    hashes: list[str] = []
    prints, keys, compared = [], _SetsSpool(scratch, np.uint64), None
    added = changed = manifest = 0
    with SqlSource(config) as source:
        for chunk in sketched(source.rows()):
            filed = file_chunk(store, run, config.source.table, chunk, held, first=manifest)
            added, changed, manifest = added + filed.added, changed + filed.changed, manifest + filed.documents
            ids += chunk.ids
            hashes += chunk.hashes
            prints.append(chunk.fingerprints)
            keys.append(chunk.keys)
            if chunk.table is not None:
                compared = compared or _TableSpool(scratch)
                compared.append(chunk.table)
            on_progress(len(chunk.ids))
    fingerprints = np.concatenate(prints) if prints else np.zeros(0, np.uint64)
    all_keys = keys.sets()
    return _Read(ids, hashes, fingerprints, all_keys, compared and compared.table(all_keys), added, changed)


class _SetsSpool:
    """Sets appended chunk by chunk to a temporary file, read back as one `Sets`."""

    def __init__(self, folder: str, dtype: Any):
        self.file = tempfile.NamedTemporaryFile(dir=folder, delete=False)
        self.dtype, self.sizes = dtype, [np.zeros(1, np.int64)]

    def append(self, sets: Sets) -> None:
        np.ascontiguousarray(sets.values, self.dtype).tofile(self.file)
        self.sizes.append(sets.sizes())

    def sets(self) -> Sets:
        self.file.close()
        starts = np.cumsum(np.concatenate(self.sizes))
        values = _Released(self.file.name, self.dtype, "r") if starts[-1] else np.zeros(0, self.dtype)
        return Sets(values, starts)


class _Released(np.memmap):
    """A file mapped in memory that lets go of the pages each gather touched (they stay in
    the page cache): the sets read for one chunk of pairs leave this process's RSS."""

    def __getitem__(self, index: Any) -> Any:
        out = super().__getitem__(index)
        if isinstance(index, np.ndarray):
            out = np.array(out)
            self._mmap.madvise(mmap.MADV_DONTNEED)
        return out


class _TableSpool:
    """SketchTables appended chunk by chunk: their sets to temporary files, the people and
    identities held; their keys are spooled with every scheme's (`_read`)."""

    def __init__(self, folder: str):
        self.shingles, self.verbatim, self.text = (_SetsSpool(folder, np.uint32) for _ in range(3))
        self.people: list[np.ndarray] = []
        self.identity: list[np.ndarray] = []
        self.filed: list[np.ndarray] = []

    def append(self, table: SketchTable) -> None:
        for spool, sets in ((self.shingles, table.shingles), (self.verbatim, table.verbatim), (self.text, table.text)):
            spool.append(sets)
        self.people.append(table.people)
        self.identity.append(table.identity)
        self.filed.append(table.filed)

    def table(self, keys: Sets) -> SketchTable:
        width = max(p.shape[1] for p in self.people)
        people = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in self.people])
        return SketchTable(self.shingles.sets(), self.verbatim.sets(), people, keys, np.concatenate(self.identity),
                           self.text.sets(), np.concatenate(self.filed))


def _store(config: Config, store: Store, result: BatchResult, read: _Read, held: Held) -> None:
    """Build the run's buckets, make them live with its results (stages.go_live), then
    check again each row an incremental writer changed meanwhile."""
    start = time.perf_counter()
    rows_of_keys = np.repeat(np.arange(len(read.ids)), read.keys.sizes())
    bits = bucket_bits(len(read.keys.values))
    store.write_buckets(result.run, bits, np.asarray(read.keys.values), _Positions(read.ids, rows_of_keys),
                        read.fingerprints[rows_of_keys])
    result.seconds["index"] = time.perf_counter() - start
    trim()

    start = time.perf_counter()
    read_ids = set(read.ids)
    result.dedup_match, result.removed = go_live(
        config, store, result.run, Found(result.rows, result.ids, result.pairs, result.groups), bits,
        [row for row in held.rows if row not in read_ids], held,
        lambda fresh: {row: content for row, content in zip(read.ids, read.hashes) if row in fresh})
    result.seconds["store"] = time.perf_counter() - start
    result.replayed = replay(config, store, result.dedup_match is not None)


class _Positions:
    """ids[positions[n]] for each n, without a list of them all."""

    def __init__(self, ids: list, positions: np.ndarray):
        self.ids, self.positions = ids, positions
        self.numbers = np.asarray(ids) if ids and all(type(i) is int for i in ids) else None

    def take(self, at: np.ndarray) -> list:
        """The ids at these n, gathered at once when they are integers."""
        if self.numbers is not None:
            return self.numbers[self.positions[at]].tolist()
        return [self.ids[p] for p in self.positions[at].tolist()]
