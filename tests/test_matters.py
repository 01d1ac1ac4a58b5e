"""The matters stage (热点事项) on every path (jobs/matters.py, sql/matters.py): the batch writes
each row's matter to dedup_matter as the core finds them; rows added, changed or removed one
at a time (`add`, `watch`, their shared `follow`) leave exactly the partition a batch of the
table would; reports, `check` and `explain` say what was found."""

import json
import random
import sqlite3
import threading
import tomllib

import pytest
import sqlalchemy as sa

from dedup_pipeline import commands
from dedup_pipeline.config import ConfigError, default_config_text, parse_config
from dedup_pipeline.core import matters as core
from dedup_pipeline.jobs import matters
from dedup_pipeline.jobs.watch import WatchSettings, watch
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.sql import matters as stored
from testing import hotline
from testing.labelled import write_sqlite

ROWS = 400


@pytest.fixture(scope="module")
def table():
    """A labelled hotline table: rows of many people about one matter, and every hard negative."""
    return hotline.make(ROWS, seed=3)


def configured(url, folder, **matters_said):
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": url, "table": "petition"}
    data["store"] = {"kind": "memory", "data_dir": str(folder)}
    data["matters"] = {"find": True, **matters_said}
    return parse_config(data, env={})


@pytest.fixture
def sqlite_table(table, tmp_path):
    """The table in SQLite, migrated: (its file, its configuration)."""
    path = write_sqlite(table.rows, tmp_path / "petition.sqlite")
    config = configured(f"sqlite:///{path}", tmp_path / "data")
    commands.migrate(config)
    return path, config


def held(pipe):
    """{row: matter} of dedup_matter's rows in a matter."""
    return {row: m.matter for m in stored.matters(pipe.source) for row in m.rows}


def expected(config, rows):
    """{row: matter} as the core finds them over the rows' marks."""
    columns = matters.columns_of(config)
    marks = {r["id"]: m for r in rows if (m := matters.mark(r, columns, "id")) is not None}
    return core.matters_of(marks, config.matters.window_days)


def follow_one(pipe, present=(), absent=()):
    with pipe.source.engine.begin() as conn:
        return matters.follow(conn, matters.tables_of(pipe.config, conn), pipe.config, {r["id"]: r for r in present},
                              list(absent))


def test_the_batch_writes_each_rows_matter_as_the_core_finds_it(table, sqlite_table):
    _, config = sqlite_table
    with Pipeline(config) as pipe:
        done = commands.batch(pipe).result.matters
        found = held(pipe)
    assert found == expected(config, table.rows)
    assert done.matters == len(set(found.values())) >= 20 and done.in_matters == len(found)


def test_a_matter_holds_rows_of_at_least_two_people(table, sqlite_table):
    _, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        every = stored.matters(pipe.source)
    person = table.person
    assert every and all(len({person[r] for r in m.rows}) >= 2 for m in every)
    assert all(m.people == len({person[r] for r in m.rows}) for m in every)


def test_rows_added_one_at_a_time_give_the_batchs_matters(table, sqlite_table):
    _, config = sqlite_table
    rows = list(table.rows)
    random.Random(5).shuffle(rows)
    with Pipeline(config) as pipe:
        for row in rows:
            follow_one(pipe, present=[row])
        one_by_one = held(pipe)
    assert one_by_one == expected(config, table.rows)


