"""The block index: a document per row, keys filed in bucket documents by the batch and in
`fresh` since, stale entries skipped; one write per change; round trips; int64; and what a
batch asks of a store (what it holds, its generations, its lease). On SecantusDB
(MongoStore), and the same spec on the in-memory store (`memory_store`: one of its databases)."""

import numpy as np
import pymongo
import pytest

from dedup_pipeline.store import index, results
from dedup_pipeline.config import parse_config
from dedup_pipeline.store.embedded import free_port
from dedup_pipeline.store.index import (
    BUCKET_ENTRIES, CHANGED, FRESH, MongoStore, Record, StoreError, bucket_bits, connect, ensure_indexes,
    _refiled, from_int64, memory_store, open_store, to_int64)
from dedup_pipeline.store.lock import LockHeld
from testing.mongo_commands import Commands

HIGH = 1 << 63
T = "petition"


def record(row, keys, content="c", table=T, fingerprint=None):
    """A row's record; rows of the same keys and content are copies: one fingerprint."""
    fingerprint = hash((tuple(keys), content)) & (1 << 64) - 1 if fingerprint is None else fingerprint
    return Record(table, row, fingerprint, content, tuple(keys), b"sketch")


def alike(document, other):
    """Two row documents the same, `fresh` in any order (a set, as the server makes it)."""
    fresh = [sorted(map(str, doc.pop("fresh", []))) for doc in (document, other)]
    return fresh[0] == fresh[1] and document == other


def found(store, *keys, table=T):
    return sorted(store.lookup(table, {None: keys}))


@pytest.fixture(params=["mongo", "memory"])
def store(request):
    if request.param == "memory":
        with memory_store() as store:
            yield store
        return
    db = request.getfixturevalue("mongo_db")
    ensure_indexes(db)
    yield MongoStore(db)


def build(store, records):
    """A batch over `records`: their buckets made live (rows written new, without `fresh`)."""
    run = store.new_run({})
    store.filing().new(records)
    keys = np.array([k for r in records for k in r.keys], np.uint64)
    rows = [r.row for r in records for _ in r.keys]
    prints = np.array([r.fingerprint for r in records for _ in r.keys], np.uint64)
    bits = bucket_bits(len(keys))
    store.write_buckets(run, bits, keys, rows, prints)
    store.write_manifest(run, [r.row for r in records], [r.content for r in records])
    store.switch(run, {}, bits)
    store.fold(T, {r.row: r.content for r in records})
    return run


@pytest.mark.parametrize("fingerprint", [0, 1, HIGH - 1, HIGH, (1 << 64) - 1])
def test_fingerprints_round_trip_through_signed_int64(fingerprint):
    assert -HIGH <= to_int64(fingerprint) < HIGH
    assert from_int64(to_int64(fingerprint)) == fingerprint


def test_a_filed_row_is_found_under_each_of_its_keys_with_its_record(store):
    store.file([record(7, [1, 2, HIGH + 5])])
    assert found(store, 1) == found(store, HIGH + 5) == [7]
    assert store.lookup(T, {None: [2]})[7] == record(7, [1, 2, HIGH + 5])
    assert found(store, 3) == []


def test_filing_a_row_again_replaces_its_keys(store):
    store.file([record(7, [1, 2])])
    store.file([record(7, [3], content="d")])
    assert found(store, 1, 2) == [] and found(store, 3) == [7]
    assert store.records(T, [7])[7].content == "d"


def test_remove_forgets_a_row_and_counts_only_rows_held(store):
    store.file([record(7, [1]), record(8, [1])])
    assert store.remove(T, [7, 9]) == 1
    assert found(store, 1) == [8]


def test_a_lookup_for_rows_finds_other_rows_only(store):
    store.file([record(n, [1, n]) for n in range(6)])
    assert sorted(store.lookup(T, {0: [1], 1: [1], 9: [5]})) == [2, 3, 4, 5]


def test_rows_of_two_tables_with_the_same_id_are_two_rows(store):
    store.file([record(7, [1]), record(7, [1], table="other")])
    assert found(store, 1) == [7] and found(store, 1, table="other") == [7]
    store.remove("other", [7])
    assert found(store, 1) == [7]


