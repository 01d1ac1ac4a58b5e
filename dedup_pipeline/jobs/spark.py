"""集中处理 on Spark (`dedup-pipeline batch --engine spark`): batch.py's job on a cluster, its
stages (stages.py) run in the executors and at the driver, the core's own decision deciding
the pairs (decision.confirm in the executors, decision.settle at the driver); the same pairs,
groups and review queue (tested on the quality set and on random tables). This module
partitions and routes.

The table is cut into P ranges of ids, and partition p of every stage below is range p:
each exchange is keyed by a partition number, so data already in place (the sketches,
persisted after the read) is joined by a co-partitioned union and never shuffled again.

1. read: each partition reads its range through SqlSource, sketches the rows and files
   those new or changed since the live manifest (whose (row, hash) pairs are shuffled to
   the partition of their row) with its part of the new manifest (stages.sketch, file_chunk).
2. keys: each (key, row, identity of its text) goes to the partition owning the key's
   bucket range, which writes those buckets (store.write_buckets) and lists the rows
   sharing a key (shingles.candidates), never two of one text: n copies cost n, as in the
   local batch; each candidate goes to its second row's partition.
3. confirm: there the second rows' sketches are taken, once per destination whatever the
   number of pairs, to the first row's partition, where decision.confirm decides all
   its candidates at once, as the local batch does.
4. driver: every confirmed pair (its similarity, evidence, and whether its texts keep each
   other's particulars, with its rows' submitters) and the rows whose text
   another row has (by a shuffle of the texts' identities) are collected, and
   decision.settle, the local batch's own, makes of them the pairs, the copies (linked to
   the first of their text), the pairs linked through a third row and the possible pairs
   for the review queue; the few pairs of rows both paired with a third row are confirmed
   there, their rows' sketches fetched from the executors. The pairs are grouped and made
   live with the queue as the local batch does (stages.groups_of, go_live, replay).

No Spark import at module level: the CLI imports this to check that Spark can run.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..config import Config
from ..errors import DedupError
from ..core.decision import Around, Confirmed, Decided, confirm, settle
from ..core.schemes import Shingles, scheme_of, shingle_scheme
from ..core.pairs import originals
from ..core.shingles import Sets, SketchTable, candidates
from ..sql.source import SqlSource, absolute_sqlite_url
from ..store.index import Store, buckets, bucket_bits, connect_store
from ..store.index import Held as StoreHeld
from .stages import Found, file_chunk, go_live, groups_of, replay, sketch, sketcher

ROWS_PER_PARTITION = 100_000  # the default partitions: at least this many rows each, 2 per core
JAVA = 17  # PySpark 4 needs Java 17 or later
OUT_OF_MEMORY = 52  # a Spark JVM's exit code after an OutOfMemoryError (SparkExitCode.OOM)
JVM_EXIT_S = 30  # how long a JVM that is ending is given to exit
PART_IDS = 32  # a partition's manifest documents are numbered from p << PART_IDS


class SparkError(DedupError):
    """Spark cannot run this batch; the message says what to install or change."""


@dataclass
class SparkResult:
    """What the CLI reports of a batch, as batch.BatchResult has it."""

    rows: int
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]  # (a, b, distance), row ids, a < b
    groups: list[list]
    seconds: dict[str, float] = field(default_factory=dict)
    run: str = ""
    partitions: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    replayed: int = 0
    dedup_match: int | None = None
    copies: int = 0  # rows with the text of an earlier row, linked to it rather than to each other
    rerun: bool = False  # Spark reads and decides every row
    queue: int | None = None  # items left for a reviewer in dedup_possible (None: the table is not there)

    @property
    def rows_with_similar(self) -> int:
        return sum(len(g) for g in self.groups)


def check_spark() -> None:
    """Raise SparkError naming what to install when PySpark or Java 17 is missing."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise SparkError("--engine spark needs PySpark: pip install 'dedup-pipeline[spark]'") from None
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        raise SparkError(f"--engine spark needs Java {JAVA} or later, and no java was found "
                         f"({'JAVA_HOME=' + home if home else 'PATH'}): apt-get install openjdk-17-jre-headless")
    found = re.search(r'version "(\d+)(?:\.(\d+))?', subprocess.run(
        [java, "-version"], capture_output=True, text=True).stderr)
    major = found and (int(found.group(2) or 0) if found.group(1) == "1" else int(found.group(1)))
    if not major or major < JAVA:
        raise SparkError(f"--engine spark needs Java {JAVA} or later; {java} is Java {major or '?'}: "
                         f"apt-get install openjdk-17-jre-headless and set JAVA_HOME to it")


