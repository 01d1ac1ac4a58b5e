"""A full disk: a batch fails in one line naming the full disk, never with the embedded
server's tracebacks, and leaves dedup_match as the live generation's (`report` and
dedup_match agree), for dedup_match is written in the transaction that switches the run
live; the embedded server ends when WiredTiger panics, as mongod does, so that once space
is freed the next command starts it afresh and the next batch goes live.

The disk is real: a 64 MB tmpfs (room for WiredTiger's 10 MB journal files, two of them, beside
the store and the batch's logs) mounted for the test (as root, which CI is) and filled, with
the real embedded server on it. Which write meets the full disk first (the batch's sketch
log or the store's) is the file system's to say: a batch is checked at 1 MB free (either),
the store alone by writing until it fails. A test that cannot mount fails, saying so, rather
than skip: what it checks would go unchecked."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pymongo.errors import OperationFailure

from dedup_pipeline.config import default_config_text, load_config
from dedup_pipeline.errors import StoreError
from dedup_pipeline.store import mongo, shared
from dedup_pipeline.store.index import MongoStore, open_store

MB = 1 << 20
WRITES = 80  # manifest writes of 50,000 rows (about 2 MB each): more than the disk holds


@pytest.fixture
def disk(tmp_path):
    """A 64 MB tmpfs mounted at tmp_path/disk, unmounted afterwards (its store's server stopped first)."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.fail(f"cannot mount a tmpfs for the full-disk tests (they need root, as CI runs them): "
                    f"{mounted.stderr.strip()}")
    yield where
    shared.stop(where / "data" / "mongo")
    if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(where)], check=True)


@pytest.fixture
def project(tmp_path, disk):
    """The bundled sample in SQLite beside the test, the store's data folder on the small
    disk: its configuration file's path."""
    sample = f'url = "sqlite:///{tmp_path}/sample.sqlite"'
    text = default_config_text().replace('url = "sqlite:///dedup-data/sample.sqlite"', sample)
    config = tmp_path / "dedup.toml"
    config.write_text(f'{text}\n[store]\ndata_dir = "{disk}/data"\n', encoding="utf-8")
    return str(config)


def fill(disk, leave):
    """Fill the file system of `disk` until `leave` bytes are free."""
    free = shutil.disk_usage(disk).free
    with open(disk / "filler", "ab") as f:
        f.write(bytes(max(0, free - leave)))


def ready(run, *config):
    """`migrate` and a first batch, then rows of its pairs deleted, so that the next batch
    changes dedup_match; the sample's path."""
    assert run("migrate", *config).exit_code == 0
    assert run("batch", *config).exit_code == 0
    sample = config[1].replace("dedup.toml", "sample.sqlite") if config else "dedup-data/sample.sqlite"
    with sqlite3.connect(sample) as db:
        db.execute("DELETE FROM petition WHERE id IN (SELECT row_id FROM dedup_match ORDER BY row_id LIMIT 5)")
    return sample


def matched(sample):
    with sqlite3.connect(sample) as db:
        return set(db.execute("SELECT row_id, similar_id FROM dedup_match"))


def agree(run, sample, *config):
    """Whether dedup_match holds the pairs `report` exports (the live generation's), both ways."""
    out = str(Path(sample).parent / "pairs.jsonl")
    shown = run("report", *config, "--out", out)
    assert shown.exit_code == 0, shown.output
    with open(out, encoding="utf-8") as f:
        exported = {(p["a"], p["b"]) for p in map(json.loads, f)}
    return bool(exported) and matched(sample) == exported | {(b, a) for a, b in exported}


def batch_full(config):
    """`batch --full` in a process of its own, as cron or systemd runs it: one that ends, and
    with it the batch lease it held."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    return subprocess.run([sys.executable, "-m", "dedup_pipeline", "batch", "--full", "--config", config],
                          env=env, capture_output=True, text=True, timeout=600)


def errors(done):
    """The lines on stderr that are not the batch's progress."""
    return [line for line in done.stderr.splitlines() if not line.startswith(("source:", "fingerprinting:"))]


def write_more_than_the_disk_holds(store):
    """A building run's manifest, written in parts until they would hold more than the disk."""
    run = store.new_run({}, "")
    for n in range(WRITES):
        store.write_manifest(run, list(range(50_000)), ["0123456789abcdef"] * 50_000, first=n * 100)


# -- a batch on a full disk


