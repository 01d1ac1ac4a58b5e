"""Several tables of one database (a bureau's 来信, 来访 and 网上信访, each a table of its
own with its own configuration) sharing one store and one dedup_match: each table keeps its
own changes (its triggers and outbox entries, or its position in the binary log), its own
batches in the store and its own pairs, queue and decisions, side by side; whatever the
other does, each ends as a clean batch of it alone would. On a real MariaDB (with and
without a binary log) and a real MongoDB-protocol server."""

import json

import numpy as np
import pytest
import sqlalchemy as sa

from dedup_pipeline import commands
from dedup_pipeline.config import following, parse_config
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.sql import migrate, queue
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.store.index import open_store
from dedup_pipeline.store.lock import LockHeld
from tests.test_incremental import sample_rows
from tests.test_watch import COLUMNS, FIELDS, drain

LETTERS, VISITS = "laixin", "laifang"  # 来信, 来访
ROWS = 24


def rows_of(start, count=ROWS):
    """Sample rows numbered 1..count whatever their place in the sample (so that the two
    tables hold the same ids), and every fourth one filed again (ids 10000 + its id)."""
    rows = [{**r, "id": n} for n, r in enumerate(sample_rows()[start:start + count], 1)]
    return rows + [{**r, "id": 10_000 + r["id"], "content": r["content"] + "。"} for r in rows[::4]]


def insert(engine, table, rows):
    with engine.begin() as conn:
        conn.execute(sa.text(f"INSERT INTO {table} (id, {', '.join(COLUMNS)}) "
                             f"VALUES (:id, {', '.join(':' + c for c in COLUMNS)})"), rows)


def sql(engine, statement, **params):
    with engine.begin() as conn:
        result = conn.execute(sa.text(statement), params)
        return result.all() if result.returns_rows else None


def create(engine, table):
    with engine.begin() as conn:
        sa.Table(table, sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 *(sa.Column(c, sa.Text) for c in COLUMNS)).create(conn)


def config_of(url, table, mongo_uri, database, data_dir, changes="triggers"):
    config = parse_config({"source": {"url": url, "table": table}, "fields": FIELDS,
                           "store": {"mongo_uri": mongo_uri, "database": database, "data_dir": str(data_dir)},
                           "batch": {"processes": 1}}, {})
    return following(config, changes)


def expected_pairs(config):
    """Every (row, similar row) among the table's rows, both ways, as a batch of it alone finds them."""
    with SqlSource(config) as source:
        rows = [row for chunk in source.rows() for row in chunk]
    ids = np.array([row["id"] for row in rows])
    scheme = scheme_of(config)
    i, j, _ = scheme.similar(scheme.probes(rows)).linked()
    return set(zip(ids[i].tolist(), ids[j].tolist())) | set(zip(ids[j].tolist(), ids[i].tolist()))


def matched(engine, table):
    """dedup_match's pairs of `table`."""
    return set(map(tuple, sql(engine, "SELECT row_id, similar_id FROM dedup_match WHERE source_table = :t", t=table)))


