"""The MongoDB block index: layout, filing, moving, removing, overflow pages, bulk loads,
repair of half-filed rows, round trips. Unit tests on mongomock, the rest on SecantusDB."""

from collections import Counter, defaultdict

import pymongo
import pytest
from pymongo import monitoring
from pymongo.errors import AutoReconnect

from dedup_pipeline.blocks import BlockScheme
from dedup_pipeline.config import parse_config
from dedup_pipeline.embedded import free_port
from dedup_pipeline.store import (
    MongoStore, StoreError, block_id, connect, ensure_indexes, from_int64, open_store, to_int64)

SCHEME = BlockScheme()
FP = 0xFFFF_0003_0002_0001  # blocks, lowest first: 1, 2, 3, 65535
HIGH = 1 << 63


def problems(db, scheme=SCHEME):
    """Everything that breaks "a row is in all its blocks and nowhere else"."""
    rows = {d["_id"]: d for d in db.fingerprints.find()}
    found, out = defaultdict(set), [f"{k} is {d['state']}" for k, d in rows.items() if d["state"] != "filed"]
    pages = {d["_id"]: d.get("pages", 0) for d in db.blocks.find({"page": {"$exists": False}})}
    for doc in db.blocks.find():
        block = ":".join(doc["_id"].split(":")[:2])
        if doc.get("page", 0) > pages.get(block, 0):
            out.append(f"page {doc['_id']} is not counted in its block")
        for e in doc["info"]:
            key = f"{e['table']}:{e['row']}"
            if key not in rows or rows[key].get("fingerprint") != e["hashcode"]:
                out.append(f"stale entry of {key} in {doc['_id']}")
            found[key].add(block)
    for key, row in rows.items():
        want = set(row["keys"]) if "keys" in row else {
            block_id(t, k) for t, k in scheme.keys(from_int64(row["fingerprint"]))}
        if found[key] != want:
            out.append(f"{key} is in {sorted(found[key])}, not in {sorted(want)}")
    return out


def layout(db):
    return sorted((d["_id"], sorted(e["row"] for e in d["info"])) for d in db.blocks.find())


def rows_under(store, fingerprint):
    return sorted(e.row for entries in store.lookup(SCHEME.keys(fingerprint)) for e in entries)


class Intercepted:
    """A database whose writes first call `before(collection, method)`: it may raise, as a
    lost MongoDB would, or run another writer's change in between."""

    def __init__(self, db, before):
        self._db, self._before, self.name, self.client = db, before, db.name, db.client

    def __getitem__(self, name):
        return _InterceptedCollection(self._db[name], name, self._before)


class _InterceptedCollection:
    def __init__(self, collection, name, before):
        self._collection, self._name, self._before = collection, name, before

    def __getattr__(self, attr):
        real = getattr(self._collection, attr)
        if attr not in ("bulk_write", "update_one", "update_many", "insert_many"):
            return real

        def write(*args, **kwargs):
            self._before(self._name, attr)
            return real(*args, **kwargs)
        return write


def fail_on(collection, method, nth=1):
    calls = []

    def before(name, attr):
        if (name, attr) == (collection, method):
            calls.append(1)
            if len(calls) == nth:
                raise AutoReconnect("connection closed")
    return before


@pytest.fixture
def store(memory_db):
    return MongoStore(memory_db, SCHEME)


# -- layout and int64


@pytest.mark.parametrize("fingerprint", [0, 1, HIGH - 1, HIGH, (1 << 64) - 1])
def test_fingerprints_round_trip_through_signed_int64(fingerprint):
    assert -HIGH <= to_int64(fingerprint) < HIGH
    assert from_int64(to_int64(fingerprint)) == fingerprint