# ------------------------------------------------------------------ the driver


def run_spark_batch(config: Config, store: Store, on_progress: Callable[[int], None] = lambda n: None,
                    master: str | None = None, partitions: int | None = None) -> SparkResult:
    """batch.run_batch on Spark: every row's pairs and groups, and a rebuilt block index,
    made live together. `master`: a Spark master URL (default: spark-submit's, else
    local[*]); `partitions`: ranges of ids the table is read in."""
    check_spark()
    scheme = scheme_of(config)
    if not isinstance(scheme, Shingles):
        raise SparkError("--engine spark runs the shingles scheme (the default); the blocks scheme "
                         "runs with --engine local")
    if config.store.kind == "memory":  # a database of this process's own server, by another name
        raise SparkError("--engine spark needs a MongoDB its executors write to: [store] kind = \"mongodb\"")
    config = _absolute(config)
    low, high, count = _id_range(config)
    with spark_session(master) as spark:
        sc = spark.sparkContext
        if not sc.master.startswith("local") and not config.store.mongo_uri:
            raise SparkError("--engine spark on a cluster needs a MongoDB server its executors reach: "
                             "set [store] mongo_uri (or DEDUP_MONGO_URI)")
        p = partitions or max(2 * sc.defaultParallelism, math.ceil(count / ROWS_PER_PARTITION))
        print(f"spark: master={sc.master} partitions={p} (ranges of ids)", file=sys.stderr, flush=True)
        with store.lease("batch"):
            run = store.new_run(config.masked(), scheme.settings)  # later writes are logged
            store.shard_generation(run)
            job = Job(config, _uri(config, store), config.store.database, run, p, _bounds(low, high, p))
            return _run(sc, job, store, count, on_progress)


@contextmanager
def spark_session(master: str | None) -> Iterator[Any]:
    """The active SparkSession, else a new one, stopped at the end (`master`, else
    spark-submit's, else local[*]); a job that fails raises one SparkError line saying what
    failed, not what py4j met next ("Connection refused" from a JVM that ended)."""
    spark, own = _session(master)
    failed = True
    try:
        yield spark
        failed = False
    except Exception as e:
        failure = _failure(e, spark)
        if failure is None:
            raise
        raise failure from None
    finally:
        if own:
            with suppress(Exception) if failed else nullcontext():  # a JVM that ended cannot stop
                spark.stop()


def _failure(error: Exception, spark: Any) -> SparkError | None:
    """A failed job as one line: its root cause, and the JVM's end if it ended (in local
    mode the executors share the driver's JVM, and an OutOfMemoryError ends it); None for
    an error of this code while Spark runs on."""
    from_spark, cause = type(error).__module__.startswith(("pyspark", "py4j")), _cause(_said(error))
    ended = _jvm_exit(spark, ending=from_spark and not cause)  # a call broken off, no error said: the JVM ends
    if ended is None and not from_spark:
        return None
    if ended == OUT_OF_MEMORY or "OutOfMemoryError" in cause:
        return SparkError(f"Spark ran out of memory ({cause or 'java.lang.OutOfMemoryError'}"
                          f"{'' if ended is None else f'; its JVM ended, exit code {ended}'}): give it more "
                          f"(spark.driver.memory, or spark.executor.memory on a cluster), or more --partitions")
    if ended is not None:
        return SparkError(f"Spark's JVM ended (exit code {ended}){': ' + cause if cause else ''}")
    return SparkError(f"a Spark task failed: {cause or 'no message'}")


