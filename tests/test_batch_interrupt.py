"""A batch killed at any moment leaves the previous results whole and readable, and a re-run
gives the same results as one clean run."""

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa
from dedup_pipeline import killpoints
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


@pytest.mark.parametrize("point", [
    "batch.filed", "batch.results", "batch.removed", "batch.switched", "batch.filed@SIGTERM", "batch.results@SIGINT",
])
def test_a_killed_batch_rerun_gives_the_results_of_a_clean_run(tmp_path, table_rows, clean_pairs, point):
    make_project(tmp_path, table_rows)
    cli(tmp_path, "batch")
    victim = subprocess.run([*CLI, "batch", "--config", "dedup.toml"], cwd=tmp_path,  # a re-run
                            env=_env() | {killpoints.ENV: point}, capture_output=True, timeout=600)
    assert victim.returncode != 0, "the batch was interrupted at its point"
    assert exported_pairs(tmp_path) == clean_pairs  # the previous run's, whole
    cli(tmp_path, "batch")
    assert exported_pairs(tmp_path) == clean_pairs
