"""The outbox worker on a real MariaDB and a real MongoDB-protocol server: rows changed
through the triggers end up right in dedup_match and the block index, with two workers at
once, a worker killed mid-batch, MariaDB restarted and MongoDB killed under a worker,
entries that keep failing, SIGTERM, pairs linked through a row that changes; and `batch`
writing dedup_match.

After every scenario the same invariant is checked: nothing pending, dedup_match holds
exactly the similar pairs among the table's rows (both directions), and the block index
holds exactly the table's rows, each in all its blocks and nowhere else."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pymongo
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.dialects import mysql

from dedup_pipeline import killpoints
from dedup_pipeline.sql import migrate
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.cli import main
from dedup_pipeline.config import parse_config
from dedup_pipeline.core.decision import corroborates
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.store.index import MongoStore, open_store
from dedup_pipeline.jobs.watch import WatchSettings, watch
from testing.labelled import generate
from testing.mongo_process import MongoProcess
from tests.test_incremental import sample_rows

FIELDS = {"title": "short", "name": "short", "phone": "short", "address": "short",
          "category": "short", "content": "long", "created_at": "ignore"}
COLUMNS = ["title", "name", "phone", "address", "category", "created_at", "content"]
# who filed a row as evidence, as the default configuration; and another person's text a copy
# only when it adds or removes text whole, so that the quality set has pairs only a third row links
SUBMITTER = {"submitter": ["phone", "address"], "slips": 0, "numbers": 0}


def petition_rows(count, start=0):
    """Sample petition rows, and every fourth one re-submitted (a near or exact copy)."""
    rows = [dict(r) for r in sample_rows()[start:start + count]]
    copies = [{**r, "id": 10_000 + r["id"], "content": r["content"] + ("。" if i % 8 else "")}
              for i, r in enumerate(rows[::4])]
    return rows + copies


def linked_pair(linkers):
    """From the labelled quality set: two rows with similar text and no evidence of their
    own, and the `linkers` rows that link them (corroboration.py)."""
    rows = generate(1200, seed=11).rows
    scheme = scheme_of(config_of("sqlite://", scheme=SUBMITTER))
    probes = scheme.probes(rows)
    i, j, _ = scheme.pairs(probes)
    edges = {}
    for a, b in zip(i.tolist(), j.tolist()):
        evidence = scheme.relate(probes[a], probes[b])[1]
        edges[a, b] = edges[b, a] = evidence
    for a, b in zip(i.tolist(), j.tolist()):
        found = [c for c in range(len(rows)) if edges.get((a, c)) and edges.get((b, c))
                 and corroborates(edges[a, c], edges[b, c])]
        if not edges[a, b] and len(found) == linkers:
            return rows[a], rows[b], [rows[c] for c in found]
    raise AssertionError(f"the quality set has no pair linked through exactly {linkers} rows")


def insert(engine, rows):
    with engine.begin() as conn:
        conn.execute(sa.text(f"INSERT INTO petition (id, {', '.join(COLUMNS)}) "
                             f"VALUES (:id, {', '.join(':' + c for c in COLUMNS)})"), rows)


def sql(engine, statement, **params):
    with engine.begin() as conn:
        return conn.execute(sa.text(statement), params).all() if statement.startswith("SELECT") \
            else conn.execute(sa.text(statement), params)


@pytest.fixture
def petition(mysql_url):
    """An engine on a fresh MariaDB database with a `petition` table, migrated."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 *(sa.Column(c, sa.Text) for c in COLUMNS)).create(conn)
    migrate.upgrade(config_of(mysql_url))
    yield engine
    engine.dispose()


def config_of(url, mongo_uri="", database="dedup", fields=FIELDS, scheme=None):
    return parse_config({"source": {"url": url, "table": "petition"}, "fields": fields,
                         "store": {"mongo_uri": mongo_uri, "database": database}, "scheme": scheme or {}}, {})


@pytest.fixture
def config(petition, mongo_uri, mongo_db):
    return config_of(petition.url.render_as_string(hide_password=False), mongo_uri, mongo_db.name)


@pytest.fixture
def linking_config(petition, mongo_uri, mongo_db):
    """As `config`, with who filed a row as evidence, so that a third row can link a pair."""
    return config_of(petition.url.render_as_string(hide_password=False), mongo_uri, mongo_db.name,
                     scheme=SUBMITTER)


@pytest.fixture
def config_file(config, tmp_path):
    """The same configuration as a TOML file, for worker processes."""
    return written(config, tmp_path / "dedup.toml")


