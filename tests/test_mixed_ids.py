"""An id column holding integers and text side by side (an SQLite column without a type, or
a TEXT id holding digits): rows are read, reported and checked by their id, whichever type
it has, and an id given on the command line finds the row whose id is 1 or '1'."""

import csv
import sqlite3

import pytest
from click.testing import CliRunner

from dedup_pipeline.cli import main
from dedup_pipeline.config import parse_config
from dedup_pipeline.sql.source import SqlSource

PROPERTY = "小区物业乱收费，多次反映无人处理，请求有关部门尽快调查并给予答复，维护业主合法权益"
NOISE = "夜间施工噪音扰民严重影响休息，希望相关部门依法查处，还居民一个安静的夜晚"
# Pairs across the types, and one between two text ids ordered before an integer one.
ROWS = [(1, "物业", PROPERTY), ("a2", "物业", "再次反映：" + PROPERTY), (3, "噪音", NOISE),
        ("b4", "噪音", NOISE + "！"), ("c5", "噪音", "再次反映：" + NOISE)]
CONFIG = ('[source]\nurl = "sqlite:///p.db"\ntable = "petition"\n[fields]\ntitle = "short"\n'
          'content = "long"\n[batch]\nprocesses = 1\n')


def petitions(path, id_type=""):
    """p.db in `path`: a petition table whose id column is `id_type` (none: any value)."""
    with sqlite3.connect(path / "p.db") as db:
        db.execute(f"CREATE TABLE petition (id {id_type} PRIMARY KEY, title TEXT, content TEXT)")
        db.executemany("INSERT INTO petition VALUES (?, ?, ?)", ROWS)
    db.close()
    (path / "dedup.toml").write_text(CONFIG, encoding="utf-8")


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """The CLI in an empty folder with DEDUP_CONFIG=dedup.toml (`petitions` writes both)."""
    monkeypatch.chdir(tmp_path)
    for var in ("DEDUP_SQL_URL", "DEDUP_MONGO_URI"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DEDUP_CONFIG", "dedup.toml")
    return lambda *args: CliRunner().invoke(main, list(args))


def source(tmp_path):
    config = parse_config({"source": {"url": f"sqlite:///{tmp_path}/p.db", "table": "petition"},
                           "fields": {"title": "short", "content": "long"}}, {})
    return SqlSource(config)


def test_rows_by_id_of_integer_and_text_ids_come_integers_first_as_sqlite_orders_them(tmp_path):
    petitions(tmp_path)
    with source(tmp_path) as rows:
        assert [r["id"] for r in rows.rows_by_id(["c5", 3, 1, "a2"])] == [1, 3, "a2", "c5"]


@pytest.mark.servers
def test_report_html_of_integer_and_text_ids_is_written(cli, tmp_path):
    petitions(tmp_path)
    assert cli("batch").exit_code == 0
    result = cli("report", "--html", "report.html")
    assert result.exit_code == 0, result.output
    assert "c5" in (tmp_path / "report.html").read_text(encoding="utf-8")


@pytest.mark.servers
def test_report_csv_groups_of_integer_and_text_ids_list_every_row(cli, tmp_path):
    petitions(tmp_path)
    assert cli("batch").exit_code == 0
    result = cli("report", "--format", "csv", "--groups", "--out", "groups.csv")
    assert result.exit_code == 0, result.output
    with open(tmp_path / "groups.csv", encoding="utf-8-sig", newline="") as f:
        assert sorted(row["id"] for row in csv.DictReader(f)) == ["1", "3", "a2", "b4", "c5"]


@pytest.mark.servers
@pytest.mark.parametrize("id_type", ["", "TEXT"])
def test_check_id_1_finds_the_row_whose_id_is_1_beside_text_ids(cli, tmp_path, id_type):
    petitions(tmp_path, id_type)
    assert cli("batch").exit_code == 0
    result = cli("check", "--id", "1")
    assert result.exit_code == 3 and result.stdout.split("\t")[0] == "a2", result.output


def test_a_rerun_over_integer_and_text_ids_reads_every_row_and_sketches_the_one_changed(cli, tmp_path):
    petitions(tmp_path)
    assert cli("batch").exit_code == 0
    with sqlite3.connect(tmp_path / "p.db") as db:
        db.execute("UPDATE petition SET content = ? WHERE id = 'b4'", ("再次反映：" + NOISE + "！",))
    db.close()
    again = cli("batch")
    assert again.exit_code == 0, again.output
    assert "rows read: 5; sketched (new or changed since the last batch): 1;" in again.output