def test_rows_in_the_live_buckets_are_found_without_being_fresh(mongo_db):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    build(store, [record(n, [n, 1000 + n % 7]) for n in range(300)])
    assert mongo_db.rows.count_documents({"fresh": {"$exists": True}}) == 0
    assert found(store, 5) == [5]
    assert found(store, 1000) == [n for n in range(300) if n % 7 == 0]


@pytest.mark.parametrize("ids, stored", [(range(300), bytes), ([f"r{n}" for n in range(300)], list)])
def test_a_buckets_rows_are_packed_when_64_bit_integers_and_listed_otherwise(mongo_db, ids, stored):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    ids = list(ids)
    build(store, [record(row, [n, 1000 + n % 7]) for n, row in enumerate(ids)])
    assert {type(doc["rows"]) for doc in results.live(mongo_db, "blocks").find()} == {stored}
    assert found(store, 5) == [ids[5]]
    assert found(store, 1000) == sorted(row for n, row in enumerate(ids) if n % 7 == 0)


def test_a_row_changed_or_removed_after_the_batch_leaves_its_old_bucket_entries_behind(mongo_db):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    build(store, [record(n, [n]) for n in range(100)])
    store.file([record(5, [500], content="new")])
    store.remove(T, [6])
    assert found(store, 5, 6) == [] and found(store, 500) == [5]


def test_fold_ends_fresh_only_for_rows_stored_as_the_buckets_hold_them(store):
    store.file([record(1, [1], content="a"), record(2, [2], content="b")])
    assert store.fresh(T) == {1, 2}
    assert store.fold(T, {1: "a", 2: "older"}) == 1
    assert store.fresh(T) == {2}


def test_a_re_run_reads_the_rows_other_writers_filed_and_not_those_a_batch_filed(store):
    build(store, [record(n, [n]) for n in range(10)])
    store.file([record(3, [30], content="by add")])
    store.filing().changed([record(4, [40], content="by a night")])
    assert store.since(T, batched=False).rows == {3: "by add"}
    assert store.since(T).rows == {3: "by add", 4: "by a night"}
    assert store.fresh(T) == {3, 4} and found(store, 30, 40) == [3, 4]


def test_a_row_adopted_is_not_read_by_a_re_run_until_another_writer_files_it_again(store):
    build(store, [record(n, [n]) for n in range(10)])
    store.file([record(3, [30], content="by add")])
    assert store.adopt(T, {3: "by add"}) == 1
    assert store.since(T, batched=False).rows == {} and store.since(T).rows == {3: "by add"}
    assert found(store, 30) == [3]  # fresh all the same: the buckets do not hold it
    store.file([record(3, [31], content="by watch")])
    assert store.since(T, batched=False).rows == {3: "by watch"}


def test_a_row_filed_again_since_it_was_read_is_not_adopted(store):
    build(store, [record(n, [n]) for n in range(10)])
    store.file([record(3, [30], content="by watch")])
    assert store.adopt(T, {3: "by add"}) == 0
    assert store.since(T, batched=False).rows == {3: "by watch"}


def test_a_full_batch_folds_the_rows_a_batch_filed_fresh(store):
    build(store, [record(n, [n]) for n in range(10)])
    store.filing().changed([record(4, [40], content="by a night")])
    assert store.fold(T, {4: "by a night"}) == 1
    assert store.fresh(T) == set() and store.since(T).rows == {}


def test_bucket_documents_hold_tens_of_entries(mongo_db):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    rng = np.random.default_rng(3)
    records = [record(n, rng.integers(0, 2**62, 14).tolist()) for n in range(2000)]
    build(store, records)
    documents = results.live(mongo_db, "blocks").count_documents({})
    assert BUCKET_ENTRIES / 2 <= 2000 * 14 / documents <= BUCKET_ENTRIES * 2
    assert all(found(store, *r.keys) == [r.row] for r in records[:50])


def test_the_store_holds_the_live_manifest_corrected_by_every_write_since(store, monkeypatch):
    monkeypatch.setattr("dedup_pipeline.store.index.MANIFEST_ROWS", 2)
    assert store.stored(T).rows == {}
    build(store, [record(n, [n], content=f"c{n}") for n in range(5)])
    assert store.stored(T).rows == {n: f"c{n}" for n in range(5)}
    store.file([record(9, [9], content="new"), record(1, [1], content="changed")])  # by watch or add
    store.remove(T, [2])
    assert store.stored(T).rows == {0: "c0", 1: "changed", 2: CHANGED, 3: "c3", 4: "c4", 9: "new"}


