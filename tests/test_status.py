"""`dedup-pipeline status`: whether the pipeline runs, for cron or monitoring. On a real
MariaDB and a real MongoDB-protocol server: healthy (exit 0) after `migrate` and `batch`,
with the batch's figures; unhealthy (exit 1), saying why on its last line, with no batch
yet, a batch older than `[status] batch_max_age_hours`, a change that has waited longer than
`[status] change_max_age_minutes` (in the outbox, or behind the binary log), nothing to
follow changes by, or a store that cannot be reached; `--json` with every figure. Ages are
made by moving stored times back, never by waiting."""

import datetime as dt
import json

import pytest
import sqlalchemy as sa

from dedup_pipeline import commands
from dedup_pipeline.config import ConfigError, load_config, parse_config
from dedup_pipeline.sql.binlog import Position, between
from dedup_pipeline.store.embedded import free_port
from dedup_pipeline.store import results
from tests.test_binlog import create_petition, url_of
from tests.test_incremental import sample_rows
from tests.test_watch import FIELDS, insert, sql

ROWS = 200


@pytest.fixture
def petition(mysql_url):
    """A fresh MariaDB database holding `petition` with ROWS sample rows (not migrated)."""
    engine = create_petition(mysql_url)
    insert(engine, sample_rows()[:ROWS])
    yield engine
    engine.dispose()


@pytest.fixture
def config_file(petition, mongo_uri, mongo_db, tmp_path):
    """A configuration of that table and a fresh database of the MongoDB-protocol server."""
    return written(tmp_path / "dedup.toml", url_of(petition), mongo_uri, mongo_db.name)


def written(path, url, mongo_uri, database, extra=""):
    fields = "\n".join(f'{name} = "{role}"' for name, role in FIELDS.items())
    path.write_text(f'[source]\nurl = "{url}"\ntable = "petition"\n[fields]\n{fields}\n'
                    f'[store]\nmongo_uri = "{mongo_uri}"\ndatabase = "{database}"\n{extra}', encoding="utf-8")
    return str(path)


def ready(run, config_file, *options):
    """`migrate` and `batch` run, as a deployment starts."""
    assert run("migrate", "--config", config_file, *options).exit_code == 0
    assert run("batch", "--config", config_file, "--processes", "1").exit_code == 0


def status(run, config_file, *options):
    return run("status", "--config", config_file, *options)


def lines(result):
    """{part: (mark, text)} of the human output, and its last line."""
    *parts, last = result.output.splitlines()
    return {line.split()[0]: (line.split()[1], line) for line in parts}, last


# -- healthy


def test_after_migrate_and_batch_status_is_healthy_exits_0_and_shows_the_batch_rows(run, config_file):
    ready(run, config_file)
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 0, result.output
    assert last == "healthy"
    assert parts["batch"][0] == "OK" and f"{ROWS:,} rows" in parts["batch"][1]
    assert all(parts[part][0] == "OK" for part in ("batch", "store", "changes"))


def test_json_parses_and_has_every_figure(run, config_file, petition):
    ready(run, config_file)
    sql(petition, "UPDATE petition SET content = CONCAT(content, '。') WHERE id = 1")  # one change waiting
    figures = json.loads(status(run, config_file, "--json").output)
    assert figures["healthy"] is True and figures["problems"] == []
    assert figures["batch"]["rows"] == ROWS and figures["batch"]["seconds"] > 0
    assert 0 <= figures["batch"]["age_hours"] < 1 and figures["batch"]["max_age_hours"] == 26
    assert figures["store"]["format"] == figures["store"]["supported_format"] and figures["store"]["kind"] == "mongodb"
    assert figures["changes"]["from"] == "triggers" and figures["changes"]["pending"] == 1
    assert figures["changes"]["max_age_minutes"] == 10 and figures["changes"]["ok"] is True
    assert figures["queue"]["open"] == figures["queue"]["pairs"] + figures["queue"]["groups"]
    assert figures["decisions"]["today"] == 0


def test_a_change_waiting_less_than_the_threshold_is_counted_and_healthy(run, config_file, petition):
    ready(run, config_file)
    sql(petition, "UPDATE petition SET content = CONCAT(content, '。') WHERE id IN (1, 2)")
    result = status(run, config_file)
    parts, _ = lines(result)
    assert result.exit_code == 0
    assert parts["changes"][0] == "OK" and "outbox: 2 changes not processed" in parts["changes"][1]


