"""The batch builds its block index aside (on a real MariaDB and MongoDB-protocol server):
checks answer from the old index until the new one is live, and rows that incremental
writers change while the batch runs end up in the new index as the table has them."""

import threading

import pytest
import sqlalchemy as sa

from dedup_pipeline.sql import migrate
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.config import parse_config
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.store.lock import LockHeld
from dedup_pipeline.store.index import MongoStore, open_store
from testing.corpus import documents

ROWS = 300


@pytest.fixture
def table(mysql_url):
    """`petition(id, content)` of real news text; row 2 re-submits row 1."""
    texts = documents(150, ROWS)
    texts[1] = "再次反映" + texts[0]
    meta = sa.MetaData()
    petition = sa.Table("petition", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                        sa.Column("content", sa.Text))
    engine = sa.create_engine(mysql_url)
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(petition.insert(), [{"id": i + 1, "content": t} for i, t in enumerate(texts)])
    yield engine, petition, texts
    engine.dispose()


@pytest.fixture
def config(mysql_url, mongo_uri, mongo_db):
    return parse_config({"source": {"url": mysql_url, "table": "petition"}, "fields": {"content": "long"},
                         "store": {"mongo_uri": mongo_uri, "database": mongo_db.name},
                         "batch": {"chunk_size": 50, "processes": 1}}, {})


def writer(config, mongo_db):
    """An incremental writer of its own, as a `watch` worker would be."""
    return Incremental(MongoStore(mongo_db, table="petition"), config)


def similar_to_row_1(index, texts):
    return [m.row for m in index.check({"content": texts[0]}, exclude=1)]


def test_checks_during_a_batch_see_each_row_as_it_was_or_as_the_batch_read_it(config, table, mongo_db):
    engine, petition, texts = table
    with open_store(config) as store:
        run_batch(config, store, processes=1)
        with engine.begin() as conn:  # row 2 no longer re-submits row 1; row 300 now does
            conn.execute(petition.update().where(petition.c.id == 2).values(content=texts[-1][::-1]))
            conn.execute(petition.update().where(petition.c.id == ROWS).values(content="再次反映" + texts[0]))
        seen = []
        run_batch(config, store, lambda n: seen.append(similar_to_row_1(writer(config, mongo_db), texts)),
                  processes=1, full=True)
        # changed rows are written as the batch reads them: row 2 in the first chunk, row 300 last
        assert seen[0] == [] and seen[-1] == [ROWS] and len(seen) == ROWS // 50
        assert similar_to_row_1(writer(config, mongo_db), texts) == [ROWS]


def test_a_rerun_writes_only_the_rows_added_changed_or_removed(config, table, mongo_db):
    engine, petition, texts = table
    with open_store(config) as store:
        first = run_batch(config, store, processes=1)
        with engine.begin() as conn:
            conn.execute(petition.update().where(petition.c.id == 2).values(content=texts[-1][::-1]))
            conn.execute(petition.delete().where(petition.c.id.in_([5, 6])))
            conn.execute(petition.insert().values(id=1000, content="再次反映" + texts[9]))
        again = run_batch(config, store, processes=1)
    assert (first.added, first.changed, first.removed) == (ROWS, 0, 0)
    assert (again.added, again.changed, again.removed) == (1, 1, 2)


def test_rows_changed_by_incremental_writers_during_the_batch_are_in_the_new_index(config, table, mongo_db):
    engine, petition, texts = table
    progress = []

    def meanwhile(n):  # after the batch has read the whole table: an insert and a delete
        progress.append(n)
        if sum(progress) < ROWS:
            return
        index = writer(config, mongo_db)
        with engine.begin() as conn:
            conn.execute(petition.insert().values(id=999, content=texts[0]))
            conn.execute(petition.delete().where(petition.c.id == 3))
        index.add(999, {"content": texts[0]})
        index.remove(3)

    with open_store(config) as store:
        result = run_batch(config, store, meanwhile, processes=1)
        assert result.rows == ROWS and result.replayed == 2
        index = writer(config, mongo_db)
        assert sorted(similar_to_row_1(index, texts)) == [2, 999]
        assert 3 not in store.records("petition", [3, 4]) and 4 in store.records("petition", [3, 4])


def test_run_batch_holds_the_batch_lease_so_a_second_one_at_once_is_refused(config, table, mongo_db):
    started, release = threading.Event(), threading.Event()

    def held(n):
        started.set()
        release.wait(60)

    first = threading.Thread(target=run_batch, args=(config, MongoStore(mongo_db, table="petition"), held, 1))
    first.start()
    try:
        assert started.wait(60)
        with pytest.raises(LockHeld):
            run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    finally:
        release.set()
        first.join()


def test_run_batch_replaces_dedup_match_with_every_pair_both_ways(config, table, mongo_db):
    engine, petition, texts = table
    migrate.upgrade(config)
    result = run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    with engine.begin() as conn:
        written = conn.execute(sa.text("SELECT row_id, similar_id FROM dedup_match WHERE source = 'batch'")).all()
    assert result.dedup_match == len(written) == 2 * len(result.pairs[0]) and (1, 2) in written


@pytest.mark.parametrize("text", [None, "", "   ", "。。。！"], ids=["null", "empty", "whitespace", "punctuation"])
def test_a_table_where_no_row_has_text_is_batched_with_no_pairs(config, table, mongo_db, text):
    engine, petition, _ = table
    with engine.begin() as conn:
        conn.execute(petition.update().values(content=text))
    result = run_batch(config, MongoStore(mongo_db, table="petition"), processes=1)
    assert result.rows == ROWS and len(result.pairs[0]) == 0 and result.groups == []
