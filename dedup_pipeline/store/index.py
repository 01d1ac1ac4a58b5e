"""The block index in MongoDB: a document per row, and the rows' keys filed in bucket
documents (seed 003 §2.2's layout, with a bucket of the key where the paper has its 16-bit
block value).

    rows:          {"_id": "petition:7", "table": "petition", "row": 7, "fingerprint": <int64>,
                    "content": "<hash>", "keys": <int64 packed>, "sketch": <bytes>,
                    "fresh": ["fresh"|"batched", "was <int64>", <int64>, ...], "was": [<int64>]}
    blocks__<run>: {"_id": <bucket>, "keys": <int64 little-endian, packed>,
                    "rows": <int64 packed, or [7, "a2", ...] when not all integers>,
                    "prints": <each row's fingerprint, int64 packed>}
    manifest__<run>: {"_id": <n>, "rows": [7, 9, ...], "content": ["<hash>", ...]}
    changes:       {"_id": "petition:7", "table": "petition", "row": 7}
    removed:       {"_id": "petition:7", "table": "petition", "row": 7, "n": <times logged>,
                    "prints": [<int64>, ...]}

A row is one document, so every change of a row is one write, made whole or not at all:
nothing is ever half-filed. A batch files the keys of every row in the bucket documents of
its generation, one per `bucket_bits`-bit bucket of the key (`bucket_bits` sized by the
batch so that a document lists tens of entries: the documents written stay about one per
row and a fraction, however many keys a row has). A row written since (by `watch`, `add`
or the next batch) lists its keys in `fresh`, which a sparse index finds, and a mark, by
which the next batch finds the fresh rows: the append-only part that it folds into its
buckets. The mark says who filed it (FRESH, BATCHED): a re-run reads only what others
filed. A lookup reads the fresh rows under its
keys and the buckets of its keys, then one row the buckets name for each fingerprint they
file beside it (copies share one: a collective petition's n rows cost one read). An entry
is stale when its row changed or went since the batch. A row read alone shows it (another
fingerprint, or no document); for the copies read as one, a changed row lists under `was`
the fingerprint the buckets file it with (and in `fresh` as "was <fingerprint>", which the
same index finds), and a removed one is logged in `removed` with it, so the lookup finds
both by the fingerprints of its copies and skips their entries. A fingerprint, not the
row's keys: SecantusDB writes an index entry in tens of microseconds, and a row has tens of
keys; and one index, for each index slows every insert of a batch, even a sparse index that
a batch's rows are not in.

The manifest lists what the batch filed, for the next one to write only what changed; it is
written as the batch reads, before the rows it lists are filed, so that a batch killed
before going live leaves a list of what it may have filed. Every other write leaves a trace
too, until a batch has read it: a row filed since stays `fresh`, a row removed is logged in
`removed`. So the next batch sees what the store holds, whoever wrote it (`stored`).
Keys are opaque 63-bit integers: the store knows nothing of schemes. pymongo stays in
store/: callers see the operations of protocol.Store, `Record`s and `StoreError`, whichever
store `open_store` made: a MongoDB server's, the embedded one's, or one in this process's
memory (`memory_store`: a database of an in-memory SecantusDB server). Every kind is this
one class: the store's lifecycle is written once, over MongoDB's collection operations.

The buckets belong to a generation (results.py, whose functions MongoStore's operations
call, with the batch's lease, lock.py): a store reads the live one. While a batch builds,
every write also logs its row in `changes`, for the batch to check again after its switch;
each write ends with a guard that matches only if the pointer still says what the store
read, else the write is made again, logged.
"""

from __future__ import annotations

import errno
import functools
import itertools
import os
import threading
import time
from contextlib import ExitStack, contextmanager
from itertools import islice
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
import pymongo
from pymongo import DeleteOne, ReplaceOne, UpdateOne, WriteConcern
from pymongo.errors import BulkWriteError, ConnectionFailure, PyMongoError

from . import mongo

from . import results
from ..config import ENV_MONGO_URI, Config, mask_url
from . import shared
from .embedded import EmbeddedMongo, EmbeddedMongoError
from ..errors import StoreError
from .lock import Lease
from .protocol import BlockStore as BlockStore  # the interface its users import from here
from .protocol import CHANGED, Held, Record, Store, refused

ROWS, BLOCKS, MANIFEST, SYNC, REMOVED, FORMAT = "rows", "blocks", "manifest", "sync", "removed", "format"
VERSION = 4  # of the documents' format (FORMAT), brought up to date by ensure_indexes
# In every fresh row's `fresh`, beside its keys: the rows filed since the buckets are found
# by one value, one index entry a row ({"fresh": {"$exists": true}} walks every entry, one
# a key, in SecantusDB). FRESH: filed by `watch`, `add` or a replay, which every batch
# reads. BATCHED: filed by a batch, or by another writer as the live run's state holds it
# (`adopt`): a re-run, which starts from that state, need not read it; a full batch does.
FRESH, BATCHED = "fresh", "batched"
IN_IDS = 100  # values per $in: a SecantusDB find costs 0.5 ms, and 40 µs a document (embedded._patch_in)
# Keys a fresh lookup asks in one find: the rows under them come back once each, where a
# find per hundred keys returned a row under many of them again and again (5.5 times on
# formulaic hotline texts, whose keys hold hundreds of rows each)
FRESH_KEYS = 20_000
WRITE_CHUNK = 5_000  # row documents per bulk_write
BUCKET_ENTRIES = 96  # entries a bucket document holds at least, on average, as the batch sizes them
BUCKETS_A_REQUEST = 1_000  # bucket documents a request sends: the server holds a request decoded whole
MANIFEST_ROWS = 5_000  # rows a manifest document lists
BUCKET_PART_ENTRIES = 1_000_000  # keys sorted into buckets at once (about 60 MB), beside the all-pairs
TIMEOUT_MS = 2000  # an unreachable MongoDB fails this fast
# The heartbeat's socket timeout is connectTimeoutMS: a server busy with a big write for
# longer (the embedded one shares this machine's two cores) must not be declared down,
# which would cancel the write in flight.
HEARTBEAT_MS = 30_000
FOLLOW_S = 1.0  # a store re-reads which generation is live at most this often
DUPLICATE_KEY = 11000
INTERNAL_ERROR = 1  # what SecantusDB answers for WiredTiger's failures ("internal server error")
UNKNOWN = 0  # the fingerprint logged for a row removed whose fingerprints are not known
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


