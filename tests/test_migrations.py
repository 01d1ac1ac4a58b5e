"""Migrations on a real MariaDB (and SQLite): the outbox, its triggers and dedup_match come
and go cleanly, the triggers enqueue the right operations, and a DBA gets the SQL; with
`--from binlog`, dedup_match and the binlog position tables, no trigger."""

import sqlite3

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dedup_pipeline.sql import migrate
from dedup_pipeline.cli import main
from dedup_pipeline.config import ConfigError, following, parse_config
from dedup_pipeline.store.embedded import free_port

REVIEW_TABLES = {"dedup_decision", "dedup_reviewer", "dedup_possible",  # the review branch, applied either way
                 "dedup_login_failure", "dedup_access", "dedup_matter", "dedup_matter_key", "dedup_matter_event",
                 "dedup_matter_decision"}
OURS = {migrate.OUTBOX_TABLE, migrate.MATCH_TABLE, migrate.VERSION_TABLE} | REVIEW_TABLES


def config_for(url, fields=None):
    return parse_config({"source": {"url": url, "table": "petition"},
                         "fields": fields or {"title": "short", "content": "long"}}, {})


@pytest.fixture
def petition(mysql_url):
    """An engine on a fresh MariaDB database holding a `petition` table."""
    return create_petition(mysql_url)


def create_petition(url):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("title", sa.String(100)), sa.Column("content", sa.Text)).create(conn)
    return engine


def url_of(engine):
    return engine.url.render_as_string(hide_password=False)


def tables(engine):
    return set(sa.inspect(engine).get_table_names())


def outbox(conn):
    return conn.execute(sa.text("SELECT row_id, op FROM dedup_outbox ORDER BY id")).all()


def change_rows(engine):
    """Insert 1 and 2, update 1, move 2 to 20, delete 1: through the triggers."""
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO petition (id, title) VALUES (1, 'a'), (2, 'b')"))
        conn.execute(sa.text("UPDATE petition SET content = '物业乱收费 😀' WHERE id = 1"))
        conn.execute(sa.text("UPDATE petition SET id = 20 WHERE id = 2"))
        conn.execute(sa.text("DELETE FROM petition WHERE id = 1"))
        return outbox(conn)


EXPECTED_OPS = [(1, "insert"), (2, "insert"), (1, "update"), (20, "update"), (2, "delete"), (1, "delete")]


def test_upgrade_creates_the_outbox_triggers_and_match_table(petition):
    migrate.upgrade(config_for(url_of(petition)))
    assert tables(petition) == {"petition"} | OURS
    inspector = sa.inspect(petition)
    assert {ix["name"] for ix in inspector.get_indexes("dedup_outbox")} >= {"ix_dedup_outbox_pending",
                                                                            "ix_dedup_outbox_row_id"}
    assert inspector.get_pk_constraint("dedup_match")["constrained_columns"] == ["row_id", "similar_id", "source_table"]
    assert {ix["name"] for ix in inspector.get_indexes("dedup_match")} >= {"ix_dedup_match_similar_id"}
    with petition.connect() as conn:
        triggers = conn.execute(sa.text("SELECT trigger_name, event_manipulation FROM information_schema.triggers "
                                        "WHERE event_object_schema = DATABASE()")).all()
    assert sorted(triggers) == [("dedup_petition_delete", "DELETE"), ("dedup_petition_insert", "INSERT"),
                                ("dedup_petition_update", "UPDATE")]


def test_inserts_updates_and_deletes_enqueue_their_row_ids(petition):
    migrate.upgrade(config_for(url_of(petition)))
    assert change_rows(petition) == EXPECTED_OPS
    with petition.connect() as conn:
        pending = conn.execute(sa.text("SELECT COUNT(*) FROM dedup_outbox WHERE done_at IS NULL "
                                       "AND attempts = 0 AND enqueued_at IS NOT NULL")).scalar_one()
    assert pending == len(EXPECTED_OPS)