def test_the_queue_counts_its_open_items_and_a_decision_made_today_closes_one(run):
    assert run("migrate").exit_code == 0 and run("batch").exit_code == 0  # the bundled sample
    before = json.loads(run("status", "--json").output)
    items = commands.queue(load_config(env={}))
    item = next(i for i in items if not i.audit and i.kind == "pair")  # a pair the rule cannot settle
    assert run("decide", str(item.rows[0]), str(item.rows[1]), "--different", "--by", "王芳").exit_code == 0
    after = json.loads(run("status", "--json").output)
    unsettled = sum(not i.audit for i in items)  # status counts what the rule cannot settle, not the audit
    assert (before["queue"]["open"], before["decisions"]["today"]) == (unsettled, 0)
    assert (after["queue"]["open"], after["decisions"]["today"]) == (unsettled - 1, 1)


# -- unhealthy


def test_no_batch_yet_exits_1_with_a_line_saying_to_run_batch(run, config_file):
    assert run("migrate", "--config", config_file).exit_code == 0
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 1
    assert parts["batch"][0] == "ALERT"
    assert last.startswith("unhealthy: batch: no batch has gone live yet: run `dedup-pipeline batch`")


def test_an_outbox_entry_older_than_the_threshold_exits_1_and_names_the_backlog(run, config_file, petition):
    ready(run, config_file)
    sql(petition, "UPDATE petition SET content = CONCAT(content, '。') WHERE id = 1")
    sql(petition, "UPDATE dedup_outbox SET enqueued_at = NOW(6) - INTERVAL 11 MINUTE WHERE done_at IS NULL")
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 1
    assert parts["changes"][0] == "ALERT" and "the oldest waiting 11.0 min" in parts["changes"][1]
    assert "changes: the oldest of 1 change(s) not processed has waited 11.0 min" in last
    assert "change_max_age_minutes = 10" in last and "`dedup-pipeline watch`" in last


def test_the_change_threshold_is_read_from_the_configuration(run, petition, mongo_uri, mongo_db, tmp_path):
    config_file = written(tmp_path / "dedup.toml", url_of(petition), mongo_uri, mongo_db.name,
                          "[status]\nchange_max_age_minutes = 30\n")
    ready(run, config_file)
    sql(petition, "UPDATE petition SET content = CONCAT(content, '。') WHERE id = 1")
    sql(petition, "UPDATE dedup_outbox SET enqueued_at = NOW(6) - INTERVAL 11 MINUTE WHERE done_at IS NULL")
    assert status(run, config_file).exit_code == 0


def test_a_live_batch_older_than_the_threshold_exits_1(run, config_file, mongo_db):
    ready(run, config_file)
    live = {"_id": results.pointer_id("petition")}  # the table's live pointer
    went = mongo_db.runs.find_one(live)["finished_at"]
    mongo_db.runs.update_one(live, {"$set": {"finished_at": went - dt.timedelta(hours=27)}})
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 1
    assert parts["batch"][0] == "ALERT"
    assert "batch: the live batch went live 27.0 h ago, more than [status] batch_max_age_hours = 26" in last


def test_without_migrate_the_changes_say_to_run_migrate(run, config_file):
    assert run("batch", "--config", config_file, "--processes", "1").exit_code == 0
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 1
    assert parts["changes"][0] == "ALERT" and "no dedup_outbox" in last and "run `dedup-pipeline migrate`" in last
    assert parts["queue"][0] == "-" and "not read: no dedup_possible table" in parts["queue"][1]


def test_an_unreachable_store_is_said_in_its_line_and_the_rest_is_still_read(run, petition, tmp_path):
    config_file = written(tmp_path / "dedup.toml", url_of(petition), f"mongodb://127.0.0.1:{free_port()}/", "dedup")
    assert run("migrate", "--config", config_file).exit_code == 1  # the SQL applied, not MongoDB's indexes
    result = status(run, config_file, "--json")
    figures = json.loads(result.output)
    assert result.exit_code == 1
    assert figures["store"]["ok"] is False and "cannot reach MongoDB" in figures["store"]["error"]
    assert figures["batch"]["ok"] is None and figures["batch"]["error"] == "the store cannot be read"
    assert figures["problems"][0].startswith("store: cannot reach MongoDB")
    assert figures["changes"]["pending"] == 0 and figures["changes"]["ok"] is True


# -- the binary log


@pytest.fixture
def binlog_file(binlog_url, mongo_uri, mongo_db, tmp_path):
    """A table on the binary-logging MariaDB, its configuration following the binary log."""
    engine = create_petition(binlog_url)
    insert(engine, sample_rows()[:ROWS])
    yield engine, written(tmp_path / "dedup.toml", binlog_url, mongo_uri, mongo_db.name,
                          '[watch]\nchanges = "binlog"\n')
    engine.dispose()


