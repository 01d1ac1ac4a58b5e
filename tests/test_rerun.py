"""Whatever filed a row (a batch, `add`, `watch`), and wherever a batch was killed, the next
batch leaves the store and dedup_match exactly as a clean batch of the table into an empty
store would: it compares the table with what the store holds, not with what it last filed.
On a real MariaDB (triggers, dedup_match) and a real MongoDB-protocol server."""

import os
import subprocess
import sys
from unittest.mock import ANY

import pytest

from dedup_pipeline import killpoints
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.store import results
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.store.index import MongoStore
from tests.test_watch import (  # noqa: F401  (fixtures)
    config, config_file, config_of, copy_sets, drain, insert, petition, petition_rows, sql)

TEXT_O = "小区东门外的垃圾站常年不清运，夏天臭味熏天，蚊蝇滋生，居民多次向物业反映无果。"
TEXT_N = "本人在单位工作十年，被无故辞退，单位拒绝支付经济补偿金，劳动仲裁后仍不执行。"


def what_is_stored(config, db, engine):
    """The row documents (what a check reads), the live pairs and dedup_match."""
    rows = {d["row"]: (d["content"], d["fingerprint"], d["keys"], d.get("sketch"))
            for d in db.rows.find({"table": config.source.table})}
    pairs = sorted(results.read_matches(db, results.pointer(db, "petition")["run"]))
    matches = sorted(map(tuple, sql(engine, "SELECT row_id, similar_id, distance FROM dedup_match")))
    return rows, pairs, matches


def clean_batch(config, mongo_client, engine):
    """What a batch of the table as it is now stores in an empty database."""
    name = f"{config.store.database}_clean"
    clean = config_of(config.source.url, config.store.mongo_uri, name)
    try:
        run_batch(clean, MongoStore(mongo_client[name], table="petition"), processes=1)
        return what_is_stored(clean, mongo_client[name], engine)
    finally:
        mongo_client.drop_database(name)


def add(config, db, *ids):
    """`add --id` of these rows, as the table has them now."""
    with SqlSource(config) as source:
        rows = source.rows_by_id(list(ids))
    index = Incremental(MongoStore(db, table="petition"), config)
    for row in rows:
        index.add(row["id"], row)


def start(kind, config, mongo_db):
    """The store's first filing of the table: a batch, `add --all`, or `watch` draining it."""
    if kind == "batch":
        run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    elif kind == "add --all":
        with SqlSource(config) as source:
            Incremental(MongoStore(mongo_db, table="petition"), config).add_many(
                (row["id"], row) for chunk in source.rows() for row in chunk)
    else:
        drain(config)


@pytest.mark.parametrize("kind", ["batch", "add --all", "watch"])
def test_after_any_start_and_rows_filed_by_add_the_next_batch_stores_what_a_clean_batch_would(
        petition, config, mongo_db, mongo_client, kind):
    insert(petition, petition_rows(60) + copy_sets(3))
    start(kind, config, mongo_db)
    insert(petition, [{**petition_rows(1)[0], "id": 9001, "content": TEXT_N}])
    add(config, mongo_db, 9001)
    sql(petition, "DELETE FROM petition WHERE id = 9001")  # filed by add, then deleted
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, f"UPDATE petition SET content = '{TEXT_N}' WHERE id = 5")
    add(config, mongo_db, 5)
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")  # reverted, as the batch filed it
    sql(petition, "DELETE FROM petition WHERE id = 1000")  # a first copy, removed by the worker...
    drain(config)
    insert(petition, copy_sets(1)[:1])  # ...and back as it was, the worker not told
    sql(petition, "DELETE FROM dedup_outbox WHERE done_at IS NULL")
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert what_is_stored(config, mongo_db, petition) == clean_batch(config, mongo_client, petition)


def test_a_check_after_the_next_batch_finds_a_row_as_the_table_has_it_whoever_filed_it(
        petition, config, mongo_db):
    insert(petition, petition_rows(40))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    insert(petition, [{**petition_rows(1)[0], "id": 9001, "content": TEXT_N}])
    add(config, mongo_db, 9001)
    sql(petition, "DELETE FROM petition WHERE id = 9001")
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, f"UPDATE petition SET content = '{TEXT_N}' WHERE id = 5")
    add(config, mongo_db, 5)
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    index = Incremental(MongoStore(mongo_db, table="petition"), config)
    assert [m.row for m in index.check(TEXT_O)] == [5]
    assert [m.row for m in index.check(TEXT_N)] == []


