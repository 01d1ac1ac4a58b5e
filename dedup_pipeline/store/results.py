"""Batch runs in MongoDB: each run builds its own generation of collections aside (the
buckets of the block index `blocks`, the pairs `matches`, the groups `groups`, each named
`<name>__<run>`), and one pointer document says which generation is live. Each table of
the store has its own pointer and runs: several tables of one database (来信, 来访), each
configured apart, keep their batches side by side in one store.

Switching is one update of that document, so a reader sees the old generation or the new
one whole, whatever moment a batch is killed at. The previous generation is kept until the
next switch, so a reader that resolved it just before keeps reading whole results.

    runs: {"_id": "live:<table>", "run": "<run>", "base": "<run>", "building": "<run>"|None,
           "summary": {...}, "settings": {...}, "scheme": "<scheme settings>", "finished_at": <date>}
          {"_id": "<run>", "table": "<table>", "state": "building"|"done", "started_at": <date>,
           "settings": {...}, "scheme": "<scheme settings>"}

A table of "" is the store unscoped, as before tables had pointers of their own: its pointer
is "live", and it reads and clears the runs and changes of every table (a store opened
without a configuration, in tests; a store of format 3 had that one pointer, index._upgrade).

A re-run that builds no buckets of its own (batch.py: few rows changed) writes only its
pairs and groups; its `base` is the run whose buckets and manifest it uses, kept as long as
a live or previous run names it, and the rows changed since are filed `fresh`.

The pointer's `run` is "" before the first batch: no buckets yet (rows that `dedup-pipeline
add` files are found as fresh rows, store.py). While a batch builds, `building` names it and
every write to the index is also logged in `changes`, for the batch to decide those rows
again after its switch. The pointer also says how its buckets are keyed (`bucket_bits`), and
with which scheme settings (`schemes.Scheme.settings`) its keys were made: a store refuses a
user of other settings (store.MongoStore.require). pymongo's errors are raised as StoreError
(mongo.py). These functions take a pymongo Database: outside store/, they are the operations
of index.MongoStore.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
from pymongo import WriteConcern
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError, OperationFailure

from .mongo import guarded

RUNS, CHANGES, LIVE = "runs", "changes", "live"
RUN = {"state": {"$exists": True}}  # the runs' documents of RUNS, not the pointers
RESULTS = ("matches", "groups")
GENERATION = ("blocks", "manifest", *RESULTS)  # the collections a run builds
PER_DOCUMENT = 5_000  # pairs, or rows of groups, a results document holds (~150 kB)


def named(name: str, run: str) -> str:
    """The collection `name` of generation `run`; "" is the generation of plain names."""
    return f"{name}__{run}" if run else name


def pointer_id(table: str) -> str:
    """The _id of the live pointer of `table`'s batches ("": the store unscoped)."""
    return f"{LIVE}:{table}" if table else LIVE


def of_table(table: str) -> dict[str, Any]:
    """A filter of the runs, and of the changes logged, of `table` (every table's for "")."""
    return {"table": table} if table else {}


@guarded
def pointer(db: Database, table: str = "") -> dict[str, Any]:
    """The live pointer of `table`, created (no run yet, nothing building) if missing."""
    found = db[RUNS].find_one({"_id": pointer_id(table)})
    while found is None:
        try:
            db[RUNS].update_one({"_id": pointer_id(table)}, {"$setOnInsert": {"run": "", "building": None}},
                                upsert=True)
        except DuplicateKeyError:  # another process created it at the same moment
            pass
        found = db[RUNS].find_one({"_id": pointer_id(table)})
    return found


@guarded
def live(db: Database, name: str, table: str = "") -> Collection:
    """The live generation's collection `name` of `table`."""
    return db[named(name, pointer(db, table)["run"])]


@guarded
def current_run(db: Database, table: str = "") -> dict[str, Any] | None:
    """The live pointer of `table` with the summary of its run, or None before its first batch."""
    found = pointer(db, table)
    return found if found["run"] else None


@guarded
def batches(db: Database, table: str = "") -> dict[str, Any]:
    """What `status` says of `table`'s batches, read and never written: the live pointer as
    stored ({} before any store was opened), with `started_at`, when its run started (its own
    document's), and `building_since`, when the run building now started, if any."""
    found = dict(db[RUNS].find_one({"_id": pointer_id(table)}) or {})
    runs = [run for run in (found.get("run"), found.get("building")) if run]
    started = {doc["_id"]: doc.get("started_at") for doc in db[RUNS].find({"_id": {"$in": runs}}, {"started_at": 1})}
    found["started_at"] = started.get(found.get("run") or "")
    found["building_since"] = started.get(found.get("building") or "")
    return found


@guarded
def new_run(db: Database, settings: dict[str, Any], scheme: str = "", table: str = "") -> str:
    """Start building a generation of `table`, its keys made with the `scheme` settings:
    clear the table's change log, and mark the run as building (from then on, live writes
    are logged). What runs killed before going live left stays until one goes live: their
    manifests list the rows they may have filed (store.MongoStore.since)."""
    pointer(db, table)  # created if missing
    run = f"{_now():%Y%m%dT%H%M%S%f}-{os.getpid()}"
    db[RUNS].insert_one({"_id": run, "table": table, "state": "building", "started_at": _now(),
                         "settings": settings, "scheme": scheme})
    # Cleared before `building` is set: a write that lands in between came before this
    # run read the table; one after it is logged.
    db[CHANGES].delete_many(of_table(table))
    db[RUNS].update_one({"_id": pointer_id(table)}, {"$set": {"building": run}}, upsert=True)
    return run