def written(config, path):
    fields = "\n".join(f'{name} = "{role}"' for name, role in FIELDS.items())
    path.write_text(f'[source]\nurl = "{config.source.url}"\ntable = "petition"\n[fields]\n{fields}\n'
                    f'[store]\nmongo_uri = "{config.store.mongo_uri}"\ndatabase = "{config.store.database}"\n',
                    encoding="utf-8")
    return path


def drain(config, **settings):
    return watch(config, WatchSettings(once=True, **settings), handle_signals=False)


def expected_pairs(config):
    """Every (row, similar row) among the table's rows, both directions, as the batch finds
    them with the configured scheme and stores them: copies linked to the first of them."""
    with SqlSource(config) as source:
        rows = [row for chunk in source.rows() for row in chunk]
    ids = np.array([row["id"] for row in rows])
    scheme = scheme_of(config)
    i, j, _ = scheme.similar(scheme.probes(rows)).linked()
    return set(zip(ids[i].tolist(), ids[j].tolist())) | set(zip(ids[j].tolist(), ids[i].tolist()))


def stored_pairs(engine, source=None):
    where = f" WHERE source = '{source}'" if source else ""
    return set(map(tuple, sql(engine, f"SELECT row_id, similar_id FROM dedup_match{where}")))


def assert_consistent(engine, config, mongo_db):
    """Nothing pending; dedup_match and the block index agree with the table."""
    assert sql(engine, "SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL")[0][0] == 0
    assert_agrees(engine, config, mongo_db)


def assert_agrees(engine, config, mongo_db):
    """dedup_match and the block index agree with the table."""
    want = expected_pairs(config)
    assert want, "the scenario should have similar rows"
    assert stored_pairs(engine) == want
    table_ids = {r[0] for r in sql(engine, "SELECT id FROM petition")}
    assert {d["row"] for d in mongo_db.rows.find({}, {"row": 1})} == table_ids
    index = Incremental(MongoStore(mongo_db, table="petition"), config)  # each row filed as the table has it
    with SqlSource(config) as source:
        rows = source.rows_by_id(sorted(table_ids))
    held = index.store.records(config.source.table, sorted(table_ids))
    assert all(held[r["id"]] == index.record(r["id"], r, p) for r, p in zip(rows, index.scheme.probes(rows)))


@pytest.fixture(autouse=True)
def no_worker_left():
    """Kill every worker process a test started, whatever the test's outcome."""
    yield
    for worker in WorkerProcess.started:
        if worker.process.poll() is None:
            worker.process.kill()
            worker.process.wait()
    WorkerProcess.started.clear()


class WorkerProcess:
    """`dedup-pipeline watch` in a process of its own, its log in a file."""

    started = []

    def __init__(self, config_file, *args, kill_at=""):
        WorkerProcess.started.append(self)
        self.log = config_file.parent / f"watch-{time.monotonic_ns()}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
        env.update({killpoints.ENV: kill_at} if kill_at else {})
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "dedup_pipeline", "watch", "--config", str(config_file), "--poll", "0.02",
                 *args], stdout=log, stderr=subprocess.STDOUT, env=env)

    def text(self):
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, text, timeout=30):
        wait_until(lambda: text in self.text() or self.process.poll() is not None, timeout)
        assert text in self.text(), self.text()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)


def wait_until(condition, timeout=30, every=0.05):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)


def pending(engine):
    return sql(engine, "SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL")[0][0]


def done(engine):
    return sql(engine, "SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NOT NULL")[0][0]


# -- the trigger path


def test_inserts_updates_and_deletes_end_up_in_dedup_match_and_the_index(petition, config, mongo_db):
    insert(petition, petition_rows(200))
    drain(config)
    assert_consistent(petition, config, mongo_db)
    a, b = sql(petition, "SELECT id FROM petition WHERE id < 10000 ORDER BY id LIMIT 2 OFFSET 50")
    gone = sql(petition, "SELECT row_id FROM dedup_match ORDER BY row_id LIMIT 1")[0][0]
    sql(petition, f"UPDATE petition p, petition q SET p.content = q.content, p.title = q.title, p.name = q.name, "
                  f"p.phone = q.phone, p.address = q.address, p.category = q.category "
                  f"WHERE p.id = {a[0]} AND q.id = {b[0]}")
    sql(petition, f"DELETE FROM petition WHERE id = {gone}")
    drain(config)
    assert (a[0], b[0]) in stored_pairs(petition) and (b[0], a[0]) in stored_pairs(petition)
    assert not sql(petition, f"SELECT * FROM dedup_match WHERE row_id = {gone} OR similar_id = {gone}")
    assert_consistent(petition, config, mongo_db)


