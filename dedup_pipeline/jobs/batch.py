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

import gc
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..config import Config, ConfigError
from ..core.pairs import Similar, single_pass_pairs
from .parallel import chunks_mapped, cores
from ..core.schemes import scheme_of
from ..core.shingles import Sets, SketchTable
from .rerun import rerun
from .sketches import Kept, SketchLog, folder_of, forget_others, live_state, new_token
from ..sql.source import LeftOut, SqlSource
from ..store.index import MANIFEST_ROWS, Held, Store, bucket_bits, id_array
from ..store.results import Behind
from .stages import NONE, BatchResult, Chunk, Filed, Found, file_chunk, go_live, groups_of, replay, sketch, sketcher, trim


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
              processes: int | None = None, algorithm: str = "blocks", full: bool = False) -> BatchResult:
    """Fingerprint every row of the configured table (in id order), find its pairs and
    groups (by block keys, or by the paper's Single-Pass baseline, O(n^2)), and make them
    and a rebuilt block index live together, and write them to dedup_match; holding the
    batch lease (lock.py) throughout, so that two batches never overlap (LockHeld). When
    the last batch left what it read (sketches.py), only the rows changed since are
    sketched and decided again (rerun.py), unless `full`."""
    check_algorithm(config, algorithm)
    scheme = scheme_of(config)
    folder = folder_of(config, scheme.settings)
    with store.lease("batch"):
        kept = None if full or algorithm != "blocks" else live_state(store.current_run(), folder)
        run = store.new_run(config.masked(), scheme.settings)  # before reading: later writes are logged
        if kept is not None:
            with _left_out_of_collections():
                return rerun(config, store, run, folder, kept, on_progress, processes)
        return _run(config, store, run, folder, on_progress, processes, algorithm)


