import os
import random
import subprocess
import sys

import pymongo
import pytest
from pymongo import UpdateOne

from dedup_pipeline.store.embedded import EmbeddedMongo, EmbeddedMongoError, _stderr_held, free_port
from dedup_pipeline.store.secantus_patches import max_record_id


def test_data_persists_across_stop_and_start(tmp_path):
    with EmbeddedMongo().start(tmp_path) as mongo:
        with pymongo.MongoClient(mongo.uri) as client:
            client.dedup.fingerprints.insert_one({"_id": 7, "fp": -(2**63)})
            client.dedup.fingerprints.create_index([("table", 1), ("row", 1)], unique=True)

    with EmbeddedMongo().start(tmp_path) as mongo:
        with pymongo.MongoClient(mongo.uri) as client:
            assert client.dedup.fingerprints.find_one({"_id": 7}) == {"_id": 7, "fp": -(2**63)}
            assert "table_1_row_1" in client.dedup.fingerprints.index_information()


def test_two_servers_pick_different_free_ports(tmp_path):
    with (
        EmbeddedMongo().start(tmp_path / "a") as first,
        EmbeddedMongo().start(tmp_path / "b") as second,
    ):
        assert first.port != second.port
        assert first.host == second.host == "127.0.0.1"
        for mongo in (first, second):
            with pymongo.MongoClient(mongo.uri) as client:
                assert client.admin.command("ping")["ok"] == 1


def test_start_on_a_chosen_port(tmp_path):
    port = free_port()
    with EmbeddedMongo().start(tmp_path, port=port) as mongo:
        assert mongo.uri == f"mongodb://127.0.0.1:{port}/"


def test_refuses_a_non_loopback_host(tmp_path):
    with pytest.raises(EmbeddedMongoError, match="loopback"):
        EmbeddedMongo().start(tmp_path, host="0.0.0.0")


def test_refuses_a_data_folder_already_in_use(tmp_path):
    with EmbeddedMongo().start(tmp_path):
        with pytest.raises(EmbeddedMongoError, match="another server"):
            EmbeddedMongo().start(tmp_path)


def test_stop_is_idempotent_and_uri_needs_a_running_server(tmp_path):
    mongo = EmbeddedMongo().start(tmp_path)
    mongo.stop()
    mongo.stop()
    with pytest.raises(EmbeddedMongoError, match="not running"):
        mongo.uri


def test_bulk_upserts_with_add_to_set_and_id_in_lookup(mongo_db):
    blocks = mongo_db.blocks

    def file_row(row, fingerprint, keys):
        entry = {"hashcode": fingerprint, "row": row, "table": "petition"}
        return [
            UpdateOne(
                {"_id": f"{block}:{key}"},
                {"$addToSet": {"info": entry}, "$setOnInsert": {"block": block, "key": key}},
                upsert=True,
            )
            for block, key in enumerate(keys)
        ]

    result = blocks.bulk_write(file_row(1, -5, [10, 20, 30, 40]), ordered=False)
    assert result.upserted_count == 4
    blocks.bulk_write(file_row(2, 6, [10, 21, 31, 41]), ordered=False)
    blocks.bulk_write(file_row(1, -5, [10, 20, 30, 40]), ordered=False)  # a re-run adds nothing

    found = {d["_id"]: d for d in blocks.find({"_id": {"$in": ["0:10", "1:20", "2:99", "3:41"]}})}
    assert sorted(found) == ["0:10", "1:20", "3:41"]
    assert found["0:10"]["block"] == 0 and found["0:10"]["key"] == 10
    assert [e["row"] for e in found["0:10"]["info"]] == [1, 2]
    assert [e["row"] for e in found["1:20"]["info"]] == [1]
    assert found["3:41"]["info"] == [{"hashcode": 6, "row": 2, "table": "petition"}]


def test_mongo_db_starts_empty(mongo_db):
    assert mongo_db.list_collection_names() == []