def test_processing_the_same_entries_twice_changes_nothing(petition, config, mongo_db):
    insert(petition, petition_rows(120))
    drain(config)
    before = stored_pairs(petition), sorted(mongo_db.blocks.find(), key=lambda d: d["_id"])
    sql(petition, "UPDATE dedup_outbox SET done_at = NULL")  # as if the commit had been lost
    tally = drain(config)
    assert tally.rows == 150 and tally.added == 0
    assert (stored_pairs(petition), sorted(mongo_db.blocks.find(), key=lambda d: d["_id"])) == before
    assert_consistent(petition, config, mongo_db)


@pytest.mark.parametrize("change", ["DELETE FROM petition", "UPDATE petition SET content = '另一件事：小区停车位被占用'"],
                         ids=["deleted", "changed"])
def test_a_pair_linked_through_a_row_is_forgotten_when_that_row_changes_or_goes(
        petition, linking_config, mongo_db, change):
    a, b, (linker,) = linked_pair(1)
    insert(petition, [a, b, linker])
    drain(linking_config)
    assert (a["id"], b["id"]) in stored_pairs(petition)
    sql(petition, f"{change} WHERE id = {linker['id']}")
    drain(linking_config)
    assert (a["id"], b["id"]) not in stored_pairs(petition)
    assert stored_pairs(petition) == expected_pairs(linking_config)


def test_a_pair_linked_through_two_rows_stays_when_one_of_them_goes(petition, linking_config, mongo_db):
    a, b, (gone, stays) = linked_pair(2)
    insert(petition, [a, b, gone, stays])
    drain(linking_config)
    sql(petition, f"DELETE FROM petition WHERE id = {gone['id']}")
    drain(linking_config)
    assert (a["id"], b["id"]) in stored_pairs(petition) and (b["id"], a["id"]) in stored_pairs(petition)
    assert stored_pairs(petition) == expected_pairs(linking_config)


def test_after_deletes_and_edits_dedup_match_holds_the_pairs_of_the_batch_links_included(
        petition, linking_config, mongo_db):
    rows = generate(1200, seed=11).rows[:450]
    insert(petition, rows)
    drain(linking_config)
    unlinked = config_of(linking_config.source.url, scheme={**SUBMITTER, "corroborate": False})
    linked = expected_pairs(linking_config) - expected_pairs(unlinked)
    assert linked and stored_pairs(petition) == expected_pairs(linking_config)
    sql(petition, "DELETE FROM petition WHERE MOD(id, 7) = 0")
    sql(petition, "UPDATE petition p JOIN petition q ON q.id = p.id + 1 SET p.content = q.content "
                  "WHERE MOD(p.id, 11) = 0")
    drain(linking_config)
    after = expected_pairs(linking_config)
    kept = {r[0] for r in sql(petition, "SELECT id FROM petition")}
    assert {(a, b) for a, b in linked if a in kept and b in kept} - after, "the changes should break a link"
    assert stored_pairs(petition) == after


def test_watch_once_drains_the_outbox_and_exits(petition, config_file, config, mongo_db):
    insert(petition, petition_rows(100))
    result = CliRunner().invoke(main, ["watch", "--once", "--config", str(config_file)])
    assert result.exit_code == 0, result.output
    assert "stopped: claimed=125 rows=125 added=125" in result.output
    assert_consistent(petition, config, mongo_db)


def simhash_file(config_file):
    """The worker's configuration with the paper's SimHash scheme instead of shingles."""
    path = config_file.parent / "simhash.toml"
    path.write_text(config_file.read_text(encoding="utf-8") + '[scheme]\nname = "simhash"\n', encoding="utf-8")
    return path


REFUSAL = "run `dedup-pipeline batch` with this configuration first"


def test_watch_with_other_scheme_settings_than_the_live_batch_refuses_and_processes_nothing(
        petition, config_file, mongo_db):
    insert(petition, petition_rows(40))
    assert CliRunner().invoke(main, ["batch", "--processes", "1", "--config", str(config_file)]).exit_code == 0
    sql(petition, "DELETE FROM dedup_outbox")
    insert(petition, petition_rows(40, start=40))
    result = CliRunner().invoke(main, ["watch", "--once", "--config", str(simhash_file(config_file))])
    assert result.exit_code == 2 and REFUSAL in result.stderr and "stopped:" not in result.stderr
    assert sql(petition, "SELECT COUNT(*), SUM(attempts) FROM dedup_outbox WHERE done_at IS NULL")[0] == (50, 0)


