"""The whole local batch against the in-memory store (`[store] kind = "memory"`), with no
server: a labelled table in SQLite, its pairs and groups made live as the scheme finds them,
checks that find what the batch filed, and a re-run that writes only what changed and ends
as a clean batch of the table would."""

import sqlite3

import pytest

from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.store.index import memory_store, open_store

ROWS = 600


@pytest.fixture
def table(labelled_in_memory):
    """The labelled petition set, as an SQLite table; (its rows, its configuration)."""
    rows, config, _ = labelled_in_memory
    return rows, config


def live_pairs(store):
    return store.read_matches(store.current_run()["run"])


def test_the_batch_makes_live_the_pairs_and_groups_the_scheme_finds(table):
    rows, config = table
    with open_store(config) as store:
        result = run_batch(config, store, processes=1)
        i, j, d = scheme_of(config).similar(scheme_of(config).probes(rows)).linked()
        ids = [row["id"] for row in rows]
        assert live_pairs(store) == [(ids[a], ids[b], x) for a, b, x in zip(i.tolist(), j.tolist(), d.tolist())]
        assert store.read_groups(store.current_run()["run"]) == result.groups and len(result.groups) > 20
        summary = store.current_run()["summary"]
        assert summary == {"rows": ROWS, "pairs": len(i), "groups": len(result.groups),
                           "rows_with_similar": result.rows_with_similar, "sketches": summary["sketches"]}
        assert (result.added, result.changed, result.removed) == (ROWS, 0, 0)


def test_after_the_batch_a_check_finds_each_row_paired_with_a_row(table):
    rows, config = table
    with open_store(config) as store:
        run_batch(config, store, processes=1)
        index = Incremental(store, config)
        by_id = {row["id"]: row for row in rows}
        for a, b, _ in live_pairs(store)[:30]:
            assert b in [m.row for m in index.check(by_id[a], exclude=a)]


def test_a_rerun_writes_only_the_rows_added_changed_or_removed_and_ends_as_a_clean_batch(table):
    rows, config = table
    path = config.source.url.removeprefix("sqlite:///")
    with open_store(config) as store, memory_store() as clean:
        run_batch(config, store, processes=1)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE petition SET content = '再次反映' || content WHERE id = 2")
            db.execute("DELETE FROM petition WHERE id IN (?, ?)", (rows[4]["id"], rows[-1]["id"]))
            db.execute("INSERT INTO petition (id, content) VALUES (?, ?)", (ROWS + 1000, "再次反映" + rows[9]["content"]))
        db.close()
        again = run_batch(config, store, processes=1)
        assert (again.added, again.changed, again.removed) == (1, 1, 2) and again.rows == ROWS - 1
        run_batch(config, clean, processes=1)
        ids = [row["id"] for row in rows] + [ROWS + 1000]
        assert live_pairs(store) == live_pairs(clean)
        assert store.records("petition", ids) == clean.records("petition", ids)
        assert store.fresh("petition") == {2, ROWS + 1000}  # beside the live buckets, until a full batch
        run_batch(config, store, processes=1, full=True)
        assert store.fresh("petition") == set() and live_pairs(store) == live_pairs(clean)