# BSON has no unsigned 64-bit integer: fingerprints are stored as signed int64 (two's
# complement), converted here and nowhere else.
def to_int64(fingerprint: int) -> int:
    return fingerprint - (1 << 64) if fingerprint >= 1 << 63 else fingerprint


def from_int64(value: int) -> int:
    return value & (1 << 64) - 1


def row_key(table: str, row: Any) -> str:
    return f"{table}:{row}"


def buckets(keys: np.ndarray, bits: int) -> np.ndarray:
    """The bucket of each key: the top `bits` bits of a mix of it (keys from any scheme,
    spread evenly)."""
    h = np.asarray(keys, dtype=np.uint64)
    h = (h ^ (h >> np.uint64(30))) * _MIX[0]
    h = (h ^ (h >> np.uint64(27))) * _MIX[1]
    h ^= h >> np.uint64(31)
    return (h >> np.uint64(64 - bits)).astype(np.int64) if bits else np.zeros(len(h), np.int64)


def _filed(keys: np.ndarray, bits: int, part_entries: int = BUCKET_PART_ENTRIES
           ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(bucket, position, key) of the entries of each range of buckets (a part), in bucket
    order, an entry's position its place in `keys` (in order within a bucket): the memory
    of about `part_entries` keys at once, not of a million rows' tens of millions."""
    top = min(bits, int(np.ceil(np.log2(max(1.0, len(keys) / part_entries)))))
    # A part is the top bits of a bucket: the buckets of `top` bits. The keys are gathered,
    # never sliced: a memory-mapped array lets go of the pages a gather touched.
    part = np.empty(len(keys), np.min_scalar_type(max(0, (1 << top) - 1)))
    for lo in range(0, len(keys), part_entries):
        part[lo:lo + part_entries] = buckets(keys[np.arange(lo, min(lo + part_entries, len(keys)))], top)
    for p in range(1 << top):
        at = np.flatnonzero(part == p)
        mine = np.asarray(keys[at], np.uint64)
        bucket = buckets(mine, bits)
        order = np.argsort(bucket, kind="stable")
        yield bucket[order], at[order], mine[order]


def id_array(ids: Sequence) -> np.ndarray:
    """Row ids as an array: int64 when they are integers (as MongoDB stores them), else the objects."""
    return np.array(ids, np.int64) if all(type(i) is int for i in ids) else np.array(ids, dtype=object)


def _packed(ids: np.ndarray) -> bytes | list:
    """A bucket's row ids, packed when they are 64-bit integers (SecantusDB decodes and
    encodes a list value by value), else listed."""
    return ids.tobytes() if ids.dtype == np.int64 else ids.tolist()


def _unpacked(rows: bytes | list, at: np.ndarray) -> list:
    """The row ids at these places of a bucket's `rows` (_packed, or listed before)."""
    if isinstance(rows, bytes):
        return np.frombuffer(rows, np.int64)[at].tolist()
    return [rows[n] for n in at.tolist()]


def _runs(ranked: np.ndarray) -> Iterator[tuple[int, int, int]]:
    """(value, start, end) of each run of one value in `ranked`."""
    bounds = [0, *(np.flatnonzero(np.diff(ranked)) + 1).tolist(), len(ranked)]
    return ((int(ranked[s]), s, e) for s, e in zip(bounds, bounds[1:]) if e > s)


def bucket_bits(entries: int) -> int:
    """Bits of bucket for a table of this many (row, key) entries: BUCKET_ENTRIES to twice
    that a document (the fewer documents, the fewer a batch writes; a lookup reads one a key
    either way)."""
    return max(1, int(np.log2(max(entries, 1) / BUCKET_ENTRIES))) if entries else 0


def ensure_indexes(db: Any) -> None:
    """Create the indexes the store needs (of the rows filed, and removed, since the
    buckets were built, by key), and bring documents of an older version to this one;
    idempotent, so it runs on every start and from `migrate`."""
    found = db[FORMAT].find_one({"_id": FORMAT}) or {}
    if found.get("version", 0) > VERSION:
        raise StoreError(f"the store in database {db.name} holds documents of format {found['version']}, "
                         f"written by a newer dedup-pipeline; this one reads formats up to {VERSION}: "
                         f"upgrade dedup-pipeline on every machine that uses the store")
    db[ROWS].create_index("fresh", sparse=True)
    db[REMOVED].create_index("prints")
    if found.get("version", 0) < VERSION:
        _upgrade(db)


def _upgrade(db: Any) -> None:
    """Once: a row logged removed by a version that logged its keys gets UNKNOWN (skipped by
    every lookup); a fresh row filed by a version before FRESH gets it. A store of version 2
    is one of version 3 with no row BATCHED. Version 4 keys the batches by table: each run
    gets the table its batch's settings name, and the one live pointer of a store before
    becomes that table's (results.pointer_id)."""
    db[REMOVED].update_many({"prints": {"$exists": False}}, {"$set": {"prints": [UNKNOWN]}})
    db[ROWS].update_many({"fresh": {"$exists": True}}, {"$addToSet": {"fresh": FRESH}})
    for run in db[results.RUNS].find({**results.RUN, "table": {"$exists": False}}, {"settings": 1}):
        db[results.RUNS].update_one({"_id": run["_id"]}, {"$set": {"table": _table_of(run)}})
    before = db[results.RUNS].find_one({"_id": results.LIVE})
    if before is not None and _table_of(before):
        moved = {**before, "_id": results.pointer_id(_table_of(before))}
        there = db[results.RUNS].find_one({"_id": moved["_id"]}) or {}
        if not (there.get("run") or there.get("building")):  # none yet, or made empty by a store opening
            db[results.RUNS].replace_one({"_id": moved["_id"]}, moved, upsert=True)
        db[results.RUNS].delete_one({"_id": results.LIVE})
    db[FORMAT].update_one({"_id": FORMAT}, {"$set": {"version": VERSION}}, upsert=True)


def _table_of(run: dict) -> str:
    """The table a run's (or a live pointer's) batch read, as its settings say ("": unknown)."""
    return str(((run.get("settings") or {}).get("source") or {}).get("table") or "")


@contextmanager
def open_store(config: Config) -> Iterator[Store]:
    """The configured store (`[store] kind`, one of STORES): MongoDB, or this process's memory."""
    with STORES[config.store.kind](config) as store:
        yield store


@contextmanager
def _mongodb(config: Config) -> Iterator[MongoStore]:
    """The configured MongoDB (`[store] mongo_uri`, or DEDUP_MONGO_URI), else the embedded
    SecantusDB serving `<data_dir>/mongo` (kept across runs), shared with every other process
    using that folder (shared.py); indexes ensured."""
    with ExitStack() as stack:
        if not config.store.mongo_uri:
            stack.enter_context(_full_disk_said(Path(config.store.data_dir) / "mongo"))
        embedded = None if config.store.mongo_uri else stack.enter_context(_embedded(config))
        store = _opened(stack, config, embedded)
        if embedded is not None:
            store.reclaim, store.revive = embedded.compact, functools.partial(_revive, embedded)
        yield store


def _opened(stack: ExitStack, config: Config, embedded: shared.ServerHandle | None, again: bool = True) -> MongoStore:
    """The store connected, its indexes ensured, its client closed with `stack`. An embedded
    server that ends as it is opened (WiredTiger panicking at the first read after a write
    its full disk refused) is started again, once: the command goes on as the next would."""
    with ExitStack() as attempt:
        try:
            store = attempt.enter_context(connect_store(config.store.mongo_uri or embedded.uri,
                                                        config.store.database, config.source.table))
            store.ensure_indexes()
        except StoreError as e:
            if not (again and embedded and isinstance(e.__context__, ConnectionFailure) and embedded.revive()):
                raise
        else:
            stack.enter_context(attempt.pop_all())
            return store
    return _opened(stack, config, embedded, again=False)


@contextmanager
def memory_store() -> Iterator[MongoStore]:
    """A store of its own in this process's memory (`[store] kind = "memory"`: tests, a
    library caller): a new database of the in-memory server this process runs, dropped when
    closed. The same MongoStore as every other kind, so nothing of the store is written twice."""
    name = f"memory_{os.getpid()}_{next(_DATABASES)}"
    with connect(_memory_server().uri) as client:
        try:
            ensure_indexes(client[name])
            yield MongoStore(client[name], where="memory")
        finally:
            client.drop_database(name)


_DATABASES = itertools.count(1)
_MEMORY: dict[int, EmbeddedMongo] = {}  # this process's in-memory server, by pid: a fork runs its own
_MEMORY_LOCK = threading.Lock()


def _memory_server() -> EmbeddedMongo:
    """The SecantusDB server in this process's memory (WiredTiger in_memory: no files),
    started at first use, in a thread of this process, until it ends."""
    with _MEMORY_LOCK:
        if os.getpid() not in _MEMORY:
            try:
                _MEMORY[os.getpid()] = EmbeddedMongo().start(":memory:")
            except (EmbeddedMongoError, OSError) as e:
                raise StoreError(f"cannot start the in-memory store: {e}") from None
        return _MEMORY[os.getpid()]


STORES: dict[str, Callable[[Config], ContextManager[Store]]] = {
    "mongodb": _mongodb, "memory": lambda config: memory_store()}


@contextmanager
def connect_store(uri: str, database: str, table: str) -> Iterator[MongoStore]:
    """The store of `table` in `database` of the MongoDB at `uri` (a Spark executor's, the
    driver's store reached again)."""
    with connect(uri) as client:
        where = mask_url(uri)
        with _errors(where):
            store = MongoStore(client[database], where=where, uri=uri, table=table)
        yield store


@contextmanager
def connect(uri: str) -> Iterator[pymongo.MongoClient]:
    """A client of the MongoDB at `uri`, checked with a ping: an unreachable server fails
    within TIMEOUT_MS with its address (password masked)."""
    client = None
    try:
        client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=TIMEOUT_MS, connectTimeoutMS=HEARTBEAT_MS)
        client.admin.command("ping")
    except (PyMongoError, ValueError) as e:
        if client is not None:
            client.close()
        raise StoreError(f"cannot reach MongoDB at {mask_url(uri)}: {mongo.reason(e)}; check that it is "
                         f"running and reachable, and [store] mongo_uri (or {ENV_MONGO_URI})") from None
    try:
        yield client
    finally:
        client.close()