def test_a_row_removed_leaves_what_a_batch_of_the_rest_finds(table, sqlite_table):
    path, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        biggest = stored.matters(pipe.source)[0]
        gone = biggest.rows[len(biggest.rows) // 2]
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM petition WHERE id = ?", (gone,))
        follow_one(pipe, absent=[gone])
        after = held(pipe)
    assert gone not in after
    assert after == expected(config, [r for r in table.rows if r["id"] != gone])


def test_a_row_changed_moves_to_the_matter_its_new_text_names(table, sqlite_table):
    path, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        first, second = stored.matters(pipe.source)[:2]
        moved = dict(next(r for r in table.rows if r["id"] == first.rows[-1]))
        model = next(r for r in table.rows if r["id"] == second.rows[0])
        moved.update(title=model["title"], content=model["content"], address=model["address"],
                     created_at=model["created_at"])
        with sqlite3.connect(path) as db:
            db.execute("UPDATE petition SET title = ?, content = ?, address = ?, created_at = ? WHERE id = ?",
                       (moved["title"], moved["content"], moved["address"], moved["created_at"], moved["id"]))
        follow_one(pipe, present=[moved])
        after = held(pipe)
    rows = [moved if r["id"] == moved["id"] else r for r in table.rows]
    assert after == expected(config, rows)
    assert after[moved["id"]] == after[second.rows[0]]


def test_a_night_after_changes_leaves_the_matters_a_full_batch_finds(table, sqlite_table):
    path, config = sqlite_table
    rows = [dict(r) for r in table.rows]
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        biggest = stored.matters(pipe.source)[0]
        gone, moved = biggest.rows[0], biggest.rows[1]
        rows = [r for r in rows if r["id"] != gone]
        for r in rows:
            if r["id"] == moved:
                r["created_at"] = "2020-01-01 08:00:00"  # another episode: out of its matter
        write_sqlite(rows, path)
        night = commands.batch(pipe).result
        assert night.rerun and night.matters.written > 0
        after = held(pipe)
    assert after == expected(config, rows) and gone not in after and moved not in after


def dumped(path):
    """Every row of dedup_matter and dedup_matter_key, as a clean batch and a night must agree on them."""
    with sqlite3.connect(path) as db:
        return (sorted(db.execute("SELECT * FROM dedup_matter").fetchall(), key=repr),
                sorted(db.execute("SELECT * FROM dedup_matter_key").fetchall(), key=repr))


def test_a_night_leaves_every_column_of_the_matters_tables_as_a_clean_batch_writes_them(table, sqlite_table, tmp_path):
    path, config = sqlite_table
    rows = [dict(r) for r in table.rows]
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        biggest = stored.matters(pipe.source)[0]
        rows = [r for r in rows if r["id"] != biggest.rows[0]]  # its first row gone: the matter renamed
        joiner = dict(next(r for r in rows if r["id"] == biggest.rows[1]), id=10_000, phone="13900000000")
        write_sqlite([*rows, joiner], path)  # and one more person joins it: every summary of it changes
        assert commands.batch(pipe).result.rerun
    night = dumped(path)
    clean = write_sqlite([*rows, joiner], tmp_path / "clean.sqlite")
    clean_config = configured(f"sqlite:///{clean}", tmp_path / "clean-data")
    commands.migrate(clean_config)
    with Pipeline(clean_config) as pipe:
        commands.batch(pipe)
    assert night == dumped(clean)


def test_a_batch_files_again_a_row_whose_keys_other_rules_gave(table, sqlite_table):
    """A mark the rules now file under other keys (a new version) is filed again by a batch
    that works every row out (settle_all), though the mark itself did not change."""
    path, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        row = stored.matters(pipe.source)[0].rows[0]
        with sqlite3.connect(path) as db:
            right = db.execute("SELECT link_key FROM dedup_matter_key WHERE row_id = ?", (row,)).fetchall()
            db.execute("UPDATE dedup_matter_key SET link_key = 'filed by older rules' WHERE row_id = ?", (row,))
        columns = matters.columns_of(config)
        marks = {r["id"]: m for r in table.rows if (m := matters.mark(r, columns, "id")) is not None}
        matters.settle_all(config, pipe.source, marks)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT link_key FROM dedup_matter_key WHERE row_id = ?", (row,)).fetchall() == right


def test_the_first_batch_after_migrate_finds_every_matter_even_on_a_night(table, tmp_path):
    path = write_sqlite(table.rows, tmp_path / "petition.sqlite")
    config = configured(f"sqlite:///{path}", tmp_path / "data")
    with Pipeline(config) as pipe:
        assert commands.batch(pipe).result.matters is None  # no dedup_matter yet
        commands.migrate(config)
        night = commands.batch(pipe).result
        assert night.rerun and night.matters.in_matters > 0
        assert held(pipe) == expected(config, table.rows)


def test_add_files_a_row_into_its_matter(table, sqlite_table):
    path, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        biggest = stored.matters(pipe.source)[0]
        late = max(biggest.rows)
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM petition WHERE id = ?", (late,))
        follow_one(pipe, absent=[late])
        write_sqlite(table.rows, path)  # the row back, as a new row is inserted
        commands.add(pipe, [late])
        assert held(pipe) == expected(config, table.rows)


def test_report_matters_writes_a_line_per_matter_largest_first(sqlite_table, tmp_path):
    _, config = sqlite_table
    out = tmp_path / "matters.jsonl"
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        every = stored.matters(pipe.source)
        done = commands.report(pipe, out=str(out), matters=True)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert done.lines == len(lines) == len(every)
    assert set(lines[0]) == {"matter", "rows", "object", "problem", "people", "first", "last"}
    assert [line["people"] for line in lines] == sorted((line["people"] for line in lines), reverse=True)
    assert all(line["first"] <= line["last"] and len(line["rows"]) >= 2 for line in lines)


def test_check_says_the_matter_of_a_row(sqlite_table):
    _, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        matter = stored.matters(pipe.source)[0]
        checked = commands.check(pipe, row_id=matter.rows[0])
        alone = commands.check(pipe, text="小区门口的路灯坏了")
    assert checked.matter.matter == matter.matter and checked.matter.rows == matter.rows
    assert alone.matter is None


def test_explain_says_whether_two_rows_are_one_matter_and_why(sqlite_table):
    _, config = sqlite_table
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        first, second = stored.matters(pipe.source)[:2]
        same = commands.explain(pipe, first.rows[0], first.rows[1]).reasons["matter"]
        apart = commands.explain(pipe, first.rows[0], second.rows[0]).reasons["matter"]
    assert same["linked"] and same["matters"] == [first.matter, first.matter]
    assert same["read"][0]["object"] == same["read"][1]["object"]
    assert not apart["linked"] and apart["matters"] == [first.matter, second.matter]


def test_a_table_without_dedup_matter_is_batched_without_matters(table, tmp_path):
    path = write_sqlite(table.rows, tmp_path / "petition.sqlite")
    with Pipeline(configured(f"sqlite:///{path}", tmp_path / "data")) as pipe:
        assert commands.batch(pipe).result.matters is None


def test_matters_are_off_by_default():
    assert parse_config(tomllib.loads(default_config_text()), env={}).matters.find is False


def test_matters_off_finds_none(table, tmp_path):
    path = write_sqlite(table.rows, tmp_path / "petition.sqlite")
    config = configured(f"sqlite:///{path}", tmp_path / "data", find=False)
    commands.migrate(config)
    with Pipeline(config) as pipe:
        assert commands.batch(pipe).result.matters is None
        assert held(pipe) == {}


def test_matters_naming_a_column_the_table_has_not_is_refused():
    with pytest.raises(ConfigError, match=r"\[matters\] names 'street'"):
        configured("sqlite:///x.db", "data", address="street")


COLUMNS = ["title", "name", "phone", "address", "category", "created_at", "content"]


@pytest.fixture
def mariadb_table(mysql_url, mongo_uri, mongo_db):
    """A `petition` table in MariaDB, migrated: (an engine on it, a function inserting rows, the configuration)."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        sa.Table("petition", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 *(sa.Column(c, sa.Text) for c in COLUMNS)).create(conn)
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": mysql_url, "table": "petition"}
    data["store"] = {"mongo_uri": mongo_uri, "database": mongo_db.name}
    data["matters"] = {"find": True}
    config = parse_config(data, env={})
    commands.migrate(config)
    statement = sa.text(f"INSERT INTO petition (id, {', '.join(COLUMNS)}) "
                        f"VALUES (:id, {', '.join(':' + c for c in COLUMNS)})")

    def insert(rows):
        with engine.begin() as conn:
            conn.execute(statement, rows)
    yield engine, insert, config
    engine.dispose()


def test_watch_keeps_matters_in_step_as_a_batch_would(table, mariadb_table):
    _, insert, config = mariadb_table
    half = len(table.rows) // 2
    insert(table.rows[:half])
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        insert(table.rows[half:])
        watch(pipe, WatchSettings(once=True, batch_size=37), handle_signals=False)
        assert held(pipe) == expected(config, table.rows)


def test_two_workers_at_once_leave_the_matters_a_batch_finds(table, mariadb_table):
    _, insert, config = mariadb_table
    rows = sorted(table.rows, key=lambda r: (r["title"] or "", r["id"]))  # rows of one matter side by side
    insert(rows[:20])
    with Pipeline(config) as pipe:
        commands.batch(pipe)
    insert(rows[20:])
    errors = []

    def worker():
        try:
            watch(config, WatchSettings(once=True, batch_size=3), handle_signals=False)
        except Exception as e:  # the test fails below, with what happened
            errors.append(e)
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [] and not any(t.is_alive() for t in threads)
    with Pipeline(config) as pipe:
        watch(pipe, WatchSettings(once=True), handle_signals=False)  # what a deadlock's loser retries
        assert held(pipe) == expected(config, table.rows)


def test_a_second_writer_of_a_part_waits_for_the_first_to_commit(table, mariadb_table):
    engine, insert, config = mariadb_table
    insert(table.rows)
    with Pipeline(config) as pipe:
        commands.batch(pipe)
        biggest = stored.matters(pipe.source)[0]
    first, second = (next(r for r in table.rows if r["id"] == i) for i in biggest.rows[:2])
    with engine.connect() as holding, engine.connect() as waiting:
        holding.begin()
        matters.follow(holding, matters.tables_of(config, holding), config, {first["id"]: first}, [])  # the part's keys locked until it commits
        waiting.execute(sa.text("SET SESSION innodb_lock_wait_timeout = 1"))
        waiting.commit()
        with pytest.raises(sa.exc.OperationalError, match="Lock wait timeout"), waiting.begin():
            matters.follow(waiting, matters.tables_of(config, waiting), config, {second["id"]: second}, [])
        holding.commit()
        with waiting.begin():
            matters.follow(waiting, matters.tables_of(config, waiting), config, {second["id"]: second}, [])
    with Pipeline(config) as pipe:
        assert held(pipe) == expected(config, table.rows)