def _said(error: Exception) -> str:
    """The error's message; "" when saying it fails (a Py4JJavaError asks the JVM for its
    message, and a JVM that has ended answers nothing)."""
    try:
        return str(error)
    except Exception:
        return ""


def _cause(message: str) -> str:
    """The error a task's traceback ends with: a JVM's root cause ("Caused by:"), a Python
    worker's last exception; "" when the message names none."""
    lines = [line.strip().removeprefix("Caused by: ") for line in message.splitlines()]
    errors = [line for line in lines if re.match(r"^[\w.$]+(Error|Exception): ", line)]
    return errors[-1] if errors else ""


def _jvm_exit(spark: Any, ending: bool) -> int | None:
    """The exit code of the JVM this process started for Spark if it has ended, or ends
    within JVM_EXIT_S while `ending` or no longer answering (its shutdown hooks take a
    while); None while it runs on (or when spark-submit started it)."""
    process = getattr(spark.sparkContext._gateway, "proc", None)
    if process is None:
        return None
    if not ending:
        try:
            spark.sparkContext.statusTracker().getActiveJobsIds()  # a call into the JVM
        except Exception:
            ending = True
    with suppress(subprocess.TimeoutExpired):
        return process.wait(JVM_EXIT_S) if ending else process.poll()
    return None


class Job(NamedTuple):
    """What every task needs: the configuration, where the store is, the run being built,
    and the ranges of ids (partition p reads ids in (bounds[p], bounds[p + 1]])."""

    config: Config
    uri: str
    database: str
    run: str
    partitions: int
    bounds: np.ndarray
    bits: int = 0  # bucket bits, once the read has counted the keys

    def range_of(self, ids: np.ndarray) -> np.ndarray:
        """The partition of each row id."""
        return np.clip(np.searchsorted(self.bounds, ids, side="left") - 1, 0, self.partitions - 1)


def _run(sc: Any, job: Job, store: Store, count: int, on_progress: Callable[[int], None]) -> SparkResult:
    from pyspark import StorageLevel

    seconds: dict[str, float] = {}
    keep = StorageLevel.MEMORY_AND_DISK
    by_part = partial(_spread, job.partitions)
    start = time.perf_counter()
    ranges = sc.parallelize([(p, Range(*job.bounds[p:p + 2].tolist())) for p in range(job.partitions)],
                            job.partitions).partitionBy(*by_part())
    since = store.since(job.config.source.table)
    read = ranges.union(_held(sc, job, store, since.rows).partitionBy(*by_part())).mapPartitions(
        partial(_read, job), preservesPartitioning=True).persist(keep)
    filed = _values(read, RangeRead).collect()
    on_progress(count)
    seconds["read+sketch"] = time.perf_counter() - start

    start = time.perf_counter()
    job = job._replace(bits=bucket_bits(sum(f.entries for f in filed)))
    found = read.flatMap(partial(_route_keys, job)).partitionBy(*by_part()).mapPartitions(
        partial(_index_and_candidates, job)).partitionBy(*by_part()).persist(keep)
    found.count()
    seconds["index+candidates"] = time.perf_counter() - start

    start = time.perf_counter()
    shipped = found.union(read).mapPartitions(partial(_ship, job)).partitionBy(*by_part())
    judged = shipped.union(read).mapPartitions(partial(_confirm, job), preservesPartitioning=True).persist(keep)
    judged.count()
    seconds["confirm"] = time.perf_counter() - start

    start = time.perf_counter()
    texts = _texts(job, read)
    confirmed = _gathered(_values(judged, Judged).collect())
    nodes = np.union1d(np.union1d(confirmed.a, confirmed.b), texts.ids)
    decided = _settled(job, read, nodes, confirmed, texts)
    seconds["settle"] = time.perf_counter() - start

    start = time.perf_counter()
    similar = decided.similar
    ia, ib, d = similar.linked()
    a, b = nodes[ia], nodes[ib]
    pairs = Found(sum(f.rows for f in filed), nodes.tolist(), (ia, ib, d), groups_of(nodes.tolist(), (ia, ib, d)),
                  decided.possible)
    seconds["groups"] = time.perf_counter() - start
    result = SparkResult(pairs.rows, (a, b, d), pairs.groups, seconds, job.run, job.partitions,
                         sum(f.added for f in filed), sum(f.changed for f in filed),
                         copies=len(similar.copies))
    _store(job, store, result, pairs, read, [row for f in filed for row in f.removed], since)
    for rdd in (read, found, judged):
        rdd.unpersist()
    return result