def test_a_batch_killed_before_going_live_leaves_what_it_filed_for_the_next(store):
    build(store, [record(n, [n], content=f"c{n}") for n in range(3)])
    dead = store.new_run({})
    store.write_manifest(dead, [0, 1, 7], ["c0", "other", "c7"])
    store.filing().new([record(7, [7], content="c7")])  # ...and the batch dies here
    store.new_run({})
    assert store.stored(T).rows == {0: "c0", 1: CHANGED, 2: "c2", 7: CHANGED}


def test_the_removed_log_keeps_a_row_removed_again_after_a_batch_read_it(store):
    store.remove(T, [4])
    read = store.stored(T)
    store.remove(T, [4])  # while the batch runs
    store.clear_removed(read.removed)
    assert store.stored(T).rows == {4: CHANGED}
    store.clear_removed(store.stored(T).removed)
    assert store.stored(T).rows == {}


def test_a_switched_run_replaces_the_live_results_whole(store):
    first = build(store, [record(1, [1]), record(2, [1])])
    store.write_matches(first, [1, 2], np.array([0]), np.array([1]), np.array([0.25]))
    run = store.new_run({"k": 3})
    store.write_matches(run, [3, 4, 5], np.array([0, 1]), np.array([2, 2]), np.array([0.5, 0.0]))
    store.write_groups(run, [[3, 4, 5]])
    assert store.current_run()["run"] == first  # until the switch
    store.switch(run, {"rows": 3}, bucket_bits=2)
    live = store.current_run()
    assert (live["run"], live["summary"], live["bucket_bits"], live["settings"]) == (run, {"rows": 3}, 2, {"k": 3})
    assert store.read_matches(run) == [(3, 5, 0.5), (4, 5, 0.0)] and store.read_groups(run) == [[3, 4, 5]]


def test_before_any_batch_there_is_no_live_run(store):
    assert store.current_run() is None


def test_writes_while_a_run_builds_are_logged_for_its_replay_but_not_its_own(store):
    run = store.new_run({})
    store.file([record(5, [5])])
    store.filing().changed([record(9, [9])])  # the batch's own
    store.remove(T, [6])
    assert sorted(store.changed(T)) == [5, 6]
    store.switch(run, {})
    store.clear_changed()
    store.file([record(7, [7])])
    assert store.changed(T) == []


def test_a_second_lease_of_a_name_is_refused_while_the_first_is_held(store):
    with store.lease("batch"):
        with pytest.raises(LockHeld):
            with store.lease("batch"):
                pass
    with store.lease("batch"):  # free again
        pass


def test_the_configured_kind_of_store_is_the_one_opened(tmp_path):
    with open_store(_config(tmp_path, kind="memory")) as store:
        assert store.where == "memory"


@pytest.fixture
def counted(mongo_uri, mongo_db):
    """A store on a client whose commands are counted, after a batch's buckets went live."""
    commands = Commands()
    client = pymongo.MongoClient(mongo_uri, event_listeners=[commands])
    db = client[mongo_db.name]
    ensure_indexes(db)
    store = MongoStore(db)
    build(store, [record(n, [n, 10_000 + n]) for n in range(200)])
    commands.names.clear()
    yield store, commands
    client.close()


def test_a_new_row_is_one_insert_and_the_guard(counted):
    store, commands = counted
    store.file([record(70_007, [70_001, 70_002], content="new")])
    assert commands.names == ["insert", "update"]  # the row inserted; the pointer guard
    assert store.fresh(T) == {70_007} and found(store, 70_002) == [70_007]


def test_a_row_inserted_is_the_document_the_replacement_would_have_made(mongo_db):
    ensure_indexes(mongo_db)
    row = record(7, [5, 1, 5 + 2**63], content="new")
    MongoStore(mongo_db).file([row])
    mongo_db.replaced.bulk_write([_refiled(row, FRESH)])
    assert alike(mongo_db.rows.find_one(), mongo_db.replaced.find_one())