def test_a_running_worker_stops_when_a_batch_with_other_scheme_settings_goes_live(petition, config_file, mongo_db):
    worker = WorkerProcess(config_file)
    worker.wait_for("watching petition")
    insert(petition, petition_rows(40))
    wait_until(lambda: pending(petition) == 0)
    assert CliRunner().invoke(main, ["batch", "--processes", "1", "--config", str(simhash_file(config_file))]).exit_code == 0
    insert(petition, petition_rows(4, start=40))
    assert worker.process.wait(timeout=30) == 2
    assert REFUSAL in worker.text().splitlines()[-1]
    assert sql(petition, "SELECT COUNT(*), SUM(attempts) FROM dedup_outbox WHERE done_at IS NULL")[0] == (5, 0)


# -- several workers, kills, restarts, signals


def test_two_workers_at_once_process_every_entry_once_in_effect(petition, config_file, config, mongo_db):
    workers = [WorkerProcess(config_file, "--batch-size", "10") for _ in range(2)]
    for worker in workers:
        worker.wait_for("watching petition")
    rows = petition_rows(240)
    for start in range(0, len(rows), 20):
        insert(petition, rows[start:start + 20])
        sql(petition, f"UPDATE petition SET content = CONCAT(content, '！') WHERE id = {rows[start]['id']}")
        if start % 60 == 0:
            sql(petition, f"DELETE FROM petition WHERE id = {rows[start + 1]['id']}")
    wait_until(lambda: pending(petition) == 0, timeout=60)
    assert [worker.stop() for worker in workers] == [0, 0]
    assert len({r[0] for r in sql(petition, "SELECT claimed_by FROM dedup_outbox")}) == 2  # both worked
    assert_consistent(petition, config, mongo_db)


def test_a_worker_killed_mid_batch_then_restarted_loses_nothing_and_counts_nothing_twice(
        petition, config_file, config, mongo_db):
    insert(petition, petition_rows(480))
    worker = WorkerProcess(config_file, "--batch-size", "100")
    filed = lambda: mongo_db.rows.count_documents({})
    wait_until(lambda: done(petition) >= 100 and filed() > done(petition), every=0.005)
    worker.stop(signal.SIGKILL)
    assert filed() > done(petition) > 0  # killed after filing rows whose entries it had not committed
    assert WorkerProcess(config_file, "--once").process.wait(timeout=60) == 0
    assert_consistent(petition, config, mongo_db)


def test_mariadb_restarted_under_a_running_worker_is_logged_and_waited_out(
        mariadb, petition, config_file, config, mongo_db):
    worker = WorkerProcess(config_file, "--batch-size", "50")
    insert(petition, petition_rows(100))
    wait_until(lambda: done(petition) > 0)
    mariadb.stop()
    worker.wait_for("is unreachable")  # the worker polls through the outage, not around it
    mariadb.start()
    petition.dispose()  # the test's own connections died with the server
    insert(petition, petition_rows(100, start=100))
    wait_until(lambda: pending(petition) == 0, timeout=60)
    assert worker.stop() == 0
    log = worker.text()
    assert "is unreachable" in log and "resuming" in log, log
    assert_consistent(petition, config, mongo_db)


def test_mongodb_killed_under_a_running_worker_is_logged_and_waited_out(petition, tmp_path):
    with MongoProcess(tmp_path / "mongo").start() as mongo:
        config = config_of(petition.url.render_as_string(hide_password=False), mongo.uri)
        worker = WorkerProcess(written(config, tmp_path / "dedup.toml"), "--batch-size", "50")
        insert(petition, petition_rows(100))
        wait_until(lambda: done(petition) > 0)
        mongo.kill()
        worker.wait_for("is unreachable")
        insert(petition, petition_rows(100, start=100))
        mongo.start()  # the same port and data folder: WiredTiger recovers from its journal
        wait_until(lambda: pending(petition) == 0, timeout=60)
        assert worker.stop() == 0
        log = worker.text()
        assert f"MongoDB at {mongo.uri} is unreachable" in log and "resuming" in log, log
        with pymongo.MongoClient(mongo.uri) as client:
            assert_consistent(petition, config, client[config.store.database])


