"""Embedded MongoDB: a SecantusDB server running in this process (`EmbeddedMongo`), or in a
process of its own that this one starts and that ends with it (`EmbeddedProcess`).

SecantusDB (PyPI ``SecantusDB``, import name ``secantus``) is a MongoDB
wire-protocol server on WiredTiger. It is the default document store when no
``DEDUP_MONGO_URI`` is given, and the real server the integration tests talk to
through pymongo over TCP. It listens on loopback only and keeps its data in a
folder, so a later start on the same folder sees the same data.

    with EmbeddedMongo().start("dedup-data/mongo") as mongo:
        client = pymongo.MongoClient(mongo.uri)

The server runs standalone (no replica-set advertisement), like a plain
``mongod``. Known differences from MongoDB that callers must respect:

- ``{"_id": {"$in": ids}}`` costs time proportional to len(ids) squared
  (each document found is compared with every id, in Python); ``_patch_in``
  answers lists of integers and strings by a set instead, which makes it
  linear, but a find still pays about 0.5 ms: ask for about 100 at a time.
- ``$or`` is planned as a collection scan.
- Transactions are accepted although a standalone ``mongod`` rejects them:
  do not rely on them.
- Writes acknowledged in the last instant before a crash (SIGKILL) can be
  lost, as with ``mongod``'s default ``j: false``; ``stop()`` makes all
  writes durable.
- An index on a field of ``ELEMENT_KEYED`` holds its arrays' elements, not each
  whole array as well: a query that compares such a field with an array scans
  the collection (``_patch_lookups``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Mapping

import pymongo
from bson.int64 import Int64
from pymongo.errors import PyMongoError

OPEN_WAIT_S = 5.0  # a folder in use is waited for this long: the server of a process just killed is ending
CACHE_SIZE = "256M"  # WiredTiger's cache: what the server holds in memory, whatever the data size
# glibc's heaps in the server, shared by its threads: with one a thread, a batch at a million rows
# left it 490-590 MB at its peak, with two 360 MB
MALLOC_ARENAS = "2"
# A file smaller than this is not compacted: it gives back at most this much, and each pass
# costs 10 ms (a checkpoint of its own), of 23 files mostly tiny.
COMPACT_MIN_BYTES = 1 << 20
INSTALL_HINT = "pip install --pre secantusdb (or set DEDUP_MONGO_URI to use an existing MongoDB)"
# The fields the store asks of by element alone (a fresh row's keys, `$in`): their index
# keeps no entry for each whole array, which SecantusDB adds to answer an equality with an
# array. That entry was 472 of a fresh row's 1,100 bytes of index, written and never read.
ELEMENT_KEYED = frozenset({"fresh"})


class EmbeddedMongoError(RuntimeError):
    """The embedded MongoDB could not be started."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (another process may take it)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class EmbeddedMongo:
    """A SecantusDB server in a background thread; a context manager that stops it."""

    def __init__(self) -> None:
        self._server = None
        self._folder = Path()

    @property
    def host(self) -> str:
        return self._address()[0]

    @property
    def port(self) -> int:
        return self._address()[1]

    @property
    def uri(self) -> str:
        host, port = self._address()
        return f"mongodb://{f'[{host}]' if ':' in host else host}:{port}/"

    def start(self, data_dir: str | Path, host: str = "127.0.0.1", port: int = 0) -> EmbeddedMongo:
        """Serve the data in ``data_dir`` (created if missing) on ``host:port``.

        ``port=0`` lets the system pick a free port. Returns once the server
        answers a ``ping``.
        """
        if self._server is not None:
            raise EmbeddedMongoError(f"already running at {self.uri}")
        _check_loopback(host)
        server = _open_server(Path(data_dir), host, port)
        try:
            server.start()
        except OSError as exc:
            server.stop()
            raise EmbeddedMongoError(f"cannot listen on {host}:{port}: {exc}") from exc
        self._server, self._folder = server, Path(data_dir)
        try:
            _wait_for_ping(self.uri)
        except Exception:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop serving and close the data files cleanly. Safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return
        # stop() closes the listening socket, but on Linux close() does not
        # wake the thread blocked in accept(), so stop() would wait out a 2 s
        # join; shutdown() does wake it.
        with contextlib.suppress(OSError, AttributeError):
            server._socket.shutdown(socket.SHUT_RDWR)
        server.stop()

    def compact(self) -> bool:
        """Give the space of deleted documents back to the file system: WiredTiger keeps it
        in its files, and SecantusDB files each collection in one of 16 shared files, so a
        dropped generation's space waits there for a collection that may never come. Whether
        it was done (SecantusDB's internals, which this reaches into, may change)."""
        try:
            storage = self._server.storage
            storage.checkpoint()  # pages freed since the last checkpoint are not free yet
            session = storage._conn.open_session()
            try:
                for name in sorted(os.listdir(self._folder)):
                    if (name.startswith("secantus_") and name.endswith(".wt")
                            and os.path.getsize(self._folder / name) >= COMPACT_MIN_BYTES):
                        session.compact(f"table:{name[:-3]}", None)
            finally:
                session.close()
            storage.checkpoint()
        except Exception:  # noqa: BLE001 — a store that stays larger, never a failed batch
            return False
        return True

    def __enter__(self) -> EmbeddedMongo:
        if self._server is None:
            raise EmbeddedMongoError("call start(data_dir) before entering the context")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _address(self) -> tuple[str, int]:
        if self._server is None:
            raise EmbeddedMongoError("the embedded MongoDB is not running")
        return self._server.address