def test_a_row_is_one_entry_in_the_document_of_each_block_value(store, memory_db):
    store.file("petition", 7, FP, "c0ffee")
    docs = {d["_id"]: d for d in memory_db.blocks.find()}
    assert sorted(docs) == ["0:1", "1:2", "2:3", "3:65535"]
    assert docs["3:65535"] == {"_id": "3:65535", "block": 3, "key": 65535,
                               "info": [{"hashcode": FP - (1 << 64), "row": 7, "table": "petition"}]}
    row = memory_db.fingerprints.find_one()
    assert (row["_id"], row["row"], row["table"], row["fingerprint"], row["content"], row["state"]) == (
        "petition:7", 7, "petition", FP - (1 << 64), "c0ffee", "filed")
    assert sorted(row["blocks"]) == sorted(docs)


def test_get_returns_the_unsigned_fingerprint_and_state(store):
    store.file("petition", 7, FP, "c0ffee")
    record = store.get("petition", 7)
    assert (record.fingerprint, record.content, record.state) == (FP, "c0ffee", "filed")
    assert store.get("petition", 8) is None


def test_filing_the_same_row_twice_leaves_one_entry(store, memory_db):
    store.file("petition", 7, FP)
    store.file("petition", 7, FP)
    assert [len(d["info"]) for d in memory_db.blocks.find()] == [1, 1, 1, 1]
    assert memory_db.fingerprints.count_documents({}) == 1


def test_a_changed_fingerprint_leaves_every_old_block(store, memory_db):
    store.file("petition", 7, FP)
    moved = FP ^ 0x0000_0F00_00F0_0000  # blocks 0 and 3 unchanged, 1 and 2 new
    store.file("petition", 7, moved)
    assert rows_under(store, moved) == [7, 7, 7, 7]
    assert {d["_id"] for d in memory_db.blocks.find({"info.row": 7})} == {"0:1", "3:65535", "1:242", "2:3843"}
    assert problems(memory_db) == []
    assert sorted(store.get("petition", 7).blocks) == ["0:1", "1:242", "2:3843", "3:65535"]


def test_remove_takes_the_row_out_of_every_block_and_forgets_it(store, memory_db):
    store.file("petition", 7, FP)
    store.file("petition", 8, FP)
    assert store.remove("petition", 7) is True
    assert rows_under(store, FP) == [8, 8, 8, 8]
    assert store.get("petition", 7) is None
    assert store.remove("petition", 7) is False


def test_rows_of_two_tables_with_the_same_id_are_two_rows(store):
    store.file("petition", 7, FP)
    store.file("letter", 7, FP)
    assert sorted(e.table for entries in store.lookup([(0, 1)]) for e in entries) == ["letter", "petition"]


# -- overflow pages


def test_a_full_block_overflows_into_pages_that_lookup_reads_second(memory_db):
    store = MongoStore(memory_db, SCHEME, bucket_size=2)
    for row in range(7):
        store.file("petition", row, FP ^ row << 20)  # all share blocks 0 and 3
    first = memory_db.blocks.find_one({"_id": "0:1"})
    assert len(first["info"]) == 2 and first["pages"] == 3
    assert [len(d["info"]) for d in memory_db.blocks.find({"block": 0, "page": {"$gt": 0}})] == [2, 2, 1]
    pages = list(store.lookup([(0, 1)]))
    assert [len(p) for p in pages] == [2, 5]
    assert problems(memory_db) == []


def test_moving_and_removing_rows_of_overflow_pages(memory_db):
    store = MongoStore(memory_db, SCHEME, bucket_size=2)
    for row in range(7):
        store.file("petition", row, FP ^ row << 20)
    store.file("petition", 5, FP ^ 0xABC)  # leaves the pages of block 0
    store.remove("petition", 6)
    store.file("petition", 6, FP ^ 6 << 20)  # back, into the room the others left
    assert Counter(rows_under(store, FP)) == {0: 4, 1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3}
    assert problems(memory_db) == []


def test_a_row_already_in_an_overflow_page_is_not_filed_twice(memory_db):
    store = MongoStore(memory_db, SCHEME, bucket_size=2)
    for row in range(5):
        store.file("petition", row, FP ^ row << 20)
    store.file("petition", 4, FP ^ 4 << 20)
    assert rows_under(store, FP).count(4) == 3  # blocks 0, 2 and 3


