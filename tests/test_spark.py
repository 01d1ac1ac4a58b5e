"""`batch --engine spark` (PySpark in local[2], one session for the module) gives the local
batch's answers on the labelled quality set in SQLite, against the embedded MongoDB-protocol
server: the same pairs, groups, block index and manifest, the same re-run accounting; and a
machine without Java or PySpark gets a one-line message."""

import os
import sqlite3
import subprocess
import sys
import tomllib
from types import SimpleNamespace

import numpy as np
import pytest

from dedup_pipeline.store import results
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.jobs.spark import OUT_OF_MEMORY as OOM_EXIT, SparkError, _bounds, _failure, run_spark_batch
from dedup_pipeline.store.index import BLOCKS, MongoStore, memory_store
from testing.labelled import generate, write_sqlite

ROWS = 6000
COPY_EVERY = 20  # every 20th row of the copies' table carries the text of row 22 (a group of 5)


@pytest.fixture(scope="module")
def quality(tmp_path_factory):
    """The labelled quality set (testing/labelled.py) as an SQLite petition table."""
    rows = generate(ROWS, seed=11).rows
    return rows, write_sqlite(rows, tmp_path_factory.mktemp("quality") / "quality.sqlite")


def config_for(path, mongo_uri, database, kind="mongodb"):
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": f"sqlite:///{path}", "table": "petition"}
    data["store"] = {"mongo_uri": mongo_uri, "database": database, "kind": kind}
    data["batch"] = {"chunk_size": 300, "processes": 1}
    return parse_config(data, env={})


@pytest.fixture(scope="module")
def both(spark, quality, mongo_client, mongo_uri):
    """The quality set through the local batch and through Spark (5 partitions), each in a
    database of its own."""
    _, path = quality
    done = {}
    for engine in ("local", "spark"):
        config = config_for(path, mongo_uri, f"test_spark_{engine}")
        mongo_client.drop_database(config.store.database)
        store = MongoStore(mongo_client[config.store.database], table="petition")
        done[engine] = (run_batch(config, store, processes=1) if engine == "local"
                        else run_spark_batch(config, store, partitions=5), store.db)
    yield done
    for engine in done:
        mongo_client.drop_database(f"test_spark_{engine}")


