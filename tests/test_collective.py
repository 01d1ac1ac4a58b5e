"""A collective petition (集体信访): 20,000 rows of one text from one submitter, batched, on
SQLite and a real MongoDB-protocol server. A check of one of them, one more copy taken by
the worker or `add`, and a copy changed or deleted each read a few stored documents, not
one a copy, while the answers list what they must (issue 29 item 8)."""

import tomllib
from functools import partial

import pymongo
import pytest
import sqlalchemy as sa

from dedup_pipeline import commands
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.jobs.watch import WatchSettings, watch
from testing.collective import OTHER, execute, insert, write_table
from testing.mongo_commands import Commands

COPIES = 20_000
FEW = 100  # documents: "a few", whatever the copies


@pytest.fixture
def collective(tmp_path, mongo_uri, mongo_client, monkeypatch):
    """(config, the SQLite file, what the store is asked from now on): COPIES copies, migrated and batched."""
    db = write_table(tmp_path / "petitions.sqlite", COPIES)
    data = tomllib.loads(default_config_text())
    data["source"] = {**data["source"], "url": f"sqlite:///{db}"}
    data["store"] = {"mongo_uri": mongo_uri, "database": f"collective_{tmp_path.name}"}
    config = parse_config(data, env={})
    commands.migrate(config)
    commands.batch(config)
    documents = Commands()
    monkeypatch.setattr(pymongo, "MongoClient", partial(pymongo.MongoClient, event_listeners=[documents]))
    yield config, db, documents
    mongo_client.drop_database(f"collective_{tmp_path.name}")


def matches_of(db, row):
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        found = {r[0] for r in conn.execute(sa.text("SELECT similar_id FROM dedup_match WHERE row_id = :r"), {"r": row})}
    engine.dispose()
    return found


def test_a_check_of_one_copy_lists_every_other_reading_a_few_documents(collective):
    config, _, documents = collective
    found = commands.check(config, row_id=7, mode="all").similar
    assert {m.row for m in found} == set(range(1, COPIES + 1)) - {7} and {m.distance for m in found} == {0.0}
    assert documents.documents <= FEW


def test_the_worker_links_one_more_copy_to_the_first_reading_a_few_documents(collective):
    config, db, documents = collective
    insert(db, COPIES + 1)
    watch(config, WatchSettings(once=True), handle_signals=False)
    assert matches_of(db, COPIES + 1) == {1}
    assert documents.documents <= FEW


def test_a_copy_changed_and_a_copy_deleted_are_unlinked_reading_a_few_documents(collective):
    config, db, documents = collective
    execute(db, "UPDATE petition SET content = ? WHERE id = 5", OTHER)
    execute(db, "DELETE FROM petition WHERE id = 6")
    watch(config, WatchSettings(once=True), handle_signals=False)
    assert matches_of(db, 5) == matches_of(db, 6) == set()
    assert len(matches_of(db, 1)) == COPIES - 3
    assert documents.documents <= FEW


def test_add_of_one_more_copy_finds_them_all_reading_a_few_documents(collective):
    config, db, documents = collective
    insert(db, COPIES + 1)
    added = commands.add(config, [COPIES + 1])
    assert {m.row for m in added.similar[COPIES + 1]} == set(range(1, COPIES + 1))
    assert documents.documents <= FEW
