"""Reviewers' decisions obeyed on the real servers: the worker on MariaDB (through the
triggers and through the binary log) and the embedded MongoDB-protocol server keeps
dedup_match as a batch with the same decisions writes it, a pair decided different never
comes back and one decided the same stays confirmed until a row of it changes; `check`
obeys them there; and a Spark batch obeys them as the local one does. (The in-memory
paths: tests/test_decisions.py.)"""

import sqlite3
import tomllib

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.core.decision import NOT_MEASURED
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.jobs.spark import run_spark_batch
from dedup_pipeline.sql import migrate
from dedup_pipeline.store.index import MongoStore
from testing.labelled import generate, write_sqlite
from tests.test_binlog import binlog_config, create_petition, url_of
from tests.test_watch import config_of, drain, insert, no_worker_left, sql

assert no_worker_left  # kills any worker process a test left

ROWS = 300
BY = "王芳"


@pytest.fixture(params=["triggers", "binlog"])
def followed(request, mongo_uri, mongo_db):
    """A labelled petition table on MariaDB, batched, its changes followed by the worker
    through the triggers or the binary log: (engine, config, rows)."""
    url = request.getfixturevalue("mysql_url" if request.param == "triggers" else "binlog_url")
    engine = create_petition(url)
    config = (config_of(url, mongo_uri, mongo_db.name) if request.param == "triggers"
              else binlog_config(url_of(engine), mongo_uri, mongo_db.name))
    migrate.upgrade(config)
    rows = generate(ROWS, seed=5).rows
    insert(engine, rows)
    commands.batch(config, processes=1)
    drain(config)
    yield engine, config, rows
    engine.dispose()


def held(engine) -> dict:
    """dedup_match: {(row, similar row): (distance, status)}."""
    return {(a, b): (d, s) for a, b, d, s in sql(engine, "SELECT row_id, similar_id, distance, status FROM dedup_match")}


def as_a_batch_writes_it(engine, config) -> dict:
    """dedup_match as a batch of the table, with the decisions, writes it (then left so)."""
    commands.batch(config, processes=1)
    return held(engine)


def resubmitted(row: dict, new_id: int) -> dict:
    """The row filed again by its submitter, a day later."""
    return {**row, "id": new_id, "content": "再次反映：" + row["content"]}


def test_the_worker_never_brings_back_a_pair_decided_different(followed):
    engine, config, rows = followed
    a, b = min((a, b) for (a, b), (d, _) in held(engine).items() if a < b and d > 0)
    commands.decide(config, a, b, same=False, by=BY)
    by_id = {r["id"]: r for r in rows}
    insert(engine, [resubmitted(by_id[a], 10_001), resubmitted(by_id[b], 10_002)])
    drain(config)
    worker = held(engine)
    assert (a, b) not in worker and (b, a) not in worker
    assert (10_001, a) in worker or (a, 10_001) in worker, "the worker did pair the new rows"
    assert worker == as_a_batch_writes_it(engine, config)


def test_the_worker_keeps_a_pair_decided_the_same_confirmed_until_a_row_of_it_changes(followed):
    engine, config, rows = followed
    paired = {row for pair in held(engine) for row in pair}
    x, y = sorted(r["id"] for r in rows if r["id"] not in paired)[:2]
    commands.decide(config, x, y, same=True, by=BY)
    assert held(engine)[x, y] == (NOT_MEASURED, "confirmed")
    insert(engine, [resubmitted({r["id"]: r for r in rows}[x], 10_003)])
    drain(config)
    worker = held(engine)
    assert worker[x, y] == (NOT_MEASURED, "confirmed") and worker == as_a_batch_writes_it(engine, config)
    sql(engine, f"UPDATE petition SET content = '另一件事：小区停车位被占用' WHERE id = {y}")
    drain(config)
    worker = held(engine)
    assert (x, y) not in worker and (y, x) not in worker, "a row changed: the decision no longer stands"
    assert worker == as_a_batch_writes_it(engine, config)


