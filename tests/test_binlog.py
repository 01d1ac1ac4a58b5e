"""`watch --from binlog` on a real MariaDB logging row by row (`--log-bin --binlog-format=ROW`)
and a real MongoDB-protocol server: the rows the binary log says changed end up in
dedup_match and the block index as through the triggers, with no trigger on the table; a
worker killed anywhere loses nothing; and each edge case (a purged log, binary logging off
or by statement, the table altered or renamed, the server restarted, a batch meanwhile, one
UPDATE of many rows, a row that fails) is one clear line and nothing lost.

After a scenario the invariant of tests/test_watch.py is checked: dedup_match holds exactly
the pairs a batch of the table finds, and the block index exactly the table's rows."""

import random
import signal
import threading
import uuid

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.dialects import mysql

from dedup_pipeline import commands
from dedup_pipeline.cli import main
from dedup_pipeline.config import following
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.sql import binlog, migrate
from dedup_pipeline.store.index import open_store
from tests.test_incremental import sample_rows
from tests.test_watch import (COLUMNS, SUBMITTER, WorkerProcess, assert_agrees, change_first_copies, config_of,
                              copy_sets, drain, expected_pairs, insert, no_worker_left, petition_rows, sql,
                              stored_pairs, wait_until, written)

assert no_worker_left  # the fixture of tests/test_watch.py that kills the worker processes a test left


def binlog_config(url, mongo_uri, database, scheme=None, fields=None):
    extra = {"fields": fields} if fields else {}
    return following(config_of(url, mongo_uri, database, scheme=scheme, **extra), "binlog")


def create_petition(url, content=sa.Text):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 *(sa.Column(c, content if c == "content" else sa.Text) for c in COLUMNS)).create(conn)
    return engine


@pytest.fixture
def petition(binlog_url):
    """An engine on a fresh database of the binary-logging MariaDB, holding `petition`."""
    engine = create_petition(binlog_url)
    yield engine
    engine.dispose()


@pytest.fixture
def config(petition, mongo_uri, mongo_db):
    """`watch --from binlog` on `petition`, migrated (`migrate --from binlog`)."""
    config = binlog_config(url_of(petition), mongo_uri, mongo_db.name)
    migrate.upgrade(config)
    return config


@pytest.fixture
def config_file(config, tmp_path):
    return written(config, tmp_path / "dedup.toml")


def url_of(engine):
    return engine.url.render_as_string(hide_password=False)


def set_up(engine, config, rows):
    """The DBA's setup: rows already there, then `batch`, which files them and stores where the log is."""
    insert(engine, rows)
    commands.batch(config, processes=1)


def position(engine):
    row = sql(engine, "SELECT log_file, log_pos, stopped, set_by FROM dedup_binlog_position")
    return (binlog.Position(row[0][0], row[0][1]), row[0][2], row[0][3]) if row else None


def log_end(engine):
    with engine.connect() as conn:
        return binlog.current(conn)


def caught_up(engine, end):
    stored = position(engine)
    return stored is not None and stored[0] >= end


def cli(*args):
    return CliRunner().invoke(main, list(args))


# -- one answer, two ways