class EmbeddedProcess:
    """The embedded MongoDB in a process of its own, which ends when this one does (cleanly
    when stopped, at once when this process is killed): its Python runs beside this
    process's, not in turn with it; a context manager that stops it."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self.uri, self.port = "", 0

    def start(self, data_dir: str | Path, port: int = 0) -> EmbeddedProcess:
        """Serve ``data_dir`` (created if missing) on 127.0.0.1:``port`` (0: a free one);
        returns once it answers."""
        if self._process is not None:
            raise EmbeddedMongoError(f"already running at {self.uri}")
        here = str(Path(__file__).resolve().parents[2])  # the server runs this very package, installed or not
        path = os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(data_dir), str(port), str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={"MALLOC_ARENA_MAX": MALLOC_ARENAS, **os.environ, "PYTHONPATH": path})
        said = self._process.stdout.readline().strip()
        if not said.startswith("mongodb://"):
            self._process.wait()
            self._process = None
            raise EmbeddedMongoError(said or "the embedded MongoDB's process ended as it started")
        self.uri, self.port = said, int(said.rstrip("/").rsplit(":", 1)[1])
        return self

    def compact(self) -> bool:
        """EmbeddedMongo.compact, in the server's process (False if it is gone: a store that
        stays larger, never a failed batch)."""
        try:
            self._process.stdin.write("compact\n")
            self._process.stdin.flush()
            return self._process.stdout.readline().strip() == "True"
        except (OSError, ValueError, AttributeError):
            return False

    def stop(self) -> None:
        """Stop serving and close the data files cleanly. Safe to call twice."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.stdin.close()
            process.wait()

    def kill(self) -> None:
        """End the server at once, as a crash would."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()

    def __enter__(self) -> EmbeddedProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _serve(data_dir: str, port: int, parent: int) -> None:
    """The server process: end with `parent` (killed with it: PR_SET_PDEATHSIG), leave
    Ctrl-C to it, say the URI or why not on the first line, compact when asked, and stop
    cleanly at the end of its input."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    deadline = time.monotonic() + OPEN_WAIT_S
    while True:
        try:
            server = EmbeddedMongo().start(data_dir, port=port)
            break
        except EmbeddedMongoError as exc:
            if "busy" not in str(exc) or time.monotonic() > deadline:
                print(exc, flush=True)
                return
            time.sleep(0.1)
    with server:
        print(server.uri, flush=True)
        for line in sys.stdin:
            if line.strip() == "compact":
                print(server.compact(), flush=True)
    os._exit(0)  # closed cleanly; the interpreter's own exit would wait half a second on the server's threads