@contextmanager
def _embedded(config: Config) -> Iterator[shared.ServerHandle]:
    """This process's handle on the server of `<data_dir>/mongo`, started if none runs: a
    process of its own, whose work (most of a batch's) and the caller's run side by side."""
    try:
        server = shared.attach(Path(config.store.data_dir) / "mongo", idle_s=config.store.idle_s)
    except (EmbeddedMongoError, OSError) as e:
        raise StoreError(f"cannot start the embedded MongoDB: {e}; or set {ENV_MONGO_URI} "
                         f"to use a MongoDB server") from None
    with server:
        yield server


@contextmanager
def _full_disk_said(folder: Path) -> Iterator[None]:
    """The embedded server failing (it answers "internal server error", or has ended) on a
    disk nearly full said as the full disk it is: WiredTiger's own word for it, "No space
    left on device", goes to the server's log, not to its clients. The server is stopped:
    WiredTiger refusing a write for a full disk may have panicked without a word, to end only
    at a later command (the next batch's); started afresh, it recovers from its journal. So it
    is stopped too when the command's own files met the full disk first (a batch's sketch
    log): the server, writing beside them, may have met it as well; and when it answered that
    its files are not sound (`_unsound`) on a disk no longer low (the command's files gone)."""
    try:
        yield
    except OSError as e:  # the command's own files on that disk: the server may have met it too
        if e.errno == errno.ENOSPC:
            shared.stop(folder)
        raise
    except StoreError as e:
        free = shared.low_disk(folder)  # (what the command wrote may be gone by now)
        if free is None or not isinstance(e.__context__, (PyMongoError, EmbeddedMongoError, OSError)):
            if _unsound(e.__context__):
                shared.stop(folder)
            raise
        shared.stop(folder)
        raise StoreError(f"the disk of the embedded store's data folder {folder} is full ({free / 1e6:,.1f} MB "
                         f"free), and the store's server failed for it (its log: {folder / shared.LOG}); free "
                         f"space there, or set [store] data_dir on a larger disk, then run the command "
                         f"again") from None


