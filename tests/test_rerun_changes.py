"""A re-run decides again only the rows around what changed (jobs/rerun.py), and ends as a
clean batch of the table would: the same pairs, groups and stored rows, whatever was added,
changed or deleted between the runs (copies made and unmade, rows a third row links), on
the in-memory store; the real servers' re-runs are tests/test_rerun.py's."""

import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from dedup_pipeline.config import parse_config
from dedup_pipeline.core.shingles import Sets
from dedup_pipeline.jobs import rerun, sketches
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.store.index import MongoStore, memory_store
from tests.test_matches import FIELDS, ROWS as POOL_ROWS, changes_of, linked_through_a_third, row

COLUMNS = ("id", "title", "name", "phone", "address", "category", "created_at", "content")


def config_of(folder: Path, scheme: str = "shingles"):
    return parse_config({"source": {"url": f"sqlite:///{folder / 'petition.sqlite'}", "table": "petition"},
                         "fields": FIELDS, "store": {"kind": "memory", "data_dir": str(folder / "data")},
                         "batch": {"chunk_size": 7, "processes": 1},
                         "scheme": {"name": scheme, "submitter": ["phone", "address"], "filed": "created_at"}}, {})


def write(folder: Path, table: dict) -> None:
    """The table as it is now, in SQLite."""
    with sqlite3.connect(folder / "petition.sqlite") as db:
        db.execute(f"CREATE TABLE IF NOT EXISTS petition ({', '.join(COLUMNS)}, PRIMARY KEY (id))")
        db.execute("DELETE FROM petition")
        db.executemany(f"INSERT INTO petition VALUES ({', '.join('?' * len(COLUMNS))})",
                       [tuple(table[r].get(c) for c in COLUMNS) for r in sorted(table)])
    db.close()


def stored(store: MongoStore, table: dict) -> tuple:
    live = store.current_run()["run"]
    return store.read_matches(live), store.read_groups(live), store.records("petition", sorted(table))


def reruns_end_as_a_clean_batch(start: list, batches: list, pool: list, scheme: str = "shingles") -> None:
    with tempfile.TemporaryDirectory() as folder, memory_store() as store, memory_store() as clean:
        folder = Path(folder)
        config = config_of(folder, scheme)
        table = {n + 1: row(n + 1, t, pool) for n, t in enumerate(start)}
        write(folder, table)
        run_batch(config, store)
        for batch in batches:
            for row_id, text_of in batch:
                if text_of is None:
                    table.pop(row_id, None)
                else:
                    table[row_id] = row(row_id, text_of, pool)
            write(folder, table)
            again = run_batch(config, store)
            assert again.rerun or not table
        rerun = stored(store, table)
        run_batch(config, clean, full=True)
        assert rerun == stored(clean, table)


@pytest.fixture(autouse=True)
def never_rebuilt(monkeypatch):
    """Every run after the first a re-run, however much changed, reading the table in ranges
    of three of the last batch's rows (rows added and deleted fall between and at their ends)."""
    monkeypatch.setattr(sketches, "REBUILD_SHARE", 1.0)
    monkeypatch.setattr(rerun, "SPAN_ROWS", 3)


SLOW = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SLOW
@given(start=st.lists(st.integers(0, len(POOL_ROWS) - 1), max_size=40), batches=changes_of(len(POOL_ROWS)))
@example(start=[0, 0, 0], batches=[[(1, None), (4, 0)]])  # the first of three copies goes as a fourth comes
@example(start=[5, 0], batches=[[(1, 0)], [(1, 5)]])  # a copy made, then unmade
def test_reruns_after_rows_added_changed_and_deleted_end_as_a_clean_batch(start, batches):
    reruns_end_as_a_clean_batch(start, batches, POOL_ROWS)


@SLOW
@given(start=st.lists(st.integers(0, 39), max_size=40), batches=changes_of(40))
def test_reruns_around_rows_a_third_row_links_end_as_a_clean_batch(start, batches):
    pool = linked_through_a_third()
    reruns_end_as_a_clean_batch(start, batches, [pool[n % len(pool)] for n in range(40)])


@SLOW
@given(start=st.lists(st.integers(0, len(POOL_ROWS) - 1), max_size=40), batches=changes_of(len(POOL_ROWS)))
def test_reruns_of_the_simhash_scheme_end_as_a_clean_batch(start, batches):
    reruns_end_as_a_clean_batch(start, batches, POOL_ROWS, scheme="simhash")


def test_the_rows_near_some_slots_are_those_sharing_a_key_however_the_log_is_scanned(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    keys = [rng.choice(np.array([1, 2**40 + 1, 2**63 + 5, 7 << 25, 99], np.uint64), rng.integers(0, 4), replace=False)
            for _ in range(60)]
    log = sketches.SketchLog(tmp_path / "log")
    log.append(np.zeros(60, np.uint64), Sets.of(keys, np.uint64), None)
    at = rng.permutation(60)[:50]  # the table's rows hold 50 of the slots, in another order
    table = rerun.Table(list(range(50)), np.zeros(50, "S16"), at, np.full(50, -1), np.zeros(0, np.int64), 0)
    monkeypatch.setattr(rerun, "SCAN_PART", 7)
    for threads in (1, 2):
        near = rerun._Near(log, table, threads)
        for _ in range(30):
            slots = rng.choice(60, rng.integers(0, 5), replace=False)
            wanted = set().union(*(set(keys[s].tolist()) for s in slots)) if len(slots) else set()
            assert near.under(slots).tolist() == [n for n, s in enumerate(at) if wanted & set(keys[s].tolist())]