@contextmanager
def _left_out_of_collections() -> Iterator[None]:
    """What this process holds so far (the kept state's million ids and hashes) left out of
    the garbage collector's walks while the run lasts: none of it is garbage before the
    end, and each full walk of it cost a twentieth of a second."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run(config: Config, store: Store, run: str, folder: Path, on_progress: Callable[[int], None],
         processes: int | None, algorithm: str) -> BatchResult:
    seconds: dict[str, float] = {}
    log = SketchLog(folder / f"log-{new_token()}")
    with chunks_mapped(config, processes, sketcher, sketch) as sketched:
        start = time.perf_counter()
        held = store.stored(config.source.table)
        seconds["read store"] = time.perf_counter() - start
        start = time.perf_counter()
        read = _read(config, store, run, held.rows, on_progress, sketched, log)
        seconds["read+fingerprint"] = time.perf_counter() - start

    trim()
    bits = bucket_bits(len(read.keys.values))
    with Behind() as behind:  # the server files the buckets while the pairs are found here
        behind.then(_write_buckets, store, run, bits, read)
        start = time.perf_counter()
        scheme = scheme_of(config)
        possible = NONE
        if algorithm == "single-pass":
            similar = _single_pass(read.fingerprints, config.fingerprint.k)
        else:
            # SimHash's tables sorted side by side; the shingles' decision on one thread, for the server
            # files the buckets on the other core meanwhile (on two, the pairs ended sooner, the buckets
            # later, and a million rows' decision took 150 MB more)
            threads = 1 if scheme.sketch_stored else cores(config, processes)
            decided = scheme.decide(read.table if read.table is not None else read.fingerprints, threads=threads)
            similar, possible = decided.similar, decided.possible
        pairs = similar.linked()
        seconds["all-pairs"] = time.perf_counter() - start
    seconds["index"], seconds["index after"] = behind.results[0], time.perf_counter() - start - seconds["all-pairs"]

    trim()
    start = time.perf_counter()
    found = groups_of(read.ids, pairs)
    seconds["groups"] = time.perf_counter() - start
    result = BatchResult(read.ids, read.fingerprints, pairs, found, seconds, run, read.added, read.changed,
                         copies=len(similar.copies), read=len(read.ids), sketched=len(read.ids),
                         decided=len(read.ids), left_out=read.left_out)
    kept = Kept(new_token(), log.folder.name, log.slots, log.slots, read.ids, np.array(read.hashes, "S16"),
                np.arange(len(read.ids)), pairs, possible)
    _store(config, store, result, read, held, kept, folder, bits)
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
    left_out: list[LeftOut]  # rows that cannot be read as text, not among `ids`
    marks: dict  # {row: its mark} of the rows with one, for the matters stage


def _read(config: Config, store: Store, run: str, held: dict, on_progress: Callable[[int], None],
          sketched: Callable[[Iterable[list[dict]]], Iterator[Chunk]], log: SketchLog) -> _Read:
    """Read and sketch every row into the log, writing the run's manifest and the row
    documents of those new or changed, the manifest first (a kill in between leaves a list
    of what was filed), a chunk filed while the next is read; a row that cannot be read as
    text is left out (as if the table had it not), and listed."""
    ids: list = []
    hashes: list[str] = []
    prints, compared = [], False
    manifest = 0
    left_out: list[LeftOut] = []
    marks: dict = {}

    def filed(chunk: Chunk, first: int) -> Filed:
        done = file_chunk(store, run, config.source.table, chunk, held, first=first)
        on_progress(len(chunk.ids))  # counted once filed: a check then sees its rows as read
        return done

    with SqlSource(config) as source, Behind() as behind:
        for chunk in sketched(source.rows(left_out=left_out)):
            behind.then(filed, chunk, manifest)
            manifest += -(-len(chunk.ids) // MANIFEST_ROWS)  # the documents its part of the manifest takes
            ids += chunk.ids
            hashes += chunk.hashes
            prints.append(chunk.fingerprints)
            log.append(chunk.fingerprints, chunk.keys, chunk.table)
            marks.update((row, m) for row, m in zip(chunk.ids, chunk.marks) if m is not None)
            compared = compared or chunk.table is not None
    if left_out:
        on_progress(len(left_out))  # read, if not filed
    fingerprints = np.concatenate(prints) if prints else np.zeros(0, np.uint64)
    added, changed = (sum(filed.added for filed in behind.results), sum(filed.changed for filed in behind.results))
    return _Read(ids, hashes, fingerprints, log.sets("keys"), log.table() if compared else None, added, changed,
                 left_out, marks)


def _write_buckets(store: Store, run: str, bits: int, read: _Read) -> float:
    """File every row's keys in the run's buckets; returns the seconds it took."""
    start = time.perf_counter()
    store.write_buckets(run, bits, read.keys.values, _At(id_array(read.ids), read.keys.starts),
                        _At(read.fingerprints, read.keys.starts))
    return time.perf_counter() - start


def _store(config: Config, store: Store, result: BatchResult, read: _Read, held: Held, kept: Kept,
           folder: Path, bits: int) -> None:
    """Make the run live with its buckets (`bits`) and results (stages.go_live), then
    check again each row an incremental writer changed meanwhile."""
    trim()
    start = time.perf_counter()
    read_ids = set(read.ids)
    kept.save(folder)  # before the switch that names it
    live = go_live(
        config, store, result.run, Found(result.rows, result.ids, result.pairs, result.groups, kept.possible), bits,
        [row for row in held.rows if row not in read_ids], held,
        lambda fresh: {row: content for row, content in zip(read.ids, read.hashes) if row in fresh}, kept.token,
        read.left_out, read.marks)
    result.obey(live)
    forget_others(folder, kept)
    result.seconds["store"] = time.perf_counter() - start
    result.replayed = replay(config, store, result.dedup_match is not None)


class _At(NamedTuple):
    """values[row] for the row of each (row, key) entry taken (`starts`: the keys' Sets.starts),
    without an array of the entries' rows."""

    values: np.ndarray
    starts: np.ndarray

    def take(self, at: np.ndarray) -> np.ndarray:
        return self.values[np.searchsorted(self.starts, at, side="right") - 1]