def test_a_split_of_copies_stands_when_the_text_s_first_row_is_deleted(followed):
    """Rows of one text from three people: the copies are linked to the first; a reviewer
    splits the other two; the first deleted, the worker must not link them again."""
    engine, config, rows = followed
    text = {**rows[0], "content": "小区东门的路灯坏了三个月，晚上行人摔倒，请尽快修复。"}
    insert(engine, [{**text, "id": 20_001, "name": "甲"}, {**text, "id": 20_002, "name": "乙", "phone": "139"},
                    {**text, "id": 20_003, "name": "丙", "phone": "137"}])
    drain(config)
    assert (20_001, 20_002) in held(engine) and (20_001, 20_003) in held(engine)
    commands.decide(config, 20_002, 20_003, same=False, by=BY)
    sql(engine, "DELETE FROM petition WHERE id = 20001")
    drain(config)
    worker = held(engine)
    assert (20_002, 20_003) not in worker and (20_003, 20_002) not in worker
    assert 20_002 not in [m.row for m in commands.check(config, row_id=20_003).similar]
    assert worker == as_a_batch_writes_it(engine, config)


def test_check_on_the_servers_lists_a_pair_decided_the_same_and_not_one_decided_different(followed):
    engine, config, rows = followed
    a, b = min((a, b) for (a, b), (d, _) in held(engine).items() if a < b and d > 0)
    paired = {row for pair in held(engine) for row in pair}
    x, y = sorted(r["id"] for r in rows if r["id"] not in paired)[:2]
    commands.decide(config, a, b, same=False, by=BY)
    commands.decide(config, x, y, same=True, by=BY)
    assert b not in [m.row for m in commands.check(config, row_id=a).similar]
    assert (y, NOT_MEASURED) in commands.check(config, row_id=x).similar


# -- Spark


def test_a_spark_batch_obeys_the_decisions_as_the_local_batch_does(spark, tmp_path, mongo_uri, mongo_client):
    path = write_sqlite(generate(ROWS, seed=5).rows, tmp_path / "petition.sqlite")
    data = tomllib.loads(default_config_text())
    data.update(source={"url": f"sqlite:///{path}", "table": "petition"}, batch={"chunk_size": 100, "processes": 1})
    stores = {}
    for engine in ("local", "spark"):
        data["store"] = {"mongo_uri": mongo_uri, "database": f"test_decisions_{engine}"}
        mongo_client.drop_database(data["store"]["database"])
        stores[engine] = (parse_config(data, env={}), MongoStore(mongo_client[data["store"]["database"]]))
    config, local = stores["local"]
    commands.migrate(config)
    run_batch(config, local, processes=1)
    pairs = local.read_matches(local.current_run()["run"])
    a, b, _ = min(p for p in pairs if p[2] > 0)
    paired = {row for p in pairs for row in p[:2]}
    x, y = sorted(set(range(1, ROWS + 1)) - paired)[:2]
    commands.decide(config, a, b, same=False, by=BY)
    commands.decide(config, x, y, same=True, by=BY)
    found = {}
    for engine, (config, store) in stores.items():
        run_batch(config, store, processes=1) if engine == "local" else run_spark_batch(config, store, partitions=3)
        found[engine] = {(p, q) for p, q, _ in store.read_matches(store.current_run()["run"])}
        with sqlite3.connect(path) as db:
            found[engine, "match"] = set(db.execute("SELECT row_id, similar_id, status FROM dedup_match"))
    assert (a, b) not in found["spark"] and (x, y) in found["spark"]
    assert found["spark"] == found["local"] and found["spark", "match"] == found["local", "match"]
    assert (x, y, "confirmed") in found["spark", "match"]
    for engine in ("local", "spark"):
        mongo_client.drop_database(f"test_decisions_{engine}")
