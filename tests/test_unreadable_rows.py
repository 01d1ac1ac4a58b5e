"""A row whose bytes are not valid in the configured encoding does not stop the batch: it is
left out (as if the table had it not), named with its column and why in the batch's summary
and in `status` (a warning: the pipeline runs), and read again once it is corrected. On the
bundled sample in SQLite (a text SQLite cannot decode, read by a full batch and by a re-run)
and on a real MariaDB (bytes that are not GBK in a column configured as GBK)."""

import json
import sqlite3

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from dedup_pipeline.config import parse_config
from dedup_pipeline.core.features import FeatureError
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.sql.source import LeftOut, SqlSource
from dedup_pipeline.store.index import MongoStore

NOT_UTF8 = "CAST(x'e5b9b8e7a68ffffe81e9878c' AS TEXT)"  # 幸福 then FF FE: stored as text, not UTF-8
SAMPLE = "dedup-data/sample.sqlite"


def corrupt(path, row, value=NOT_UTF8):
    """Set the content of a row of the sample, by SQL (`value`: an SQL expression)."""
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE petition SET content = {value} WHERE id = ?", (row,))


def content_of(path, row):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT content FROM petition WHERE id = ?", (row,)).fetchone()[0]


def exported(run):
    """The live pairs, as `report` exports them: {(a, b)}."""
    assert run("report", "--out", "pairs.jsonl").exit_code == 0
    with open("pairs.jsonl", encoding="utf-8") as f:
        return {(p["a"], p["b"]) for p in map(json.loads, f)}


def matched(path):
    with sqlite3.connect(path) as db:
        return {(a, b) for a, b in db.execute("SELECT row_id, similar_id FROM dedup_match")}


def paired_row(pairs):
    """A row of the first pair."""
    return min(pairs)[0]


# -- SQLite, the bundled sample


def test_a_full_batch_leaves_out_a_row_sqlite_cannot_decode_and_names_its_id_and_column(run):
    assert run("migrate").exit_code == 0
    corrupt(SAMPLE, 5)
    result = run("batch", "--full")
    assert result.exit_code == 0, result.output
    assert "1 row left out" in result.stdout
    assert "row 5, column content: bytes that are not valid utf-8" in result.stdout
    assert "rows fingerprinted: 1,199" in result.stdout


def test_a_full_batch_goes_live_with_every_other_row_and_none_of_the_row_left_out(run):
    assert run("migrate").exit_code == 0
    assert run("batch").exit_code == 0
    row = paired_row(exported(run))
    corrupt(SAMPLE, row)
    assert run("batch", "--full").exit_code == 0
    pairs = exported(run)
    assert pairs and not any(row in pair for pair in pairs)
    assert matched(SAMPLE) == pairs | {(b, a) for a, b in pairs}


def test_a_re_run_leaves_out_a_row_that_became_unreadable_and_reads_it_again_once_corrected(run):
    assert run("migrate").exit_code == 0
    assert run("batch").exit_code == 0
    before = exported(run)
    row = paired_row(before)
    text = content_of(SAMPLE, row)
    corrupt(SAMPLE, row)
    left = run("batch")  # a re-run: the table read as UTF-8 bytes, hashed undecoded
    assert left.exit_code == 0, left.output
    assert "sketched (new or changed since the last batch)" in left.stdout
    assert f"row {row}, column content: bytes that are not valid utf-8" in left.stdout
    assert not any(row in pair for pair in exported(run)) and not any(row in pair for pair in matched(SAMPLE))
    with sqlite3.connect(SAMPLE) as db:
        db.execute("UPDATE petition SET content = ? WHERE id = ?", (text, row))
    again = run("batch")
    assert again.exit_code == 0 and "left out" not in again.stdout
    assert exported(run) == before


def test_a_re_run_reports_a_row_it_cannot_read_every_night_until_it_is_corrected(run):
    assert run("migrate").exit_code == 0
    corrupt(SAMPLE, 7)
    assert "row 7, column content" in run("batch").stdout
    second = run("batch")
    assert second.exit_code == 0 and "1 row left out" in second.stdout and "row 7, column content" in second.stdout
    assert "sketched (new or changed since the last batch): 0" in second.stdout