def _texts(job: Job, read: Any) -> Texts:
    """Every row whose text another row has too (ids ascending), with its identity: copies
    are stored linked to the first of them, as the local batch stores them, and are third
    rows of their text's partners (decision.through_a_third)."""
    found = read.flatMap(partial(_route_texts, job)).partitionBy(*_spread(job.partitions)).mapPartitions(
        _shared).collect()
    ids = np.concatenate([t.ids for t in found] or [np.zeros(0, np.int64)])
    identity = np.concatenate([t.identity for t in found] or [np.zeros(0, np.uint64)])
    order = np.argsort(ids)
    return Texts(ids[order], identity[order])


def _store(job: Job, store: Store, result: SparkResult, found: Found, read: Any, gone: list,
           since: StoreHeld) -> None:
    """Make the run live with its results, as the local batch does (stages.go_live: the
    content hashes of the fresh rows it folds are fetched from the executors); then decide
    again the rows an incremental writer changed meanwhile."""
    start = time.perf_counter()

    def filed(fresh: set) -> dict:
        wanted = read.context.broadcast(fresh)
        return dict(_values(read, Sketched).flatMap(
            lambda s: [(row, h) for row, h in zip(s.ids.tolist(), s.hashes) if row in wanted.value]).collect())

    live = go_live(job.config, store, job.run, found, job.bits, gone, since, filed)
    result.dedup_match, result.removed, result.groups = live.dedup_match, live.removed, live.found.groups
    result.queue = live.queue
    ids, (i, j, d) = np.asarray(live.found.ids), live.found.pairs
    result.pairs = (ids[i], ids[j], d)  # as reviewers decided them
    result.seconds["store"] = time.perf_counter() - start
    result.replayed = replay(job.config, store, result.dedup_match is not None)


def _session(master: str | None) -> tuple[Any, bool]:
    """The active SparkSession, else a new one (and whether this call made it): `master`,
    else spark-submit's, else local[*]."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = SparkSession.builder.appName("dedup-pipeline batch")
    if master:
        builder = builder.master(master)
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit set the master and Python
    if not submitted and (master or "local").startswith("local"):
        # the executors are this machine's Python workers: this interpreter, its packages
        builder = builder.config("spark.pyspark.python", sys.executable)
    spark = builder.config("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower()).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark, True


def _absolute(config: Config) -> Config:
    """An SQLite path made absolute: executors need not share the driver's folder."""
    absolute = absolute_sqlite_url(config.source.url)
    if absolute is None:
        return config
    return replace(config, source=replace(config.source, url=absolute))


def _id_range(config: Config) -> tuple[int, int, int]:
    """The smallest and largest id and the number of rows; ids must be integers."""
    with SqlSource(config) as source:
        low, high, count = source.id_range()
    if count and not (isinstance(low, int) and isinstance(high, int)):
        raise SparkError(f"--engine spark reads the table in ranges of ids, and [source] id_column "
                         f"{config.source.id_column!r} is not an integer column: use --engine local")
    return (low, high, count) if count else (0, 0, 0)


