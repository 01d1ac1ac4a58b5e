"""The block index in MongoDB (seed 003 §2.2): one document per block value listing the
fingerprints filed under it, and one document per row that journals every change before
any block is touched, so that a row left half-filed is completed by the next run.

pymongo stays in this module: callers see rows, fingerprints and `StoreError`.

    blocks:       {"_id": "2:41233", "block": 2, "key": 41233, "pages": 1,
                   "info": [{"hashcode": <int64>, "row": 7, "table": "petition"}, ...]}
                  {"_id": "2:41233:1", "block": 2, "key": 41233, "page": 1, "info": [...]}
    fingerprints: {"_id": "petition:7", "table": "petition", "row": 7, "fingerprint": <int64>,
                   "content": "<hash>", "blocks": ["0:512", ...], "state": "filed",
                   "op": "<this change>", "first_op": "<the change that created it>"}
    sync:         {"_id": "sync", "writes": <n>}  (written journaled by `sync`)

A block document holds at most `bucket_size` entries; more go to overflow pages
`<block>:<n>`, which its `pages` counts. `blocks` lists every document that may hold the
row's entries; `state` is "filing" or "removing" while a change is under way, and `op`
names the change, so a writer that finds another's op on the row knows it lost a race.
A lookup is one `find` by _id (plus one for overflow pages). Adding a new row is one
request where the server has the bulkWrite command (MongoDB 8.0, SecantusDB: journal,
entries and settling, in order), else three bulk_writes; a changed row takes three.

Both collections belong to a generation (results.py): a store follows the live one, and
each write ends with a guard that matches only if that generation is still live and no
batch started building meanwhile; if not, the write is made again where it now belongs.
While a batch builds, each write also logs its row in `changes`, for the batch to replay.
"""

from __future__ import annotations

import os
import re
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import pymongo
from pymongo import DeleteOne, UpdateOne, WriteConcern
from pymongo.errors import BulkWriteError, ClientBulkWriteException, DuplicateKeyError, PyMongoError

from . import results
from .blocks import BlockScheme
from .config import ENV_MONGO_URI, Config, mask_url
from .embedded import EmbeddedMongo, EmbeddedMongoError

BLOCKS, ROWS, SYNC = "blocks", "fingerprints", "sync"
FILING, FILED, REMOVING = "filing", "filed", "removing"
BUCKET_SIZE = 1000  # entries per block document (~60 kB); the rest go to overflow pages
IN_IDS = 50  # ids per $in: SecantusDB's $in slows with the square of the list
LOAD_CHUNK = 20_000  # rows per bulk load step; its new blocks are inserted whole (SecantusDB
# inserts four times faster than it updates)
TIMEOUT_MS = 2000  # an unreachable MongoDB fails this fast
# The heartbeat's socket timeout is connectTimeoutMS: a server busy with a big write for
# longer (the embedded one shares this process) must not be declared down, which would
# cancel the write in flight.
HEARTBEAT_MS = 30_000
DUPLICATE_KEY = 11000
FOLLOW_S = 1.0  # a store re-reads which generation is live at most this often (writes are
# checked against it anyway, in the same request)


class StoreError(RuntimeError):
    """MongoDB cannot be reached or refused a write; the message names the server."""


# BSON has no unsigned 64-bit integer: fingerprints are stored as signed int64 (two's
# complement), converted here and nowhere else.
def to_int64(fingerprint: int) -> int:
    return fingerprint - (1 << 64) if fingerprint >= 1 << 63 else fingerprint


def from_int64(value: int) -> int:
    return value & (1 << 64) - 1


class Entry(NamedTuple):
    """A fingerprint filed under a block, and the row it belongs to."""

    table: str
    row: Any
    fingerprint: int
    block: str = ""  # the block it was found in: "<table index>:<key>"


class Record(NamedTuple):
    """What the store holds about one row."""

    table: str
    row: Any
    fingerprint: int | None
    content: str
    state: str
    blocks: list[str]
    sketch: bytes | None = None