def workload(rng, rows, first_id, transactions):
    """Random transactions of inserts, updates that make and unmake copies, edits and
    deletes, some of several statements; each statement with its parameters."""
    texts = [r["content"] for r in sample_rows()[200:260]]
    alive, next_id, done = [r["id"] for r in rows], first_id, []
    for _ in range(transactions):
        statements = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["insert", "copy", "make_copy", "unmake_copy", "edit", "delete", "many"])
            a, b = rng.sample(alive, 2)
            if kind in ("insert", "copy"):
                source = rng.choice(rows)
                content = ("(SELECT content FROM (SELECT content FROM petition WHERE id = :b) AS t)"
                           if kind == "copy" else ":content")
                statements.append((f"INSERT INTO petition (id, title, name, phone, address, category, content) "
                                   f"VALUES (:id, :title, :name, :phone, :address, :category, {content})",
                                   {**{c: source[c] for c in ("title", "name", "phone", "address", "category")},
                                    "id": next_id, "b": b, "content": rng.choice(texts)}))
                alive.append(next_id)
                next_id += 1
            elif kind == "make_copy":
                statements.append(("UPDATE petition p, petition q SET p.content = q.content WHERE p.id = :a AND q.id = :b",
                                   {"a": a, "b": b}))
            elif kind == "unmake_copy":
                statements.append(("UPDATE petition SET content = :content WHERE id = :a",
                                   {"a": a, "content": rng.choice(texts)}))
            elif kind == "edit":
                statements.append(("UPDATE petition SET content = CONCAT(content, '此前反映未果。') WHERE id = :a", {"a": a}))
            elif kind == "delete" and len(alive) > 20:
                statements.append(("DELETE FROM petition WHERE id = :a", {"a": a}))
                alive.remove(a)
            elif kind == "many":
                chosen = rng.sample(alive, min(12, len(alive)))
                statements.append((f"UPDATE petition SET category = CONCAT(category, '·') "
                                   f"WHERE id IN ({', '.join(map(str, chosen))})", {}))
        done.append(statements)
    return done


def run_workload(engine, transactions):
    for statements in transactions:
        with engine.begin() as conn:
            for statement, params in statements:
                conn.execute(sa.text(statement), params)


@pytest.fixture
def other_mongo_db(mongo_client):
    name = f"test_{uuid.uuid4().hex[:16]}"
    yield mongo_client[name]
    mongo_client.drop_database(name)


def test_the_binlog_path_and_the_trigger_path_give_the_same_dedup_match_on_one_random_workload(
        mariadb_binlog, petition, mongo_uri, mongo_db, other_mongo_db, binlog_url):
    by_log = binlog_config(url_of(petition), mongo_uri, mongo_db.name, scheme=SUBMITTER)
    migrate.upgrade(by_log)
    triggered_url = binlog_url.replace(petition.url.database, f"{petition.url.database}_t")
    mariadb_binlog.execute(f"CREATE DATABASE {petition.url.database}_t CHARACTER SET utf8mb4")
    try:
        triggered = create_petition(triggered_url)
        by_triggers = config_of(triggered_url, mongo_uri, other_mongo_db.name, scheme=SUBMITTER)
        migrate.upgrade(by_triggers)
        rows = petition_rows(60) + copy_sets(6)
        set_up(petition, by_log, rows)
        set_up(triggered, by_triggers, rows)
        sql(triggered, "DELETE FROM dedup_outbox")  # the batch filed them
        rng = random.Random(32)
        for round_ in range(3):
            transactions = workload(rng, rows, 3000 + 100 * round_, 25)
            run_workload(petition, transactions)
            run_workload(triggered, transactions)
            drain(by_log, batch_size=30)
            drain(by_triggers, batch_size=30)
            assert stored_pairs(petition) == stored_pairs(triggered)
        assert sql(petition, "SELECT id, content FROM petition ORDER BY id") == \
            sql(triggered, "SELECT id, content FROM petition ORDER BY id")  # one workload
        assert stored_pairs(petition) == expected_pairs(by_log)
        assert_agrees(petition, by_log, mongo_db)
        assert not sa.inspect(petition).has_table("dedup_outbox")
        with petition.connect() as conn:
            assert not conn.execute(sa.text("SELECT COUNT(*) FROM information_schema.triggers "
                                             "WHERE event_object_schema = DATABASE()")).scalar_one()
        triggered.dispose()
    finally:
        mariadb_binlog.execute(f"DROP DATABASE {petition.url.database}_t")