def test_a_changed_row_is_an_insert_refused_a_read_one_write_and_the_guard(counted):
    store, commands = counted
    store.file([record(7, [1, 2, 3], content="new")])
    assert commands.names == ["insert", "find", "update", "update"]  # held; as read; replaced; the guard
    assert store.records(T, [7])[7] == record(7, [1, 2, 3], content="new")


def test_a_changed_row_a_batch_files_as_replaced_is_a_read_one_write_and_the_guard(counted):
    store, commands = counted
    store.filing().replaced([record(7, [1, 2, 3], content="new")])
    assert commands.names == ["find", "update", "update"]  # as read; replaced; the guard
    assert store.records(T, [7])[7] == record(7, [1, 2, 3], content="new")


def test_a_new_row_a_batch_files_as_replaced_is_filed_all_the_same(counted):
    store, commands = counted
    store.filing().replaced([record(70_007, [70_001], content="new"), record(7, [1, 2, 3], content="new")])
    assert store.records(T, [7, 70_007]) == {7: record(7, [1, 2, 3], content="new"),
                                             70_007: record(70_007, [70_001], content="new")}
    assert found(store, 70_001) == [70_007] and store.fresh(T) == {7, 70_007}


HELD = {  # a row's document as each writer leaves it, before it is filed again
    "in the buckets": {"fingerprint": 11},
    "fresh": {"fingerprint": 11, "fresh": [1, "fresh"], "was": []},
    "changed since the buckets": {"fingerprint": 12, "fresh": [2, "was 11", "fresh"], "was": [11]},
    "fresh by a version before was": {"fingerprint": 12, "fresh": [2, 1, "fresh"]},
}


@pytest.mark.parametrize("held", HELD.values(), ids=HELD.keys())
def test_a_row_replaced_is_the_document_the_refile_makes_on_the_server(mongo_db, held):
    ensure_indexes(mongo_db)
    old = {"_id": f"{T}:7", "table": T, "row": 7, "content": "old", "keys": [1], **held}
    mongo_db.rows.insert_one(old)
    mongo_db.refiled.insert_one(old)
    row = record(7, [5, 1, 5 + 2**63], content="new")
    MongoStore(mongo_db).file([row])
    mongo_db.refiled.bulk_write([_refiled(row, FRESH)])
    assert alike(mongo_db.rows.find_one(), mongo_db.refiled.find_one())


def test_a_row_removed_between_its_read_and_its_replacement_is_filed_all_the_same(mongo_db, monkeypatch):
    ensure_indexes(mongo_db)
    store, other = MongoStore(mongo_db), MongoStore(mongo_db)
    build(store, [record(n, [n]) for n in range(10)])
    replaced = index._replaced

    def removed_meanwhile(record, held, mark):
        other.remove(T, [7])  # another writer, after this one read row 7 as the buckets hold it
        return replaced(record, held, mark)

    monkeypatch.setattr(index, "_replaced", removed_meanwhile)
    store.file([record(7, [70], content="new")])
    assert store.records(T, [7])[7] == record(7, [70], content="new")
    assert found(store, 70) == [7] and found(store, 7) == []


def test_a_lookup_without_copies_is_three_finds(counted):
    store, commands = counted
    store.file([record(7, [70_007], content="new")])
    store.remove(T, [9])
    commands.names.clear()
    assert found(store, 8, 9, 70_007) == [7, 8]
    assert commands.names == ["find"] * 3  # fresh rows, buckets, rows they name


def test_copies_in_the_buckets_are_read_as_one_document(counted):
    store, commands = counted
    build(store, [record(n, [1, 2], content="same") for n in range(5000)] + [record(5000, [2], content="other")])
    commands.names.clear()
    commands.documents = 0
    looked = store.lookup(T, {None: [1, 2]})
    assert sorted(looked) == list(range(5001))
    assert all(looked[n] == record(n, [1, 2], content="same") for n in range(5000))
    # fresh rows, a bucket, its copies changed or removed (none), 2 rows
    assert commands.names == ["find"] * 5 and commands.documents <= 4


def test_a_copy_changed_or_removed_after_the_batch_is_no_copy_under_its_old_keys(store):
    build(store, [record(n, [1, 2], content="same") for n in range(10)])
    store.file([record(3, [7], content="changed"), record(4, [2, 8], content="edited")])
    store.remove(T, [5])
    looked = store.lookup(T, {None: [1]})
    assert sorted(looked) == [0, 1, 2, 6, 7, 8, 9]
    assert store.lookup(T, {None: [2]})[4] == record(4, [2, 8], content="edited")
    assert sorted(store.lookup(T, {None: [7]})) == [3]