def _unsound(error: BaseException | None) -> bool:
    """Whether the embedded server answered in a way that says its files are not sound: an
    "internal server error" (WiredTiger after a panic), or a full disk."""
    return isinstance(error, PyMongoError) and (getattr(error, "code", None) == INTERNAL_ERROR or mongo.disk_full(error))


def _revive(server: shared.ServerHandle) -> bool:
    """The embedded server started again if it had ended (True), or a StoreError saying why not."""
    if not server.revive():
        raise StoreError(f"the embedded MongoDB serving {server.folder} ended, and cannot start again on "
                         f"its port {server.port} (another program holds it); restart this command")
    return True


def _errors(where: str) -> Any:
    return mongo.errors(where, f"a row is written whole or not at all: {mongo.AGAIN}")


class MongoStore:
    """The block index of `table` in one MongoDB database, following the table's live
    generation, with its batch's generations (results.py) and the lease (lock.py). Tables
    share the database: their rows are keyed by table, their generations by run, and each
    table has a live pointer of its own ("": the store unscoped, results.pointer_id)."""

    def __init__(self, db: Any, where: str = "", uri: str = "", table: str = ""):
        self.db = db
        self.rows = db[ROWS]
        self.where = where or f"database {db.name}"
        self.table = table
        self._uri = uri
        self.scheme = ""  # the scheme settings this store's user files and looks up with
        # Gives the space of dropped generations back (the embedded server's compaction);
        # a MongoDB server gives it back itself when a collection is dropped.
        self.reclaim: Callable[[], Any] = lambda: None
        # Brings the server back if it ended (the embedded one, started again on its port, or
        # a StoreError): whether it did. A MongoDB server of its own is its operator's to restart.
        self.revive: Callable[[], bool] = lambda: False
        with _errors(self.where):
            self._use(results.pointer(db, table))

    @property
    def uri(self) -> str:
        """Where other processes reach this store's server (a Spark executor)."""
        if self._uri:
            return self._uri
        host, port = self.db.client.address
        return f"mongodb://{host}:{port}/"

    def require(self, scheme: str) -> None:
        """Refuse (ConfigError) to serve a user whose scheme settings (opaque) differ from
        those the live generation was built with, now and whenever it changes: its keys
        would not be the buckets' keys, and every lookup would miss."""
        self.scheme = scheme
        with _errors(self.where):
            self._follow(now=True)

    # -- following the live generation

    def _use(self, live: dict) -> None:
        error = refused(live, self.scheme, f"MongoDB at {self.where}")
        if error:
            raise error
        self.generation, self.building = live["run"], live.get("building")
        self.base = live.get("base") or self.generation  # the run whose buckets and manifest are live
        self.bucket_bits = live.get("bucket_bits", 0)
        self.blocks = self.db[results.named(BLOCKS, self.base)]
        self._read_at = time.monotonic()

    def _follow(self, now: bool = False) -> None:
        if now or time.monotonic() - self._read_at > FOLLOW_S:
            self._use(results.pointer(self.db, self.table))

    def _guarded(self, table: str, rows: Sequence, ops: list, log: bool = True,
                 again: Callable[[], list] | None = None) -> int:
        """Run a write's ops on the rows, then log the rows while a batch builds (unless the
        batch writes them), ended by a guard that matches only if the pointer still says
        what this store read; if not, the pointer moved meanwhile: read it again and make
        the write again (with the ops `again` gives, where given). Returns how many
        documents its deletes deleted."""
        deleted = 0
        while True:
            if ops:
                deleted += self.rows.bulk_write(ops, ordered=True).deleted_count
            if self.building and log and rows:
                self.db[results.CHANGES].bulk_write([UpdateOne(
                    {"_id": row_key(table, row)}, {"$set": {"table": table, "row": row}}, upsert=True)
                    for row in rows])
            same = {"_id": results.pointer_id(self.table), "run": self.generation, "building": self.building}
            if self.db[results.RUNS].update_one(same, {"$set": {"run": self.generation}}).matched_count:
                return deleted
            self._follow(now=True)
            ops = ops if again is None else again()

    # -- reading

    def lookup(self, table: str, wanted: Mapping[Any, Iterable[int]]) -> dict[Any, Record]:
        """Every other row of `table` filed under a key of one of these rows ({row: its keys};
        a text checked has no row: None), as it is now. The rows the buckets file with one
        fingerprint (copies: one text, one submitter, one day) are read as one document, the
        others given its record with their own row: n copies cost one read, not n."""
        with _errors(self.where):
            self._follow()
            keys = {to_int64(k) for row_keys in wanted.values() for k in row_keys}
            found, spoken = {}, set(wanted)
            for doc in self._fresh(table, wanted):
                spoken.add(doc["row"])
                if keys.intersection(_keys(doc)):
                    found[doc["row"]] = _record(doc)
            filed = self._in_buckets(sorted(keys))
            for row in spoken:
                filed.pop(row, None)
            found.update(self._as_filed(table, filed, keys))
        return found

    def _as_filed(self, table: str, filed: Mapping[Any, int | None], keys: set[int]) -> dict[Any, Record]:
        """The records of rows as the buckets file them ({row: its fingerprint there}, None
        when unknown), rows not fresh under these keys: one document read for each
        fingerprint, its copies changed or removed since left out; a class whose document
        read differs (changed meanwhile) read row by row."""
        classes: dict[int | None, list] = {}
        for row, fingerprint in filed.items():
            classes.setdefault(fingerprint, []).append(row)
        one_by_one = classes.pop(None, [])
        stale = self._stale_among(table, [fingerprint for fingerprint, rows in classes.items() if len(rows) > 1])
        classes = {fingerprint: [r for r in rows if r not in stale] for fingerprint, rows in classes.items()}
        first = {min(rows, key=str): fingerprint for fingerprint, rows in classes.items() if rows}
        read = self.records(table, sorted(first, key=str))
        out: dict[Any, Record] = {}
        for row, fingerprint in first.items():
            record, members = read.get(row), classes[fingerprint]
            if record is not None and to_int64(record.fingerprint) == fingerprint:
                out.update((other, record._replace(row=other)) for other in members)
            elif len(members) > 1:
                one_by_one += members
            elif record is not None:  # a row alone, changed since: as it is now
                out[row] = record
        out.update(self.records(table, sorted(one_by_one, key=str)))
        return {row: record for row, record in out.items()
                if keys.intersection(to_int64(k) for k in record.keys)}

    def _fresh(self, table: str, wanted: Mapping[Any, Iterable[int]]) -> Iterator[dict]:
        """The fresh rows under these rows' keys (filed under them since the buckets), asked
        for many rows at a time and not those rows themselves (a batch files its rows
        before it looks). Whole documents, as `records` reads them: SecantusDB deep-copies
        every document a projection leaves fields out of (a quarter of a worker's server time)."""
        keys: list[int] = []
        rows: list[str] = []
        for n, (row, row_keys) in enumerate(wanted.items()):
            keys += [to_int64(k) for k in row_keys]
            rows.append(row_key(table, row))
            if len(keys) >= FRESH_KEYS or n == len(wanted) - 1:
                yield from (doc for doc in self.rows.find({"fresh": {"$in": keys}, "_id": {"$nin": rows}})
                            if doc["table"] == table)
                keys, rows = [], []

    def _stale_among(self, table: str, prints: list[int]) -> set:
        """The rows of `table` changed or removed since the buckets filed them with one of
        these fingerprints (`was`, `removed`)."""
        if not prints:
            return set()
        stale = set()
        for start in range(0, len(prints), IN_IDS):
            part = prints[start:start + IN_IDS]
            stale |= {d["row"] for d in self.rows.find({"fresh": {"$in": [_was(p) for p in part]}},
                                                       {"table": 1, "row": 1}) if d["table"] == table}
            stale |= {d["row"] for d in self.db[REMOVED].find({"prints": {"$in": [*part, UNKNOWN]}},
                                                              {"table": 1, "row": 1}) if d["table"] == table}
        return stale

    def _in_buckets(self, keys: list[int]) -> dict[Any, int | None]:
        """{row: its fingerprint, None where the buckets do not say} of the rows the live
        buckets file under these keys (some perhaps since changed)."""
        if not self.bucket_bits:
            return {}
        wanted = np.unique(np.array(keys, np.int64))
        ids = sorted(set(buckets(wanted.view(np.uint64), self.bucket_bits).tolist()))
        rows: dict[Any, int | None] = {}
        for start in range(0, len(ids), IN_IDS):
            for doc in self.blocks.find({"_id": {"$in": ids[start:start + IN_IDS]}}):
                filed = np.frombuffer(doc["keys"], np.int64)
                at = np.minimum(np.searchsorted(wanted, filed), len(wanted) - 1)
                hits = np.flatnonzero(wanted[at] == filed)
                prints = np.frombuffer(doc["prints"], np.int64)[hits].tolist() if "prints" in doc else [None] * len(hits)
                rows.update(zip(_unpacked(doc["rows"], hits), prints))
        return rows

    def records(self, table: str, rows: Sequence) -> dict[Any, Record]:
        """What the store holds about these rows (those it holds)."""
        with _errors(self.where):
            ids = [row_key(table, r) for r in rows]
            return {d["row"]: _record(d) for start in range(0, len(ids), IN_IDS)
                    for d in self.rows.find({"_id": {"$in": ids[start:start + IN_IDS]}})}

    def stored(self, table: str) -> Held:
        """What the store holds of `table`'s rows, for the next batch to write only what
        changed: the live batch's manifest, corrected by every write it does not show
        (`since`). Whoever filed or removed a row, the batch sees what the store holds."""
        with _errors(self.where):
            self._follow(now=True)
            held = dict(self._manifest(self.base))
            since = self.since(table, held)
            held.update(since.rows)
            return Held(held, since.removed)

    def since(self, table: str, manifest: Mapping[Any, str] | None = None, batched: bool = True) -> Held:
        """The rows of `table` whose documents may differ from the live manifest, with the
        content hash the store holds (CHANGED where it may hold anything): rows that a batch
        killed before going live filed (its manifest lists them first, those the same as in
        `manifest` aside), rows removed (the `removed` log, whose entries read are returned
        for `clear_removed`), and rows filed since by `watch`, `add` or a replay (FRESH);
        with `batched`, those a batch filed too (BATCHED), which a re-run leaves out: the
        live run's state it starts from holds them as they are stored."""
        with _errors(self.where):
            self._follow(now=True)  # which run is building: the others were killed
            rows: dict[Any, str] = {}
            for run in self.db[results.RUNS].find({"state": "building", "_id": {"$ne": self.building},
                                                   **results.of_table(self.table)}):
                rows.update((row, CHANGED) for row, content in self._manifest(run["_id"])
                            if manifest is None or manifest.get(row) != content)
            killed = set(rows)
            removed = list(self.db[REMOVED].find({"table": table}))
            rows.update((d["row"], CHANGED) for d in removed)
            fresh = {d["row"]: d["content"] for d in self.rows.find(
                {"fresh": _marked(batched)}, {"table": 1, "row": 1, "content": 1}) if d["table"] == table}
            rows.update(fresh)
            logged = frozenset(d["row"] for d in removed) - killed - fresh.keys()
            return Held(rows, [(d["_id"], d["n"]) for d in removed], logged)

    def _manifest(self, run: str) -> Iterator[tuple[Any, str]]:
        for doc in self.db[results.named(MANIFEST, run)].find().sort("_id", 1):
            yield from zip(doc["rows"], doc["content"])

    def write_manifest(self, run: str, rows: Sequence, contents: Sequence[str], first: int = 0) -> int:
        """What run's batch files: each row and its content hash, MANIFEST_ROWS a document,
        numbered from `first` (a Spark partition writes its rows' part). Returns how many
        documents."""
        with _errors(self.where):
            return results.insert_all(self.db[results.named(MANIFEST, run)], (
                {"_id": first + n // MANIFEST_ROWS, "rows": list(rows[n:n + MANIFEST_ROWS]),
                 "content": list(contents[n:n + MANIFEST_ROWS])} for n in range(0, len(rows), MANIFEST_ROWS)))

    # -- writing

    def file(self, records: Iterable[Record]) -> int:
        """File rows as `watch`, `add` or a replay does, each replacing what the store held
        of it: fresh (FRESH) beside the live buckets, and logged while a batch builds, for
        its replay. Returns how many."""
        return self._file_all(records, FRESH, log=True)

    def filing(self) -> Filing:
        """A batch's writes of the rows it reads (stages.file_chunk): its own, never logged
        for its replay."""
        return Filing(self)

    def _file_all(self, records: Iterable[Record], mark: str | None, log: bool, held: bool = False) -> int:
        """File rows a chunk at a time (`_file`), fresh with `mark` unless None, logged for a
        building batch's replay with `log`. Returns how many."""
        written = 0
        with _errors(self.where):
            for chunk in batched(records, WRITE_CHUNK):
                self._follow()
                by_table: dict[str, list[Record]] = {}
                for record in chunk:
                    by_table.setdefault(record.table, []).append(record)
                for table, group in by_table.items():
                    self._file(table, group, mark, log, held)
                written += len(chunk)
        return written

    def _file(self, table: str, group: list[Record], mark: str | None, log: bool, held: bool = False) -> None:
        """Insert the rows, fresh with `mark` unless None (an update costs twice as much),
        unless `held` (the store most likely holds them); those the store holds, and a
        batch's new row filed meanwhile (in the live index: it stays FRESH), are refused and
        replace what it holds (`_replace`), or are refiled (made where the store holds none)
        where that changed meanwhile."""
        taken = {row_key(table, r.row) for r in group} if held else self._insert([_inserted(r, mark) for r in group])
        replaced = [(r, i) for r in group if (i := row_key(table, r.row)) in taken]
        refresh = mark or FRESH  # a row the store holds is filed fresh: FRESH if the caller said not fresh

        def refiled() -> list:
            return [_refiled(r, refresh) for r, _ in replaced]
        # which row changed is not told: refiled all, which gives the others what they hold
        first = refiled() if replaced and not self._replace(replaced, refresh) else []
        self._guarded(table, [r.row for r in group], first, log=log, again=refiled)

    def _replace(self, held: list[tuple[Record, str]], mark: str) -> bool:
        """Replace the documents of these rows ((record, _id)) by what `_refiled` makes of
        them on the server, made from what is read of them (SecantusDB's pipeline costs three
        times as much); False unless every one was as read."""
        ids = [i for _, i in held]
        read = {d["_id"]: d for start in range(0, len(ids), IN_IDS) for d in self.rows.find(
            {"_id": {"$in": ids[start:start + IN_IDS]}}, {"fingerprint": 1, "fresh": 1, "was": 1})}
        if len(read) < len(held):
            return False
        ops = [ReplaceOne(_as_read(read[i]), _replaced(r, read[i], mark)) for r, i in held]
        return self.rows.bulk_write(ops, ordered=False).matched_count == len(ops)

    def _insert(self, docs: list[dict]) -> set:
        """Insert row documents; the _ids of those the store holds."""
        try:
            self.rows.insert_many(docs, ordered=False)
        except BulkWriteError as e:
            if any(error["code"] != DUPLICATE_KEY for error in e.details["writeErrors"]):
                raise
            return {docs[error["index"]]["_id"] for error in e.details["writeErrors"]}
        return set()

    def remove(self, table: str, rows: Sequence) -> int:
        """Forget these rows, as `watch` or `add` does; returns how many were filed (`_remove`)."""
        return self._remove(table, rows, trace=True, log=True)

    def _remove(self, table: str, rows: Sequence, trace: bool, log: bool) -> int:
        """Forget these rows; returns how many were filed. Each is logged in `removed` first
        (unless a batch removes rows it read there: `trace`): a manifest may still list it,
        and the next batch must see that the store does not hold it; and, with `log`, for
        the replay of a batch building."""
        if not rows:
            return 0
        with _errors(self.where):
            self._follow()
            if trace:
                filed = self._prints_held(table, rows)
                self.db[REMOVED].bulk_write([UpdateOne({"_id": row_key(table, r)}, {
                    "$set": {"table": table, "row": r}, "$inc": {"n": 1},
                    "$addToSet": {"prints": {"$each": filed.get(r, [])}}}, upsert=True) for r in rows])
            return self._guarded(table, rows, [DeleteOne({"_id": row_key(table, r)}) for r in rows], log=log)

    def _prints_held(self, table: str, rows: Sequence) -> dict[Any, list[int]]:
        """{row: every fingerprint the live buckets may file it with} (its own, and the one
        they filed when it changed since: `was`; UNKNOWN for a row a version before `was`
        made fresh)."""
        ids = [row_key(table, r) for r in rows]
        fields = {"row": 1, "fingerprint": 1, "was": 1, "fresh": 1}
        return {d["row"]: sorted({d["fingerprint"], *d.get("was", [UNKNOWN] if "fresh" in d else [])})
                for start in range(0, len(ids), IN_IDS)
                for d in self.rows.find({"_id": {"$in": ids[start:start + IN_IDS]}}, fields)}

    def clear_removed(self, entries: Sequence[tuple[Any, int]]) -> None:
        """Forget the `removed` entries a batch read (`since`) once its manifest is live; an
        entry logged again since (its count moved on) stays."""
        with _errors(self.where):
            for n in range(0, len(entries), WRITE_CHUNK):
                self.db[REMOVED].bulk_write([DeleteOne({"_id": i, "n": count})
                                             for i, count in entries[n:n + WRITE_CHUNK]], ordered=False)

    def fresh(self, table: str) -> set:
        """The rows of `table` filed since the live buckets were built (`fresh`)."""
        with _errors(self.where):
            return {doc["row"] for doc in self.rows.find({"fresh": _marked()}, {"table": 1, "row": 1})
                    if doc["table"] == table}

    def fold(self, table: str, bucketed: Mapping[Any, str]) -> int:
        """The fresh rows that the live buckets now hold as they are stored ({row: content
        hash} the batch filed): fresh no longer. A row changed since keeps `fresh`."""
        with _errors(self.where):
            ops = [UpdateOne({"_id": doc["_id"], "content": doc["content"]}, {"$unset": {"fresh": "", "was": ""}})
                   for doc in self.rows.find({"fresh": _marked()}, {"table": 1, "row": 1, "content": 1})
                   if doc["table"] == table and bucketed.get(doc["row"]) == doc["content"]]
            return self._each(ops)

    def adopt(self, table: str, held: Mapping[Any, str]) -> int:
        """The FRESH rows that the live run's state holds as they are stored ({row: content
        hash} it read): BATCHED from now on, which the next re-run need not read. A row
        filed again since keeps FRESH."""
        with _errors(self.where):
            return self._each([UpdateOne({"_id": row_key(table, row), "content": content, "fresh": FRESH},
                                         {"$set": {"fresh.$": BATCHED}}) for row, content in held.items()])

    def _each(self, ops: list) -> int:
        """Make these updates, WRITE_CHUNK a request; how many documents they changed."""
        return sum(self.rows.bulk_write(ops[n:n + WRITE_CHUNK], ordered=False).modified_count
                   for n in range(0, len(ops), WRITE_CHUNK))

    def write_buckets(self, run: str, bits: int, keys: np.ndarray, rows: Sequence, prints: np.ndarray,
                      span: tuple[int, int] | None = None) -> int:
        """File each (key, row) in run's bucket documents, inserted whole, in place of those
        there, each with the row's fingerprint (`prints`, beside the keys: an array, or what
        gives them at positions, `take`), by which a lookup reads copies once; keys are
        unsigned 64-bit, rows a list beside them (or an array, or what gives an array of them
        at positions, `take`); `span` (low, high): these are the entries of the
        buckets low to high - 1 only (a Spark partition's), the others kept. Returns the
        documents written."""
        rows = rows if hasattr(rows, "take") else id_array(rows)
        target = self.db[results.named(BLOCKS, run)]

        def documents() -> Iterator[dict]:
            for bucket, at, mine in _filed(keys, bits):
                ids, filed = rows.take(at), np.asarray(prints.take(at), np.uint64)
                for b, s, e in _runs(bucket):
                    yield {"_id": b, "keys": mine[s:e].tobytes(), "rows": _packed(ids[s:e]),
                           "prints": filed[s:e].tobytes()}

        with _errors(self.where):
            if span is None:
                target.drop()
            else:
                target.delete_many({"_id": {"$gte": span[0], "$lt": span[1]}})
            return results.insert_all(target, documents(), BUCKETS_A_REQUEST)

    def sync(self) -> None:
        """Wait until every write made so far is in MongoDB's journal, where a crash of the
        server cannot lose it: a caller that records elsewhere that its writes are done (watch
        marks its outbox entries) calls this first."""
        with _errors(self.where):
            # A journaled write is acknowledged once the journal is on disk up to it, and
            # the journal holds every earlier write before it.
            self.db[SYNC].with_options(write_concern=WriteConcern(w=1, j=True)).update_one(
                {"_id": SYNC}, {"$inc": {"writes": 1}}, upsert=True)

    def ping(self) -> None:
        """Raise StoreError unless MongoDB answers."""
        with _errors(self.where):
            self.db.command("ping")

    def ensure_indexes(self) -> None:
        """Create the store's indexes and bring its documents up to date (ensure_indexes),
        then follow the live pointer as they have it."""
        with _errors(self.where):
            ensure_indexes(self.db)
            self._follow(now=True)

    # -- the batch's generations (results.py) and its lease (lock.py)

    def lease(self, name: str) -> Lease:
        """The lease `name` of the table (`with store.lease("batch"):`): LockHeld while another
        holds it; the batches of other tables sharing the store run beside."""
        return Lease(self.db.locks, name, key=f"{name}:{self.table}" if self.table else name)

    def new_run(self, settings: dict[str, Any], scheme: str = "") -> str:
        """Start building a run's generation (results.new_run): writes are logged from now on."""
        run = results.new_run(self.db, settings, scheme, self.table)
        self._follow(now=True)
        return run

    def shard_generation(self, run: str) -> list[str]:
        return results.shard_generation(self.db, run)

    def write_matches(self, run: str, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray) -> None:
        results.write_matches(self.db, run, ids, i, j, d)

    def write_groups(self, run: str, groups: Iterable[list]) -> None:
        results.write_groups(self.db, run, groups)

    def switch(self, run: str, summary: dict[str, Any], bucket_bits: int = 0, base: str = "") -> None:
        """Make the run's generation live in one write (results.switch), and follow it."""
        results.switch(self.db, run, summary, bucket_bits, base, self.table)
        self._follow(now=True)

    def current_run(self) -> dict[str, Any] | None:
        return results.current_run(self.db, self.table)

    def read_matches(self, run: str) -> list[tuple]:
        return results.read_matches(self.db, run)

    def read_groups(self, run: str) -> list[list]:
        return results.read_groups(self.db, run)

    def changed(self, table: str) -> list:
        """The rows of `table` written while the run building now was (logged for its replay)."""
        with _errors(self.where):
            return [doc["row"] for doc in self.db[results.CHANGES].find({"table": table}, {"row": 1})]

    def clear_changed(self) -> None:
        """Forget the log of the table's rows written while a run was building: its replay is done."""
        with _errors(self.where):
            self.db[results.CHANGES].delete_many(results.of_table(self.table))

    # -- the parts of a run a Spark partition writes

    def live_run(self) -> str:
        """The run whose manifest and buckets are live ("" before the first batch)."""
        with _errors(self.where):
            self._follow(now=True)
            return self.base

    def manifest_parts(self, run: str) -> list[int]:
        """The numbers of run's manifest documents."""
        with _errors(self.where):
            return [doc["_id"] for doc in self.db[results.named(MANIFEST, run)].find({}, {"_id": 1})]

    def manifest_of(self, run: str, parts: Sequence[int]) -> Iterator[tuple[list, list[str]]]:
        """(rows, their content hashes) of each of these manifest documents."""
        with _errors(self.where):
            for doc in self.db[results.named(MANIFEST, run)].find({"_id": {"$in": list(parts)}}):
                yield doc["rows"], doc["content"]

    def clear_manifest(self, run: str, first: int, end: int) -> None:
        """Forget run's manifest documents numbered first to end - 1 (a Spark task run
        again replaces what it wrote)."""
        with _errors(self.where):
            self.db[results.named(MANIFEST, run)].delete_many({"_id": {"$gte": first, "$lt": end}})


