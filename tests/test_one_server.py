"""One server, every job at once, on the embedded default: with `watch` and `serve` running,
the nightly `batch`, `check`, `report`, `status` and a second `watch --once` share the data
folder's store (store/shared.py) on a real MariaDB, and dedup_match ends as a clean batch's.
The store's server killed under `watch` is started again by it."""

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pymongo
import pytest
import sqlalchemy as sa

from dedup_pipeline import killpoints
from dedup_pipeline.config import load_config
from dedup_pipeline.sql import migrate
from dedup_pipeline.store import shared
from tests.test_watch import (COLUMNS, FIELDS, WorkerProcess, assert_consistent, config_of, insert, pending,
                              petition_rows, sql, wait_until)


@pytest.fixture
def one_server(mysql_url, tmp_path):
    """A migrated `petition` table on MariaDB and a configuration file with the embedded store
    under tmp_path: (engine, config file); the store's server stopped afterwards."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 *(sa.Column(c, sa.Text) for c in COLUMNS)).create(conn)
    migrate.upgrade(config_of(mysql_url))
    fields = "\n".join(f'{name} = "{role}"' for name, role in FIELDS.items())
    path = tmp_path / "dedup.toml"
    path.write_text(f'[source]\nurl = "{mysql_url}"\ntable = "petition"\n[fields]\n{fields}\n'
                    f'[store]\ndata_dir = "{tmp_path / "dedup-data"}"\n', encoding="utf-8")
    yield engine, path
    for worker in WorkerProcess.started:
        if worker.process.poll() is None:
            worker.process.kill()
            worker.process.wait()
    WorkerProcess.started.clear()
    shared.stop(tmp_path / "dedup-data" / "mongo")
    engine.dispose()


def command(config_file, *args):
    """`dedup-pipeline *args` in a process of its own, as cron or a person runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    return subprocess.run([sys.executable, "-m", "dedup_pipeline", *args, "--config", str(config_file)],
                          capture_output=True, text=True, env=env, timeout=300)


class Console:
    """`dedup-pipeline serve` on a free port, in a process of its own."""

    def __init__(self, config_file):
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
        self.process = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "serve", "--port", "0",
                                         "--config", str(config_file)], stderr=subprocess.PIPE, text=True, env=env)
        self.said = [self.process.stderr.readline()]
        while "review console on" not in self.said[-1] and self.said[-1]:
            self.said.append(self.process.stderr.readline())
        assert "review console on" in self.said[-1], self.said
        self.url = self.said[-1].split("review console on ")[1].split()[0]

    def login_page(self):
        with urllib.request.urlopen(f"{self.url}/login", timeout=30) as answer:
            return answer.status

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=30)


def store_of(config_file):
    """The embedded store's database, reached through a handle of this process."""
    config = load_config(str(config_file))
    handle = shared.attach(os.path.join(config.store.data_dir, "mongo"), idle_s=60)
    return handle, pymongo.MongoClient(handle.uri)[config.store.database], config


def test_every_command_runs_beside_watch_and_serve_and_dedup_match_ends_as_a_clean_batch_s(one_server):
    engine, config_file = one_server
    insert(engine, petition_rows(120))
    assert command(config_file, "batch").returncode == 0
    worker = WorkerProcess(config_file, "--batch-size", "20")
    console = Console(config_file)
    insert(engine, petition_rows(60, start=120))
    sql(engine, "UPDATE petition SET content = CONCAT(content, '再次反映。') WHERE id % 7 = 0 AND id < 100")
    sql(engine, "DELETE FROM petition WHERE id % 11 = 0 AND id < 100")

    for args in (["batch"], ["report", "--out", str(config_file.parent / "pairs.jsonl")], ["watch", "--once"]):
        done = command(config_file, *args)
        assert done.returncode == 0, (args, done.stderr)
    checked = command(config_file, "check", "--id", "3", "--json")
    assert checked.returncode in (0, 3), checked.stderr  # none found, or similar rows found
    assert "similar" in json.loads(checked.stdout)
    assert console.login_page() == 200

    insert(engine, petition_rows(40, start=180))
    sql(engine, "DELETE FROM petition WHERE id % 13 = 0")
    wait_until(lambda: pending(engine) == 0, timeout=120)
    status = command(config_file, "status", "--json")
    assert status.returncode == 0, status.stdout + status.stderr
    assert worker.stop() == 0 and console.stop() == 0
    handle, db, config = store_of(config_file)
    with handle:
        assert_consistent(engine, config, db)
        db.client.close()


def test_the_store_s_server_killed_under_watch_is_started_again_by_it(one_server):
    engine, config_file = one_server
    insert(engine, petition_rows(80))
    assert command(config_file, "batch").returncode == 0
    worker = WorkerProcess(config_file, "--batch-size", "20")
    insert(engine, petition_rows(40, start=80))
    wait_until(lambda: pending(engine) == 0, timeout=60)
    handle, db, config = store_of(config_file)
    with handle:
        killed = handle.pid
        os.kill(killed, signal.SIGKILL)  # as the out-of-memory killer would
        insert(engine, petition_rows(40, start=120))
        worker.wait_for("had ended; started it again", timeout=60)
        wait_until(lambda: pending(engine) == 0, timeout=60)
        assert worker.process.poll() is None  # it carried on
        assert shared.running(handle.folder)["pid"] != killed
        assert worker.stop() == 0
        assert_consistent(engine, config, db)
        db.client.close()


def test_a_short_command_whose_store_s_server_dies_says_so_in_one_line(one_server, monkeypatch):
    engine, config_file = one_server
    insert(engine, petition_rows(40))
    assert command(config_file, "batch").returncode == 0
    handle, db, config = store_of(config_file)
    with handle:
        db.client.close()
        os.kill(handle.pid, signal.SIGSTOP)  # a server that answers nothing: as good as gone to a client
        try:
            done = command(config_file, "check", "--id", "3")
        finally:
            os.kill(handle.pid, signal.SIGKILL)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_a_second_batch_beside_a_running_one_is_refused_by_the_lease_as_on_a_mongodb_server(one_server):
    engine, config_file = one_server
    insert(engine, petition_rows(80))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    first = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "batch", "--config", str(config_file)],
                             env={**env, killpoints.ENV: "batch.filed@SIGSTOP"}, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: process_state(first.pid) == "T", timeout=120)  # stopped at the point, holding the lease
    try:
        second = command(config_file, "batch")
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert second.returncode == 1, second.stderr
    assert second.stderr.splitlines()[-1].startswith("Error: another batch is running")
    assert second.stderr.count("Error") == 1 and "Traceback" not in second.stderr
    assert first.wait(timeout=120) == 0, first.stderr.read()
    assert command(config_file, "batch").returncode == 0  # the lease is free again


def process_state(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_serve_with_no_reviewer_says_how_to_add_one(one_server):
    engine, config_file = one_server
    console = Console(config_file)
    try:
        assert console.said[0].startswith("Warning: no reviewer can sign in yet")
        assert "dedup-pipeline reviewer add NAME" in console.said[0]
        assert console.login_page() == 200
    finally:
        assert console.stop() == 0
    command_input = subprocess.run(
        [sys.executable, "-m", "dedup_pipeline", "reviewer", "add", "wang", "--config", str(config_file)],
        input="correct horse 1\n", capture_output=True, text=True, timeout=120)
    assert command_input.returncode == 0, command_input.stderr
    console = Console(config_file)
    try:
        assert not any("no reviewer" in line for line in console.said)
    finally:
        console.stop()
