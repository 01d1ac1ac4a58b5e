"""SecantusDB made fast enough for the block index: patches of its private functions and of
WiredTiger's Python binding, each the same answers by a shorter way (each says which, and
what it saved). They reach into internals that any release may change, so they are applied
all or none, to the exact versions they are tested with (PINNED): another version is refused
in one line, never patched halfway or left slow without a word. `apply()` runs in the
server's process before it opens its folder; tests/test_embedded.py compares each patch
with the library's own function."""

from __future__ import annotations

import sys
import threading
from importlib import metadata
from typing import Callable, Mapping

from bson.int64 import Int64

# The releases these patches are written for and tested with: pyproject.toml pins the same.
SECANTUS_VERSION = "0.7.0b3"
WIREDTIGER_VERSION = (11, 2, 0)  # the binding SecantusDB's wheel ships


class VersionError(RuntimeError):
    """The installed SecantusDB is not the one the patches are written for."""


def check_versions() -> None:
    """Refuse (VersionError, one line) a SecantusDB or WiredTiger other than the pinned."""
    import wiredtiger

    found = metadata.version("SecantusDB")
    wired = tuple(wiredtiger.wiredtiger_version()[1:4])
    if found != SECANTUS_VERSION or wired != WIREDTIGER_VERSION:
        raise VersionError(
            f"SecantusDB {found} (WiredTiger {'.'.join(map(str, wired))}) is installed, but this dedup-pipeline "
            f"runs the embedded store on SecantusDB {SECANTUS_VERSION} only: "
            f"pip install 'SecantusDB=={SECANTUS_VERSION}' (or set DEDUP_MONGO_URI to use a MongoDB server)")


def apply() -> None:
    """Check the versions, then patch every target once (idempotent); raise if any is left
    unpatched."""
    from secantus import aggregate, query, sortkey, storage
    import wiredtiger

    check_versions()
    swig = sys.modules[wiredtiger.Cursor.__module__]
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
    _patch_packing(swig)
    _patch_inserts(swig)
    _patch_index_table(swig, storage)
    missing = unpatched()
    if missing:
        raise VersionError(f"SecantusDB {metadata.version('SecantusDB')}: cannot patch {', '.join(missing)}; "
                           f"pip install 'SecantusDB=={SECANTUS_VERSION}'")


def unpatched() -> list[str]:
    """The targets `apply` patches that are not patched now."""
    from secantus import aggregate, query, sortkey, storage
    import wiredtiger

    swig = sys.modules[wiredtiger.Cursor.__module__]
    kind = storage.Storage
    targets = {
        "Storage._index_options_map": kind._index_options_map, "query._op_matches": query._op_matches,
        "sortkey._encode_number": sortkey._encode_number, "storage._index_key_variants": storage._index_key_variants,
        "Storage._delete_index_entries": kind._delete_index_entries, "Storage._try_index_id_keys": kind._try_index_id_keys,
        "storage.apply_update": storage.apply_update, "Storage._scan_index_for_id_keys": kind._scan_index_for_id_keys,
        "wiredtiger pack": swig.pack, "wiredtiger unpack": swig.unpack, "Cursor.__setitem__": swig.Cursor.__setitem__,
        "Session.create": swig.Session.create,
        **{f"aggregate.{name}": getattr(aggregate, name, None) for name in _LITERAL_WALKS}}
    missing = [name for name, target in targets.items() if not hasattr(target, "own")]
    return missing + ([] if kind._scan_max_nat_seq is max_record_id else ["Storage._scan_max_nat_seq"])


# The fields the store asks of by element alone (a fresh row's keys, `$in`): their index
# keeps no entry for each whole array, which SecantusDB adds to answer an equality with an
# array. That entry was 472 of a fresh row's 1,100 bytes of index, written and never read.
ELEMENT_KEYED = frozenset({"fresh"})


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


_held = threading.local()  # each server thread's lists matched lately and their sets


def _wanted(arg: list) -> set | None:
    """`arg` as a set, None unless every candidate is a plain integer or string. A query
    matches many documents, each with each of its lists (a row's keys `$in` and the rows
    asking `$nin`), so the last few lists' sets are kept, by identity."""
    lately = getattr(_held, "lately", None)
    if lately is None:
        lately = _held.lately = []
    for held, wanted in lately:
        if held is arg:
            return wanted
    wanted = set(arg) if all(type(c) in _EXACT for c in arg) else None
    lately.insert(0, (arg, wanted))
    del lately[4:]
    return wanted