def test_inserts_updates_and_deletes_end_up_in_dedup_match_and_the_index(petition, config, mongo_db):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(60, start=40))
    sql(petition, "UPDATE petition p, petition q SET p.content = q.content WHERE p.id = 3 AND q.id = 9")
    sql(petition, "DELETE FROM petition WHERE id IN (1, 10001)")
    tally = drain(config)
    assert tally.rows == 75 + 1 + 2 and tally.removed == 2
    assert {(3, 9), (9, 3)} <= stored_pairs(petition)
    assert_agrees(petition, config, mongo_db)
    assert position(petition)[2] == "watch"


# -- a kill at any point


BINLOG_KILL_POINTS = ["binlog.processed", "binlog.positioned", "binlog.committed", "binlog.committed:3",
                      "apply.filed", "apply.removed", "apply.written"]


@pytest.mark.parametrize("point", BINLOG_KILL_POINTS)
def test_a_worker_killed_at_a_named_point_then_drained_gives_what_a_fresh_batch_gives(
        petition, config, config_file, mongo_db, point):
    set_up(petition, config, petition_rows(40) + copy_sets(8))
    change_first_copies(petition)
    sql(petition, "UPDATE petition SET category = CONCAT(category, '·')")  # one transaction of 70 rows
    worker = WorkerProcess(config_file, "--from", "binlog", "--once", "--batch-size", "20", kill_at=point)
    assert worker.process.wait(timeout=60) == -signal.SIGKILL, worker.text()
    drain(config)
    assert stored_pairs(petition) == expected_pairs(config)
    assert_agrees(petition, config, mongo_db)


def test_one_update_of_many_rows_is_processed_a_batch_at_a_time_the_position_moving_only_after_it(
        petition, config, config_file, mongo_db):
    set_up(petition, config, petition_rows(400))
    before = position(petition)[0]
    sql(petition, "UPDATE petition SET content = CONCAT(content, '！')")  # 500 rows, one transaction
    worker = WorkerProcess(config_file, "--from", "binlog", "--once", "--batch-size", "100",
                           kill_at="binlog.committed:4")
    assert worker.process.wait(timeout=120) == -signal.SIGKILL, worker.text()
    assert worker.text().count("position=(unchanged: within a transaction)") == 3
    assert position(petition)[0] == before  # parts processed, the transaction not done
    tally = drain(config, batch_size=100)
    assert tally.rows == 500 and tally.transactions >= 1
    assert position(petition)[0] > before
    assert_agrees(petition, config, mongo_db)


# -- the edge cases


def test_a_purged_log_is_refused_clearly_and_batch_sets_a_new_position(mariadb_binlog, petition, config,
                                                                       config_file, mongo_db):
    set_up(petition, config, petition_rows(40))
    stored = position(petition)[0]
    sql(petition, "FLUSH BINARY LOGS")
    insert(petition, petition_rows(20, start=40))
    sql(petition, "DELETE FROM petition WHERE id = 2")
    sql(petition, "FLUSH BINARY LOGS")

    def purged():  # MariaDB keeps a file until its transactions are checkpointed: ask until all are gone
        sql(petition, f"PURGE BINARY LOGS TO '{log_end(petition).file}'")
        return [r[0] for r in sql(petition, "SHOW BINARY LOGS")] == [log_end(petition).file]

    wait_until(purged)
    result = cli("watch", "--once", "--from", "binlog", "--config", str(config_file))
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last == (f"Error: cannot follow petition from the stored position {stored}: its file {stored.file} has "
                    f"been purged (the oldest log is {log_end(petition).file}), so the changes since are lost to the "
                    f"worker; run `dedup-pipeline batch`: it files the table as it is and sets a new position")
    assert position(petition)[0] == stored and 2 in {d["row"] for d in mongo_db.rows.find()}  # nothing done
    assert cli("batch", "--processes", "1", "--config", str(config_file)).exit_code == 0
    assert position(petition)[2] == "batch" and position(petition)[0] > stored
    sql(petition, "UPDATE petition p, petition q SET p.content = q.content WHERE p.id = 5 AND q.id = 50")
    assert cli("watch", "--once", "--from", "binlog", "--config", str(config_file)).exit_code == 0
    assert stored_pairs(petition) == expected_pairs(config) and (5, 50) in stored_pairs(petition)
    assert_agrees(petition, config, mongo_db)