def _check_loopback(host: str) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise EmbeddedMongoError(
            "the embedded MongoDB listens on a loopback IP address only"
            f" (such as 127.0.0.1), not {host!r}"
        )


def _open_server(data_dir: Path, host: str, port: int):
    try:
        from secantus import SecantusDBServer
        from secantus import aggregate, query, sortkey, storage
        import wiredtiger
    except ImportError as exc:
        raise EmbeddedMongoError(f"SecantusDB is not installed: {INSTALL_HINT}") from exc
    if hasattr(storage.Storage, "_scan_max_nat_seq") and hasattr(storage, "_doc_shard_name"):
        storage.Storage._scan_max_nat_seq = max_record_id
    _patch_in(query)
    _patch_index_options(storage)
    _patch_number_keys(sortkey)
    _patch_literals(aggregate)
    _patch_array_keys(storage, sortkey)
    _patch_element_deletes(storage, sortkey)
    _patch_lookups(storage)
    _patch_replacements(storage)
    _patch_index_probes(storage)
    _patch_packing(sys.modules[wiredtiger.Cursor.__module__])
    _patch_inserts(sys.modules[wiredtiger.Cursor.__module__])
    _patch_index_table(sys.modules[wiredtiger.Cursor.__module__], storage)
    try:
        with _stderr_held():
            return SecantusDBServer(
                host,
                port,
                str(data_dir),
                replica_set_name=None,  # standalone, like a plain mongod; no oplog writes
                enable_test_commands=False,
                durable=True,  # ignore SECANTUS_TEST_FAST_STORAGE: data must survive a restart
                cache_size=CACHE_SIZE,
            )
    except Exception as exc:  # WiredTiger raises its own error type
        raise EmbeddedMongoError(
            f"cannot open the MongoDB data folder {data_dir}: {exc}"
            " (is another server using it?)"
        ) from exc


def max_record_id(storage: object) -> int:
    """The largest RecordId of any document (0 if none), in a seek per collection: what
    SecantusDB's `Storage._scan_max_nat_seq` answers at every start, by walking every
    document (6.5 s of the 8 s a start takes at a million rows). A documents shard is
    keyed (database, collection, RecordId), so each collection's largest is the last row
    before the next collection's first."""
    from secantus.storage import _DOC_SHARDS, _doc_shard_name
    from wiredtiger import WT_NOTFOUND

    largest = 0
    for shard in range(_DOC_SHARDS):
        cursor = storage._cursor_optional(_doc_shard_name(shard))  # type: ignore[attr-defined]
        if cursor is None:
            continue  # a shard never written
        cursor.reset()
        found = cursor.prev()
        while found == 0:
            db, coll, record_id = cursor.get_keys()
            largest = max(largest, int(record_id))
            cursor.set_key(db, coll, -(1 << 63))  # before the collection's first row
            near = cursor.search_near()  # the row beside that key: the last below it (< 0) or the first above
            found = 0 if near < 0 and near != WT_NOTFOUND else cursor.prev()
        cursor.reset()
    return largest


# SecantusDB's writes of a chunk of documents, each one WiredTiger transaction: the indexes
# of a collection cannot change inside one.
_CHUNK_WRITES = ("_insert_chunk", "_update_chunk", "_chunk_doc_update_checked", "_update_matching_single_txn",
                 "_delete_chunk", "_delete_matching_single_txn")