def test_sigterm_stops_the_worker_after_the_current_batch(petition, config_file, mongo_db):
    insert(petition, petition_rows(400))
    worker = WorkerProcess(config_file, "--batch-size", "50")
    wait_until(lambda: done(petition) > 0)
    assert worker.stop() == 0
    log = worker.text()
    assert "SIGTERM: stopping after the current batch" in log and "stopped: claimed=" in log
    done_rows = {r[0] for r in sql(petition, "SELECT row_id FROM dedup_outbox WHERE done_at IS NOT NULL")}
    assert 0 < len(done_rows) < 500
    assert {d["row"] for d in mongo_db.rows.find({}, {"row": 1})} == done_rows  # no batch left half done


# -- failures


def test_an_entry_that_keeps_failing_is_kept_with_its_error(mysql_url, mongo_uri, mongo_db):
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("content", mysql.TEXT(charset="latin1"))).create(conn)
    config = config_of(mysql_url, mongo_uri, mongo_db.name, {"content": {"role": "long", "encoding": "gbk"}})
    migrate.upgrade(config)
    good, bad = "再次反映，小区楼道长期堆放杂物".encode("gbk").hex(), "ff41ff42"  # 0xFF starts no GBK character
    sql(engine, f"INSERT INTO petition VALUES (1, UNHEX('{good}')), (2, UNHEX('{bad}')), (3, UNHEX('{good}'))")
    tally = drain(config, max_attempts=3)
    rows = sql(engine, "SELECT row_id, attempts, done_at IS NULL, last_error FROM dedup_outbox ORDER BY row_id")
    assert [r[:3] for r in rows] == [(1, 1, 0), (2, 3, 1), (3, 1, 0)]
    assert "not valid gbk" in rows[1][3]
    assert tally.failed == 3
    assert stored_pairs(engine) == {(1, 3), (3, 1)}
    assert drain(config, max_attempts=3).claimed == 0  # given up: kept, no longer retried
    engine.dispose()


def test_a_config_naming_a_missing_column_is_a_clear_error_and_writes_nothing(petition, config_file, mongo_db):
    insert(petition, petition_rows(8))
    text = config_file.read_text(encoding="utf-8").replace('content = "long"', 'body = "long"')
    config_file.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["watch", "--once", "--config", str(config_file)])
    assert result.exit_code == 2
    assert "column body not in table 'petition'" in result.output
    assert sql(petition, "SELECT COUNT(*), SUM(attempts) FROM dedup_outbox WHERE done_at IS NULL")[0] == (10, 0)
    assert mongo_db.rows.count_documents({}) == 0


# -- batch


def test_batch_writes_dedup_match_both_ways_and_replaces_the_previous_batch(petition, config_file, config):
    insert(petition, petition_rows(160))
    run = lambda: CliRunner().invoke(main, ["batch", "--processes", "1", "--config", str(config_file)])
    result = run()
    assert result.exit_code == 0, result.output
    assert "dedup_match: " in result.output and "replaced the previous batch's" in result.output
    first = stored_pairs(petition, "batch")
    assert first == expected_pairs(config) and first
    a, b = sorted(first)[0]
    sql(petition, f"DELETE FROM petition WHERE id IN ({a}, {b})")
    assert run().exit_code == 0
    assert stored_pairs(petition, "batch") == expected_pairs(config) == {p for p in first if not {a, b} & set(p)}


def test_rows_a_worker_changes_while_a_batch_runs_end_with_the_matches_the_table_gives(petition, config, mongo_db):
    insert(petition, petition_rows(160))
    drain(config)
    a, b = 1, 5  # each has a re-submitted copy (10001, 10005): a pair in dedup_match
    assert {(a, 10_000 + a), (b, 10_000 + b)} <= stored_pairs(petition)
    changed = []

    def meanwhile(n):  # the batch has read the table: a row deleted, a row rewritten, the worker on them
        if not changed:
            sql(petition, f"DELETE FROM petition WHERE id = {a}")
            sql(petition, f"UPDATE petition SET content = '与此无关的另一件事：路灯坏了三个月' WHERE id = {b}")
            changed.append(drain(config))

    with open_store(config) as store:
        result = run_batch(config, store, meanwhile, processes=1)
    assert changed[0].removed == 1 and result.replayed == 2
    assert not {p for p in stored_pairs(petition) if {a, b} & set(p)}  # not the batch's stale pairs
    assert_consistent(petition, config, mongo_db)


# -- copies: rows of one text linked to the first of them