def test_binary_logging_off_is_refused_in_one_line(mysql_url, mongo_uri, mongo_db, tmp_path):
    engine = create_petition(mysql_url)  # the `mariadb` server runs with --skip-log-bin
    config = binlog_config(mysql_url, mongo_uri, mongo_db.name)
    migrate.upgrade(config)
    config_file = written(config, tmp_path / "dedup.toml")
    for command in (["watch", "--once"], ["config", "--check"]):
        result = cli(*command, "--from", "binlog", "--config", str(config_file))
        assert result.exit_code == 1
        last = result.output.splitlines()[-1]
        assert "needs: log_bin (binary logging is off: start the server with log-bin); `dedup-pipeline migrate " \
               "--from binlog --sql` shows the settings and grants" in last.replace("needs log_bin", "needs: log_bin")
    engine.dispose()


@pytest.fixture
def statement_format(mariadb_binlog):
    mariadb_binlog.execute("SET GLOBAL binlog_format = 'STATEMENT'")
    yield
    mariadb_binlog.execute("SET GLOBAL binlog_format = 'ROW'")


def test_statement_format_is_refused_naming_the_setting(petition, config, config_file, statement_format):
    for command in (["watch", "--once"], ["config", "--check"]):
        result = cli(*command, "--config", str(config_file), "--from", "binlog")
        assert result.exit_code == 1 and "binlog_format=ROW (it is STATEMENT)" in result.output.splitlines()[-1]


def test_a_change_logged_as_a_statement_stops_the_worker_after_the_rows_before_it(petition, config, mongo_db):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(10, start=40))
    by_statement = sa.create_engine(url_of(petition), poolclass=sa.pool.NullPool)  # the setting dies with it
    with by_statement.begin() as conn:
        conn.execute(sa.text("SET SESSION binlog_format = 'STATEMENT'"))
        conn.execute(sa.text("UPDATE petition SET content = CONCAT(content, '！') WHERE id = 3"))
    with pytest.raises(binlog.BinlogError, match=r"a change to petition was logged as a statement, not as rows at "
                                                 r"\S+ \(UPDATE petition SET .*make binlog_format = ROW for every"):
        drain(config)
    assert {41, 50} <= {d["row"] for d in mongo_db.rows.find()}  # the rows before it are processed
    assert position(petition)[1].startswith("a change to petition was logged as a statement")
    with pytest.raises(binlog.BinlogError, match="logged as a statement"):
        drain(config)  # stopped until a batch sets a new position
    commands.batch(config, processes=1)
    insert(petition, petition_rows(4, start=50))
    drain(config)
    assert_agrees(petition, config, mongo_db)


def test_an_altered_table_is_followed_with_its_columns_as_they_are_now(petition, config, mongo_db):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(10, start=40))
    drain(config)  # the worker reads on from just before the ALTER, as a running worker does
    sql(petition, "ALTER TABLE petition ADD COLUMN status VARCHAR(20) DEFAULT 'new' FIRST")
    insert(petition, petition_rows(10, start=50))
    sql(petition, "UPDATE petition SET status = 'done', content = CONCAT(content, '！') WHERE id IN (3, 52)")
    drain(config)
    assert {43, 55, 3, 52} <= {d["row"] for d in mongo_db.rows.find()}
    assert position(petition)[1] is None
    assert_agrees(petition, config, mongo_db)