def test_a_full_batch_on_a_disk_with_1_mb_free_fails_with_one_line_naming_the_full_disk(run, project, disk):
    ready(run, "--config", project)
    fill(disk, 1 * MB)
    done = batch_full(project)
    assert done.returncode == 1
    [line] = errors(done)
    assert line.startswith("Error: ") and str(disk / "data") in line and "full" in line, line
    assert "Traceback" not in done.stdout + done.stderr and "WiredTiger" not in done.stdout + done.stderr


def test_a_full_batch_failing_on_a_full_disk_leaves_dedup_match_as_report_has_it(run, project, disk):
    sample = ready(run, "--config", project)
    fill(disk, 1 * MB)
    assert batch_full(project).returncode == 1
    (disk / "filler").unlink()
    assert agree(run, sample, "--config", project)


def test_once_space_is_freed_the_next_batch_goes_live(run, project, disk):
    sample = ready(run, "--config", project)
    fill(disk, 1 * MB)
    assert batch_full(project).returncode == 1
    (disk / "filler").unlink()
    result = run("batch", "--config", project)
    assert result.exit_code == 0, result.output
    assert agree(run, sample, "--config", project)


def test_a_command_whose_own_files_meet_the_full_disk_stops_the_store_that_may_have_met_it_too(run, project, disk):
    """The batch's sketch log may meet the full disk before the store does, while WiredTiger,
    writing beside it, met it too and answers "internal server error" from then on: the
    server is stopped either way, and the next command starts it afresh."""
    import errno

    ready(run, "--config", project)
    folder = disk / "data" / "mongo"
    with pytest.raises(OSError), open_store(load_config(project, env={})):
        assert shared.running(folder) is not None
        fill(disk, 0)
        raise OSError(errno.ENOSPC, "No space left on device")
    assert shared.running(folder) is None


# -- the embedded store on a full disk


def test_the_embedded_store_failing_on_its_full_disk_says_so_in_one_line(run, project, disk):
    ready(run, "--config", project)
    with pytest.raises(StoreError) as failed, open_store(load_config(project, env={})) as store:
        fill(disk, 0)
        write_more_than_the_disk_holds(store)
    said = str(failed.value)
    assert said.startswith(f"the disk of the embedded store's data folder {disk / 'data' / 'mongo'} is full")
    assert "\n" not in said and "internal server error" not in said


def test_once_its_full_disk_is_freed_the_next_command_finds_the_store_as_it_was(run, project, disk):
    """Whether the write that fails is WiredTiger's (its panic ends the server, started again
    by the next command) or refused before it: which one fills the disk first varies."""
    ready(run, "--config", project)
    config = load_config(project, env={})
    with open_store(config) as store:
        live = store.current_run()["run"]
        fill(disk, 0)
        with pytest.raises(StoreError):
            write_more_than_the_disk_holds(store)
    (disk / "filler").unlink()
    with open_store(config) as store:
        assert store.current_run()["run"] == live


def test_a_mongodb_server_refusing_a_write_for_its_full_disk_is_said_so():
    refused = OperationFailure("WiredTiger error (28) No space left on device", code=14031)
    with pytest.raises(StoreError, match="MongoDB at db.example: its disk is full .*free space on the disk"):
        with mongo.errors("db.example"):
            raise refused


# -- dedup_match goes live with the switch


def batch_failing_to_switch(run, monkeypatch, *options, after=False):
    """`batch` with MongoStore.switch failing as a store fails (before its pointer names the
    run, or `after`): its exit code."""
    switch = MongoStore.switch

    def fails(self, *args, **kwargs):
        if after:
            switch(self, *args, **kwargs)
        raise StoreError("MongoDB at database dedup: connection closed; run the command again once MongoDB answers")

    with monkeypatch.context() as patched:
        patched.setattr(MongoStore, "switch", fails)
        return run("batch", *options).exit_code


@pytest.mark.parametrize("full", [True, False], ids=["full", "re-run"])
def test_a_batch_whose_switch_fails_leaves_dedup_match_as_the_live_generations(run, monkeypatch, full):
    sample = ready(run)
    assert batch_failing_to_switch(run, monkeypatch, *(["--full"] if full else [])) == 1
    assert agree(run, sample)


def test_a_switch_failing_once_its_pointer_names_the_run_leaves_dedup_match_as_the_new_generations(
        run, monkeypatch):
    sample = ready(run)
    before = matched(sample)
    assert batch_failing_to_switch(run, monkeypatch, "--full", after=True) == 1
    assert agree(run, sample) and matched(sample) != before