# -- bulk loads


def test_file_many_inserts_new_rows_and_skips_unchanged_ones(store, memory_db):
    rows = [(row, FP ^ row << 24, "") for row in range(50)]
    assert store.file_many("petition", rows) == 50
    assert store.file_many("petition", rows) == 0
    assert store.file_many("petition", rows[:3] + [(3, FP ^ 0xF0F, "changed")]) == 1
    assert problems(memory_db) == []
    assert store.get("petition", 3).content == "changed"


def test_file_many_into_existing_and_overfull_blocks(memory_db):
    store = MongoStore(memory_db, SCHEME, bucket_size=4)
    store.file("petition", 100, FP)
    store.file_many("petition", [(row, FP ^ row << 20, "") for row in range(11)])
    assert Counter(rows_under(store, FP)) == {100: 4, 0: 4, **{row: 3 for row in range(1, 11)}}
    assert problems(memory_db) == []


def test_a_load_tells_which_blocks_it_created_and_holds_alone(store):
    first = store.load("petition", [(1, FP, ""), (2, FP ^ 0xFFFF, "")])  # share blocks 1-3
    assert first.created == {block_id(t, k) for t, k in SCHEME.keys(FP) + SCHEME.keys(FP ^ 0xFFFF)}
    second = store.load("petition", [(3, FP ^ 0xFFFF << 16, ""), (1, FP ^ 0xFFFF << 48, "")])
    new_block_of_3 = block_id(*SCHEME.keys(FP ^ 0xFFFF << 16)[1])
    assert second.created == {new_block_of_3}  # 3's other blocks hold 1 or 2; 1 was re-filed


def test_ensure_indexes_is_idempotent(memory_db):
    ensure_indexes(memory_db)
    ensure_indexes(memory_db)
    assert "state_1" in memory_db.fingerprints.index_information()


# -- half-filed rows (MongoDB lost mid-way) and races


def test_a_row_half_filed_when_mongodb_went_away_is_completed_by_repair(memory_db):
    broken = MongoStore(Intercepted(memory_db, fail_on("blocks", "bulk_write")), SCHEME, one_request=False)
    with pytest.raises(StoreError, match="connection closed"):
        broken.file("petition", 7, FP)
    assert memory_db.fingerprints.find_one()["state"] == "filing"
    store = MongoStore(memory_db, SCHEME)
    assert store.repair() == 1
    assert problems(memory_db) == []
    assert store.repair() == 0


def test_a_move_interrupted_half_way_is_completed_by_adding_the_row_again(memory_db):
    MongoStore(memory_db, SCHEME).file("petition", 7, FP)
    second_bulk_write_fails = Intercepted(memory_db, fail_on("blocks", "bulk_write", nth=2))
    broken = MongoStore(second_bulk_write_fails, SCHEME, one_request=False)
    with pytest.raises(StoreError):
        broken.file("petition", 7, FP ^ 0xFFFF)  # new entries in, old ones not yet pulled
    assert problems(memory_db) != []
    MongoStore(memory_db, SCHEME).file("petition", 7, FP ^ 0xFFFF)
    assert problems(memory_db) == []


def test_a_removal_interrupted_half_way_is_completed_by_repair(memory_db):
    MongoStore(memory_db, SCHEME).file("petition", 7, FP)
    broken = MongoStore(Intercepted(memory_db, fail_on("blocks", "bulk_write")), SCHEME, one_request=False)
    with pytest.raises(StoreError):
        broken.remove("petition", 7)
    store = MongoStore(memory_db, SCHEME)
    assert store.repair() == 1
    assert rows_under(store, FP) == [] and store.get("petition", 7) is None