def test_a_copy_changed_or_removed_by_a_version_that_kept_its_old_keys_is_no_copy_either(mongo_db):
    """Documents of the version before `was`: a changed row's `fresh` held its old keys too,
    a removed row was logged with its keys."""
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    build(store, [record(n, [1, 2], content="same") for n in range(10)])
    for row in (3, 6):
        mongo_db.rows.update_one({"_id": f"{T}:{row}"}, {"$set": {"keys": [7], "fresh": [7, 1, 2], "content": "changed",
                                                                   "fingerprint": 1000 + row}})
    mongo_db.rows.delete_one({"_id": f"{T}:5"})
    mongo_db.removed.insert_one({"_id": f"{T}:5", "table": T, "row": 5, "n": 1, "keys": [1, 2]})
    mongo_db.format.delete_many({})  # a store the version before `was` made
    ensure_indexes(mongo_db)  # as every start does
    store.file([record(3, [9], content="changed again")])
    store.remove(T, [6])
    assert found(store, 1) == [0, 1, 2, 4, 7, 8, 9]
    assert found(store, 9) == [3]


def test_rows_an_older_version_filed_fresh_are_found_fresh_after_the_upgrade(mongo_db):
    ensure_indexes(mongo_db)
    store = MongoStore(mongo_db)
    build(store, [record(n, [n]) for n in range(10)])
    store.file([record(3, [30], content="new")])
    mongo_db.rows.update_one({"_id": f"{T}:4"}, {"$set": {"fresh": [40], "keys": [40], "content": "older"}})
    mongo_db.format.delete_many({})  # a store the version before FRESH made
    ensure_indexes(mongo_db)
    assert store.fresh(T) == {3, 4} and store.since(T).rows == {3: "new", 4: "older"}
    assert found(store, 40) == [4]


def test_a_store_a_newer_version_wrote_is_refused_saying_to_upgrade(mongo_db):
    mongo_db.format.insert_one({"_id": "format", "version": index.VERSION + 1})
    with pytest.raises(StoreError, match=f"format {index.VERSION + 1}.*newer.*upgrade dedup-pipeline"):
        ensure_indexes(mongo_db)
    assert "rows" not in mongo_db.list_collection_names()  # nothing written


def test_a_store_brought_up_to_date_is_not_upgraded_again(mongo_db):
    ensure_indexes(mongo_db)
    mongo_db.rows.insert_one({"_id": f"{T}:1", "table": T, "row": 1, "fresh": [1]})
    ensure_indexes(mongo_db)  # as every start does: the walk over the fresh rows is not made again
    assert mongo_db.rows.find_one({"_id": f"{T}:1"})["fresh"] == [1]


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
        store.file([record(7, [1])])
    with open_store(_config(tmp_path)) as store:
        assert found(store, 1) == [7]
    assert (tmp_path / "mongo").is_dir()


def test_with_a_uri_the_store_uses_that_mongodb(tmp_path, mongo_uri, mongo_db):
    with open_store(_config(tmp_path, mongo_uri=mongo_uri, database=mongo_db.name)) as store:
        store.file([record(7, [1])])
    assert mongo_db.rows.count_documents({}) == 1
    assert "fresh_1" in mongo_db.rows.index_information()
    assert not (tmp_path / "mongo").exists()



def test_keys_filed_a_range_of_buckets_at_a_time_are_filed_as_all_at_once():
    from dedup_pipeline.store.index import _filed, buckets

    keys = np.random.default_rng(4).integers(0, 2**63, 5000, dtype=np.int64).astype(np.uint64)
    keys[100:140] = keys[7]  # a key many rows share
    bits = bucket_bits(len(keys))
    bucket = buckets(keys, bits)
    order = np.argsort(bucket, kind="stable")
    whole = (bucket[order].tolist(), order.tolist(), keys[order].tolist())
    for part_entries in (len(keys), 1000, 37, 1):
        filed = list(_filed(keys, bits, part_entries))
        assert tuple(np.concatenate(column).tolist() for column in zip(*filed)) == whole
