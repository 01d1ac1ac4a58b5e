"""集中处理, the scheduled job: read the whole table, turn every row into what the scheme
compares (schemes.py) on every core, find every similar pair by its block keys, group them,
and store a new generation (buckets of the block index, pairs, groups) aside, switched live
whole when complete (results.py).

Only rows added, changed (their content hash) or removed since the store last held them
are written as row documents; the buckets, pairs and groups are written new. What the batch
holds per row while it runs: its id, content hash, fingerprint and keys in memory, and the
sets it compares (`SketchTable`) in a temporary file, read back as they are needed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import numpy as np

from .. import killpoints
from ..sql import matchtable

from ..store import results
from ..config import Config, ConfigError
from .incremental import Incremental, content_hash
from ..store.lock import Lease
from ..core.pairs import Similar, groups, single_pass_pairs
from .parallel import chunks_mapped
from ..core.schemes import Scheme, scheme_of
from ..core.shingles import Sets, SketchTable
from ..sql.source import SqlSource
from ..store.index import Held, MongoStore, Record, bucket_bits
from .watch import Worker, WatchSettings, tables


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


class Chunk(NamedTuple):
    """What a worker makes of a chunk of rows."""

    ids: list
    hashes: list[str]
    fingerprints: np.ndarray
    keys: Sets
    sketches: list  # what the store keeps of each row's sketch (None for fingerprints)
    table: SketchTable | None  # what the scheme compares, for shingles (its keys are `keys`)


ALGORITHMS = ("blocks", "single-pass")


def check_algorithm(config: Config, algorithm: str) -> None:
    """Refuse an algorithm the configured scheme has not: single-pass compares SimHash
    fingerprints (the paper's baseline)."""
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm {algorithm!r} is unknown; available: {', '.join(ALGORITHMS)}")
    if algorithm == "single-pass" and config.shingles:
        raise ConfigError("--algorithm single-pass compares SimHash fingerprints: set [scheme] name = "
                          "\"simhash\" to use it")


def run_batch(config: Config, store: MongoStore, on_progress: Callable[[int], None] = lambda n: None,
              processes: int | None = None, algorithm: str = "blocks") -> BatchResult:
    """Fingerprint every row of the configured table (in id order), find its pairs and
    groups (by block keys, or by the paper's Single-Pass baseline, O(n^2)), and make them
    and a rebuilt block index live together, and write them to dedup_match; holding the
    batch lease (lock.py) throughout, so that two batches never overlap (LockHeld)."""
    check_algorithm(config, algorithm)
    with Lease(store.db.locks, "batch"):
        return _run(config, store, on_progress, processes, algorithm)


def _run(config: Config, store: MongoStore, on_progress: Callable[[int], None], processes: int | None,
         algorithm: str) -> BatchResult:
    run = results.new_run(store.db, config.masked(), scheme_of(config).settings)  # before reading: later writes are logged
    seconds: dict[str, float] = {}
    with (chunks_mapped(config, processes, _scheme, _chunk) as sketched,
          tempfile.TemporaryDirectory(prefix="dedup-batch-") as scratch):
        start = time.perf_counter()
        held = store.stored(config.source.table)
        seconds["read store"] = time.perf_counter() - start
        start = time.perf_counter()
        read = _read(config, store, run, held.rows, on_progress, sketched, scratch)
        seconds["read+fingerprint"] = time.perf_counter() - start

        _trim()
        start = time.perf_counter()
        scheme = scheme_of(config)
        if algorithm == "single-pass":
            similar = _single_pass(read.fingerprints, config.fingerprint.k)
        else:
            similar = scheme.similar(read.table if read.table is not None else read.fingerprints)
        pairs = similar.linked()
        seconds["all-pairs"] = time.perf_counter() - start

    _trim()
    start = time.perf_counter()
    found = _groups(read.ids, pairs)
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


def _read(config: Config, store: MongoStore, run: str, held: dict, on_progress: Callable[[int], None],
          sketched: Callable[[Iterable[list[dict]]], Iterator[Chunk]], scratch: str) -> _Read:
    """Read and sketch every row, writing the run's manifest and the row documents of those
    new or changed, the manifest first (a kill in between leaves a list of what was filed)."""
    ids: list = []
    hashes: list[str] = []
    prints, keys, compared = [], _SetsSpool(scratch, np.uint64), None
    added = changed = manifest = 0
    with SqlSource(config) as source:
        for chunk in sketched(source.rows()):
            records = []
            for row, content, fp, sketch, n in zip(chunk.ids, chunk.hashes, chunk.fingerprints.tolist(),
                                                   chunk.sketches, range(len(chunk.ids))):
                before = held.get(row)
                if before != content:
                    row_keys = tuple(chunk.keys.values[chunk.keys.starts[n]:chunk.keys.starts[n + 1]].tolist())
                    records.append((Record(config.source.table, row, fp, content, row_keys, sketch), before))
            added += sum(before is None for _, before in records)
            changed += sum(before is not None for _, before in records)
            manifest += store.write_manifest(run, chunk.ids, chunk.hashes, first=manifest)
            # A new row needs no `fresh`: the buckets about to go live hold it. A changed
            # one does, until they do: the live buckets hold what it was.
            store.file((r for r, before in records if before is None), fresh=False, batch=True)
            store.file((r for r, before in records if before is not None), batch=True)
            killpoints.reached("batch.filed")
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


def _scheme(config: Config) -> tuple[Config, Scheme]:
    return config, scheme_of(config)


def _chunk(rows: list[dict], state: tuple[Config, Scheme]) -> Chunk:
    """What the batch needs of a chunk of rows (in a worker process)."""
    config, scheme = state
    probes = scheme.probes(rows)
    table = SketchTable.of(probes) if scheme.sketch_stored else None
    return Chunk([row[config.source.id_column] for row in rows],
                 [content_hash(row, config.fields, scheme.settings) for row in rows],
                 np.array([scheme.fingerprint(p) for p in probes], np.uint64),
                 table.keys if table else Sets.of([np.array(scheme.keys(p), np.uint64) for p in probes]),
                 [scheme.sketch(p) for p in probes], table)


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


def _groups(ids: list, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[list]:
    """Groups of two or more row ids, largest first, then by first id."""
    label = groups(len(ids), pairs[0], pairs[1])
    members: dict[int, list] = {}
    for position in np.union1d(pairs[0], pairs[1]).tolist():
        members.setdefault(int(label[position]), []).append(ids[position])
    return sorted(members.values(), key=lambda g: (-len(g), g[0]))


def _store(config: Config, store: MongoStore, result: BatchResult, read: _Read, held: Held) -> None:
    """Build the run's buckets and results aside, forget the rows the table no longer has
    (before the switch: a kill leaves them listed for the next batch), switch them live,
    then check again each row an incremental writer changed meanwhile."""
    db, run, table = store.db, result.run, config.source.table
    start = time.perf_counter()
    rows_of_keys = np.repeat(np.arange(len(read.ids)), read.keys.sizes())
    bits = bucket_bits(len(read.keys.values))
    store.write_buckets(run, bits, np.asarray(read.keys.values), _Positions(read.ids, rows_of_keys))
    result.seconds["index"] = time.perf_counter() - start
    _trim()

    start = time.perf_counter()
    results.write_matches(db, run, result.ids, *result.pairs)
    results.write_groups(db, run, result.groups)
    # Before the switch: rows changed after this write are logged, and decided again below.
    result.dedup_match = matchtable.write_batch(config, result.ids, *result.pairs)
    killpoints.reached("batch.results")
    read_ids = set(read.ids)
    result.removed = store.remove_gone(table, [row for row in held.rows if row not in read_ids], held.rows)
    killpoints.reached("batch.removed")
    results.switch(db, run, {
        "rows": result.rows, "pairs": len(result.pairs[0]), "groups": len(result.groups),
        "rows_with_similar": result.rows_with_similar}, bits)
    killpoints.reached("batch.switched")
    _trim()
    store.fold(table, dict(zip(read.ids, read.hashes)))
    store.clear_removed(held.removed)
    result.seconds["store"] = time.perf_counter() - start
    result.replayed = _replay(config, store, result.dedup_match is not None)


def _trim() -> None:
    """Give the memory freed by a phase back to the system: glibc keeps it otherwise, in
    the arenas of the threads that used it (the embedded server's among them), and the
    batch's peak RSS would be the sum of its phases' peaks rather than their maximum."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


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


def _replay(config: Config, store: MongoStore, matches: bool) -> int:
    """File (or remove) each row an incremental writer changed while the batch ran, as the
    table has it now, and write its matches to dedup_match (if there is one) as `watch`
    does: the batch's pairs of it were found in what the table was."""
    changes = store.db[results.CHANGES]
    ids = [doc["row"] for doc in changes.find({"table": config.source.table}, {"row": 1})]
    index = Incremental(store, config)
    with SqlSource(config) as source, source.errors("check again the rows changed during the batch of"):
        if matches and ids:
            worker = Worker(config, WatchSettings(), source, index, tables(source))
            with source.engine.connect() as conn, conn.begin():
                worker.process(conn, sorted(ids, key=str))
        else:
            present = {row[config.source.id_column]: row for row in source.rows_by_id(ids)}
            for row_id in ids:
                if row_id in present:
                    index.add(row_id, present[row_id])
                else:
                    index.remove(row_id)
    # Writers log only while `building` is set, which the switch cleared: this log is done.
    changes.delete_many({})
    return len(ids)