def _patch_index_options(storage: object) -> None:
    """Each collection's map of index options read once per chunk written, not three times a
    document: SecantusDB reads it from its catalog (`Storage._index_options_map`) for every
    document it inserts or updates, a fifth of a first batch's time in the server."""
    kind = getattr(storage, "Storage", None)
    own = getattr(kind, "_index_options_map", None)
    if own is None or hasattr(own, "own") or not all(hasattr(kind, name) for name in _CHUNK_WRITES):
        return
    held = threading.local()

    def options_map(self, db, coll):
        maps = getattr(held, "maps", None)
        if maps is None:
            return own(self, db, coll)
        if (db, coll) not in maps:
            maps[db, coll] = own(self, db, coll)
        return maps[db, coll]

    def scoped(write):
        def chunk_written(self, *args, **kwargs):
            if getattr(held, "maps", None) is not None:  # inside another chunk's write
                return write(self, *args, **kwargs)
            held.maps = {}
            try:
                return write(self, *args, **kwargs)
            finally:
                held.maps = None
        return chunk_written

    options_map.own = own
    kind._index_options_map = options_map
    for name in _CHUNK_WRITES:
        setattr(kind, name, scoped(getattr(kind, name)))


_LITERAL_WALKS = ("_literal_timezone_problem", "_expression_shape_problem")


def _patch_literals(aggregate: object) -> None:
    """A pipeline's `$literal` values not walked by the checks of its expressions: a
    literal is data, not an expression (mongod parses nothing in it), and SecantusDB
    walked every value of the row a refile sets, a third of a millisecond a row."""
    for name in _LITERAL_WALKS:
        check = getattr(aggregate, name, None)
        if check is None or hasattr(check, "own"):
            continue

        def checked(spec, *args, _check=check, **kwargs):
            if isinstance(spec, Mapping) and len(spec) == 1 and "$literal" in spec:
                return None
            return _check(spec, *args, **kwargs)

        checked.own = check
        setattr(aggregate, name, checked)  # the checks' own recursion goes through it too