@pytest.mark.parametrize("bad", [1, 3, 4, 6, 7, 14])  # the first of a chunk, of a page, the last of each
def test_rows_read_leave_out_a_text_sqlite_cannot_decode_wherever_it_falls_and_read_every_other_once(
        tmp_path, bad):
    url = f"sqlite:///{tmp_path}/p.db"
    with sqlite3.connect(tmp_path / "p.db") as db:
        db.execute("CREATE TABLE petition (id INTEGER PRIMARY KEY, content TEXT)")
        db.executemany("INSERT INTO petition VALUES (?, ?)", [(i, f"内容{i}") for i in range(1, 15)])
        db.execute(f"UPDATE petition SET content = {NOT_UTF8} WHERE id = ?", (bad,))
    config = parse_config({"source": {"url": url, "table": "petition"}, "fields": {"content": "long"}}, {})
    left_out: list = []
    with SqlSource(config) as source:
        read = [row["id"] for chunk in source.rows(chunk_size=3, page_size=7, left_out=left_out) for row in chunk]
    assert read == [i for i in range(1, 15) if i != bad]
    assert [(r.row, r.column) for r in left_out] == [(bad, "content")]


def test_status_warns_of_the_rows_the_live_batch_left_out_and_stays_healthy(run):
    assert run("migrate").exit_code == 0
    corrupt(SAMPLE, 5)
    assert run("batch").exit_code == 0
    shown = run("status")
    assert shown.exit_code == 0, shown.output
    batch_line = next(line for line in shown.stdout.splitlines() if line.startswith("batch"))
    assert batch_line.split()[1] == "WARN" and "row 5, column content" in batch_line
    assert shown.stdout.splitlines()[-1].startswith("healthy")


def test_status_json_counts_the_rows_left_out_and_names_the_first(run):
    assert run("migrate").exit_code == 0
    for row in (5, 9):
        corrupt(SAMPLE, row)
    assert run("batch").exit_code == 0
    figures = json.loads(run("status", "--json").stdout)
    assert figures["healthy"] and figures["batch"]["left_out"] == 2
    named = [(row, column) for row, column, why in figures["batch"]["left_out_first"]]
    assert named == [(5, "content"), (9, "content")]
    assert figures["warnings"] and figures["warnings"][0].startswith("batch: 2 rows left out")


# -- MariaDB: bytes that are not GBK in a column configured as GBK


@pytest.fixture
def gbk_table(mysql_url):
    """`legacy(id, content)` in latin1 holding GBK bytes, row 3's FF FE (no GBK character)."""
    meta = sa.MetaData()
    table = sa.Table("legacy", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("content", mysql.TEXT(charset="latin1")), mysql_charset="latin1")
    engine = sa.create_engine(mysql_url)
    meta.create_all(engine)
    texts = {i: f"再次反映，小区{i}号楼楼道长期堆放杂物，存在消防隐患。".encode("gbk") for i in range(1, 7)}
    texts[3] = b"\xff\xfe"
    with engine.begin() as conn:
        for i, raw in texts.items():
            conn.execute(table.insert().values(id=i, content=sa.func.unhex(raw.hex())))
    engine.dispose()
    return mysql_url


@pytest.fixture
def gbk_config(gbk_table, mongo_uri, mongo_db):
    return parse_config({"source": {"url": gbk_table, "table": "legacy"},
                         "fields": {"content": {"role": "long", "encoding": "gbk"}},
                         "store": {"mongo_uri": mongo_uri, "database": mongo_db.name},
                         "batch": {"chunk_size": 2, "processes": 1}}, {})


def test_a_batch_on_mariadb_leaves_out_a_row_whose_bytes_are_not_the_configured_gbk(gbk_config, mongo_db):
    result = run_batch(gbk_config, MongoStore(mongo_db), processes=1)
    assert result.ids == [1, 2, 4, 5, 6]
    assert [(r.row, r.column) for r in result.left_out] == [(3, "content")]
    assert result.left_out[0].why.startswith("bytes that are not valid gbk")


def test_a_re_run_on_mariadb_leaves_out_the_same_row(gbk_config, mongo_db):
    run_batch(gbk_config, MongoStore(mongo_db), processes=1)
    again = run_batch(gbk_config, MongoStore(mongo_db), processes=1)
    assert again.rerun and again.ids == [1, 2, 4, 5, 6]
    assert [(r.row, r.column) for r in again.left_out] == [(3, "content")]


def test_bytes_not_valid_in_the_configured_gbk_are_not_told_to_set_gbk(gbk_config):
    with SqlSource(gbk_config) as source:
        read, left_out = source.readable(row for chunk in source.tuples() for row in chunk)
    assert [row["id"] for row in read] == [1, 2, 4, 5, 6]
    assert left_out == [LeftOut(3, "content", left_out[0].why)]
    with pytest.raises(FeatureError) as raised, SqlSource(gbk_config) as source:
        source.row(3)
    assert "not valid gbk" in str(raised.value) and "for example \"gbk\"" not in str(raised.value)