@pytest.fixture(scope="module")
def copies(spark, quality, tmp_path_factory, mongo_client, mongo_uri):
    """The quality set in which every COPY_EVERY-th row carries the text of row 22 (299 copies of
    one text, filed by as many people, a quarter of them with the phone of a row like it, some
    sharing one), through the local batch and through Spark: (local, spark) results and databases."""
    rows = [dict(row) for row in quality[0]]
    by_id = {row["id"]: row for row in rows}
    text, alike = by_id[22]["content"], [by_id[103]["phone"], by_id[128]["phone"], by_id[136]["phone"]]
    copied = [row for row in rows if row["id"] % COPY_EVERY == 0]
    for n, row in enumerate(copied):
        row["content"] = text
        row["phone"] = alike[n // 4 % 3] if n % 4 == 0 else copied[n - 1]["phone"] if n % 4 == 1 else row["phone"]
    path = write_sqlite(rows, tmp_path_factory.mktemp("copies") / "copies.sqlite")
    done = []
    for engine in ("local", "spark"):
        config = config_for(path, mongo_uri, f"test_spark_copies_{engine}")
        mongo_client.drop_database(config.store.database)
        store = MongoStore(mongo_client[config.store.database], table="petition")
        done.append((run_batch(config, store, processes=1) if engine == "local"
                     else run_spark_batch(config, store, partitions=5), store.db))
    yield done
    for engine in ("local", "spark"):
        mongo_client.drop_database(f"test_spark_copies_{engine}")


def live_run(db):
    return results.pointer(db, "petition")["run"]


def index_entries(db):
    """(bucket, key, row) of every entry of the live buckets."""
    return {(doc["_id"], key, row) for doc in db[results.named(BLOCKS, live_run(db))].find()
            for key, row in zip(np.frombuffer(doc["keys"], np.int64).tolist(), doc["rows"])}


def test_spark_stores_the_pairs_of_the_local_batch_including_pairs_linked_through_a_third_row(both, quality):
    rows, _ = quality
    (_, local_db), (_, spark_db) = both["local"], both["spark"]
    pairs = results.read_matches(spark_db, live_run(spark_db))
    assert pairs == results.read_matches(local_db, live_run(local_db)) and len(pairs) > 100
    scheme = scheme_of(config_for("", "", "dedup"))
    by_id = {row["id"]: row for row in rows}
    probes = {(a, b): scheme.probes([by_id[a], by_id[b]]) for a, b, _ in pairs}
    assert any(scheme.distance(*p) is None for p in probes.values())  # corroboration: a stage of its own
    assert any(not set(scheme.keys(x)) & set(scheme.keys(y)) for x, y in probes.values())  # through a third


def test_spark_stores_the_groups_of_the_local_batch(both):
    (_, local_db), (_, spark_db) = both["local"], both["spark"]
    groups = results.read_groups(spark_db, live_run(spark_db))
    assert groups == results.read_groups(local_db, live_run(local_db)) and len(groups) > 50


def test_spark_stores_the_pairs_and_groups_of_the_local_batch_with_hundreds_of_copies_of_one_text(copies):
    (local, local_db), (spark, spark_db) = copies
    assert spark.copies == local.copies >= ROWS // COPY_EVERY - 1
    assert results.read_matches(spark_db, live_run(spark_db)) == results.read_matches(local_db, live_run(local_db))
    assert results.read_groups(spark_db, live_run(spark_db)) == results.read_groups(local_db, live_run(local_db))


def test_spark_files_the_block_index_manifest_and_row_documents_of_the_local_batch(both, quality):
    ids = [row["id"] for row in quality[0]]
    (_, local_db), (_, spark_db) = both["local"], both["spark"]
    assert index_entries(spark_db) == index_entries(local_db)
    assert results.pointer(spark_db, "petition")["bucket_bits"] == results.pointer(local_db, "petition")["bucket_bits"]
    local_store, spark_store = MongoStore(local_db, table="petition"), MongoStore(spark_db, table="petition")
    assert spark_store.stored("petition") == local_store.stored("petition")
    assert spark_store.records("petition", ids) == local_store.records("petition", ids)


def test_spark_switches_a_generation_summarised_as_the_local_one_but_keeping_no_sketch_log(both):
    (_, local_db), (_, spark_db) = both["local"], both["spark"]
    local, spark = results.pointer(local_db, "petition"), results.pointer(spark_db, "petition")
    assert local["summary"]["sketches"], "the local batch names the sketch log a re-run reads"
    assert spark["summary"] == {**local["summary"], "sketches": ""} and spark["building"] is None
    assert spark["run"] and spark["previous"] == ""


def test_a_spark_rerun_writes_only_the_rows_added_changed_or_removed(spark, quality, tmp_path, mongo_db, mongo_uri):
    rows, path = quality
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(path.read_bytes())
    config = config_for(copy, mongo_uri, mongo_db.name)
    store = MongoStore(mongo_db, table="petition")
    first = run_spark_batch(config, store, partitions=3)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE petition SET content = '再次反映' || content WHERE id = 2")
        db.execute("DELETE FROM petition WHERE id IN (?, ?)", (rows[4]["id"], rows[-1]["id"]))
        db.execute("INSERT INTO petition (id, content) VALUES (?, ?)", (len(rows) + 1000, "再次反映" + rows[9]["content"]))
    again = run_spark_batch(config, store, partitions=3)
    assert (first.added, first.changed, first.removed) == (len(rows), 0, 0)
    assert (again.added, again.changed, again.removed) == (1, 1, 2)
    assert again.rows == len(rows) - 1


def test_id_ranges_cover_every_id_once():
    bounds = _bounds(7, 1006, 3)
    ranges = [range(low + 1, high + 1) for low, high in zip(bounds[:-1].tolist(), bounds[1:].tolist())]
    assert [i for r in ranges for i in r] == list(range(7, 1007)) and len({len(r) for r in ranges}) <= 2


def test_batch_engine_spark_prints_the_pairs_and_groups_of_the_local_engine(spark, run):
    local = run("batch").output.splitlines()
    on_spark = run("batch", "--engine", "spark", "--partitions", "3")
    summary = [line for line in on_spark.output.splitlines() if line.startswith(("similar pairs", "groups"))]
    assert on_spark.exit_code == 0 and len(summary) == 2
    assert summary == [line for line in local if line.startswith(("similar pairs", "groups"))]


def test_without_java_the_spark_engine_says_in_one_line_what_to_install(spark, run, monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    done = run("batch", "--engine", "spark")
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert "Java 17" in done.output.splitlines()[-1] and "openjdk-17-jre-headless" in done.output.splitlines()[-1]


def test_without_pyspark_the_spark_engine_says_in_one_line_what_to_install(run, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    done = run("batch", "--engine", "spark")
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert done.output.splitlines()[-1] == "Error: --engine spark needs PySpark: pip install 'dedup-pipeline[spark]'"


def test_a_spark_task_that_fails_ends_the_batch_in_one_line_naming_its_error(spark, quality, mongo_db):
    config = config_for(quality[1], "mongodb://127.0.0.1:9/", mongo_db.name)  # a MongoDB the executors cannot reach
    with pytest.raises(SparkError) as failed:
        run_spark_batch(config, MongoStore(mongo_db, table="petition"), partitions=2)
    message = str(failed.value)
    assert message.startswith("a Spark task failed: dedup_pipeline.errors.StoreError: cannot reach MongoDB at "
                              "mongodb://127.0.0.1:9/") and "\n" not in message


OUT_OF_MEMORY = """
from dedup_pipeline.jobs.spark import SparkError, spark_session
try:
    with spark_session("local[1]") as spark:  # a record larger than the JVM's heap, made in an executor
        spark.sparkContext.parallelize([0], 1).map(lambda _: b"x" * 700_000_000).collect()
except SparkError as e:
    print(e)
"""


@pytest.mark.servers  # a JVM of its own, with 512 MB
def test_an_executor_out_of_memory_ends_the_job_in_one_line_saying_so_not_connection_refused(tmp_path):
    env = {**os.environ, "PYSPARK_SUBMIT_ARGS": "--driver-memory 512m --conf spark.ui.enabled=false pyspark-shell"}
    done = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    said = f"{done.stdout}{done.stderr[-3000:]}"
    assert done.returncode == 0 and done.stdout.count("\n") == 1, said
    assert done.stdout.startswith("Spark ran out of memory (java.lang.OutOfMemoryError"), said
    assert "spark.driver.memory" in done.stdout and "Connection refused" not in done.stdout


class Unsayable(Exception):
    """A py4j error whose message must be asked of a JVM that has ended."""

    __module__ = "py4j.protocol"

    def __str__(self):
        raise ConnectionResetError(104, "Connection reset by peer")


def test_a_failure_whose_message_the_ended_jvm_cannot_give_is_still_said_by_the_jvms_exit_code():
    ended = SimpleNamespace(wait=lambda seconds: OOM_EXIT, poll=lambda: OOM_EXIT)
    spark = SimpleNamespace(sparkContext=SimpleNamespace(_gateway=SimpleNamespace(proc=ended)))
    said = str(_failure(Unsayable(), spark))
    assert said.startswith("Spark ran out of memory (java.lang.OutOfMemoryError; its JVM ended, exit code 52)")


def test_the_spark_engine_refuses_the_in_memory_store_its_executors_cannot_reach(tmp_path):
    with pytest.raises(SparkError, match='needs a MongoDB its executors write to: \\[store\\] kind = "mongodb"'), \
            memory_store() as store:
        run_spark_batch(config_for(tmp_path / "petition.sqlite", "", "dedup", kind="memory"), store)


class Mongos:
    """The admin database of a sharded cluster's router, recording the commands it gets."""

    def __init__(self):
        self.commands = []

    def command(self, name, *args, **kwargs):
        self.commands.append((name, *args, kwargs))
        return {"msg": "isdbgrid", "ok": 1} if name == "hello" else {"ok": 1}


def test_on_a_sharded_cluster_each_new_generation_is_sharded_on_a_hashed_id():
    admin = Mongos()
    db = SimpleNamespace(name="dedup", client=SimpleNamespace(admin=admin))
    results.shard_generation(db, "r1")
    sharded = [(args[0], kwargs) for name, *args, kwargs in admin.commands if name == "shardCollection"]
    assert sharded == [(f"dedup.{name}__r1", {"key": {"_id": "hashed"}}) for name in results.GENERATION]


def test_on_a_single_server_nothing_is_sharded(mongo_db):
    assert MongoStore(mongo_db, table="petition").shard_generation("r1") == []