def collective_rows(copies, start=500):
    """`copies` people filing one text (集体信访), beside petition rows of their own."""
    text = "我们小区三百多户业主联名反映：开发商承诺的幼儿园至今没有建成，原址被改成了商铺出租，请有关部门调查处理。"
    return [{**r, "id": start + n, "name": f"联名{n}", "phone": f"1390000{n:04d}", "content": text}
            for n, r in enumerate(sample_rows()[40:40 + copies])]


def links_to(engine, row):
    return {r[0] for r in sql(engine, f"SELECT row_id FROM dedup_match WHERE similar_id = {row} AND distance = 0")}


def test_the_copies_of_a_collective_petition_are_linked_to_the_first_of_them(petition, linking_config, mongo_db):
    insert(petition, petition_rows(40) + collective_rows(30))
    drain(linking_config)
    assert_consistent(petition, linking_config, mongo_db)
    assert links_to(petition, 500) >= set(range(501, 530))
    assert not sql(petition, "SELECT * FROM dedup_match WHERE row_id BETWEEN 501 AND 529 "
                             "AND similar_id BETWEEN 501 AND 529")


def test_when_the_first_copy_goes_or_changes_the_others_are_linked_to_the_next(petition, linking_config, mongo_db):
    insert(petition, petition_rows(40) + collective_rows(30))
    drain(linking_config)
    sql(petition, "DELETE FROM petition WHERE id = 500")
    drain(linking_config)
    assert_consistent(petition, linking_config, mongo_db)
    assert links_to(petition, 501) >= set(range(502, 530))
    sql(petition, "UPDATE petition SET content = '另一件事：小区门口的路灯坏了半年没人修' WHERE id = 501")
    drain(linking_config)
    assert_consistent(petition, linking_config, mongo_db)
    assert links_to(petition, 502) >= set(range(503, 530))


def test_an_earlier_row_changed_into_the_text_becomes_the_first_copy(petition, linking_config, mongo_db):
    insert(petition, petition_rows(40) + collective_rows(30))
    drain(linking_config)
    sql(petition, "UPDATE petition p, petition q SET p.content = q.content WHERE p.id = 20 AND q.id = 500")
    drain(linking_config)
    assert_consistent(petition, linking_config, mongo_db)
    assert links_to(petition, 20) >= set(range(500, 530))


def test_a_batch_and_the_worker_link_copies_alike(petition, linking_config, mongo_db):
    insert(petition, petition_rows(40) + collective_rows(30))
    run_batch(linking_config, MongoStore(mongo_db, table="petition"), processes=1)
    assert stored_pairs(petition, "batch") == expected_pairs(linking_config)
    sql(petition, "DELETE FROM petition WHERE id = 500")
    drain(linking_config)
    assert_consistent(petition, linking_config, mongo_db)


# -- a worker killed between its writes

def copy_sets(sets, start=1000):
    """`sets` texts each filed by three people (different phones): rows start + 10s + 0..2."""
    rows = sample_rows()
    return [{**rows[60 + s], "id": start + 10 * s + n, "name": f"联名{n}", "phone": f"1380000{s:02d}{n:02d}",
             "address": f"第{s}小区{n}号", "content": rows[100 + s]["content"] + "，请有关部门调查处理。"}
            for s in range(sets) for n in range(3)]


def change_first_copies(engine):
    """First rows of copies changed and deleted, new copies made (one before the first)."""
    sql(engine, "UPDATE petition SET content = CONCAT(content, '此前反映未果。') WHERE id IN (1000, 1010, 1020)")
    sql(engine, "DELETE FROM petition WHERE id IN (1030, 1040)")
    sql(engine, "UPDATE petition p, petition q SET p.content = q.content WHERE p.id = 7 AND q.id = 1050")
    insert(engine, [{**copy_sets(7)[-1], "id": 2000, "phone": "13700000000"}])


KILL_POINTS = ["apply.filed", "apply.removed", "apply.written", "watch.synced", "watch.committed"]


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_worker_killed_at_any_write_point_then_drained_gives_the_batchs_matches(
        petition, config_file, config, mongo_db, point):
    insert(petition, petition_rows(40) + copy_sets(8))
    run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    sql(petition, "DELETE FROM dedup_outbox")
    change_first_copies(petition)
    worker = WorkerProcess(config_file, "--once", "--batch-size", "500", kill_at=point)
    assert worker.process.wait(timeout=60) == -signal.SIGKILL, worker.text()
    drain(config)
    assert stored_pairs(petition) == expected_pairs(config)
    assert_consistent(petition, config, mongo_db)