class Loaded(NamedTuple):
    """What `load` did: how many rows it wrote, and the blocks it created that hold only
    entries it wrote. A later writer to one of those blocks sees these rows when it looks
    up after filing, so the pairs they make need no lookup of those blocks now."""

    written: int
    created: frozenset[str]


def block_id(table_index: int, key: int) -> str:
    return f"{table_index}:{key}"


def page_id(block: str, page: int) -> str:
    """Page 0 is the block document itself."""
    return f"{block}:{page}" if page else block


def row_key(table: str, row: Any) -> str:
    return f"{table}:{row}"


def ensure_indexes(db: Any) -> None:
    """Create the indexes the store needs (repair finds unfinished rows by state);
    idempotent, so it runs on every start and from `migrate`."""
    db[ROWS].create_index("state")


@contextmanager
def open_store(config: Config) -> Iterator[MongoStore]:
    """The configured MongoDB (`[store] mongo_uri`, or DEDUP_MONGO_URI), else an embedded
    SecantusDB serving `<data_dir>/mongo`, kept across runs; indexes ensured."""
    with ExitStack() as stack:
        uri = config.store.mongo_uri or stack.enter_context(_embedded(config)).uri
        client = stack.enter_context(connect(uri))
        where = mask_url(uri)
        with _errors(where):
            db = client[config.store.database]
            ensure_indexes(db)
            store = MongoStore(db, config.block_scheme(), where=where)
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
        raise StoreError(f"cannot reach MongoDB at {mask_url(uri)}: {_reason(e)}; check that it is "
                         f"running and reachable, and [store] mongo_uri (or {ENV_MONGO_URI})") from None
    try:
        yield client
    finally:
        client.close()


@contextmanager
def _embedded(config: Config) -> Iterator[EmbeddedMongo]:
    folder = Path(config.store.data_dir) / "mongo"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        mongo = EmbeddedMongo().start(folder)
    except (EmbeddedMongoError, OSError) as e:
        raise StoreError(f"cannot start the embedded MongoDB: {e}; or set {ENV_MONGO_URI} "
                         f"to use a MongoDB server") from None
    with mongo:
        yield mongo


@contextmanager
def _errors(where: str) -> Iterator[None]:
    try:
        yield
    except PyMongoError as e:
        raise StoreError(f"MongoDB at {where}: {_reason(e)}; a row left half-filed is "
                         f"completed when it is added again or on the next `add` run") from None


def _reason(error: Exception) -> str:
    text = str(error).split(", Timeout:")[0]  # drop pymongo's topology dump
    return mask_url(re.sub(r" \(configured timeouts:[^)]*\)", "", text))