def test_following_the_binary_log_after_migrate_and_batch_is_healthy(run, binlog_file):
    engine, config_file = binlog_file
    ready(run, config_file)
    sql(engine, "UPDATE petition SET content = CONCAT(content, '。') WHERE id = 1")
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 0 and last == "healthy", result.output
    assert parts["changes"][0] == "OK" and "binary log: position" in parts["changes"][1]
    assert json.loads(status(run, config_file, "--json").output)["changes"]["behind_bytes"] > 0


def test_the_binary_log_moved_past_a_position_stored_long_ago_exits_1(run, binlog_file):
    engine, config_file = binlog_file
    ready(run, config_file)
    sql(engine, "UPDATE dedup_binlog_position SET updated_at = NOW(6) - INTERVAL 11 MINUTE")
    sql(engine, "UPDATE petition SET content = CONCAT(content, '。') WHERE id = 1")
    result = status(run, config_file)
    parts, last = lines(result)
    assert result.exit_code == 1
    assert parts["changes"][0] == "ALERT"
    assert "changes: the binary log has moved" in last and "past the position stored 11.0 min ago" in last


def test_a_quiet_binary_log_is_healthy_however_long_ago_the_position_was_stored(run, binlog_file):
    engine, config_file = binlog_file
    ready(run, config_file)
    with engine.connect() as conn:
        conn.execute(sa.text("SET SESSION sql_log_bin = 0"))  # this write itself does not move the log
        log_file, log_pos = conn.execute(sa.text("SHOW MASTER STATUS")).one()[:2]
        conn.execute(sa.text("UPDATE dedup_binlog_position SET log_file = :file, log_pos = :pos, "
                             "updated_at = NOW(6) - INTERVAL 1 DAY"), {"file": log_file, "pos": log_pos})
        conn.commit()
        conn.execute(sa.text("SET SESSION sql_log_bin = 1"))
        conn.commit()
    result = status(run, config_file, "--json")
    figures = json.loads(result.output)
    assert figures["changes"]["behind_bytes"] == 0 and figures["changes"]["stored_age_minutes"] > 60 * 23
    assert result.exit_code == 0 and figures["healthy"] is True


def test_from_binlog_on_the_command_line_reads_the_binary_log(run, petition, config_file):
    ready(run, config_file)  # set up for the triggers: no position table
    result = status(run, config_file, "--from", "binlog")
    assert result.exit_code == 1
    assert "no dedup_binlog_position" in result.output and "migrate --from binlog" in result.output


# -- the embedded default


def test_the_embedded_default_is_healthy_after_migrate_and_batch_and_sizes_its_data_folder(run):
    assert run("migrate").exit_code == 0
    assert run("batch").exit_code == 0
    result = run("status", "--json")
    figures = json.loads(result.output)
    assert result.exit_code == 0, result.output
    assert figures["batch"]["rows"] == 1200
    assert figures["store"]["kind"] == "embedded" and figures["store"]["bytes"] > 0
    assert figures["store"]["measured"].startswith("data folder")


# -- the thresholds, one validated configuration


def test_the_thresholds_default_to_26_hours_and_10_minutes():
    config = load_config(env={})
    assert (config.status.batch_max_age_hours, config.status.change_max_age_minutes) == (26, 10)


@pytest.mark.parametrize("key, value", [("batch_max_age_hours", 0), ("change_max_age_minutes", -1),
                                        ("change_max_age_minutes", float("inf")), ("batch_max_age_hours", 10**6)])
def test_a_threshold_not_above_0_or_beyond_a_year_is_refused(key, value):
    data = {"source": {"url": "sqlite:///x.db", "table": "petition"}, "fields": {"content": "long"},
            "status": {key: value}}
    with pytest.raises(ConfigError, match=rf"\[status\] {key} must be above 0 and at most"):
        parse_config(data, {})


def test_a_threshold_that_is_not_a_number_is_refused():
    data = {"source": {"url": "sqlite:///x.db", "table": "petition"}, "fields": {"content": "long"},
            "status": {"batch_max_age_hours": "26"}}
    with pytest.raises(ConfigError, match=r"\[status\] batch_max_age_hours must be a number, got '26'"):
        parse_config(data, {})


# -- bytes of binary log between two positions


def test_bytes_between_positions_of_one_file_are_their_difference():
    assert between(Position("binlog.000002", 400), Position("binlog.000002", 1000), {"binlog.000002": 1000}) == 600


def test_bytes_between_positions_count_the_files_in_between_whole():
    files = {"binlog.000001": 5000, "binlog.000002": 700, "binlog.000003": 900, "binlog.000004": 300}
    assert between(Position("binlog.000002", 500), Position("binlog.000004", 250), files) == 200 + 900 + 250


def test_no_bytes_lie_between_a_position_and_one_before_it():
    assert between(Position("binlog.000003", 10), Position("binlog.000002", 900), {}) == 0
