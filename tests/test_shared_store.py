"""The embedded store's server, one per data folder, shared by every process that uses it
(store/shared.py): found, outliving a command, idling out, compacting, brought back."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pymongo
import pytest

from dedup_pipeline.config import default_config_text
from dedup_pipeline.store import shared
from dedup_pipeline.store.embedded import EmbeddedMongo
from testing.mongo_process import MongoProcess

ATTACH = """
import sys
from dedup_pipeline.store import shared
with shared.attach(sys.argv[1], idle_s=float(sys.argv[2])) as server:
    print(server.pid, server.uri, flush=True)
    sys.stdin.read()  # held until the test closes stdin
"""


@pytest.fixture
def folder(tmp_path):
    """A data folder whose server, if any, is stopped after the test."""
    yield tmp_path / "mongo"
    shared.stop(tmp_path / "mongo")


def holder(folder, idle_s=60.0):
    """Another process holding a handle on the folder's server until its stdin closes: (process, pid, uri)."""
    process = subprocess.Popen([sys.executable, "-c", ATTACH, str(folder), str(idle_s)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    pid, uri = process.stdout.readline().split()
    return process, int(pid), uri


def gone(pid, within_s=30.0):
    """Whether the process `pid` has ended (or is a zombie) within that time."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):  # ended between the open and the read
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


def test_two_processes_on_one_folder_share_one_server(folder):
    process, pid, uri = holder(folder)
    with shared.attach(folder, idle_s=60) as server:
        assert (server.pid, server.uri) == (pid, uri)
        with pymongo.MongoClient(server.uri) as client:
            client.dedup.rows.insert_one({"_id": 1})
    process.stdin.close()
    assert process.wait() == 0


def test_processes_attaching_at_once_start_one_server(folder):
    started = [holder(folder) for _ in range(4)]
    assert len({pid for _, pid, _ in started}) == 1
    for process, _, _ in started:
        process.stdin.close()
        process.wait()


def test_the_server_outlives_the_command_that_started_it(folder):
    process, pid, uri = holder(folder)
    with pymongo.MongoClient(uri) as client:
        client.dedup.rows.insert_one({"_id": 7})
    process.stdin.close()
    assert process.wait() == 0
    with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
        assert server.pid == pid
        assert client.dedup.rows.find_one({"_id": 7}) == {"_id": 7}


def test_the_server_stops_once_no_process_has_used_it_for_its_idle_time(folder):
    with shared.attach(folder, idle_s=0.2) as server:
        pid = server.pid
    assert gone(pid)
    assert not (folder / shared.ADDRESS).exists()
    assert shared.running(folder) is None


def test_a_server_in_use_does_not_stop_for_idling(folder):
    with shared.attach(folder, idle_s=0.1) as server:
        deadline = time.monotonic() + 1.0  # ten times its idle time
        while time.monotonic() < deadline:
            assert Path(f"/proc/{server.pid}").exists()
            time.sleep(0.05)
        assert shared.running(folder)["pid"] == server.pid


def test_the_data_survives_a_stop_and_a_start(folder):
    with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
        client.dedup.rows.insert_one({"_id": 7, "fp": -(2**63)})
    assert shared.stop(folder)
    with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
        assert client.dedup.rows.find_one({"_id": 7}) == {"_id": 7, "fp": -(2**63)}


def test_stop_returns_once_the_server_has_closed_its_files(folder):
    with shared.attach(folder, idle_s=60):
        pass
    assert shared.stop(folder)
    with EmbeddedMongo().start(folder):  # the folder is free at once: no "busy"
        pass
    assert shared.stop(folder) is False  # none runs


@pytest.mark.parametrize("set_by_user", [None, "8"])
def test_the_server_shares_two_heaps_among_its_threads_unless_the_user_says(folder, monkeypatch, set_by_user):
    if set_by_user:
        monkeypatch.setenv("MALLOC_ARENA_MAX", set_by_user)
    else:
        monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    with shared.attach(folder, idle_s=60) as server:
        environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
    assert f"MALLOC_ARENA_MAX={set_by_user or 2}".encode() in environ


def test_the_server_leaves_ctrl_c_to_the_command_that_started_it(folder):
    with shared.attach(folder, idle_s=60) as server:
        os.kill(server.pid, signal.SIGINT)
        with pymongo.MongoClient(server.uri) as client:
            assert client.admin.command("ping")["ok"] == 1


def test_the_server_compacts_when_a_handle_asks(folder):
    with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
        client.nightly.dropped.insert_many([{"data": os.urandom(1000)} for _ in range(3000)])
        client.nightly.kept.insert_one({"n": 1})
        client.nightly.drop_collection("dropped")
        assert server.compact()
        assert client.nightly.kept.count_documents({}) == 1


def test_a_handle_on_a_server_gone_compacts_nothing_and_raises_nothing(folder):
    mongo = MongoProcess(folder).start()
    mongo.kill()
    assert mongo.handle.compact() is False
    mongo.handle.close()
    assert mongo.handle.compact() is False


def test_a_server_killed_is_started_again_on_its_port_and_its_clients_reconnect(folder):
    with MongoProcess(folder).start() as mongo, pymongo.MongoClient(mongo.uri) as client:
        client.dedup.rows.insert_one({"_id": 1})
        client.dedup.command("fsync")
        first = mongo.pid
        mongo.kill()
        assert mongo.handle.revive()
        assert mongo.pid != first
        assert client.dedup.rows.find_one({"_id": 1}) == {"_id": 1}


def test_a_server_that_ended_is_replaced_by_the_next_process(folder):
    mongo = MongoProcess(folder).start()
    mongo.kill()  # its server.json stays, naming a server that is gone
    with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
        assert server.pid != mongo.pid
        assert client.admin.command("ping")["ok"] == 1


def test_an_address_whose_port_another_program_holds_now_is_not_taken_for_the_server(folder, monkeypatch):
    monkeypatch.setattr(shared, "GREET_WAIT_S", 0.5)
    folder.mkdir(parents=True)
    with socket.create_server(("127.0.0.1", 0)) as other:  # listens, never greets
        shared._write_address(folder, {"uri": "mongodb://127.0.0.1:1/", "port": 1, "control": other.getsockname()[1],
                                       "pid": 1})
        with shared.attach(folder, idle_s=60) as server, pymongo.MongoClient(server.uri) as client:
            assert server.pid != 1 and server.uri != "mongodb://127.0.0.1:1/"
            assert client.admin.command("ping")["ok"] == 1


def test_a_folder_in_use_by_another_server_is_refused_saying_so(folder):
    with EmbeddedMongo().start(folder):
        with pytest.raises(shared.StoreServerError, match="another server"):
            shared.attach(folder, idle_s=60)


def test_a_second_server_of_a_folder_served_is_refused(folder):
    with shared.attach(folder, idle_s=60) as server:
        with pytest.raises(shared.StoreServerError, match=f"already served, by process {server.pid}"):
            shared.serve(folder)


def test_the_server_runs_the_very_package_its_starter_imported(tmp_path):
    """Not another copy that happens to be installed: a checkout run from elsewhere, a worktree."""
    copy = tmp_path / "checkout"
    shutil.copytree(Path(__file__).resolve().parents[1] / "dedup_pipeline", copy / "dedup_pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))
    served = copy / "dedup_pipeline" / "store" / "shared.py"
    served.write_text(served.read_text(encoding="utf-8").replace(
        "    announce(mongo.uri)\n", "    (folder / 'served by the copy').touch()\n    announce(mongo.uri)\n"),
        encoding="utf-8")
    script = ("import sys; sys.path.insert(0, sys.argv[2]); from dedup_pipeline.store import shared\n"
              "with shared.attach(sys.argv[1], idle_s=0) as m: pass")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "mongo"), str(copy)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mongo" / "served by the copy").exists()
    shared.stop(tmp_path / "mongo")


def test_store_serve_tells_systemd_it_is_ready_once_the_others_can_find_it(tmp_path):
    """`Type=notify` in dedup-store.service: the jobs ordered after it find server.json."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(120)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}, "NOTIFY_SOCKET": str(tmp_path / "notify")}
    (tmp_path / "dedup.toml").write_text(default_config_text() + f'\n[store]\ndata_dir = "{tmp_path / "data"}"\n',
                                         encoding="utf-8")
    server = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "store", "serve", "--config",
                               str(tmp_path / "dedup.toml")], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert notify.recv(64) == b"READY=1"
        assert shared.running(tmp_path / "data" / "mongo")["pid"] == server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
        notify.close()
    assert not (tmp_path / "data" / "mongo" / shared.ADDRESS).exists()  # SIGTERM: stopped cleanly