def write_config(path, url, mongo_db, table="petition"):
    """A configuration file for the petition table (or `table`) and a test MongoDB database."""
    mongo_uri = f"mongodb://{mongo_db.client.address[0]}:{mongo_db.client.address[1]}/"
    path.write_text(f'[source]\nurl = "{url}"\ntable = "{table}"\n[fields]\ntitle = "short"\n'
                    f'content = "long"\n[store]\nmongo_uri = "{mongo_uri}"\ndatabase = "{mongo_db.name}"\n',
                    encoding="utf-8")
    return path


def test_migrate_also_creates_the_mongodb_indexes(petition, tmp_path, mongo_db):
    config = write_config(tmp_path / "c.toml", url_of(petition), mongo_db)
    result = CliRunner().invoke(main, ["migrate", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "MongoDB indexes" in result.output
    assert "fresh_1" in mongo_db.rows.index_information()


def test_downgrade_removes_everything_and_upgrade_works_again_through_the_cli(petition, tmp_path, mongo_db):
    config = write_config(tmp_path / "c.toml", url_of(petition), mongo_db)
    run = lambda *args: CliRunner().invoke(main, ["migrate", "--config", str(config), *args])
    assert run().exit_code == 0
    assert run().exit_code == 0  # a second upgrade changes nothing
    result = run("--downgrade")
    assert result.exit_code == 0, result.output
    assert tables(petition) == {"petition"}
    with petition.begin() as conn:
        assert conn.execute(sa.text("SELECT COUNT(*) FROM information_schema.triggers "
                                    "WHERE event_object_schema = DATABASE()")).scalar_one() == 0
        conn.execute(sa.text("INSERT INTO petition (id, title) VALUES (7, 'still writable')"))
        conn.execute(sa.text("DELETE FROM petition WHERE id = 7"))
    assert run().exit_code == 0
    assert change_rows(petition) == EXPECTED_OPS


def test_a_view_is_refused_in_one_line_before_anything_is_made_so_a_second_run_says_the_same(
        petition, tmp_path, mongo_db):
    with petition.begin() as conn:
        conn.execute(sa.text("CREATE VIEW open_petition AS SELECT id, title, content FROM petition"))
    config = write_config(tmp_path / "c.toml", url_of(petition), mongo_db, table="open_petition")
    runs = [CliRunner().invoke(main, ["migrate", "--config", str(config)]) for _ in range(2)]
    assert [run.exit_code for run in runs] == [2, 2], runs[1].output
    assert runs[0].stderr == runs[1].stderr and runs[0].stderr.count("\n") == 1
    assert "[source] table 'open_petition' is a view, and triggers go on tables" in runs[0].stderr
    assert tables(petition) == {"petition"} and triggers_on(petition) == 0


def test_a_missing_column_is_a_clear_error_and_nothing_is_written(petition):
    config = config_for(url_of(petition), {"title": "short", "body": "long"})
    with pytest.raises(ConfigError, match=r"column body not in table 'petition'"):
        migrate.upgrade(config)
    assert tables(petition) == {"petition"}


def test_migrate_sql_prints_the_sql_without_connecting():
    url = f"mysql+pymysql://dedup:s3cret@127.0.0.1:{free_port()}/petitions"  # nobody listens
    sql = migrate.upgrade_sql(config_for(url))
    assert "CREATE TABLE dedup_outbox" in sql and "CREATE TABLE dedup_match" in sql
    assert "CREATE TRIGGER dedup_petition_insert AFTER INSERT ON petition FOR EACH ROW INSERT INTO" in sql
    assert "s3cret" not in sql
    down = migrate.downgrade_sql(config_for(url))
    assert "DROP TRIGGER IF EXISTS dedup_petition_update" in down and "DROP TABLE dedup_outbox" in down


def test_migrate_sql_on_the_cli_prints_create_trigger(tmp_path):
    (tmp_path / "c.toml").write_text(f'[source]\nurl = "mysql+pymysql://u:p@127.0.0.1:{free_port()}/db"\n'
                                     f'table = "petition"\n[fields]\ncontent = "long"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["migrate", "--sql", "--config", str(tmp_path / "c.toml")])
    assert result.exit_code == 0, result.output
    assert result.output.count("CREATE TRIGGER") == 3


def test_sqlite_gets_the_same_outbox_and_triggers(tmp_path):
    engine = create_petition(f"sqlite:///{tmp_path}/p.db")
    config = config_for(url_of(engine))
    migrate.upgrade(config)
    assert tables(engine) == {"petition"} | OURS
    assert change_rows(engine) == EXPECTED_OPS
    migrate.downgrade(config)
    assert tables(engine) == {"petition"}


# -- migrate --from binlog: dedup_match and the binlog position, no trigger

BINLOG_TABLES = {migrate.MATCH_TABLE, "dedup_binlog_position", "dedup_binlog_failed", migrate.VERSION_TABLE} | REVIEW_TABLES


def binlog_config(url):
    return following(config_for(url), "binlog")


def triggers_on(engine):
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT COUNT(*) FROM information_schema.triggers "
                                    "WHERE event_object_schema = DATABASE()")).scalar_one()


def test_migrate_from_binlog_creates_dedup_match_and_the_position_tables_and_no_trigger_nor_outbox(petition):
    migrate.upgrade(binlog_config(url_of(petition)))
    assert tables(petition) == {"petition"} | BINLOG_TABLES
    assert triggers_on(petition) == 0
    inspector = sa.inspect(petition)
    assert inspector.get_pk_constraint("dedup_binlog_position")["constrained_columns"] == ["source_table"]
    assert inspector.get_pk_constraint("dedup_binlog_failed")["constrained_columns"] == ["source_table", "row_id"]


def test_a_database_on_the_triggers_takes_the_binlog_branch_beside_them_and_downgrade_removes_both(petition):
    migrate.upgrade(config_for(url_of(petition)))  # as every database migrated before the binlog branch
    migrate.upgrade(binlog_config(url_of(petition)))
    assert tables(petition) == {"petition"} | OURS | BINLOG_TABLES and triggers_on(petition) == 3
    with petition.connect() as conn:
        versions = {r[0] for r in conn.execute(sa.text(f"SELECT version_num FROM {migrate.VERSION_TABLE}"))}
    assert versions == {"0005", "0002", "0008"}
    migrate.downgrade(binlog_config(url_of(petition)))
    assert tables(petition) == {"petition"} and triggers_on(petition) == 0


def test_migrate_from_binlog_refuses_sqlite_and_names_the_way_that_works(tmp_path):
    engine = create_petition(f"sqlite:///{tmp_path}/p.db")
    with pytest.raises(ConfigError, match=r"--from binlog follows the binary log of MySQL or MariaDB, not sqlite; "
                                          r"use the triggers"):
        migrate.upgrade(binlog_config(url_of(engine)))
    assert tables(engine) == {"petition"}


def test_migrate_from_binlog_sql_has_no_trigger_and_its_downgrade_drops_what_it_made():
    url = f"mysql+pymysql://dedup:s3cret@127.0.0.1:{free_port()}/petitions"  # nobody listens
    sql = migrate.upgrade_sql(binlog_config(url))
    assert "CREATE TABLE dedup_match" in sql and "CREATE TABLE dedup_binlog_position" in sql
    assert "TRIGGER" not in sql and "dedup_outbox" not in sql and "s3cret" not in sql
    down = migrate.downgrade_sql(binlog_config(url))
    assert all(f"DROP TABLE {t}" in down for t in ("dedup_binlog_failed", "dedup_binlog_position", "dedup_match"))


def test_the_sql_for_a_dba_applied_by_hand_makes_what_migrate_makes_and_its_downgrade_removes_it(tmp_path):
    engine = create_petition(f"sqlite:///{tmp_path}/p.db")
    config = config_for(url_of(engine))
    raw = sqlite3.connect(tmp_path / "p.db")
    raw.executescript(migrate.upgrade_sql(config))
    assert tables(engine) == {"petition"} | OURS
    assert {r[0] for r in raw.execute(f"SELECT version_num FROM {migrate.VERSION_TABLE}")} == {"0005", "0008"}
    assert "status" in {c["name"] for c in sa.inspect(engine).get_columns("dedup_match")}
    raw.executescript(migrate.downgrade_sql(config))
    assert tables(engine) == {"petition"}
