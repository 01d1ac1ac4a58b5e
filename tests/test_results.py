"""Batch generations: built aside, made live by one write, the previous kept until the next
switch; a store following the live generation re-makes a write the switch overtook."""

import threading

import numpy as np
import pymongo
import pytest

from dedup_pipeline.store import results
from dedup_pipeline.store import index as store_module
from dedup_pipeline.config import ConfigError
from dedup_pipeline.errors import StoreError
from dedup_pipeline.store.index import MongoStore, Record
from dedup_pipeline.store.results import Behind


def record(row):
    return Record("petition", row, 0x1234, "c", (1, 2))


def build(db, pairs, ids=(1, 2)):
    """A run with these pairs of positions in `ids`, switched live; returns its id."""
    run = results.new_run(db, {"k": 3})
    a, b = zip(*pairs)
    results.write_matches(db, run, list(ids), np.array(a), np.array(b), np.ones(len(a), int))
    results.write_groups(db, run, [list(ids)])
    results.switch(db, run, {"rows": len(ids)})
    return run


def live_pairs(db):
    return [(a, b) for a, b, _ in results.read_matches(db, results.pointer(db)["run"])]


def test_before_any_batch_the_live_generation_is_the_plain_names(mongo_db):
    assert results.current_run(mongo_db) is None
    assert results.live(mongo_db, "blocks").name == "blocks"


def test_a_switched_run_replaces_the_previous_results(mongo_db):
    build(mongo_db, [(0, 1)], ids=(1, 2))
    run = build(mongo_db, [(0, 1)], ids=(3, 4))
    assert live_pairs(mongo_db) == [(3, 4)]
    assert results.current_run(mongo_db)["run"] == run


def test_a_run_killed_while_building_leaves_the_previous_results_and_is_dropped_when_the_next_goes_live(
        mongo_db):
    build(mongo_db, [(0, 1)], ids=(1, 2))
    dead = results.new_run(mongo_db, {})
    results.write_matches(mongo_db, dead, [7, 8], np.array([0]), np.array([1]), np.array([1]))
    # ...and the process dies here
    assert live_pairs(mongo_db) == [(1, 2)]
    results.new_run(mongo_db, {})
    assert results.named("matches", dead) in mongo_db.list_collection_names()  # its manifest is read
    build(mongo_db, [(0, 1)], ids=(1, 2))
    assert results.named("matches", dead) not in mongo_db.list_collection_names()


def test_the_previous_generation_is_kept_until_the_next_switch(mongo_db):
    first = build(mongo_db, [(0, 1)])
    second = build(mongo_db, [(0, 1)])
    names = set(mongo_db.list_collection_names())
    assert {results.named("matches", first), results.named("matches", second)} <= names
    build(mongo_db, [(0, 1)])
    assert results.named("matches", first) not in mongo_db.list_collection_names()


def test_a_write_overtaken_by_a_switch_is_made_again_in_the_new_generation(mongo_db):
    writer = MongoStore(mongo_db)  # reads the pointer now, and trusts it for a second
    run = results.new_run(mongo_db, {})
    results.switch(mongo_db, run, {"rows": 1}, bucket_bits=3)
    writer.file([record(2)])
    assert writer.generation == run and writer.bucket_bits == 3
    assert {d["row"] for d in mongo_db.rows.find()} == {2}


def test_writes_while_a_batch_builds_are_logged_for_it_to_replay(mongo_db):
    run = results.new_run(mongo_db, {})
    writer = MongoStore(mongo_db)
    writer.file([record(5)])
    writer.filing().changed([record(9)])  # the batch's own writes
    writer.remove("petition", [6])
    assert {d["row"] for d in mongo_db[results.CHANGES].find()} == {5, 6}
    results.switch(mongo_db, run, {"rows": 0})
    writer.file([record(7)])  # overtaken by the switch: made again, unlogged
    writer.file([record(8)])
    assert writer.building is None
    assert mongo_db[results.CHANGES].count_documents({"row": 8}) == 0


def test_pairs_and_groups_are_read_back_as_written_across_documents(mongo_db, monkeypatch):
    monkeypatch.setattr(results, "PER_DOCUMENT", 3)
    ids = list(range(100, 110))
    i, j = np.array([0, 0, 1, 2, 3, 5, 8]), np.array([1, 2, 9, 4, 4, 6, 9])
    groups = [[100, 101, 102, 109], [103, 104], [105, 106], [107, 108]]
    run = results.new_run(mongo_db, {})
    results.write_matches(mongo_db, run, ids, i, j, np.arange(7) / 10)
    results.write_groups(mongo_db, run, groups)
    assert results.read_matches(mongo_db, run) == [
        (ids[a], ids[b], n / 10) for n, (a, b) in enumerate(zip(i.tolist(), j.tolist()))]
    assert results.read_groups(mongo_db, run) == groups
    assert mongo_db[results.named("matches", run)].count_documents({}) == 3


def test_an_unreachable_mongodb_is_a_store_error_naming_the_database():
    client = pymongo.MongoClient("mongodb://127.0.0.1:1", serverSelectionTimeoutMS=200)
    with pytest.raises(StoreError) as refused:
        results.current_run(client.dedup)
    assert "MongoDB at database dedup" in str(refused.value)
    client.close()


def test_a_store_refuses_its_user_once_a_batch_of_other_scheme_settings_goes_live(mongo_db, monkeypatch):
    monkeypatch.setattr(store_module, "FOLLOW_S", 0)
    store = MongoStore(mongo_db)
    store.require("(SchemeConfig(name='shingles'),)")
    store.lookup("petition", {1: [5]})
    results.switch(mongo_db, results.new_run(mongo_db, {}, "(SchemeConfig(name='blocks'),)"), {"rows": 0})
    with pytest.raises(ConfigError, match="name='blocks' there, 'shingles' here"):
        store.lookup("petition", {1: [5]})


# -- calls made behind the caller (a batch's writes while it reads on)


def test_calls_made_behind_run_in_order_and_give_their_results_at_the_end():
    ran = []
    with Behind(depth=3) as behind:
        for n in range(10):
            behind.then(lambda n: ran.append(n) or n * n, n)
    assert ran == list(range(10)) and behind.results == [n * n for n in range(10)]


def test_a_call_made_behind_that_fails_raises_in_the_caller():
    def fail():
        raise ValueError("the server refused it")

    with pytest.raises(ValueError, match="refused"):
        with Behind() as behind:
            behind.then(fail)
            behind.then(lambda: None)


def test_no_more_calls_than_the_depth_wait_the_caller_waits_for_a_place():
    gate, ran = threading.Event(), []

    def call(n):
        gate.wait(timeout=30)
        ran.append(n)

    with Behind(depth=2) as behind:
        behind.then(call, 0)
        behind.then(call, 1)
        third = threading.Thread(target=behind.then, args=(call, 2))
        third.start()
        third.join(timeout=0.5)
        assert third.is_alive() and ran == []  # two wait, the first unfinished: the third waits
        gate.set()
        third.join(timeout=30)
        assert not third.is_alive() and ran[0] == 0
    assert ran == [0, 1, 2]