class MongoStore:
    """The block index in one MongoDB database: rows filed under the keys given, else under
    the keys of their fingerprint in the block `scheme`."""

    def __init__(self, db: Any, scheme: BlockScheme, *, generation: str | None = None,
                 bucket_size: int = BUCKET_SIZE, one_request: bool | None = None, where: str = ""):
        """`generation` None follows the live generation; a run id writes that one only."""
        self.db, self.scheme, self.bucket_size = db, scheme, bucket_size
        self.follows = generation is None
        self.where = where or f"database {db.name}"
        with _errors(self.where):
            self.one_request = _has_bulk_write_command(db.client) if one_request is None else one_request
            self._use(results.pointer(db) if self.follows else {"run": generation, "building": None})

    def aside(self, run: str) -> MongoStore:
        """A store of the generation a batch run builds aside, indexed like the live one."""
        store = MongoStore(self.db, self.scheme, generation=run, bucket_size=self.bucket_size,
                           one_request=self.one_request, where=self.where)
        with _errors(self.where):
            store.rows.create_index("state")
        return store

    # -- following the live generation

    def _use(self, live: dict) -> None:
        self.generation, self.building = live["run"], live.get("building")
        self.blocks = self.db[results.named(BLOCKS, self.generation)]
        self.rows = self.db[results.named(ROWS, self.generation)]
        self._read_at = time.monotonic()

    def _follow(self, now: bool = False) -> None:
        if self.follows and (now or time.monotonic() - self._read_at > FOLLOW_S):
            self._use(results.pointer(self.db))

    def _guard(self, table: str, rows: list) -> list[_Op]:
        """Ops that end a write: log its rows while a batch builds, then match the pointer
        only if it still says what this store read (see `_moved`)."""
        if not self.follows:
            return []
        log = [_Op(results.CHANGES, {"_id": row_key(table, row)}, {"$set": {"table": table, "row": row}},
                   upsert=True) for row in rows] if self.building else []
        same = {"_id": results.LIVE, "run": self.generation, "building": self.building}
        return log + [_Op(results.RUNS, same, {"$set": {"run": self.generation}})]

    def _moved(self, done: list[_Result]) -> bool:
        """Whether the guard that ended a write missed: the write must be made again."""
        if not self.follows or done[-1].matched == 1:
            return False
        self._follow(now=True)
        return True

    # -- reading

    def lookup(self, keys: Iterable[tuple[int, int]]) -> Iterator[list[Entry]]:
        """Entries filed under these keys: those of the block documents first (one round
        trip), then those of their overflow pages (a second, only for overfull blocks)."""
        with _errors(self.where):
            self._follow()
            docs = self._find(self.blocks, [block_id(t, k) for t, k in keys], {"info": 1, "pages": 1})
            yield _entries(docs)
            pages = [page_id(d["_id"], n) for d in docs for n in range(1, d.get("pages", 0) + 1)]
            if pages:
                yield _entries(self._find(self.blocks, pages, {"info": 1}))

    def sketches(self, table: str, rows: list) -> dict[Any, tuple[bytes | None, list[str]]]:
        """The sketch (if any) and the blocks filed with each of these rows: one round trip
        per IN_IDS rows."""
        with _errors(self.where):
            docs = self._find(self.rows, [row_key(table, r) for r in rows], {"row": 1, "sketch": 1, "keys": 1})
        return {d["row"]: (d.get("sketch"), d.get("keys", [])) for d in docs}

    def get(self, table: str, row: Any) -> Record | None:
        return self.records(table, [row]).get(row)

    def records(self, table: str, rows: list) -> dict[Any, Record]:
        """What the store holds about these rows (those it holds): one round trip per
        IN_IDS rows."""
        with _errors(self.where):
            self._follow()
            docs = self._find(self.rows, [row_key(table, r) for r in rows], {"keys": 0})
        return {d["row"]: _record(d) for d in docs}

    # -- writing

    def file(self, table: str, row: Any, fingerprint: int, content: str = "",
             keys: list[tuple[int, int]] | None = None, sketch: bytes | None = None) -> None:
        """File a row under the keys of its fingerprint; a row filed before leaves every
        block of its old fingerprint. Filing the same row again changes nothing. A new
        row is one request: journal, entries and settling in one bulkWrite. `keys` (else the
        scheme's keys of the fingerprint) and `sketch` come from a scheme that needs them."""
        ids = self._block_ids(fingerprint) if keys is None else [block_id(t, k) for t, k in keys]
        self._file(table, row, fingerprint, content, ids, sketch)

    def _file(self, table: str, row: Any, fingerprint: int, content: str, ids: list[str],
              sketch: bytes | None) -> None:
        with _errors(self.where):
            self._follow()
            key, op = row_key(table, row), _nonce()
            entry = _entry(table, row, fingerprint)
            ops = [self._journal(key, self._row_doc(table, row, fingerprint, content, op, ids, sketch))]
            ops += [self._entry_op(block, [(key, entry)]) for block in ids]
            ops.append(_Op(ROWS, {"_id": key, "op": op, "first_op": op}, {"$set": {"state": FILED}}))
            done = self._execute(ops + self._guard(table, [row]))
            if self._moved(done):
                return self._file(table, row, fingerprint, content, ids, sketch)
            if not done[0].upserted:  # filed before: clear what older fingerprints left
                self._reconcile([key], op)
            elif done[len(ops) - 1].matched != 1:  # another writer took the row meanwhile
                self._take_over([(table, row, ids)])

    def file_many(self, table: str, rows: Iterable[tuple]) -> int:
        """File (row id, fingerprint, content hash[, keys, sketch]), as `file` takes them,
        LOAD_CHUNK at a time: new rows and new blocks are inserted whole, rows filed before
        go through `file`, skipped if their fingerprint is unchanged. Returns how many rows
        were written."""
        return self.load(table, rows).written

    def load(self, table: str, rows: Iterable[tuple]) -> Loaded:
        """`file_many`, also telling which blocks it created (see `Loaded`)."""
        written, created, moved = 0, set(), False
        with _errors(self.where):
            for chunk in _batched(rows, LOAD_CHUNK):
                self._follow()
                count, made, touched = self._load(table, chunk)
                while self._moved(self._execute(self._guard(table, [item[0] for item in chunk]))):
                    moved = True  # rows of earlier chunks are in the generation left behind
                    count, made, touched = self._load(table, chunk)
                written += count
                created = (created - touched) | made
        return Loaded(written, frozenset() if moved else frozenset(created))

    def remove(self, table: str, row: Any) -> bool:
        """Take a row out of every block; False if it was not filed."""
        with _errors(self.where):
            self._follow()
            key, op = row_key(table, row), _nonce()
            found = self.rows.update_one({"_id": key}, {"$set": {"state": REMOVING, "op": op}}).matched_count
            if found:
                self._reconcile([key], op)
            if self._moved(self._execute(self._guard(table, [row]))):
                return self.remove(table, row)
            return bool(found)

    def sync(self) -> None:
        """Wait until every write made so far is in MongoDB's journal, where a crash of the
        server cannot lose it: a caller that records elsewhere that its writes are done (watch
        marks its outbox entries) calls this first."""
        with _errors(self.where):
            # A journaled write is acknowledged once the journal is on disk up to it, and
            # the journal holds every earlier write before it.
            self.db[SYNC].with_options(write_concern=WriteConcern(w=1, j=True)).update_one(
                {"_id": SYNC}, {"$inc": {"writes": 1}}, upsert=True)

    def repair(self) -> int:
        """Complete every change a killed process or a lost connection left half done;
        returns how many rows needed it."""
        with _errors(self.where):
            self._follow()
            pending = list(self.rows.find({"state": {"$in": [FILING, REMOVING]}}, {"op": 1}))
            if not pending:
                return 0
            op = _nonce()
            self._execute([_Op(ROWS, {"_id": d["_id"], "op": d["op"]}, {"$set": {"op": op}})
                           for d in pending])
            self._reconcile([d["_id"] for d in pending], op)
            return len(pending)

    # -- the parts of a change

    def _block_ids(self, fingerprint: int) -> list[str]:
        return [block_id(t, k) for t, k in self.scheme.keys(fingerprint)]

    @staticmethod
    def _row_doc(table: str, row: Any, fingerprint: int, content: str, op: str, ids: list[str],
                 sketch: bytes | None) -> dict:
        doc = {"table": table, "row": row, "fingerprint": to_int64(fingerprint), "content": content,
               "state": FILING, "op": op, "keys": ids}
        return doc if sketch is None else {**doc, "sketch": sketch}

    def _current_blocks(self, doc: dict) -> list[str]:
        """The blocks a row's journal says it belongs in now."""
        return doc["keys"] if "keys" in doc else self._block_ids(from_int64(doc["fingerprint"]))

    def _journal(self, key: str, doc: dict) -> _Op:
        """Record what the row becomes, and every block it is about to enter, before any
        block is written: whatever happens next, the journal says what to complete."""
        return _Op(ROWS, {"_id": key}, {
            "$set": doc, "$addToSet": {"blocks": {"$each": doc["keys"]}},
            "$setOnInsert": {"first_op": doc["op"]}}, upsert=True)

    def _entry_op(self, block: str, entries: list[tuple[str, dict]], page: int = 0) -> _Op:
        """Add (row key, entry) pairs, at most bucket_size, to a page of a block if it has
        room for them; else the upsert fails on the _id, and `_execute` calls `_append`."""
        has_room = {f"info.{self.bucket_size - len(entries)}": {"$exists": False}}
        fields = {**_block_fields(block), **({"page": page} if page else {})}
        add = {"$addToSet": {"info": {"$each": [e for _, e in entries]}}, "$setOnInsert": fields}
        return _Op(BLOCKS, {"_id": page_id(block, page), **has_room}, add, upsert=True,
                   block=block, entries=entries)

    def _reconcile(self, keys: list[str], op: str, attempts: int = 3) -> None:
        """Make the blocks agree with the journal of each row still under `op`: pull what
        older fingerprints left, file the current one, settle (or delete) the journal."""
        ops, settles = [], []
        for doc in self._find(self.rows, keys):
            if doc["op"] != op:
                continue  # a later writer owns the row now
            ops += self._cleanup(doc)
            settles.append((len(ops), doc))
            ops.append(self._settle(doc, op))
        results = self._execute(ops)
        lost = [(doc["table"], doc["row"], doc["blocks"]) for i, doc in settles if results[i].matched != 1]
        if lost and attempts:
            self._take_over(lost, attempts - 1)

    def _cleanup(self, doc: dict) -> list[_Op]:
        stale: dict[str, Any] = {"table": doc["table"], "row": doc["row"]}
        if doc["state"] == REMOVING:
            return [_Op(BLOCKS, {"_id": b}, {"$pull": {"info": stale}}) for b in doc["blocks"]]
        stale["hashcode"] = {"$ne": doc["fingerprint"]}
        fingerprint = from_int64(doc["fingerprint"])
        entry = [(doc["_id"], _entry(doc["table"], doc["row"], fingerprint))]
        return ([_Op(BLOCKS, {"_id": b}, {"$pull": {"info": stale}}) for b in doc["blocks"]]
                + [self._entry_op(b, entry) for b in self._current_blocks(doc)])

    def _settle(self, doc: dict, op: str) -> _Op:
        if doc["state"] == REMOVING:
            return _Op(ROWS, {"_id": doc["_id"], "op": op})
        current = set(self._current_blocks(doc))
        left = [b for b in doc["blocks"] if _block_of(b) not in current]
        return _Op(ROWS, {"_id": doc["_id"], "op": op},
                   {"$set": {"state": FILED}, **({"$pullAll": {"blocks": left}} if left else {})})

    def _take_over(self, touched: list[tuple[str, Any, list[str]]], attempts: int = 2) -> None:
        """Another writer changed these rows while this one wrote to their blocks: journal
        the blocks this one touched (with their pages), then reconcile under a new op."""
        op = _nonce()
        for table, row, blocks in touched:
            key, ids = row_key(table, row), self._with_pages(blocks)
            touch = {"$addToSet": {"blocks": {"$each": ids}}}
            if not self.rows.update_one({"_id": key, "state": FILED},
                                        {"$set": {"state": FILING, "op": op}, **touch}).matched_count:
                self.rows.update_one({"_id": key}, {  # pending already, or removed (then: remove again)
                    "$set": {"op": op}, **touch,
                    "$setOnInsert": {"table": table, "row": row, "state": REMOVING}}, upsert=True)
        self._reconcile([row_key(table, row) for table, row, _ in touched], op, attempts)

    def _with_pages(self, blocks: list[str]) -> list[str]:
        firsts = self._find(self.blocks, sorted({_block_of(b) for b in blocks}), {"pages": 1})
        pages = {page_id(d["_id"], n) for d in firsts for n in range(1, d.get("pages", 0) + 1)}
        return sorted(set(blocks) | pages)

    def _append(self, block: str, entries: list[tuple[str, dict]]) -> None:
        """File entries in a block however full: into its last page while there is room,
        then into new pages, each journaled in the rows first and counted in `pages` before
        it is written, so no lookup or repair ever misses it. Entries present are skipped."""
        first = self.blocks.find_one({"_id": block}, {"info": 1, "pages": 1}) or {}
        last = first.get("pages", 0)
        pages = self._find(self.blocks, [page_id(block, n) for n in range(1, last + 1)],
                           {"info": 1, "page": 1})
        info = {0: first.get("info", []), **{d["page"]: d["info"] for d in pages}}
        present = [e for entries_of_page in info.values() for e in entries_of_page]
        todo = [(key, e) for key, e in entries if e not in present]
        page = last
        while todo:
            room = self.bucket_size - len(info.get(page, []))
            if room <= 0:
                page += 1
                continue
            chunk, pid = todo[:room], page_id(block, page)
            if page:
                journal = {"$addToSet": {"blocks": pid}}
                self.rows.bulk_write([UpdateOne({"_id": key}, journal) for key, _ in chunk])
                self.blocks.update_one({"_id": block}, {"$max": {"pages": page}})
            op = self._entry_op(block, chunk, page)
            try:
                self.blocks.update_one(op.filter, op.update, upsert=True)
            except DuplicateKeyError:  # another writer filled the page meanwhile
                info[page] = (self.blocks.find_one({"_id": pid}, {"info": 1}) or {}).get("info", [])
                continue
            info.setdefault(page, []).extend(e for _, e in chunk)
            todo = todo[room:]

    def _load(self, table: str, chunk: list[tuple[Any, int, str]]) -> tuple[int, set[str], set[str]]:
        """One step of `load`: journal the new rows (insert_many), file them in their
        blocks, settle them with one update; rows that exist go through `_refile`. Returns
        how many rows were written, the blocks created holding only their entries, and
        every block the chunk's rows are filed in."""
        op, docs = _nonce(), {}
        # A generation built aside has one writer, and is dropped whole if it dies: its
        # rows need no journal, and are written filed.
        state = FILING if self.follows else FILED
        for row, fp, content, *extra in chunk:
            keys, sketch = extra or (None, None)
            key, ids = row_key(table, row), self._block_ids(fp) if keys is None else [block_id(*k) for k in keys]
            docs[key] = {"_id": key, **self._row_doc(table, row, fp, content, op, ids, sketch),
                         "state": state, "blocks": ids, "first_op": op}
        old = self._insert(self.rows, list(docs.values()))
        new = [doc for key, doc in docs.items() if key not in old]
        created = self._insert_blocks(new)
        shared = [docs[key] for key in old]  # written to by `file` below: not ours alone
        if self.follows:
            settle = self.rows.update_many({"state": FILING, "op": op}, {"$set": {"state": FILED}})
            if settle.modified_count < len(new):  # another writer took some of these rows meanwhile
                now = self._find(self.rows, [d["_id"] for d in new], {"op": 1})
                ours = {d["_id"] for d in now if d["op"] == op}
                taken = [d for d in new if d["_id"] not in ours]
                self._take_over([(d["table"], d["row"], d["blocks"]) for d in taken])
                shared += taken
        written = len(new) + self._refile([docs[key] for key in old])
        touched = {b for d in docs.values() for b in d["blocks"]}
        return written, created - {b for d in shared for b in d["blocks"]}, touched

    def _insert_blocks(self, rows: list[dict]) -> set[str]:
        """File new rows: whole block documents where the block is new; entry ops for the
        rest (blocks that exist, and entries beyond a document's size). Returns the blocks
        created whole."""
        grouped: dict[str, list[tuple[str, dict]]] = {}
        for doc in rows:
            entry = _entry(doc["table"], doc["row"], from_int64(doc["fingerprint"]))
            for block in doc["blocks"]:
                grouped.setdefault(block, []).append((doc["_id"], entry))
        size = self.bucket_size
        whole = [{"_id": b, **_block_fields(b), "info": [e for _, e in items[:size]]}
                 for b, items in grouped.items()]
        existing = self._insert(self.blocks, whole)
        rests = {b: items if b in existing else items[size:] for b, items in grouped.items()}
        self._execute([self._entry_op(b, rest[i:i + size]) for b, rest in rests.items()
                       for i in range(0, len(rest), size)])
        return {b for b, rest in rests.items() if not rest}

    def _refile(self, docs: list[dict]) -> int:
        """Rows that were in the store already: file those whose fingerprint changed (or
        whose last change was not completed)."""
        stored = {d["_id"]: (d.get("fingerprint"), d["state"])
                  for d in self._find(self.rows, [d["_id"] for d in docs], {"fingerprint": 1, "state": 1})}
        changed = [d for d in docs if stored.get(d["_id"]) != (d["fingerprint"], FILED)]
        for d in changed:
            self._file(d["table"], d["row"], from_int64(d["fingerprint"]), d["content"], d["keys"], d.get("sketch"))
        return len(changed)

    # -- running writes

    def _execute(self, ops: list[_Op]) -> list[_Result]:
        """Run ops in order; an entry that meets a full block is filed by `_append`, and
        the ops after it resumed."""
        out: list[_Result] = []
        while len(out) < len(ops):
            done, failed = self._run(ops[len(out):])
            out += done
            if failed is not None:
                op = ops[len(out)]
                self._append(op.block, op.entries)
                out.append(_Result(1, False))
        return out

    def _run(self, ops: list[_Op]) -> tuple[list[_Result], int | None]:
        """Run ops in order until one meets a full block; its index (else None). Ops on one
        collection go as one bulk_write: one round trip either way, and SecantusDB runs a
        collection's update command faster per op than bulkWrite."""
        several = len({op.collection for op in ops}) > 1
        return self._run_one_request(ops) if self.one_request and several else self._run_per_collection(ops)

    def _run_one_request(self, ops: list[_Op]) -> tuple[list[_Result], int | None]:
        """All ops in one bulkWrite command (MongoDB 8.0): one round trip, in order."""
        models = [op.model(f"{self.db.name}.{self._named(op.collection)}") for op in ops]
        try:
            result, failed = self.db.client.bulk_write(models, verbose_results=True), None
        except ClientBulkWriteException as e:
            error = e.write_errors[0] if e.write_errors else None
            if e.error is not None or error is None or not _full(ops[error["idx"]], error):
                raise
            result, failed = e.partial_result, error["idx"]
        per_op = {**result.update_results, **result.delete_results} if result else {}
        count = len(ops) if failed is None else failed
        return [_result(per_op.get(i)) for i in range(count)], failed

    def _run_per_collection(self, ops: list[_Op]) -> tuple[list[_Result], int | None]:
        """Without bulkWrite (MongoDB before 8.0, mongomock): one ordered bulk_write per
        run of ops on the same collection."""
        results: list[_Result] = []
        for start, end in _runs(ops):
            group = ops[start:end]
            try:
                raw = self.db[self._named(group[0].collection)].bulk_write([op.model() for op in group]).bulk_api_result
                failed = None
            except BulkWriteError as e:
                raw, error = e.details, e.details["writeErrors"][0]
                if not _full(group[error["index"]], error):
                    raise
                failed = start + error["index"]
            results += _group_results(raw, (end if failed is None else failed) - start, failed is None)
            if failed is not None:
                return results, failed
        return results, None

    def _named(self, collection: str) -> str:
        """The collection an op names, in this store's generation."""
        return {BLOCKS: self.blocks.name, ROWS: self.rows.name}.get(collection, collection)

    def _find(self, collection: Any, ids: list, projection: dict | None = None) -> list[dict]:
        """Documents by _id, IN_IDS ids per query."""
        return [doc for start in range(0, len(ids), IN_IDS)
                for doc in collection.find({"_id": {"$in": ids[start:start + IN_IDS]}}, projection)]

    @staticmethod
    def _insert(collection: Any, docs: list[dict]) -> set:
        """Insert documents; returns the _ids of those that were there already."""
        if not docs:
            return set()
        try:
            collection.insert_many(docs, ordered=False)
        except BulkWriteError as e:
            errors = e.details["writeErrors"]
            if any(error["code"] != DUPLICATE_KEY for error in errors):
                raise
            return {docs[error["index"]]["_id"] for error in errors}
        return set()