class Filing(NamedTuple):
    """A batch's writes of its rows (MongoStore.filing): its own, so never logged for its
    replay; those it files are marked BATCHED where fresh, which its re-run need not read."""

    store: MongoStore

    def new(self, records: Iterable[Record]) -> int:
        """File rows the store holds none of: the buckets about to go live hold their keys,
        so they are not fresh (unless another writer filed them meanwhile)."""
        return self.store._file_all(records, None, log=False)

    def changed(self, records: Iterable[Record]) -> int:
        """File rows the live buckets do not hold as they are: fresh (BATCHED) beside them."""
        return self.store._file_all(records, BATCHED, log=False)

    def replaced(self, records: Iterable[Record]) -> int:
        """File rows as `changed`, rows the store most likely holds (a night's, read by the
        batch before): replaced without an insert tried first."""
        return self.store._file_all(records, BATCHED, log=False, held=True)

    def removed(self, table: str, rows: Sequence) -> int:
        """Forget rows gone from the table, logged in `removed` (the live buckets still file
        them); returns how many were filed."""
        return self.store._remove(table, rows, trace=True, log=False)

    def gone(self, table: str, gone: Sequence, held: Mapping[Any, str]) -> int:
        """Remove the rows found gone from the table, `held` as `stored` gave them: those
        read in a log (CHANGED) need no new entry, and keep theirs until `clear_removed`.
        Returns how many were filed."""
        logged = [row for row in gone if held.get(row) == CHANGED]
        listed = [row for row in gone if held.get(row) != CHANGED]
        return self.removed(table, listed) + self.store._remove(table, logged, trace=False, log=False)