def test_an_alter_the_worker_did_not_see_as_it_happened_stops_it_when_the_log_does_not_name_columns(
        petition, config, mongo_db):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(10, start=40))  # logged with the table's columns before the ALTER
    sql(petition, "ALTER TABLE petition ADD COLUMN status VARCHAR(20)")
    with pytest.raises(binlog.BinlogError, match=r"a row event of petition has 8 columns where the table had 9 .*"
                                                 r"\(binlog_row_metadata = FULL would\); run `dedup-pipeline batch`"):
        drain(config)
    commands.batch(config, processes=1)
    insert(petition, petition_rows(4, start=50))
    drain(config)
    assert_agrees(petition, config, mongo_db)


@pytest.fixture
def names_logged(mariadb_binlog):
    mariadb_binlog.execute("SET GLOBAL binlog_row_metadata = 'FULL'")
    yield
    mariadb_binlog.execute("SET GLOBAL binlog_row_metadata = 'NO_LOG'")


def test_with_columns_named_in_the_log_an_alter_the_worker_did_not_see_is_followed(
        petition, config, mongo_db, names_logged):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(10, start=40))
    sql(petition, "ALTER TABLE petition ADD COLUMN status VARCHAR(20) DEFAULT 'new' FIRST")
    insert(petition, petition_rows(10, start=50))
    drain(config)
    assert_agrees(petition, config, mongo_db)


def test_a_renamed_table_stops_the_worker_at_the_rename(petition, config, config_file, mongo_db):
    set_up(petition, config, petition_rows(40))
    insert(petition, petition_rows(10, start=40))
    before = log_end(petition)
    sql(petition, "RENAME TABLE petition TO petition_2024")
    sql(petition, "CREATE TABLE petition LIKE petition_2024")
    for _ in range(2):  # and again: stopped until a batch sets a new position
        result = cli("watch", "--once", "--from", "binlog", "--config", str(config_file))
        assert result.exit_code == 1
        assert "Error: petition was renamed at binlog." in result.output
        assert ("(RENAME TABLE petition TO petition_2024): set [source] table to the table to follow, then run "
                "`dedup-pipeline batch` (it sets a new position), then start watch again") in result.output
    stored, stopped, _ = position(petition)
    assert stored == before and stopped.startswith("petition was renamed at")  # every change before it read


def test_mariadb_restarted_under_a_running_worker_is_waited_out_and_reading_resumes(
        mariadb_binlog, petition, config, config_file, mongo_db):
    set_up(petition, config, petition_rows(20))
    worker = WorkerProcess(config_file, "--from", "binlog", "--batch-size", "50")
    worker.wait_for("following petition")
    insert(petition, petition_rows(50, start=20))
    end = log_end(petition)
    wait_until(lambda: caught_up(petition, end))
    mariadb_binlog.stop()
    worker.wait_for("is unreachable")
    mariadb_binlog.start()
    petition.dispose()  # the test's own connections died with the server
    insert(petition, petition_rows(50, start=70))
    end = log_end(petition)
    wait_until(lambda: caught_up(petition, end), timeout=60)
    assert worker.stop() == 0
    log = worker.text()
    assert "is unreachable" in log and "resuming" in log, log
    assert_agrees(petition, config, mongo_db)


def test_a_table_id_another_table_takes_after_restarts_is_read_as_that_table_not_the_followed_one(
        mariadb_binlog, petition, config, config_file, mongo_db):
    sql(petition, "CREATE TABLE other (id BIGINT PRIMARY KEY, note TEXT)")  # its rows misread as petition's: a crash
    sql(petition, "INSERT INTO other VALUES (1, 'short')")
    set_up(petition, config, petition_rows(20))
    restarted(mariadb_binlog, petition)
    sql(petition, "UPDATE petition SET content = CONCAT(content, '！') WHERE id = 3")  # takes a table id
    restarted(mariadb_binlog, petition)
    sql(petition, f"UPDATE other SET note = '{'长' * 3000}' WHERE id = 1")  # takes the same id, now other's
    sql(petition, "UPDATE petition p, petition q SET p.content = q.content WHERE p.id = 2 AND q.id = 1")
    result = cli("watch", "--once", "--from", "binlog", "--config", str(config_file))
    assert result.exit_code == 0, result.output
    assert (1, 2) in stored_pairs(petition)
    assert_agrees(petition, config, mongo_db)


