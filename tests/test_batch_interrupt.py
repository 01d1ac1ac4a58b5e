"""A batch killed at any moment leaves the previous results whole and readable, and a re-run
gives the same results as one clean run."""

import os
import signal
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa
from testing.corpus import documents


pytestmark = pytest.mark.servers  # real servers or processes of their own

CLI = [sys.executable, "-m", "dedup_pipeline"]
ROWS = 8_000


def cli(folder, *args, check=True):
    return subprocess.run([*CLI, *args, "--config", "dedup.toml"], cwd=folder, env=_env(),
                          capture_output=True, text=True, check=check)


def _env():
    return {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}


def exported_pairs(folder):
    cli(folder, "report", "--out", "pairs.jsonl")
    return (folder / "pairs.jsonl").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def table_rows():
    texts = documents(150, ROWS)
    for i in range(0, ROWS, 50):  # some re-submissions, so that there are pairs to find
        texts[i + 1] = "再次反映" + texts[i]
    return [{"id": i + 1, "content": t} for i, t in enumerate(texts)]


def make_project(folder, rows, chunk_size=1000, processes=1):
    """A folder with `petition(id, content)` of these rows in SQLite, and its dedup.toml."""
    url = f"sqlite:///{folder / 'p.sqlite'}"
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    table = sa.Table("petition", meta, sa.Column("id", sa.Integer, primary_key=True), sa.Column("content", sa.Text))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), rows)
    (folder / "dedup.toml").write_text(
        f'[source]\nurl = "{url}"\ntable = "petition"\n[fields]\ncontent = "long"\n'
        f'[batch]\nchunk_size = {chunk_size}\nprocesses = {processes}\n', encoding="utf-8")


@pytest.fixture(scope="module")
def clean_pairs(tmp_path_factory, table_rows):
    folder = tmp_path_factory.mktemp("clean")
    make_project(folder, table_rows)
    cli(folder, "batch")
    pairs = exported_pairs(folder)
    assert pairs.count("\n") >= ROWS // 50
    return pairs


@pytest.mark.parametrize("sig, fraction", [
    (signal.SIGKILL, 0.4), (signal.SIGKILL, 0.8), (signal.SIGKILL, 0.85), (signal.SIGTERM, 0.6),
    (signal.SIGINT, 0.6),
])
def test_a_killed_batch_rerun_gives_the_results_of_a_clean_run(
        tmp_path, table_rows, clean_pairs, sig, fraction):
    make_project(tmp_path, table_rows)
    cli(tmp_path, "batch")
    start = time.monotonic()  # a re-run, as the victim is: it writes no row documents
    cli(tmp_path, "batch")
    duration = time.monotonic() - start
    victim = subprocess.Popen([*CLI, "batch", "--config", "dedup.toml"], cwd=tmp_path, env=_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(duration * fraction)
    victim.send_signal(sig)
    assert victim.wait(timeout=60) != 0, "the batch finished before the signal: nothing was interrupted"
    assert exported_pairs(tmp_path) == clean_pairs  # the previous run's, whole
    cli(tmp_path, "batch")
    assert exported_pairs(tmp_path) == clean_pairs