def _document(record: Record) -> dict:
    """A row's document, but for `fresh` and `was`. Its keys are packed (int64): SecantusDB
    decodes and encodes an array value by value, and a row of packed keys costs it a third
    less to insert (a batch inserts a document a row)."""
    doc = {"_id": row_key(record.table, record.row), "table": record.table, "row": record.row,
           "fingerprint": to_int64(record.fingerprint), "content": record.content,
           "keys": np.array(record.keys, np.uint64).view(np.int64).tobytes()}
    if record.sketch is not None:
        doc["sketch"] = record.sketch
    return doc


def _signed(record: Record) -> list[int]:
    """A row's keys as `fresh` lists them (int64, one index entry each)."""
    return [to_int64(k) for k in record.keys]


def _keys(doc: dict) -> list[int]:
    """A row document's keys (int64): packed, or listed as versions before packing did."""
    keys = doc["keys"]
    return np.frombuffer(keys, np.int64).tolist() if isinstance(keys, bytes) else keys


def _inserted(record: Record, mark: str | None) -> dict:
    """A row's document as `_refiled` makes it where the store holds none, fresh with `mark`
    (FRESH or BATCHED) unless None. The mark comes first in `fresh`, the marks of `was`
    next: SecantusDB checks each document an index finds against the query again, value by
    value (`since` reads every fresh row)."""
    doc = _document(record)
    return {**doc, "fresh": [mark, *dict.fromkeys(_signed(record))], "was": []} if mark else doc