@guarded
def write_matches(db: Database, run: str, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray) -> None:
    """Every pair once, as row ids, a's row before b's (distance: Hamming bits, or
    1 − similarity for shingles), PER_DOCUMENT pairs a document: {"a": [..], "b": [..],
    "distance": [..]}. Reports read them all; a row's matches are dedup_match's to serve."""
    docs = ({"_id": n, "a": [ids[x] for x in i[start:start + PER_DOCUMENT].tolist()],
             "b": [ids[y] for y in j[start:start + PER_DOCUMENT].tolist()],
             "distance": d[start:start + PER_DOCUMENT].tolist()}
            for n, start in enumerate(range(0, len(i), PER_DOCUMENT)))
    insert_all(db[named("matches", run)], docs)


@guarded
def read_matches(db: Database, run: str) -> list[tuple]:
    """The run's pairs (a, b, distance), in the order written."""
    return [pair for doc in db[named("matches", run)].find().sort("_id", 1)
            for pair in zip(doc["a"], doc["b"], doc["distance"])]


@guarded
def write_groups(db: Database, run: str, groups: Iterable[list]) -> None:
    """Groups of two or more rows, largest first, PER_DOCUMENT rows (or one group) a
    document: {"groups": [[row, ...], ...]}."""
    insert_all(db[named("groups", run)], ({"_id": n, "groups": part} for n, part in enumerate(_filled(groups))))


@guarded
def read_groups(db: Database, run: str) -> list[list]:
    """The run's groups, in the order written."""
    return [group for doc in db[named("groups", run)].find().sort("_id", 1) for group in doc["groups"]]


def _filled(groups: Iterable[list]) -> Iterator[list[list]]:
    """Consecutive groups holding about PER_DOCUMENT rows together."""
    part, rows = [], 0
    for group in groups:
        if part and rows + len(group) > PER_DOCUMENT:
            yield part
            part, rows = [], 0
        part.append(group)
        rows += len(group)
    if part:
        yield part


@guarded
def insert_all(target: Collection, docs: Iterable[dict], per_request: int = 20) -> int:
    """Insert a stream of documents, `per_request` a round trip (20 of these results
    documents: a few MB), each request sent while the next is made; returns how many."""
    docs, count = iter(docs), 0
    with Behind() as behind:
        for chunk in iter(lambda: list(islice(docs, per_request)), []):
            behind.then(target.insert_many, chunk, ordered=False)
            count += len(chunk)
    return count


class Behind:
    """Calls made one at a time, in order, in a thread of their own while the caller goes
    on (a batch reads the next chunk while the server files the last), at most `depth`
    of them waiting; each call's result, or its error, comes when the caller next waits
    for it, or at the end (`results`)."""

    def __init__(self, depth: int = 1) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="behind")
        self._pending: deque[Future] = deque()
        self._depth = depth
        self.results: list = []

    def then(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        while len(self._pending) >= self._depth:
            self.results.append(self._pending.popleft().result())
        self._pending.append(self._thread.submit(call, *args, **kwargs))

    def __enter__(self) -> Behind:
        return self

    def __exit__(self, kind: type | None, *exc_info: object) -> None:
        try:
            while kind is None and self._pending:
                self.results.append(self._pending.popleft().result())
        finally:
            self._thread.shutdown(wait=True, cancel_futures=True)  # what waits is not begun after an error


@guarded
def switch(db: Database, run: str, summary: dict[str, Any], bucket_bits: int = 0, base: str = "",
           table: str = "") -> None:
    """Make the run's generation live for `table` in one write, then drop the table's
    generations before the one it replaces, but for the bases either uses. `bucket_bits`:
    how its block index buckets keys (store.py); `base`: the run whose buckets and manifest
    it uses, when it did not build its own (a re-run: its rows changed since are `fresh`)."""
    # The new generation is made durable first: a crash after the switch finds it whole.
    _sync(db)
    before = pointer(db, table)
    previous = before["run"]
    built = db[RUNS].find_one({"_id": run})
    _journaled(db).update_one({"_id": pointer_id(table)}, {"$set": {
        "run": run, "base": base or run, "building": None, "previous": previous,
        "previous_base": before.get("base") or previous, "summary": summary, "bucket_bits": bucket_bits,
        "settings": built["settings"], "scheme": built.get("scheme", ""), "finished_at": _now()}})
    db[RUNS].update_one({"_id": run}, {"$set": {"state": "done"}})
    kept = [run, previous, base or run, before.get("base") or previous]
    for old in db[RUNS].find({**RUN, **of_table(table), "_id": {"$nin": kept}}):
        drop_generation(db, old["_id"])
    if previous:
        drop_generation(db, "")  # the plain names `add` fills before any batch


@guarded
def shard_generation(db: Database, run: str) -> list[str]:
    """On a sharded cluster (a mongos), shard the collections of the run's generation on a
    hashed _id before they are written (each batch makes its generation anew; README,
    "A sharded MongoDB"); elsewhere nothing. The collections sharded."""
    admin = db.client.admin
    if admin.command("hello").get("msg") != "isdbgrid":
        return []
    names = [f"{db.name}.{named(name, run)}" for name in GENERATION]
    for name in names:
        admin.command("shardCollection", name, key={"_id": "hashed"})
    return names


@guarded
def drop_generation(db: Database, run: str) -> None:
    existing = set(db.list_collection_names())
    for name in GENERATION:
        if named(name, run) in existing:
            db.drop_collection(named(name, run))
    db[RUNS].delete_one({"_id": run})


def _sync(db: Database) -> None:
    """Flush every write to disk. A MongoDB replica set journals them anyway and may refuse
    fsync to a non-admin user; the embedded SecantusDB needs it (it journals less)."""
    try:
        db.client.admin.command("fsync")
    except OperationFailure:
        pass


def _journaled(db: Database) -> Collection:
    return db[RUNS].with_options(write_concern=WriteConcern(w=1, j=True))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