def test_a_writer_overtaken_by_another_cleans_up_after_itself(memory_db):
    other = MongoStore(memory_db, SCHEME)
    later = FP ^ 0x00F0_00F0_00F0_00F0  # every block differs

    def overtake(name, method):
        if (name, method) == ("blocks", "bulk_write") and other.get("petition", 7).fingerprint != later:
            other.file("petition", 7, later)  # lands between this writer's journal and its entries

    MongoStore(Intercepted(memory_db, overtake), SCHEME, one_request=False).file("petition", 7, FP)
    assert problems(memory_db) == []
    assert other.get("petition", 7).fingerprint == later  # the last to journal wins


def test_file_many_after_a_failed_load_completes_the_rows(memory_db):
    broken = MongoStore(Intercepted(memory_db, fail_on("blocks", "insert_many")), SCHEME)
    rows = [(row, FP ^ row << 24, "") for row in range(20)]
    with pytest.raises(StoreError):
        broken.file_many("petition", rows)
    MongoStore(memory_db, SCHEME).file_many("petition", rows)
    assert problems(memory_db) == []


# -- against a real server (SecantusDB over TCP)


class Commands(monitoring.CommandListener):
    def __init__(self):
        self.names = []

    def started(self, event):
        self.names.append(event.command_name)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


@pytest.fixture
def counted(mongo_uri, mongo_db):
    """A store on a client whose commands are counted, after a warm-up."""
    commands = Commands()
    client = pymongo.MongoClient(mongo_uri, event_listeners=[commands])
    store = MongoStore(client[mongo_db.name], SCHEME)
    store.file("petition", 0, 0)
    commands.names.clear()
    yield store, commands
    client.close()


def test_a_new_row_is_one_bulk_write_command(counted):
    store, commands = counted
    store.file("petition", 7, FP)
    assert commands.names == ["bulkWrite"]
    assert store.one_request


def test_a_lookup_is_one_find(counted):
    store, commands = counted
    store.file("petition", 7, FP)
    commands.names.clear()
    assert rows_under(store, FP) == [7, 7, 7, 7]
    assert commands.names == ["find"]


def test_both_write_paths_leave_the_same_documents(mongo_client, mongo_db):
    other = mongo_client[mongo_db.name + "_b"]
    try:
        for db, one_request in ((mongo_db, True), (other, False)):
            store = MongoStore(db, SCHEME, bucket_size=2, one_request=one_request)
            for row in range(5):
                store.file("petition", row, FP ^ row << 20)
            store.file("petition", 1, FP ^ 0xF0F0)
            store.remove("petition", 2)
        assert problems(mongo_db) == problems(other) == []
        assert layout(mongo_db) == layout(other)
    finally:
        mongo_client.drop_database(other.name)


def test_unreachable_mongodb_fails_fast_naming_the_host_password_masked():
    port = free_port()
    with pytest.raises(StoreError) as error, connect(f"mongodb://app:hunter22@127.0.0.1:{port}/"):
        pass
    assert f"mongodb://app:***@127.0.0.1:{port}/" in str(error.value)
    assert "hunter22" not in str(error.value)


def _config(tmp_path, **store):
    return parse_config({"source": {"url": "sqlite:///x.db", "table": "petition"}, "fields": {"content": "long"},
                         "store": {"data_dir": str(tmp_path), **store}}, env={})


def test_without_a_uri_the_embedded_store_keeps_its_data_across_runs(tmp_path):
    with open_store(_config(tmp_path)) as store:
        store.file("petition", 7, FP)
    with open_store(_config(tmp_path)) as store:
        assert rows_under(store, FP) == [7, 7, 7, 7]
    assert (tmp_path / "mongo").is_dir()


def test_with_a_uri_the_store_uses_that_mongodb(tmp_path, mongo_uri, mongo_db):
    with open_store(_config(tmp_path, mongo_uri=mongo_uri, database=mongo_db.name)) as store:
        store.file("petition", 7, FP)
    assert mongo_db.fingerprints.count_documents({}) == 1
    assert "state_1" in mongo_db.fingerprints.index_information()
    assert not (tmp_path / "mongo").exists()