def _refiled(record: Record, mark: str) -> UpdateOne:
    """A row filed fresh in place of what the store held: its keys under `fresh`, and under
    `was` the fingerprint the live buckets file it with (that of the document it replaces,
    when the buckets hold that one), so that a lookup reading its copies as one learns that
    it changed. A document a version before `was` made fresh keeps that version's `fresh`:
    every key the buckets may file it under."""
    doc = _document(record)
    keys = {"$literal": _signed(record)}
    older = {"$and": [{"$ne": [{"$type": "$fresh"}, "missing"]}, {"$eq": [{"$type": "$was"}, "missing"]}]}
    filed = {"$cond": [{"$eq": [{"$type": "$fingerprint"}, "missing"]}, [], ["$fingerprint"]]}
    was = {"$ifNull": ["$was", filed]}
    marks = {"$map": {"input": was, "in": {"$concat": [_was(""), {"$toString": "$$this"}]}}}
    return UpdateOne({"_id": doc["_id"]}, [{"$replaceWith": {
        **{field: {"$literal": value} for field, value in doc.items()},
        "fresh": {"$cond": [older, {"$setUnion": [[mark], keys, "$fresh"]}, {"$setUnion": [[mark], marks, keys]}]},
        "was": {"$cond": [older, "$$REMOVE", was]}}}], upsert=True)