BATCH_KILL_POINTS = ["batch.filed", "batch.results", "batch.removed", "batch.switched"]


@pytest.mark.parametrize("point", BATCH_KILL_POINTS)
@pytest.mark.parametrize("how", [[], ["--full"]], ids=["re-run", "full"])
def test_a_batch_killed_at_any_write_point_then_run_again_stores_what_a_clean_batch_would(
        petition, config, config_file, mongo_db, mongo_client, point, how):
    insert(petition, petition_rows(60) + copy_sets(3))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, "DELETE FROM petition WHERE id IN (3, 1000, 10004)")
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id IN (5, 1010)")
    insert(petition, [{**petition_rows(1)[0], "id": 9001, "content": TEXT_N}])
    killed_batch(config_file, point, *how)
    sql(petition, "DELETE FROM petition WHERE id = 9001")  # gone before the batch runs again
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert what_is_stored(config, mongo_db, petition) == clean_batch(config, mongo_client, petition)


def test_a_re_run_killed_after_filing_leaves_its_rows_to_the_next_even_where_the_table_went_back(
        petition, config, config_file, mongo_db, mongo_client):
    insert(petition, petition_rows(60) + copy_sets(3))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    (before,), = sql(petition, "SELECT content FROM petition WHERE id = 5")
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")
    killed_batch(config_file, "batch.filed")
    sql(petition, "UPDATE petition SET content = :before WHERE id = 5", before=before)  # as the last night read it
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert what_is_stored(config, mongo_db, petition) == clean_batch(config, mongo_client, petition)


def test_a_re_run_reads_once_the_rows_an_older_version_left_fresh_and_its_state_holds_them_after(
        petition, config, mongo_db):
    insert(petition, petition_rows(40))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, f"UPDATE petition SET content = '{TEXT_O}' WHERE id = 5")
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    mongo_db.rows.update_many({"fresh": "batched"}, {"$set": {"fresh.$": "fresh"}})  # as version 2 filed it
    assert MongoStore(mongo_db, table="petition").since(config.source.table, batched=False).rows == {5: ANY}
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert MongoStore(mongo_db, table="petition").since(config.source.table, batched=False).rows == {}
    assert [m.row for m in Incremental(MongoStore(mongo_db, table="petition"), config).check(TEXT_O)] == [5]


def killed_batch(config_file, point, *how):
    """`batch` in a process of its own, killed at `point`."""
    killed = subprocess.run([sys.executable, "-m", "dedup_pipeline", "batch", "--processes", "1", *how,
                             "--config", str(config_file)], capture_output=True, text=True,
                            env=_env({killpoints.ENV: point}))
    assert killed.returncode == -9, killed.stderr


def _env(extra):
    return {**{k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}, **extra}


def test_a_re_run_does_not_remove_again_the_rows_an_earlier_night_removed(petition, config, mongo_db, mongo_client):
    insert(petition, petition_rows(40))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, "DELETE FROM petition WHERE id IN (3, 4)")
    assert run_batch(config, MongoStore(mongo_db, table="petition"), processes=1).removed == 2
    sql(petition, "DELETE FROM petition WHERE id = 5")
    night = run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert night.removed == 1
    assert sorted((d["row"], d["n"]) for d in mongo_db.removed.find()) == [(3, 1), (4, 1), (5, 1)]
    assert what_is_stored(config, mongo_db, petition) == clean_batch(config, mongo_client, petition)


@pytest.mark.parametrize("full", [False, True])
def test_a_batch_does_not_replay_its_own_removals_and_the_next_full_one_clears_their_log(
        petition, config, mongo_db, full):
    insert(petition, petition_rows(40))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, "DELETE FROM petition WHERE id IN (3, 4)")
    removing = run_batch(config, MongoStore(mongo_db, table="petition"), processes=1, full=full)
    assert removing.removed == 2 and removing.replayed == 0
    assert sorted((d["row"], d["n"]) for d in mongo_db.removed.find()) == [(3, 1), (4, 1)]
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1, full=True)
    assert list(mongo_db.removed.find()) == []