@dataclass
class _Op:
    """One write, kept free of pymongo's request shape until it runs: an update, or a
    delete when `update` is None. An entry op names its block and entries for `_append`."""

    collection: str
    filter: dict
    update: dict | None = None
    upsert: bool = False
    block: str | None = None
    entries: list[tuple[str, dict]] = field(default_factory=list)

    def model(self, namespace: str | None = None) -> UpdateOne | DeleteOne:
        where = {"namespace": namespace} if namespace else {}
        if self.update is None:
            return DeleteOne(self.filter, **where)
        return UpdateOne(self.filter, self.update, upsert=self.upsert, **where)


class _Result(NamedTuple):
    matched: int | None  # None: not known (a failed or mixed per-collection group)
    upserted: bool


def _result(raw: Any) -> _Result:
    if raw is None:
        return _Result(None, False)
    if hasattr(raw, "deleted_count"):
        return _Result(raw.deleted_count, False)
    return _Result(raw.matched_count, raw.upserted_id is not None)


def _group_results(raw: dict, count: int, complete: bool) -> list[_Result]:
    """Per-op results of a bulk_write, which reports totals: every op that did not upsert
    matched one document when the totals add up, else unknown."""
    upserted = {u["index"] for u in raw.get("upserted", [])}
    exact = complete and raw.get("nMatched", 0) + raw.get("nRemoved", 0) + len(upserted) == count
    return [_Result(1 if exact else None, i in upserted) for i in range(count)]