def reported(config, tmp_path):
    """The pairs `report` exports for the configured table."""
    out = tmp_path / f"{config.source.table}-{len(list(tmp_path.iterdir()))}.jsonl"
    commands.report(config, out=str(out))
    return {(p["a"], p["b"]) for p in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def both_ways(pairs):
    return set(pairs) | {(b, a) for a, b in pairs}


def filed(mongo_db, table):
    """The rows of `table` the store holds."""
    return {d["row"] for d in mongo_db.rows.find({"table": table}, {"row": 1})}


def pending(engine, table):
    return sql(engine, "SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL AND source_table = :t", t=table)[0][0]


class Tables:
    """Two tables of one database, configured apart, sharing one store."""

    def __init__(self, url, mongo_uri, mongo_db, tmp_path, changes="triggers"):
        self.engine = sa.create_engine(url)
        for table in (LETTERS, VISITS):
            create(self.engine, table)
        self.letters, self.visits = (config_of(url, table, mongo_uri, mongo_db.name, tmp_path / "data", changes)
                                     for table in (LETTERS, VISITS))

    def fill(self):
        """The same ids in both tables, other texts: each table's pairs its own."""
        insert(self.engine, LETTERS, rows_of(0))
        insert(self.engine, VISITS, rows_of(300))


@pytest.fixture
def tables(mysql_url, mongo_uri, mongo_db, tmp_path):
    both = Tables(mysql_url, mongo_uri, mongo_db, tmp_path)
    yield both
    both.engine.dispose()


@pytest.fixture
def migrated(tables):
    """Both tables migrated, one after the other, and filled."""
    migrate.upgrade(tables.letters)
    migrate.upgrade(tables.visits)
    tables.fill()
    return tables


# -- each table's changes: its triggers, its outbox entries, its position


def test_migrate_of_a_second_table_of_a_database_gives_it_its_own_triggers(migrated):
    triggers = sql(migrated.engine, "SELECT event_object_table, COUNT(*) FROM information_schema.triggers "
                                    "WHERE event_object_schema = DATABASE() GROUP BY event_object_table")
    assert dict(triggers) == {LETTERS: 3, VISITS: 3}
    assert pending(migrated.engine, LETTERS) == pending(migrated.engine, VISITS) == len(rows_of(0))


def test_a_tables_worker_claims_its_own_tables_changes_alone(migrated, mongo_db):
    drain(migrated.visits)
    assert sql(migrated.engine, "SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL")[0][0] == len(rows_of(0))
    assert pending(migrated.engine, VISITS) == 0 and pending(migrated.engine, LETTERS) == len(rows_of(0))
    assert filed(mongo_db, VISITS) == {r["id"] for r in rows_of(300)} and filed(mongo_db, LETTERS) == set()
    drain(migrated.letters)
    assert matched(migrated.engine, LETTERS) == expected_pairs(migrated.letters)
    assert matched(migrated.engine, VISITS) == expected_pairs(migrated.visits)


def test_status_counts_the_changes_waiting_for_its_own_table_alone(migrated):
    drain(migrated.visits)
    assert commands.status(migrated.visits).backlog.pending == 0
    assert commands.status(migrated.letters).backlog.pending == len(rows_of(0))


# -- each table's batches, pairs, queue and decisions


def test_a_batch_of_one_table_leaves_the_other_tables_live_batch(migrated, tmp_path):
    commands.batch(migrated.letters)
    commands.batch(migrated.visits)
    assert both_ways(reported(migrated.letters, tmp_path)) == expected_pairs(migrated.letters)
    assert both_ways(reported(migrated.visits, tmp_path)) == expected_pairs(migrated.visits)
    for config in (migrated.letters, migrated.visits):
        similar = {b for a, b in expected_pairs(config) if a == 10_021}
        assert {m.row for m in commands.check(config, row_id=10_021).similar} == similar


def test_each_tables_pairs_are_kept_apart_in_dedup_match(migrated):
    commands.batch(migrated.letters)
    commands.batch(migrated.visits)
    held = sql(migrated.engine, "SELECT COUNT(*) FROM dedup_match")[0][0]
    assert held == len(expected_pairs(migrated.letters)) + len(expected_pairs(migrated.visits))
    assert matched(migrated.engine, LETTERS) == expected_pairs(migrated.letters)
    assert matched(migrated.engine, VISITS) == expected_pairs(migrated.visits)
    assert expected_pairs(migrated.letters) != expected_pairs(migrated.visits)


def test_a_decision_stands_for_the_rows_of_its_own_table_alone_where_the_other_has_the_same_rows(
        migrated, tmp_path):
    copied = ", ".join(f"v.{c} = l.{c}" for c in COLUMNS)
    sql(migrated.engine, f"UPDATE {VISITS} v JOIN {LETTERS} l ON v.id = l.id SET {copied} WHERE v.id IN (1, 10001)")
    commands.batch(migrated.letters)
    commands.batch(migrated.visits)
    commands.decide(migrated.letters, 1, 10_001, same=False, by="王芳")
    commands.batch(migrated.visits)  # obeys the visits' decisions, of which there is none
    assert (1, 10_001) in reported(migrated.visits, tmp_path)
    assert (1, 10_001) not in reported(migrated.letters, tmp_path)
    assert (1, 10_001) not in matched(migrated.engine, LETTERS) and (1, 10_001) in matched(migrated.engine, VISITS)
    assert [len(commands.history(c, 1, 10_001)) for c in (migrated.letters, migrated.visits)] == [1, 0]


def test_a_batch_of_one_table_runs_while_another_tables_batch_holds_its_lease(migrated):
    with open_store(migrated.letters) as store, store.lease("batch"):
        assert commands.batch(migrated.visits).result.rows == len(rows_of(300))
        with pytest.raises(LockHeld, match="another batch is running"):
            commands.batch(migrated.letters)


def test_each_tables_queue_is_kept_apart(migrated):
    queue.write(migrated.letters, [queue.Item([1, 2], 0.3)])
    queue.write(migrated.visits, [queue.Item([3, 4, 5], 0.2)])
    for config, rows in ((migrated.letters, [1, 2]), (migrated.visits, [3, 4, 5])):
        with SqlSource(config) as source:
            assert [item.rows for item in queue.read(source)] == [rows]


# -- both tables followed, side by side, each as a clean batch of it alone


def change(engine, table):
    """A new re-submission, a row made a copy of another, a copy and a row deleted, a row edited."""
    columns = ", ".join(c for c in COLUMNS if c != "content")
    sql(engine, f"INSERT INTO {table} (id, {columns}, content) "
                f"SELECT 500, {columns}, CONCAT(content, '再次反映。') FROM {table} WHERE id = 5")
    sql(engine, f"UPDATE {table} p, {table} q SET p.content = q.content WHERE p.id = 6 AND q.id = 9")
    sql(engine, f"DELETE FROM {table} WHERE id IN (10005, 13)")
    sql(engine, f"UPDATE {table} SET content = CONCAT(content, '此前反映未果。') WHERE id = 17")


def alone(config, tmp_path):
    """The configuration of `config`'s table with a store of its own, fresh."""
    store = {**config.masked()["store"], "mongo_uri": config.store.mongo_uri,
             "database": f"{config.store.database}_{config.source.table}",
             "data_dir": str(tmp_path / f"alone-{config.source.table}")}
    return following(parse_config({"source": {"url": config.source.url, "table": config.source.table},
                                   "fields": FIELDS, "store": store, "batch": {"processes": 1}}, {}),
                     config.watch.changes)


@pytest.mark.parametrize("changes", ["triggers", "binlog"])
def test_two_tables_followed_side_by_side_each_end_as_a_clean_batch_of_it_alone(
        changes, request, mongo_uri, mongo_db, mongo_client, tmp_path):
    url = request.getfixturevalue("binlog_url" if changes == "binlog" else "mysql_url")
    both = Tables(url, mongo_uri, mongo_db, tmp_path, changes)
    configs = (both.letters, both.visits)
    for config in configs:
        migrate.upgrade(config)
    both.fill()
    for config in configs:
        commands.batch(config)
    commands.decide(both.letters, 1, 10_001, same=False, by="王芳")
    commands.decide(both.visits, 2, 3, same=True, by="李强")
    for table in (LETTERS, VISITS):
        change(both.engine, table)
    drain(both.visits)
    drain(both.letters)
    decided = {LETTERS: (set(), {(1, 10_001), (10_001, 1)}), VISITS: ({(2, 3), (3, 2)}, set())}
    for config in configs:
        table = config.source.table
        same, different = decided[table]
        assert matched(both.engine, table) == (expected_pairs(config) | same) - different
        assert filed(mongo_db, table) == {r[0] for r in sql(both.engine, f"SELECT id FROM {table}")}
        similar = {b for a, b in expected_pairs(config) if a == 500}
        assert similar and {m.row for m in commands.check(config, row_id=500).similar} == similar
    try:
        for config in configs:
            commands.batch(config)  # the nightly batch, on the shared store
            shared, kept = reported(config, tmp_path), matched(both.engine, config.source.table)
            commands.batch(alone(config, tmp_path))
            assert reported(alone(config, tmp_path), tmp_path) == shared
            assert matched(both.engine, config.source.table) == kept
    finally:
        for config in configs:
            mongo_client.drop_database(alone(config, tmp_path).store.database)
    assert [len(commands.history(c, 1, 10_001)) for c in configs] == [1, 0]


def test_a_first_batch_of_a_table_on_the_binary_log_keeps_the_pairs_another_tables_worker_found(
        binlog_url, mongo_uri, mongo_db, tmp_path):
    both = Tables(binlog_url, mongo_uri, mongo_db, tmp_path, "binlog")
    for config in (both.letters, both.visits):
        migrate.upgrade(config)
    insert(both.engine, LETTERS, rows_of(0))
    commands.batch(both.letters)
    change(both.engine, LETTERS)
    drain(both.letters)
    found = set(map(tuple, sql(both.engine, "SELECT row_id, similar_id FROM dedup_match")))  # the letters' alone
    assert found == expected_pairs(both.letters)
    assert sql(both.engine, "SELECT COUNT(*) FROM dedup_match WHERE source = 'incremental'")[0][0] > 0
    insert(both.engine, VISITS, rows_of(300))
    commands.batch(both.visits)  # its first: no position yet, so it forgets its table's pairs found since
    held = sql(both.engine, "SELECT COUNT(*) FROM dedup_match")[0][0]
    assert held == len(found) + len(expected_pairs(both.visits))
    assert matched(both.engine, LETTERS) == found


# -- a database and a store from before tables were told apart


def test_downgrade_of_one_table_leaves_the_others_triggers_and_rows(migrated):
    commands.batch(migrated.letters)
    commands.batch(migrated.visits)
    kept = commands.migrate(migrated.visits, down=True).kept
    assert kept == (LETTERS,)
    triggers = sql(migrated.engine, "SELECT DISTINCT event_object_table FROM information_schema.triggers "
                                    "WHERE event_object_schema = DATABASE()")
    assert triggers == [(LETTERS,)] and matched(migrated.engine, VISITS) == set()
    assert matched(migrated.engine, LETTERS) == expected_pairs(migrated.letters)
    insert(migrated.engine, VISITS, [{**rows_of(300)[0], "id": 99}])  # the application's writes go on
    assert commands.migrate(migrated.letters, down=True).kept == ()
    assert set(sa.inspect(migrated.engine).get_table_names()) == {LETTERS, VISITS}


def before_tables(config):
    """The configured table migrated as before tables were told apart (revisions 0001 and 0003)."""
    from alembic import command

    with SqlSource(config) as source, source.engine.begin() as conn:
        alembic = migrate._alembic_config(migrate._target(config, source.id_column.type), connection=conn)
        command.upgrade(alembic, "0001")
        command.upgrade(alembic, "0003")


def test_migrate_names_the_rows_of_a_database_following_one_table_for_it_and_its_worker_goes_on(tables):
    before_tables(tables.letters)
    insert(tables.engine, LETTERS, rows_of(0))  # through the triggers of revision 0001
    sql(tables.engine, "INSERT INTO dedup_match (row_id, similar_id, distance, source) VALUES (1, 2, 0.5, 'batch')")
    sql(tables.engine, "INSERT INTO dedup_decision (row_id, other_id, verdict, reviewer, row_hash, other_hash, act) "
                       "VALUES (1, 10001, 'different', '王芳', 'x', 'y', 'a')")  # stale: the rows' hashes differ
    migrate.upgrade(tables.letters)
    for name in ("dedup_match", "dedup_decision", "dedup_outbox"):
        assert sql(tables.engine, f"SELECT DISTINCT source_table FROM {name}") == [(LETTERS,)]
    migrate.upgrade(tables.visits)
    insert(tables.engine, VISITS, rows_of(300))
    drain(tables.letters)  # the entries from before, and the rows since
    assert matched(tables.engine, LETTERS) == expected_pairs(tables.letters)
    assert [len(commands.history(c, 1, 10_001)) for c in (tables.letters, tables.visits)] == [1, 0]
    assert pending(tables.engine, LETTERS) == 0 and pending(tables.engine, VISITS) == len(rows_of(300))


def test_migrate_of_another_table_first_on_a_database_following_one_is_refused_naming_it(tables):
    before_tables(tables.letters)
    with pytest.raises(migrate.MigrationError, match=f"follows {LETTERS} from before .* run `dedup-pipeline "
                                                     f"migrate` with its configuration first"):
        migrate.upgrade(tables.visits)
    columns = {c["name"] for c in sa.inspect(tables.engine).get_columns("dedup_match")}
    assert "source_table" not in columns and sql(tables.engine, "SHOW TRIGGERS LIKE 'laifang'") == []


def test_a_store_of_one_table_from_before_keeps_its_live_batch_for_that_table(migrated, mongo_db, tmp_path):
    commands.batch(migrated.letters)
    pairs = reported(migrated.letters, tmp_path)
    pointer = mongo_db.runs.find_one_and_delete({"_id": f"live:{LETTERS}"})  # as format 3 kept it
    mongo_db.runs.insert_one({**pointer, "_id": "live"})
    mongo_db.runs.update_many({"state": {"$exists": True}}, {"$unset": {"table": ""}})
    mongo_db.format.update_one({"_id": "format"}, {"$set": {"version": 3}})
    assert reported(migrated.letters, tmp_path) == pairs  # upgraded as the store opens
    commands.batch(migrated.visits)
    assert reported(migrated.letters, tmp_path) == pairs
    similar = {b for a, b in expected_pairs(migrated.letters) if a == 10_001}
    assert {m.row for m in commands.check(migrated.letters, row_id=10_001).similar} == similar
    assert commands.batch(migrated.letters).result.rerun  # its state from before stands: a re-run, not a rebuild


def test_two_tables_of_an_sqlite_database_each_get_their_triggers_and_pairs(tmp_path, mongo_uri, mongo_db):
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    letters, visits = (config_of(url, table, mongo_uri, mongo_db.name, tmp_path / "data")
                       for table in (LETTERS, VISITS))
    for table, config, rows in ((LETTERS, letters, rows_of(0)), (VISITS, visits, rows_of(300))):
        create(engine, table)
        migrate.upgrade(config)
        insert(engine, table, rows)
    for config in (letters, visits):
        drain(config)
    for config in (letters, visits):
        assert matched(engine, config.source.table) == expected_pairs(config)
    assert commands.migrate(letters, down=True).kept == (VISITS,)
    assert commands.migrate(visits, down=True).kept == ()
    assert set(sa.inspect(engine).get_table_names()) == {LETTERS, VISITS}