def restarted(server, engine):
    """The server stopped cleanly and started again (it logs on in a new file; table ids start again)."""
    server.restart()
    engine.dispose()  # the connections died with the server


def test_two_workers_at_once_take_turns_and_end_as_one_would(petition, config, config_file, mongo_db):
    set_up(petition, config, petition_rows(20))
    workers = [WorkerProcess(config_file, "--from", "binlog", "--batch-size", "10") for _ in range(2)]
    for worker in workers:
        worker.wait_for("following petition")
    rows = petition_rows(120, start=20)
    for start in range(0, len(rows), 15):
        insert(petition, rows[start:start + 15])
        sql(petition, f"UPDATE petition SET content = CONCAT(content, '！') WHERE id = {rows[start]['id']}")
    end = log_end(petition)
    wait_until(lambda: caught_up(petition, end), timeout=60)
    assert [worker.stop() for worker in workers] == [0, 0]
    assert_agrees(petition, config, mongo_db)


def test_rows_the_worker_changes_while_a_batch_runs_end_with_the_matches_the_table_gives(petition, config, mongo_db):
    set_up(petition, config, petition_rows(160))
    a, b = 1, 5  # each has a re-submitted copy (10001, 10005): a pair in dedup_match
    changed = []

    def meanwhile(n):  # the batch has read the table: a row deleted, a row rewritten, the worker on them
        if not changed:
            sql(petition, f"DELETE FROM petition WHERE id = {a}")
            sql(petition, f"UPDATE petition SET content = '与此无关的另一件事：路灯坏了三个月' WHERE id = {b}")
            changed.append(drain(config))

    with open_store(config) as store:
        result = run_batch(config, store, meanwhile, processes=1)
    assert changed[0].removed == 1 and result.replayed == 2
    assert not {p for p in stored_pairs(petition) if {a, b} & set(p)}  # not the batch's stale pairs
    drain(config)
    assert_agrees(petition, config, mongo_db)


def test_watch_once_stops_where_the_log_ended_at_its_start_while_rows_keep_coming(petition, config, mongo_db):
    set_up(petition, config, petition_rows(20))
    insert(petition, petition_rows(40, start=20))
    end = log_end(petition)
    stopping, more = threading.Event(), iter(range(5000, 9000))

    def keep_inserting():
        rows = sample_rows()
        while not stopping.is_set():
            n = next(more)
            insert(petition, [{**rows[n % len(rows)], "id": n}])

    writer = threading.Thread(target=keep_inserting)
    writer.start()
    try:
        tally = drain(config)
    finally:
        stopping.set()
        writer.join()
    assert tally.rows >= 50 and position(petition)[0] >= end


def test_a_row_that_fails_is_kept_with_its_error_and_tried_again_when_a_worker_starts(binlog_url, mongo_uri, mongo_db):
    engine = create_petition(binlog_url, content=mysql.TEXT(charset="latin1"))
    config = binlog_config(binlog_url, mongo_uri, mongo_db.name,
                           fields={**{c: "short" for c in COLUMNS[:5]}, "content": {"role": "long", "encoding": "gbk"},
                                   "created_at": "ignore"})
    migrate.upgrade(config)
    commands.batch(config, processes=1)  # an empty table: where the log is
    good, bad = "再次反映，小区楼道长期堆放杂物".encode("gbk").hex(), "ff41ff42"  # 0xFF starts no GBK character
    sql(engine, f"INSERT INTO petition (id, content) VALUES (1, UNHEX('{good}')), (2, UNHEX('{bad}')), "
                f"(3, UNHEX('{good}'))")
    end = log_end(engine)
    tally = drain(config)
    assert tally.failed == 1 and stored_pairs(engine) == {(1, 3), (3, 1)}
    assert position(engine)[0] == end  # the worker went on
    drain(config)  # a worker starting tries it again
    [(row, attempts, error)] = sql(engine, "SELECT row_id, attempts, last_error FROM dedup_binlog_failed")
    assert (row, attempts) == (2, 2) and "not valid gbk" in error
    sql(engine, f"UPDATE petition SET content = UNHEX('{good}') WHERE id = 2")  # the fix
    drain(config)
    assert not sql(engine, "SELECT * FROM dedup_binlog_failed")
    assert stored_pairs(engine) == expected_pairs(config) and (1, 2) in stored_pairs(engine)
    engine.dispose()