def _runs(ops: list[_Op]) -> Iterator[tuple[int, int]]:
    start = 0
    for i in range(1, len(ops) + 1):
        if i == len(ops) or ops[i].collection != ops[start].collection:
            yield start, i
            start = i


def _full(op: _Op, error: dict) -> bool:
    """The write error of an entry op whose block had no room."""
    return op.block is not None and error.get("code") == DUPLICATE_KEY


def _has_bulk_write_command(client: Any) -> bool:
    """MongoDB 8.0 (and SecantusDB) run writes to several collections as one command."""
    return (isinstance(client, pymongo.MongoClient) and hasattr(client, "bulk_write")
            and client.server_info()["versionArray"][0] >= 8)


def _entry(table: str, row: Any, fingerprint: int) -> dict:
    return {"hashcode": to_int64(fingerprint), "row": row, "table": table}


def _record(doc: dict) -> Record:
    fingerprint = doc.get("fingerprint")
    return Record(doc["table"], doc["row"], None if fingerprint is None else from_int64(fingerprint),
                  doc.get("content", ""), doc["state"], doc["blocks"], doc.get("sketch"))


def _entries(docs: list[dict]) -> list[Entry]:
    return [Entry(e["table"], e["row"], from_int64(e["hashcode"]), _block_of(d["_id"]))
            for d in docs for e in d.get("info", ())]


def _block_of(doc_id: str) -> str:
    """The block of a block document or of one of its pages."""
    return ":".join(doc_id.split(":")[:2])


def _block_fields(block: str) -> dict:
    table_index, key = block.split(":")[:2]
    return {"block": int(table_index), "key": int(key)}


def _nonce() -> str:
    return os.urandom(8).hex()


def _batched(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