def _replaced(record: Record, held: dict, mark: str) -> dict:
    """The document `_refiled` makes of a row, from what was read of the one it replaces
    (`held`: its fingerprint, fresh and was)."""
    doc, keys = _document(record), _signed(record)
    if "fresh" in held and "was" not in held:
        return {**doc, "fresh": [*dict.fromkeys([mark, *keys, *held["fresh"]])]}
    was = held["was"] if held.get("was") is not None else [held["fingerprint"]] if "fingerprint" in held else []
    return {**doc, "fresh": [*dict.fromkeys([mark, *map(_was, was), *keys])], "was": was}


def _as_read(held: dict) -> dict:
    """A filter matching a row's document only while what `_replaced` read of it holds."""
    return {"_id": held["_id"], **{field: held.get(field, {"$exists": False}) for field in ("fingerprint", "fresh", "was")}}


def _marked(batched: bool = True) -> Any:
    """A filter of `fresh` for the rows filed since the buckets: FRESH, and with `batched`
    BATCHED too."""
    return {"$in": [FRESH, BATCHED]} if batched else FRESH


def _was(fingerprint: int | str) -> str:
    """How `fresh` lists the fingerprint the buckets file a changed row with (int64)."""
    return f"was {fingerprint}"


def _record(doc: dict) -> Record:
    return Record(doc["table"], doc["row"], from_int64(doc["fingerprint"]), doc["content"],
                  tuple(from_int64(k) for k in _keys(doc)), None if doc.get("sketch") is None else bytes(doc["sketch"]))


def batched(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive lists of `size` items (the last shorter)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