# -- setup a DBA reviews


def test_config_check_names_every_missing_grant_in_one_line(mariadb_binlog, petition, config, tmp_path):
    database = petition.url.database
    mariadb_binlog.execute("CREATE USER IF NOT EXISTS 'reader'@'%' IDENTIFIED BY 'pw-s3cret'")
    mariadb_binlog.execute(f"GRANT SELECT ON {database}.* TO 'reader'@'%'")
    try:
        url = url_of(petition).replace("root@", "reader:pw-s3cret@")
        config_file = written(binlog_config(url, config.store.mongo_uri, config.store.database), tmp_path / "r.toml")
        result = cli("config", "--check", "--from", "binlog", "--config", str(config_file))
        assert result.exit_code == 1 and "pw-s3cret" not in result.output
        assert result.output.splitlines()[-1].endswith(
            "`watch --from binlog` needs REPLICATION CLIENT; REPLICATION SLAVE; `dedup-pipeline migrate --from binlog "
            "--sql` shows the settings and grants")
        mariadb_binlog.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'reader'@'%'")
        result = cli("config", "--check", "--from", "binlog", "--config", str(config_file))
        assert result.exit_code == 0, result.output
        assert "ok: the binary log is row-based with full row images, the account may read it" in result.output
    finally:
        mariadb_binlog.execute("DROP USER 'reader'@'%'")


@pytest.mark.parametrize("command", [["migrate"], ["config", "--check"]], ids=["migrate", "config-check"])
def test_a_view_is_refused_on_the_binary_log_path_naming_the_table_to_follow(petition, mongo_uri, mongo_db,
                                                                           tmp_path, command):
    sql(petition, "CREATE VIEW open_petition AS SELECT * FROM petition")
    config_file = written(binlog_config(url_of(petition), mongo_uri, mongo_db.name), tmp_path / "dedup.toml")
    config_file.write_text(config_file.read_text().replace('table = "petition"', 'table = "open_petition"'))
    result = cli(*command, "--from", "binlog", "--config", str(config_file))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert result.stderr.rstrip().endswith(
        "[source] table 'open_petition' is a view, and the binary log holds the changes of tables, never of a view, "
        "so `watch --from binlog` would see none of them; follow the table it reads instead (set [source] table "
        "and id_column to it)")
    assert not [name for name in sa.inspect(petition).get_table_names() if name.startswith("dedup_")]


def test_migrate_from_binlog_sql_shows_the_settings_the_grants_and_tables_without_a_trigger(config_file):
    result = cli("migrate", "--from", "binlog", "--sql", "--config", str(config_file))
    assert result.exit_code == 0, result.output
    sql_text = result.output
    for needed in ("binlog_format = ROW", "binlog_row_image = FULL", "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.*",
                   "GRANT SELECT ON `", "CREATE TABLE dedup_match", "CREATE TABLE dedup_binlog_position"):
        assert needed in sql_text
    assert "TRIGGER" not in sql_text and "dedup_outbox" not in sql_text


def test_watch_from_binlog_before_any_batch_says_to_run_batch(petition, config, config_file):
    insert(petition, petition_rows(4))
    result = cli("watch", "--once", "--from", "binlog", "--config", str(config_file))
    assert result.exit_code == 1
    assert "no binary log position is stored for petition" in result.output
    assert "run `dedup-pipeline batch` first" in result.output