def _bounds(low: int, high: int, partitions: int) -> np.ndarray:
    """partitions + 1 ascending ids: partition p reads (bounds[p], bounds[p + 1]]."""
    width = high - low + 1
    return np.array([low - 1 + -(-width * n // partitions) for n in range(partitions + 1)], np.int64)


def _uri(config: Config, store: Store) -> str:
    """The MongoDB the executors write to: the configured one, else the embedded server
    this process started (on this machine's loopback: local masters only)."""
    return config.store.mongo_uri or store.uri


def _spread(partitions: int) -> tuple[int, Callable[[int], int]]:
    """partitionBy's arguments: keys are partition numbers already."""
    return partitions, _own


def _own(key: int) -> int:
    return key


def _values(rdd: Any, kind: type) -> Any:
    return rdd.values().filter(lambda value: isinstance(value, kind))


# ------------------------------------------------------------------ what travels


class Range(NamedTuple):
    after: int
    until: int


class Held(NamedTuple):
    """(row, content hash) pairs of the live manifest."""

    rows: list
    hashes: list


class Since(Held):
    """(row, content hash) pairs the store holds otherwise than the live manifest says."""


class Sketched(NamedTuple):
    """A chunk of a partition's rows, sketched: ids in order, content hashes, what is compared."""

    ids: np.ndarray
    hashes: list
    table: SketchTable
    prints: np.ndarray  # each row's fingerprint, as its document holds it


class RangeRead(NamedTuple):
    """What a partition's read did."""

    rows: int
    added: int
    changed: int
    removed: list  # rows of its range the live manifest held that the table no longer has
    entries: int  # (key, row) entries of the index


class Entries(NamedTuple):
    keys: np.ndarray  # uint64
    rows: np.ndarray
    identity: np.ndarray  # each row's Sketch.identity: rows of one text are never candidates of each other
    prints: np.ndarray  # each row's fingerprint, filed beside its keys


class Candidates(NamedTuple):
    a: np.ndarray
    b: np.ndarray


class Shipped(NamedTuple):
    """Candidates (a, b) with the sketches of their rows b (ids `b_ids`, in `table`)."""

    a: np.ndarray
    b: np.ndarray
    b_ids: np.ndarray
    table: SketchTable


class Judged(NamedTuple):
    """Candidates whose texts are similar (row ids, a < b), as decision.Confirmed has them,
    with their rows' submitters."""

    a: np.ndarray
    b: np.ndarray
    jaccard: np.ndarray
    evidence: np.ndarray
    kept: np.ndarray  # whether the texts keep each other's particulars (for possible pairs)
    people_a: np.ndarray
    people_b: np.ndarray

    def take(self, at: np.ndarray) -> Judged:
        return Judged(*(x[at] for x in self))


class Texts(NamedTuple):
    """Rows and the identity of their texts."""

    ids: np.ndarray
    identity: np.ndarray


# ------------------------------------------------------------------ the tasks


def _held(sc: Any, job: Job, store: Store, since: dict) -> Any:
    """(partition, Held) of the live manifest, its documents read by the executors, and
    (partition, Since) of the rows written since that it does not show (store.since)."""
    live = store.live_run()
    ids = store.manifest_parts(live)
    rows = np.array(list(since), np.int64)
    part = job.range_of(rows)
    written = [(p, Since(rows[part == p].tolist(), [since[r] for r in rows[part == p].tolist()]))
               for p in np.unique(part).tolist()]
    return sc.parallelize(ids, max(1, min(len(ids), job.partitions))).mapPartitions(
        partial(_read_manifest, job, live)).union(sc.parallelize(written, max(1, len(written))))


def _read_manifest(job: Job, live: str, ids: Iterable[int]) -> Iterator[tuple[int, Held]]:
    with connect_store(job.uri, job.database, job.config.source.table) as store:
        for listed, hashes in store.manifest_of(live, list(ids)):
            rows = np.array(listed, np.int64)
            part = job.range_of(rows)
            for p in np.unique(part).tolist():
                at = np.flatnonzero(part == p)
                yield p, Held(rows[at].tolist(), [hashes[n] for n in at.tolist()])


def _read(job: Job, items: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """Read and sketch a range's rows, file those new or changed in the store, and write
    the range's part of the manifest (stages.file_chunk, as the local batch does)."""
    ranges, held, since = [], {}, {}
    for p, item in items:
        if isinstance(item, Range):
            ranges.append((p, item))
        else:
            (since if isinstance(item, Since) else held).update(zip(item.rows, item.hashes))
    held.update(since)
    config, table, state = job.config, job.config.source.table, sketcher(job.config)
    with SqlSource(config) as source, connect_store(job.uri, job.database, job.config.source.table) as store:
        for p, span in ranges:
            rows_read, added, changed, entries = 0, 0, 0, 0
            # numbered by partition; a task run again replaces what it wrote
            store.clear_manifest(job.run, p << PART_IDS, p + 1 << PART_IDS)
            documents = p << PART_IDS
            for rows in source.rows(after=span.after, until=span.until):
                chunk = sketch(rows, state)
                filed = file_chunk(store, job.run, table, chunk, held, first=documents)
                for row in chunk.ids:  # what is left once the range is read is gone from the table
                    held.pop(row, None)
                added, changed, documents = added + filed.added, changed + filed.changed, documents + filed.documents
                rows_read += len(chunk.ids)
                entries += len(chunk.keys.values)
                yield p, Sketched(np.array(chunk.ids, np.int64), chunk.hashes, chunk.table, chunk.fingerprints)
            yield p, RangeRead(rows_read, added, changed, [], entries)
    if held and ranges:
        yield ranges[0][0], RangeRead(0, 0, 0, list(held), 0)


def _route_keys(job: Job, item: tuple[int, Any]) -> Iterator[tuple[int, Entries]]:
    """A chunk's (key, row) entries, each to the partition owning its bucket."""
    if not isinstance(item[1], Sketched):
        return
    chunk = item[1]
    keys = np.asarray(chunk.table.keys.values, np.uint64)
    rows = np.repeat(chunk.ids, chunk.table.keys.sizes())
    identity = np.repeat(chunk.table.identity, chunk.table.keys.sizes())
    prints = np.repeat(chunk.prints, chunk.table.keys.sizes())
    owner = buckets(keys, job.bits) * job.partitions >> job.bits
    for p in np.unique(owner).tolist():
        at = owner == p
        yield p, Entries(keys[at], rows[at], identity[at], prints[at])


def _index_and_candidates(job: Job, items: Iterable[tuple[int, Entries]]) -> Iterator[tuple[int, Candidates]]:
    """Write this partition's buckets, and every pair of rows sharing one of its keys, each
    to its second row's partition; never two rows of one text (copies: n of them cost n)."""
    parts = [(p, entries) for p, entries in items]
    if not parts:
        return
    p = parts[0][0]
    keys = np.concatenate([e.keys for _, e in parts])
    rows = np.concatenate([e.rows for _, e in parts])
    identity = np.concatenate([e.identity for _, e in parts])
    prints = np.concatenate([e.prints for _, e in parts])
    low, high = -(-p * (1 << job.bits) // job.partitions), -(-(p + 1) * (1 << job.bits) // job.partitions)
    with connect_store(job.uri, job.database, job.config.source.table) as store:
        store.write_buckets(job.run, job.bits, keys, rows, prints, span=(low, high))
    ids, at = np.unique(rows, return_inverse=True)
    order = np.argsort(at, kind="stable")
    starts = np.concatenate(([0], np.cumsum(np.bincount(at, minlength=len(ids)))))
    row_identity = np.zeros(len(ids), np.uint64)
    row_identity[at] = identity
    i, j = candidates(Sets(keys[order], starts), originals(row_identity))
    a, b = ids[i], ids[j]
    owner = job.range_of(b)
    for q in np.unique(owner).tolist():
        at = owner == q
        yield q, Candidates(a[at], b[at])


def _ship(job: Job, items: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Shipped]]:
    """The sketches of this partition's rows b of candidates (a, b), to a's partition."""
    local, found = _local(items, Candidates)
    if not found:
        return
    code = np.unique(np.stack([np.concatenate([c.a for c in found]), np.concatenate([c.b for c in found])], 1),
                     axis=0)
    a, b = code[:, 0], code[:, 1]
    owner = job.range_of(a)
    for q in np.unique(owner).tolist():
        at = owner == q
        b_ids = np.unique(b[at])
        yield q, Shipped(a[at], b[at], b_ids, _take(local.table, np.searchsorted(local.ids, b_ids)))


def _confirm(job: Job, items: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Judged]]:
    """Decide this partition's candidates with the scheme's own vectorised confirmation."""
    local, shipped = _local(items, Shipped)
    if not shipped:
        return
    p = int(job.range_of(shipped[0].a[:1])[0])
    tables, offset, i, j = [local.table], len(local.ids), [], []
    for s in shipped:
        i.append(np.searchsorted(local.ids, s.a))
        j.append(offset + np.searchsorted(s.b_ids, s.b))
        tables.append(s.table)
        offset += len(s.b_ids)
    ids, table = np.concatenate([local.ids] + [s.b_ids for s in shipped]), _concat(tables)
    scheme = shingle_scheme(job.config)
    confirmed = confirm(scheme, table, np.concatenate(i), np.concatenate(j))
    yield p, Judged(ids[confirmed.i], ids[confirmed.j], confirmed.jaccard, confirmed.evidence, confirmed.kept,
                    table.people[confirmed.i], table.people[confirmed.j])


def _gathered(parts: list[Judged]) -> Judged:
    """The confirmed pairs of every partition, in (a, b) order."""
    if not parts:
        none = np.zeros(0, np.int64)
        return Judged(none, none, np.zeros(0), none, np.zeros(0, bool), *(np.zeros((0, 0), np.uint64),) * 2)
    width = max(p.people_a.shape[1] for p in parts)
    joined = Judged(*(np.concatenate(column) for column in zip(*(p[:5] for p in parts))),
                    _padded([p.people_a for p in parts], width), _padded([p.people_b for p in parts], width))
    return joined.take(np.lexsort((joined.b, joined.a)))


def _padded(people: list[np.ndarray], width: int) -> np.ndarray:
    """Submitter matrices one after another, as wide as the widest."""
    return np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in people])


def _settled(job: Job, read: Any, nodes: np.ndarray, judged: Judged, texts: Texts) -> Decided:
    """decision.settle at the driver over every confirmed pair (positions in `nodes`, ids
    ascending) and the rows whose text another has; the pairs through a third row are
    confirmed here (`_confirm_at_driver`)."""
    i, j = np.searchsorted(nodes, judged.a), np.searchsorted(nodes, judged.b)
    people = np.zeros((len(nodes), judged.people_a.shape[1]), np.uint64)
    people[i], people[j] = judged.people_a, judged.people_b
    around = Around(originals(_identity_of(nodes, texts)), people, (i, j))
    found = Confirmed(i, j, judged.jaccard, judged.evidence, judged.kept)
    return settle(shingle_scheme(job.config), found, around, partial(_confirm_at_driver, job, read, nodes))


def _confirm_at_driver(job: Job, read: Any, nodes: np.ndarray, i: np.ndarray, j: np.ndarray) -> Confirmed:
    """decision.confirm of pairs (i, j) of `nodes` that share no key (few: those through a
    third row), their rows' sketches fetched from the executors; positions in `nodes`."""
    if not len(i):
        return Confirmed(i, j, np.zeros(0), np.zeros(0, np.int64), np.zeros(0, bool))
    wanted = read.context.broadcast(nodes[np.union1d(i, j)])
    chunks = _values(read, Sketched).map(lambda s: _chunk_of(s, wanted.value)).collect()
    ids = np.concatenate([c.ids for c in chunks])
    order = np.argsort(ids)
    table, ids = _take(_concat([c.table for c in chunks]), order), ids[order]
    found = confirm(shingle_scheme(job.config), table, np.searchsorted(ids, nodes[i]), np.searchsorted(ids, nodes[j]))
    return found._replace(i=np.searchsorted(nodes, ids[found.i]), j=np.searchsorted(nodes, ids[found.j]))


def _identity_of(nodes: np.ndarray, texts: Texts) -> np.ndarray:
    """The identity of each of these rows (ids ascending) that shares its text, else 0."""
    identity = np.zeros(len(nodes), np.uint64)
    identity[np.searchsorted(nodes, texts.ids)] = texts.identity
    return identity


def _route_texts(job: Job, item: tuple[int, Any]) -> Iterator[tuple[int, Texts]]:
    """A chunk's rows with a text, each to the partition of its text's identity."""
    if not isinstance(item[1], Sketched):
        return
    chunk = item[1]
    at = chunk.table.identity != 0
    ids, identity = chunk.ids[at], chunk.table.identity[at]
    owner = identity % np.uint64(job.partitions)
    for q in np.unique(owner).tolist():
        yield q, Texts(ids[owner == q], identity[owner == q])


def _shared(items: Iterable[tuple[int, Texts]]) -> Iterator[Texts]:
    """The rows among these whose text another row has too (copies, and their originals)."""
    parts = [texts for _, texts in items]
    if parts:
        identity = np.concatenate([t.identity for t in parts])
        _, inverse, counts = np.unique(identity, return_inverse=True, return_counts=True)
        shared = counts[inverse.ravel()] > 1
        yield Texts(np.concatenate([t.ids for t in parts])[shared], identity[shared])


def _chunk_of(chunk: Sketched, wanted: np.ndarray) -> _Local:
    """The rows of a chunk among `wanted`, with their sketches."""
    at = np.flatnonzero(np.isin(chunk.ids, wanted))
    return _Local(chunk.ids[at], _take(chunk.table, at))


def _of_kinds(items: Iterable[tuple[int, Any]], *kinds: type) -> tuple[list, ...]:
    """A partition's items, a list of each kind."""
    found: tuple[list, ...] = tuple([] for _ in kinds)
    for _, item in items:
        for kind, out in zip(kinds, found):
            if isinstance(item, kind):
                out.append(item)
    return found


# ------------------------------------------------------------------ sketch tables


class _Local(NamedTuple):
    ids: np.ndarray
    table: SketchTable


def _local(items: Iterable[tuple[int, Any]], kind: type) -> tuple[_Local, list]:
    """This partition's own rows (ids ascending, their table) and the items of `kind`."""
    chunks, found = _of_kinds(items, Sketched, kind)
    if not chunks:
        return _Local(np.zeros(0, np.int64), SketchTable.of([])), found
    return _Local(np.concatenate([c.ids for c in chunks]), _concat([c.table for c in chunks])), found


def _concat(tables: list[SketchTable]) -> SketchTable:
    """Tables one after another (their keys left out: confirming needs none)."""
    width = max((t.people.shape[1] for t in tables), default=0)
    people = np.concatenate([np.pad(t.people, ((0, 0), (0, width - t.people.shape[1]))) for t in tables])
    return SketchTable(_concat_sets([t.shingles for t in tables]), _concat_sets([t.verbatim for t in tables]),
                       people, Sets(np.zeros(0, np.uint64), np.zeros(len(people) + 1, np.int64)),
                       np.concatenate([t.identity for t in tables]), _concat_sets([t.text for t in tables]),
                       np.concatenate([t.filed for t in tables]))


def _concat_sets(parts: list[Sets]) -> Sets:
    values = np.concatenate([s.values for s in parts])
    sizes = np.concatenate([s.sizes() for s in parts])
    return Sets(values, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64))


def _take(table: SketchTable, rows: np.ndarray) -> SketchTable:
    """The rows at these positions of a table, in that order (keys left out)."""
    return SketchTable(table.shingles.take(rows), table.verbatim.take(rows), table.people[rows],
                       Sets(np.zeros(0, np.uint64), np.zeros(len(rows) + 1, np.int64)), table.identity[rows],
                       table.text.take(rows), table.filed[rows])