def _pairs_table(byte_of: Callable[[int], int]) -> bytes:
    """A `bytes.translate` table from two decimal digits read as a hex byte (0xab for "ab") to
    `byte_of(ab)`."""
    table = bytearray(256)
    for pair in range(100):
        table[16 * (pair // 10) + pair % 10] = byte_of(pair)
    return bytes(table)


# The byte an index key holds for two digits (SecantusDB's sortkey): 00 -> 1 ... 99 -> 100,
# and in a negative number's key 100 less that.
_POSITIVE, _NEGATIVE = _pairs_table(lambda pair: pair + 1), _pairs_table(lambda pair: 99 - pair)
_HUGE = 10**100  # from here on SecantusDB's exponent byte overflows: its own encoding decides


def _patch_number_keys(sortkey: object) -> None:
    """An integer's index key made from its decimal digits, not through `Decimal`: SecantusDB
    encodes every index entry of a number that way (`sortkey._encode_number`), and a row
    filed fresh has 23 entries, most of a worker's time in the server. The same bytes."""
    own = getattr(sortkey, "_encode_number", None)
    if own is None or hasattr(own, "own"):
        return

    def by_digits(value):
        if type(value) not in (int, Int64) or not value or abs(value) >= _HUGE:
            return own(value)
        digits = "%d" % abs(value)
        exponent = 128 + len(digits) - 1  # sign, exponent, digit pairs: byte order is numeric order
        digits = digits.rstrip("0")
        pairs = bytes.fromhex(digits + "0" * (len(digits) % 2))
        if value > 0:
            return bytes((0xC0, exponent)) + pairs.translate(_POSITIVE) + b"\x00"
        return bytes((0x40, 0xFF - exponent)) + pairs.translate(_NEGATIVE) + b"\xff"

    by_digits.own = own
    sortkey._encode_number = by_digits


def _patch_array_keys(storage: object, sortkey: object) -> None:
    """The index keys of an array of integers and strings (a fresh row's `fresh`) made with
    each element encoded once: SecantusDB encodes each three times (twice for its entry, once
    within the whole array's key). The same keys, in the same order, but for the whole
    array's under a field of ELEMENT_KEYED."""
    own = getattr(storage, "_index_key_variants", None)
    if own is None or hasattr(own, "own"):
        return
    encode = sortkey.encode_value

    def variants(doc, key_spec, *, sparse, collation=None):
        if collation is None and type(doc) is dict and len(key_spec) == 1:
            (field, direction), = key_spec.items()
            value = doc.get(field)
            if direction == 1 and "." not in field and _exact_list(value):
                keys = [encode(v) for v in value]
                if field in ELEMENT_KEYED:
                    return [*dict.fromkeys(keys)]
                return [*dict.fromkeys(keys), _whole_key(sortkey, keys)]
        return own(doc, key_spec, sparse=sparse, collation=collation)

    variants.own = own
    storage._index_key_variants = variants


def _exact_list(value: object) -> bool:
    """A non-empty list of integers and strings: an array whose keys `_patch_array_keys` makes."""
    return type(value) is list and bool(value) and all(type(v) in _EXACT for v in value)


def _whole_key(sortkey: object, keys: list[bytes]) -> bytes:
    """An array's own index key (SecantusDB's `encode_value` of it), from its elements' keys."""
    escape, separator = sortkey._escape, sortkey.COMPOUND_SEP
    return bytes([sortkey.RANK_ARRAY]) + b"".join(k[:1] + escape(k[1:]) + separator for k in keys) + sortkey._ELEMENTS_END


def _compares_arrays(filter: object) -> bool:
    """Whether a filter compares a field of ELEMENT_KEYED with anything but scalars."""
    if type(filter) is list:
        return any(_compares_arrays(clause) for clause in filter)
    if not isinstance(filter, Mapping):
        return False
    for field, clause in filter.items():
        if field in ELEMENT_KEYED:
            operands = clause.items() if isinstance(clause, Mapping) else [("$eq", clause)]
            if any(not _scalars(op, operand) for op, operand in operands):
                return True
        elif field.startswith("$") and _compares_arrays(clause):
            return True
    return False


def _scalars(op: str, operand: object) -> bool:
    """Whether an operator's operand is a scalar, or scalars in the list of `$in`, `$nin`
    or `$all`."""
    if op in ("$in", "$nin", "$all"):
        return type(operand) is list and all(type(v) in _SCALARS for v in operand)
    return type(operand) in _SCALARS


def _patch_element_deletes(storage: object, sortkey: object) -> None:
    """A document's index entries removed with, under a field of ELEMENT_KEYED, its whole
    array's: a store written before this patch holds one."""
    kind = getattr(storage, "Storage", None)
    own = getattr(kind, "_delete_index_entries", None)
    table, pack = getattr(storage, "_IDX_ENTRIES_TABLE", None), getattr(storage, "_pack_entry", None)
    if own is None or hasattr(own, "own") or None in (table, pack):
        return

    def deleted(self, db, coll, doc, indexes, partials=None, *, recordid):
        own(self, db, coll, doc, indexes, partials, recordid=recordid)
        for name, key_spec, _sparse, _unique in indexes:
            field = next(iter(key_spec), None)
            # another array's whole key is among SecantusDB's own keys, which it removed
            if key_spec == {field: 1} and field in ELEMENT_KEYED and _exact_list(doc.get(field)):
                c = self._cursor(table)
                if not _holds_arrays(c, db, coll, name, sortkey.RANK_ARRAY):
                    continue  # a store written since: building the key would cost 40 µs
                c.reset()
                c.set_key(db, coll, name, pack(_whole_key(sortkey, [sortkey.encode_value(v) for v in doc[field]]), recordid))
                if c.search() == 0:
                    c.remove()

    deleted.own = own
    kind._delete_index_entries = deleted


def _holds_arrays(c: object, db: str, coll: str, name: str, rank: int) -> bool:
    """Whether an index holds any array's key: one seek among its entries, whose WiredTiger
    keys are the database, collection and index names, each ending in a NUL, then the entry."""
    from wiredtiger import WT_NOTFOUND

    wanted = f"{db}\0{coll}\0{name}\0".encode() + bytes([rank])
    c.reset()
    c.set_key(db, coll, name, wanted[-1:])
    near = c.search_near()
    found = near != WT_NOTFOUND and (near >= 0 or c.next() == 0) and c._get_key().startswith(wanted)
    c.reset()
    return found


def _patch_lookups(storage: object) -> None:
    """The documents a filter's indexes find. A write whose filter names an `_id` finds that
    one document by it: SecantusDB does so only for a filter of `_id` alone, and for a
    guarded write (`_id` and the fields as read) tries its other indexes first, a tenth of
    the write. A query that compares a field of ELEMENT_KEYED with an array (equal to it, in
    a list of them, above it) scans the collection: its index holds no whole arrays. Either
    way the whole filter is checked on each document found, as it is whatever the index."""
    kind = getattr(storage, "Storage", None)
    own = getattr(kind, "_try_index_id_keys", None)
    if own is None or hasattr(own, "own"):
        return

    def looked_up(self, db, coll, filter, *, collation=None):
        if collation is None and filter and len(filter) > 1 and type(filter.get("_id")) in _EXACT:
            return own(self, db, coll, {"_id": filter["_id"]})
        if _compares_arrays(filter):
            return None  # SecantusDB's answer for a filter no index serves
        return own(self, db, coll, filter, collation=collation)

    looked_up.own = own
    kind._try_index_id_keys = looked_up


def _patch_index_probes(storage: object) -> None:
    """An index's entries under one key (an `$in` asks for each of its values) found by the
    key's bytes: WiredTiger's key, as SecantusDB packs it, is the database, collection and
    index names, each ending in a NUL, then the entry. SecantusDB unpacks every key it walks
    into Python values, most of a worker's lookups in the server. The same record ids."""
    kind = getattr(storage, "Storage", None)
    own = getattr(kind, "_scan_index_for_id_keys", None)
    table, unpack = getattr(storage, "_IDX_ENTRIES_TABLE", None), getattr(storage, "_unpack_entry", None)
    escape, separator = getattr(storage, "_escape_kb", None), getattr(storage, "_ENTRY_SEP", None)
    if own is None or hasattr(own, "own") or None in (table, unpack, escape, separator):
        return
    from wiredtiger import WT_NOTFOUND

    def probed(self, db, coll, name, kb, *, prefix=False):
        names = f"{db}\0{coll}\0{name}\0"
        if type(db) is not str or type(coll) is not str or type(name) is not str or names.count("\0") != 3:
            return own(self, db, coll, name, kb, prefix=prefix)
        c = self._cursor(table)
        head = names.encode()
        wanted = head + (escape(kb) if prefix else escape(kb) + separator)
        c.set_key(db, coll, name, wanted[len(head):])
        rc = c.search_near()
        if rc == WT_NOTFOUND or rc < 0 and c.next() != 0:
            return []
        out: list[int] = []
        while True:
            key = c._get_key()
            # an escaped key holds no two NULs and ends in none: its entries begin with it
            if not key.startswith(wanted):
                break
            row_id = unpack(key[len(head):])[1]
            if row_id is not None:
                out.append(row_id)
            if c.next() != 0:
                break
        return out

    probed.own = own
    kind._scan_index_for_id_keys = probed


_SCALARS = {str, int, Int64, bytes, float, bool, type(None)}


def _patch_replacements(storage: object) -> None:
    """A replacement of scalars and lists of scalars (a row's document) applied by a copy of
    its lists: SecantusDB deep-copies the whole replacement, a tenth of a replace. What is
    stored is the same, and shares nothing that can change with the request; anything else
    (operators, pipelines, upserts, nested documents, another `_id`) is left to SecantusDB."""
    own = getattr(storage, "apply_update", None)
    if own is None or hasattr(own, "own"):
        return

    def applied(doc, update, *, is_upsert=False, array_filters=None, positional_matches=None, let=None):
        if (not is_upsert and not array_filters and type(update) is dict and update and type(doc) is dict
                and "_id" in doc and update.get("_id", doc["_id"]) == doc["_id"]
                and not any(key.startswith("$") for key in update) and all(map(_flat, update.values()))):
            return {"_id": doc["_id"], **{key: list(value) if type(value) is list else value
                                          for key, value in update.items() if key != "_id"}}
        return own(doc, update, is_upsert=is_upsert, array_filters=array_filters,
                   positional_matches=positional_matches, let=let)

    applied.own = own
    storage.apply_update = applied


def _flat(value: object) -> bool:
    kind = type(value)
    return kind in _SCALARS or kind is list and all(type(v) in _SCALARS for v in value)


def _patch_inserts(swig: object) -> None:
    """`cursor[key] = value` (SecantusDB writes every index entry so) packed and set in one
    step: the binding's goes through three methods of its own, a fifth of an entry's cost.
    The same calls to WiredTiger."""
    kind = getattr(swig, "Cursor", None)
    own = getattr(kind, "__setitem__", None)
    if own is None or hasattr(own, "own") or not all(hasattr(kind, name) for name in ("_set_key", "_set_value")):
        return

    def inserted(self, key, value):
        if self.is_column or self.is_json:
            return own(self, key, value)
        self._key = swig.pack(self.key_format, *key) if type(key) is tuple else swig.pack(self.key_format, key)
        self._value = swig.pack(self.value_format, *value) if type(value) is tuple else swig.pack(self.value_format, value)
        self._set_key(self._key)
        self._set_value(self._value)
        if self.insert() != 0:
            raise KeyError

    inserted.own = own
    kind.__setitem__ = inserted


def _patch_packing(swig: object) -> None:
    """WiredTiger's keys and values of SecantusDB's formats (strings, bytes and integers)
    packed by a join and unpacked by slices: its Python binding walks a generic loop for
    each, a third of the time an index entry costs and a tenth of a lookup. The same bytes
    and values; anything else is left to the binding."""
    own_pack, own_unpack = getattr(swig, "pack", None), getattr(swig, "unpack", None)
    if own_pack is None or own_unpack is None or hasattr(own_pack, "own"):
        return
    from wiredtiger.intpacking import pack_int, unpack_int

    def packed(fmt, *values):
        if len(fmt) != len(values) or not fmt or fmt.strip("Suq"):
            return own_pack(fmt, *values)
        out = []
        for n, (code, value) in enumerate(zip(fmt, values)):
            kind = type(value)
            if code == "S" and kind is str and "\0" not in value:
                out += (value.encode(), b"\0")
            elif code == "u" and kind is bytes:
                out += (value,) if n == len(fmt) - 1 else (pack_int(len(value)), value)
            elif code == "q" and kind is int:
                out.append(pack_int(value))
            else:
                return own_pack(fmt, *values)
        return b"".join(out)

    def unpacked(fmt, data):
        if not fmt or fmt.strip("Suq") or type(data) is not bytes:
            return own_unpack(fmt, data)
        out: list = []
        at = 0
        for n, code in enumerate(fmt):
            if code == "S":
                end = data.find(b"\0", at)
                if end < 0:
                    return own_unpack(fmt, data)
                out.append(data[at:end].decode())
                at = end + 1
            elif code == "u" and n == len(fmt) - 1:
                out.append(data[at:])
                at = len(data)
            else:  # an integer, or the size of bytes before others
                value, rest = unpack_int(data[at:])
                at = len(data) - len(rest)
                if code == "u":
                    value, at = data[at:at + value], at + value
                out.append(value)
        return out

    packed.own, unpacked.own = own_pack, own_unpack
    swig.pack, swig.unpack = packed, unpacked


def _patch_index_table(swig: object, storage: object) -> None:
    """SecantusDB's table of index entries created with its keys' common prefixes written
    once a page (WiredTiger's prefix compression): every key begins with the database,
    collection and index names, and a row filed fresh has 28 of them; a third smaller.
    A table made before keeps its settings."""
    session, table = getattr(swig, "Session", None), getattr(storage, "_IDX_ENTRIES_TABLE", None)
    own = getattr(session, "create", None)
    if own is None or table is None or hasattr(own, "own"):
        return

    def create(self, name, config=None):
        if name == table and config and "prefix_compression" not in config:
            config += ",prefix_compression=true"
        return own(self, name, config)

    create.own = own
    session.create = create


# types whose Python equality and hash are MongoDB's (bool apart: True == 1 in Python only)
_EXACT = {int, Int64, str}


def _patch_in(query: object) -> None:
    """`$in` and `$nin` of more than a few integers or strings answered by a set: SecantusDB
    compares each document found with every value of the list, in Python, so that a find of
    n ids cost n² comparisons (0.7 s for 1,000). Anything else is left to SecantusDB."""
    own = getattr(query, "_op_matches", None)
    missing = getattr(query, "MISSING", None)
    if own is None or missing is None or hasattr(own, "own"):
        return

    def by_set(values, op, arg, collation=None, *, field="", descend=True):
        if op in ("$in", "$nin") and collation is None and type(arg) is list and len(arg) > 4:
            found = _in_set(values, arg, descend, missing)
            if found is not None:
                return found if op == "$in" else not found
        return own(values, op, arg, collation, field=field, descend=descend)

    by_set.own = own
    query._op_matches = by_set


def _in_set(values: list, arg: list, descend: bool, missing: object) -> bool | None:
    """Whether a value (or an element of an array value) is one of `arg`; None where a
    value or a candidate is of a type this does not decide."""
    wanted = _wanted(arg)
    if wanted is None:
        return None
    for value in values:
        kind = type(value)
        if kind in _EXACT:
            if value in wanted:
                return True
        elif kind is list and descend:
            for element in value:
                if type(element) in _EXACT:
                    if element in wanted:
                        return True
                elif type(element) not in (list, dict):
                    return None
        elif value is not missing and kind is not dict and kind is not list:
            return None
    return False


_last: tuple = (None, None)  # (the list of the query matched last, its set): one query matches many documents


def _wanted(arg: list) -> set | None:
    """`arg` as a set, None unless every candidate is a plain integer or string."""
    global _last
    held, wanted = _last
    if held is not arg:
        wanted = set(arg) if all(type(c) in _EXACT for c in arg) else None
        _last = (arg, wanted)
    return wanted


@contextlib.contextmanager
def _stderr_held() -> Iterator[None]:
    """What is written on stderr (fd 2: WiredTiger writes there itself) held back meanwhile:
    written out if the block succeeds, dropped if it fails, for then the caller's one-line
    error says it (a folder in use gave two [ERROR] lines before it)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to hold
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        held.seek(0)
        with open(2, "wb", closefd=False) as stderr:
            stderr.write(held.read())


def _wait_for_ping(uri: str, timeout_s: float = 10.0) -> None:
    timeout_ms = int(timeout_s * 1000)
    client = pymongo.MongoClient(
        uri, directConnection=True, serverSelectionTimeoutMS=timeout_ms, connectTimeoutMS=timeout_ms
    )
    try:
        client.admin.command("ping")
    except PyMongoError as exc:
        raise EmbeddedMongoError(f"the embedded MongoDB at {uri} does not answer: {exc}") from exc
    finally:
        client.close()


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