def test_a_data_folder_in_use_by_another_process_is_refused_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    with EmbeddedMongo().start(tmp_path / "dedup-data" / "mongo"):
        done = subprocess.run([sys.executable, "-m", "dedup_pipeline", "check", "--text", "小区物业乱收费"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is another server using it?" in done.stderr and "[ERROR]" not in done.stderr


def test_what_is_written_on_stderr_while_a_server_opens_is_kept_when_it_opens(capfd):
    with _stderr_held():
        os.write(2, b"WiredTiger: recovery done\n")
    assert capfd.readouterr().err == "WiredTiger: recovery done\n"


def data_bytes(folder):
    return sum(f.stat().st_size for f in folder.iterdir() if f.name.startswith("secantus_"))


def test_compact_gives_the_space_of_dropped_collections_back(tmp_path):
    with EmbeddedMongo().start(tmp_path) as server:
        client = pymongo.MongoClient(server.uri)
        db = client.nightly
        for night in range(4):  # a generation a night, the one before dropped
            db[f"generation{night}"].insert_many([{"n": n, "data": os.urandom(1000)} for n in range(2000)])
            for other in range(32):  # collections kept, after it in the files SecantusDB shares
                db[f"kept{night}_{other}"].insert_one({"data": os.urandom(1000)})
            if night:
                db.drop_collection(f"generation{night - 1}")
            server._server.storage.checkpoint()
        grown = data_bytes(tmp_path)
        assert server.compact()
        assert data_bytes(tmp_path) < grown * 0.6
        assert db.generation3.count_documents({}) == 2000
        client.close()


def test_a_restart_finds_the_largest_record_id_as_secantusdb_s_own_scan_does(tmp_path):
    """A start seeks the largest RecordId a collection at a time (max_record_id) in place of
    SecantusDB's walk over every document: the same answer with several collections in one
    shard, the largest RecordId in neither its first nor its last, the last documents of
    one deleted and another dropped."""
    from secantus.storage import Storage, _doc_table_for

    names = [f"c{n}" for n in range(200)]
    shard = max({_doc_table_for("dedup", c) for c in names}, key=lambda t: sum(_doc_table_for("dedup", c) == t for c in names))
    shared = sorted(c for c in names if _doc_table_for("dedup", c) == shard)[:4]
    assert len(shared) == 4
    with EmbeddedMongo().start(tmp_path) as mongo:
        with pymongo.MongoClient(mongo.uri) as client:
            client.other.c0.insert_one({"_id": 1})
            for n, name in enumerate([shared[3], shared[0], shared[2], shared[1], *names[-5:]]):
                client.dedup[name].insert_many([{"_id": i, "n": n} for i in range(5)])
            client.dedup[shared[2]].drop()
            client.dedup[shared[1]].insert_many([{"_id": i, "n": "last"} for i in range(5, 9)])
            client.dedup[shared[1]].delete_many({"_id": {"$gte": 7}})
    with EmbeddedMongo().start(tmp_path) as mongo:
        storage = mongo._server.storage
        assert Storage._scan_max_nat_seq is max_record_id  # what this start ran
        assert max_record_id(storage) == _walked(storage) > 0
        with pymongo.MongoClient(mongo.uri) as client:
            client.dedup[shared[0]].insert_one({"_id": "after"})  # a RecordId minted after the largest
            assert client.dedup[shared[0]].count_documents({}) == 6
            assert client.dedup[shared[1]].count_documents({"n": "last"}) == 2


def _walked(storage):
    """The largest RecordId by SecantusDB's own walk over every document."""
    from secantus.storage import _DOC_SHARDS, _doc_shard_name

    largest = 0
    for shard in range(_DOC_SHARDS):
        cursor = storage._cursor_optional(_doc_shard_name(shard))
        if cursor is None:
            continue
        cursor.reset()
        while cursor.prev() == 0:
            largest = max(largest, int(cursor.get_keys()[2]))
        cursor.reset()
    return largest


def test_in_and_nin_by_set_match_as_secantusdb_s_own_comparison_does(tmp_path):
    from bson.decimal128 import Decimal128
    from bson.int64 import Int64
    from secantus import query

    with EmbeddedMongo().start(tmp_path):
        by_set = query._op_matches
    assert by_set.own is not by_set  # the pinned SecantusDB is as the patch expects it
    rng = random.Random(5)
    scalars = [0, 1, 7, -3, Int64(7), Int64(2**40), 2**40, "7", "a", "was 7", "", True, False, 1.0, 7.0,
               float("nan"), None, Decimal128("7")]

    def value():
        kind = rng.random()
        if kind < 0.6:
            return rng.choice(scalars)
        if kind < 0.8:
            return [value() for _ in range(rng.randrange(4))]
        return query.MISSING if kind < 0.9 else {"a": rng.choice(scalars)}

    for _ in range(3000):
        values = [value() for _ in range(rng.randrange(1, 3))]
        plain = [c for c in scalars if type(c) in (int, Int64, str)]
        arg = rng.sample(plain, rng.randrange(5, len(plain))) + ([rng.choice(scalars)] if rng.random() < 0.2 else [])
        for op in ("$in", "$nin"):
            for descend in (True, False):
                assert by_set(values, op, arg, descend=descend) == by_set.own(values, op, arg, descend=descend), \
                    (values, op, arg, descend)


def test_a_find_of_many_ids_answers_as_one_of_few(mongo_db):
    mongo_db.rows.insert_many([{"_id": f"petition:{n}", "n": n, "keys": [n, n + 1]} for n in range(300)])
    wanted = [f"petition:{n}" for n in range(0, 600, 2)]
    assert sorted(d["n"] for d in mongo_db.rows.find({"_id": {"$in": wanted}})) == list(range(0, 300, 2))
    assert sorted(d["n"] for d in mongo_db.rows.find({"keys": {"$in": list(range(100, 110))},
                                                      "_id": {"$nin": wanted}})) == [99, 101, 103, 105, 107, 109]


def test_index_options_are_read_once_a_chunk_and_never_kept_past_it(mongo_db, monkeypatch):
    from secantus import storage

    read = []
    own = storage.Storage._iter_indexes  # what the options map is read from, the catalog
    monkeypatch.setattr(storage.Storage, "_iter_indexes", lambda self, db, coll: read.append(coll) or own(self, db, coll))
    mongo_db.rows.create_index("fresh", sparse=True)
    mongo_db.rows.insert_many([{"_id": n, "fresh": [n]} for n in range(500)])
    assert 0 < read.count("rows") < 20  # SecantusDB's own read it three times a document
    mongo_db.rows.create_index("code", unique=True, partialFilterExpression={"code": {"$exists": True}})
    mongo_db.rows.insert_one({"_id": 500, "code": 1})
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        mongo_db.rows.insert_one({"_id": 501, "code": 1})  # the index made since is obeyed
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        mongo_db.rows.update_many({"_id": {"$lt": 300}}, {"$set": {"code": 2}})
    assert mongo_db.rows.count_documents({"code": 2}) == 1  # the unique index stopped the update at its second


def test_integer_index_keys_are_secantusdb_s_own_bytes(tmp_path):
    from bson.int64 import Int64
    from secantus import sortkey

    with EmbeddedMongo().start(tmp_path):
        by_digits = sortkey._encode_number
    assert by_digits.own is not by_digits  # the pinned SecantusDB is as the patch expects it
    rng = random.Random(3)
    values = [0, 1, -1, 9, 10, -10, 99, 100, 101, 1200, -1200, 2**63 - 1, -2**63, 10**99, -10**99, 10**100,
              -10**130, True, False, 1.5, -0.0, 1e300, float("nan"), float("inf")]
    values += [rng.choice([1, -1]) * rng.randrange(10 ** rng.randrange(1, 20)) for _ in range(20000)]
    values += [Int64(v) for v in values[-2000:]] + [rng.getrandbits(64) - 2**63 for _ in range(5000)]
    for value in values:
        assert by_digits(value) == by_digits.own(value), value
    keys = sorted(values[24:], key=by_digits)
    assert keys == sorted(values[24:])  # byte order is numeric order


def test_an_arrays_index_keys_are_secantusdb_s_own_keys_in_its_order(tmp_path):
    from bson.int64 import Int64
    from secantus import storage, sortkey

    with EmbeddedMongo().start(tmp_path):
        variants = storage._index_key_variants
    assert variants.own is not variants  # the pinned SecantusDB is as the patch expects it
    rng = random.Random(7)
    plain = [0, 1, -1, 7, Int64(7), 2**63 - 1, -2**63, "fresh", "was 7", "", "a\x00b", "好"]
    odd = [True, 1.5, None, [1], {"a": 1}, b"\x00"]
    dropped = 0
    for _ in range(3000):
        value = [rng.choice(plain) if rng.random() < 0.9 else rng.getrandbits(64) - 2**63
                 for _ in range(rng.randrange(6))]
        if rng.random() < 0.1:
            value.append(rng.choice(odd))
        for field in ("fresh", "tags"):
            doc = {"_id": 1, field: value} if rng.random() < 0.9 else {"_id": 1}
            for spec in ({field: 1}, {field: -1}, {field: 1, "b": 1}):
                for sparse in (True, False):
                    own = variants.own(doc, spec, sparse=sparse)
                    if spec == {"fresh": 1} and "fresh" in doc and value and all(type(v) in (int, Int64, str) for v in value):
                        assert own[-1] == sortkey.encode_value(value)  # the whole array's, dropped
                        own, dropped = own[:-1], dropped + 1
                    assert variants(doc, spec, sparse=sparse) == own, (doc, spec)
    assert dropped > 1000


def _entries(mongo, coll):
    """Each (key, record id) of `coll`'s `fresh_1` index."""
    from secantus import storage

    rows = mongo._server.storage._collect_prefix(storage._IDX_ENTRIES_TABLE, ("d", coll))
    return {storage._unpack_entry(bytes(k[3])) for k, _ in rows if k[2] == "fresh_1"}


def test_an_element_keyed_field_is_indexed_by_its_elements_alone(tmp_path):
    from secantus import sortkey, storage

    with EmbeddedMongo().start(tmp_path) as mongo, pymongo.MongoClient(mongo.uri) as client:
        for name in ("rows", "others"):
            client.d[name].create_index("fresh" if name == "rows" else "tags", sparse=True)
        client.d.rows.insert_many([{"_id": 1, "fresh": ["fresh", 7, 8]}, {"_id": 2, "fresh": [7, [8]]}])
        client.d.others.insert_one({"_id": 1, "tags": ["fresh", 7, 8]})
        arrays = {key for key, _ in _entries(mongo, "rows") if key[:1] == bytes([sortkey.RANK_ARRAY])}
        others = mongo._server.storage._collect_prefix(storage._IDX_ENTRIES_TABLE, ("d", "others"))
    assert arrays == {sortkey._escape(sortkey.encode_value([8])), sortkey._escape(sortkey.encode_value([7, [8]]))}
    assert any(bytes(k[3]).startswith(sortkey._escape(sortkey.encode_value(["fresh", 7, 8]))) for k, _ in others)


def test_a_query_comparing_an_element_keyed_field_with_arrays_finds_what_a_scan_finds(tmp_path):
    rng = random.Random(23)
    values = [0, 1, 2, "fresh", "was 1"]

    def array():
        return [rng.choice(values) if rng.random() < 0.9 else [rng.choice(values)] for _ in range(rng.randrange(4))]

    docs = [{"_id": n, "fresh": array()} if rng.random() < 0.9 else {"_id": n} for n in range(300)]
    with EmbeddedMongo().start(tmp_path) as mongo, pymongo.MongoClient(mongo.uri) as client:
        client.d.rows.create_index("fresh", sparse=True)
        client.d.rows.insert_many(docs)
        client.d.scan.insert_many(docs)  # no index: every query a collection scan
        assert client.d.rows.find({"fresh": 1}).explain()["queryPlanner"]["winningPlan"] != "COLLSCAN"
        found = 0
        for _ in range(300):
            operand = array() if rng.random() < 0.7 else rng.choice(values)
            clause = rng.choice([operand, {"$in": [operand, rng.choice(values)]}, {"$gte": operand},
                                 {"$lt": operand}, {"$ne": operand}, {"$all": [operand]}])
            query = rng.choice([{"fresh": clause}, {"$and": [{"fresh": clause}, {"_id": {"$lt": 200}}]}])
            ours = [d["_id"] for d in client.d.rows.find(query).sort("_id", 1)]
            assert ours == [d["_id"] for d in client.d.scan.find(query).sort("_id", 1)], query
            found += len(ours)
    assert found > 1000


def test_a_rewrite_removes_the_whole_array_entry_a_store_kept_before(tmp_path):
    from secantus import storage, sortkey

    with EmbeddedMongo().start(tmp_path) as mongo, pymongo.MongoClient(mongo.uri) as client:
        client.d.rows.create_index("fresh", sparse=True)
        client.d.rows.insert_many([{"_id": n, "fresh": ["fresh", 100 + n]} for n in range(4)])
        ids = {key: row for key, row in _entries(mongo, "rows")}
        server = mongo._server.storage
        cursor = server._cursor(storage._IDX_ENTRIES_TABLE)
        for n in range(4):  # as a version before wrote them
            whole = sortkey.encode_value(["fresh", 100 + n])
            cursor[("d", "rows", "fresh_1", storage._pack_entry(whole, ids[sortkey._escape(sortkey.encode_value(100 + n))]))] = b""
        client.d.rows.replace_one({"_id": 0}, {"fresh": ["fresh", 200]})
        client.d.rows.update_one({"_id": 1}, {"$unset": {"fresh": ""}})
        client.d.rows.delete_one({"_id": 2})
        left = _entries(mongo, "rows")
    assert {sortkey._escape(sortkey.encode_value(v)) for v in ("fresh", 200, 103)} | {
        sortkey._escape(sortkey.encode_value(["fresh", 103]))} == {key for key, _ in left}


def test_wiredtiger_s_keys_are_packed_and_unpacked_as_its_binding_does(tmp_path):
    import wiredtiger

    with EmbeddedMongo().start(tmp_path):
        binding = sys.modules[wiredtiger.Cursor.__module__]
    pack, unpack = binding.pack, binding.unpack
    assert pack.own is not pack and unpack.own is not unpack  # the pinned binding is as the patch expects it
    rng = random.Random(11)
    values = {"S": ["", "rows", "好", "a\x00b", b"raw"], "u": [b"", b"\x00\x00", bytes(range(256)), "text"],
              "q": [0, 1, -1, 63, 64, 8191, 8192, 8193, -64, -65, -8257, 2**63 - 1, -2**63, True]}
    for _ in range(20000):
        fmt = "".join(rng.choice("SSSuuq") for _ in range(rng.randrange(1, 5)))
        args = [rng.choice(values[c]) if rng.random() < 0.5 or c != "q" else rng.getrandbits(64) - 2**63 for c in fmt]
        assert outcome(pack, fmt, *args) == outcome(pack.own, fmt, *args), (fmt, args)
        data = outcome(pack.own, fmt, *args)
        if type(data) is bytes:
            assert unpack(fmt, data) == unpack.own(fmt, data), (fmt, data)
            assert outcome(unpack, fmt, data[:-1]) == outcome(unpack.own, fmt, data[:-1]), (fmt, data)
    assert pack("QQ", 1, 2) == pack.own("QQ", 1, 2) and unpack("QQ", b"\x81\x82") == unpack.own("QQ", b"\x81\x82")


def outcome(function, *args, **kwargs):
    """What a call returns, or the error it raises."""
    try:
        return function(*args, **kwargs)
    except Exception as e:
        return type(e), str(e)


def test_a_replacement_is_applied_as_secantusdb_applies_it(tmp_path):
    import bson
    from bson.int64 import Int64
    from secantus import storage

    with EmbeddedMongo().start(tmp_path):
        applied = storage.apply_update
    assert applied.own is not applied  # the pinned SecantusDB is as the patch expects it
    rng = random.Random(13)
    values = ["fresh", "", 0, 7, Int64(-7), 2**62, 1.5, True, None, b"\x00keys", [], ["fresh", 1, Int64(2)],
              [1, [2]], {"a": 1}, [{"a": 1}]]
    ids = ["p:1", "p:2", 1, Int64(1), 1.0]
    for _ in range(3000):
        doc = {"_id": rng.choice(ids), "old": rng.choice(values)}
        update = {rng.choice(["_id", "row", "fresh", "keys", "$set", "a.b"]): rng.choice(values + ids)
                  for _ in range(rng.randrange(4))}
        upsert = rng.random() < 0.1
        ours, theirs = outcome(applied, doc, update, is_upsert=upsert), outcome(applied.own, doc, update, is_upsert=upsert)
        assert ours == theirs and (type(ours) is tuple or bson.encode(ours) == bson.encode(theirs)), (doc, update)
        if type(ours) is dict:
            for value in update.values():
                if type(value) is list:
                    value.append("changed after")  # the request's lists, not the document's
            assert bson.encode(ours) == bson.encode(theirs), (doc, update)


def test_an_entry_set_by_key_is_the_binding_s_own(tmp_path):
    import wiredtiger

    with EmbeddedMongo().start(tmp_path / "mongo"):
        cursor_type = sys.modules[wiredtiger.Cursor.__module__].Cursor
    inserted = cursor_type.__setitem__
    assert inserted.own is not inserted  # the pinned binding is as the patch expects it
    connection = wiredtiger.wiredtiger_open(str(tmp_path), "create")
    session = connection.open_session()
    tables = {}
    for way in ("ours", "theirs"):
        for fmt, value_format in (("SSSu", "u"), ("q", "S"), ("S", "uq")):
            session.create(f"table:{way}{len(fmt)}", f"key_format={fmt},value_format={value_format}")
            tables[way, fmt] = session.open_cursor(f"table:{way}{len(fmt)}", None, "overwrite=false")
    rng = random.Random(17)
    cases = {"SSSu": lambda: (("dedup", "rows", "fresh_1", rng.randbytes(rng.randrange(3))), b""),
             "q": lambda: (rng.randrange(-3, 3), rng.choice(["a", "", "好"])),
             "S": lambda: (rng.choice(["a", "b"]), (rng.randbytes(2), rng.randrange(9)))}
    for _ in range(2000):
        fmt = rng.choice(list(cases))
        key, value = cases[fmt]()
        if rng.random() < 0.05:
            value = 7  # of the wrong type
        ours = outcome(inserted, tables["ours", fmt], key, value)
        assert ours == outcome(inserted.own, tables["theirs", fmt], key, value), (fmt, key, value)
    for fmt in cases:
        contents = [list(tables[way, fmt]) for way in ("ours", "theirs")]
        for cursor in (tables["ours", fmt], tables["theirs", fmt]):
            cursor.reset()
        assert contents[0] == contents[1] and contents[0]
    connection.close()


def test_an_index_s_entries_under_a_key_are_those_secantusdb_finds(tmp_path):
    from secantus import sortkey

    rng = random.Random(19)
    values = [0, 1, -1, 7, 2**40, -2**62, "fresh", "was 7", "", "a\x00b", "好", 1.5, None, True]
    with EmbeddedMongo().start(tmp_path) as mongo, pymongo.MongoClient(mongo.uri) as client:
        for name in ("rows", "rows2"):  # a neighbour's entries must not be taken for this one's
            client.d[name].create_index("fresh", sparse=True)
            client.d[name].create_index([("a", 1), ("b", -1)])
            client.d[name].insert_many([{"fresh": [rng.choice(values) for _ in range(rng.randrange(5))],
                                         "a": rng.choice(values), "b": rng.choice(values)} for _ in range(400)])
        server = mongo._server.storage
        probed = type(server)._scan_index_for_id_keys
        assert probed.own is not probed  # the pinned SecantusDB is as the patch expects it
        assert set(client.d.rows.index_information()) == {"_id_", "fresh_1", "a_1_b_-1"}
        found = 0
        for _ in range(1500):
            value = rng.choice(values) if rng.random() < 0.9 else rng.getrandbits(64) - 2**63
            kb = sortkey.encode_value(value)
            kb = kb[:rng.randrange(len(kb) + 1)] if rng.random() < 0.2 else kb
            for name, prefix in (("fresh_1", False), ("fresh_1", True), ("a_1_b_-1", True), ("none", False)):
                ours = probed(server, "d", "rows", name, kb, prefix=prefix)
                assert ours == probed.own(server, "d", "rows", name, kb, prefix=prefix), (value, kb, name, prefix)
                found += len(ours)
        assert found > 10_000


def test_a_new_store_writes_its_index_entries_with_their_common_prefixes_once_a_page(tmp_path):
    with EmbeddedMongo().start(tmp_path) as mongo:
        session = mongo._server.storage._conn.open_session()
        metadata = session.open_cursor("metadata:", None, None)
        settings = {key: metadata[key] for key in ("file:secantus_index_entries.wt", "file:secantus_indexes.wt")}
        metadata.close()
        session.close()
    assert "prefix_compression=true" in settings["file:secantus_index_entries.wt"]
    assert "prefix_compression=false" in settings["file:secantus_indexes.wt"]  # the others as SecantusDB makes them


def test_a_write_guarded_by_its_id_and_fields_matches_only_while_they_hold(mongo_db):
    mongo_db.rows.create_index("fresh", sparse=True)
    mongo_db.rows.insert_many([{"_id": "p:1", "fingerprint": 5}, {"_id": "p:2", "fingerprint": 6, "fresh": [9]}])
    guarded = {"_id": "p:1", "fingerprint": 5, "fresh": {"$exists": False}}
    assert mongo_db.rows.replace_one({**guarded, "fingerprint": 4}, {"fingerprint": 0}).matched_count == 0
    assert mongo_db.rows.replace_one({**guarded, "_id": "p:2", "fingerprint": 6}, {"n": 0}).matched_count == 0
    assert mongo_db.rows.replace_one(guarded, {"fingerprint": 7}).matched_count == 1
    assert mongo_db.rows.delete_one({"_id": "p:2", "fresh": 8}).deleted_count == 0
    assert mongo_db.rows.delete_one({"_id": "p:2", "fresh": 9}).deleted_count == 1
    assert list(mongo_db.rows.find()) == [{"_id": "p:1", "fingerprint": 7}]



def test_a_write_guarded_by_its_id_and_an_element_keyed_array_reads_only_its_document(tmp_path, monkeypatch):
    from secantus import storage

    scanned = []
    own = storage.Storage._scan_docs
    monkeypatch.setattr(storage.Storage, "_scan_docs", lambda self, *a, **k: scanned.append(a) or own(self, *a, **k))
    with EmbeddedMongo().start(tmp_path) as mongo, pymongo.MongoClient(mongo.uri) as client:
        client.d.rows.create_index("fresh", sparse=True)
        client.d.rows.insert_many([{"_id": n, "fresh": ["fresh", n, n + 1]} for n in range(50)])
        scanned.clear()
        assert client.d.rows.replace_one({"_id": 7, "fresh": ["fresh", 7, 9]}, {"n": 0}).matched_count == 0
        assert client.d.rows.replace_one({"_id": 7, "fresh": ["fresh", 7, 8]}, {"n": 1}).matched_count == 1
        assert scanned == []
        assert [d["_id"] for d in client.d.rows.find({"fresh": ["fresh", 8, 9]})] == [8]  # no _id: a scan
        assert scanned != []


def test_a_pipeline_s_literals_are_data_its_expressions_still_checked(mongo_db):
    from secantus import aggregate

    bad_zone = {"$dateToString": {"date": "$at", "timezone": "Bad/Zone"}}
    assert aggregate._literal_timezone_problem({"$literal": bad_zone}) is None  # data, as mongod reads it
    assert aggregate._literal_timezone_problem({"$concat": ["a", {"$literal": bad_zone}]}) is None
    assert aggregate._literal_timezone_problem({"$concat": ["a", bad_zone]}) is not None
    assert aggregate._expression_shape_problem({"$literal": {"$add": []}}) is None
    assert aggregate._expression_shape_problem({"$concat": [{"$add": [1, 2, 3]}, {"$year": {}}]}) is not None
    rows = mongo_db.literals
    rows.insert_one({"_id": 1, "keys": [1, 2]})
    keys = list(range(-(2**40), -(2**40) + 30))
    rows.update_one({"_id": 1}, [{"$replaceWith": {"keys": {"$literal": keys},
                                                   "fresh": {"$setUnion": [{"$literal": keys}, "$keys"]}}}])
    doc = rows.find_one({"_id": 1})
    assert doc["keys"] == keys and sorted(doc["fresh"]) == sorted({*keys, 1, 2})
    with pytest.raises(pymongo.errors.OperationFailure, match="Bad/Zone"):
        rows.update_one({"_id": 1}, [{"$set": {"day": {"$dateToString": {"date": "$$NOW", "timezone": "Bad/Zone"}}}}])


def test_every_patch_is_applied_once_a_server_has_started(mongo_uri):
    from dedup_pipeline.store import secantus_patches

    assert secantus_patches.unpatched() == []


def test_another_secantusdb_version_is_refused_in_one_line(monkeypatch):
    from dedup_pipeline.store import secantus_patches

    monkeypatch.setattr(secantus_patches.metadata, "version", lambda name: "0.8.0")
    with pytest.raises(secantus_patches.VersionError) as refused:
        secantus_patches.check_versions()
    message = str(refused.value)
    assert "\n" not in message
    assert "SecantusDB 0.8.0" in message and f"SecantusDB=={secantus_patches.SECANTUS_VERSION}" in message


def test_the_pinned_versions_are_the_installed_ones():
    from dedup_pipeline.store import secantus_patches

    secantus_patches.check_versions()  # the test environment installs what pyproject.toml pins
