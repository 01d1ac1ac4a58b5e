"""`reviewer remove NAME`, and console sessions that end at once (issue 47).

A session keeps a stamp of the password hash it was signed in with and holds only while
the reviewer exists with that hash: removing a reviewer, or giving them a new password
(`reviewer add --replace`, a fresh salt even for the same password), signs their sessions
out at their next request, and nobody else's. First over the stand-in desk
(testing/console.py), then the command on SQLite, then the real desk on MariaDB with the
command run through the CLI while the app is up."""

import tomllib

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dedup_pipeline import commands
from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.console.app import Settings, create_app
from dedup_pipeline.console.desk import Desk
from dedup_pipeline.errors import EXIT_CONFIG, UsageError
from dedup_pipeline.sql import migrate, reviewers
from tests.test_console import _toml, sign_in, sqlite_config

assert sqlite_config  # the fixture: the built-in configuration on a migrated SQLite sample of its own

PASSWORD, NEW_PASSWORD = "correct horse 1", "battery staple 2"


def decide(client, a="1", b="2"):
    """A first decision about the pair, as its page sends it (`seen` "none": no decision shown)."""
    return client.post("/decide", data={"kind": "pair", "a": a, "b": b, "verdict": "same", "seen": "none",
                                        "csrf_token": client.csrf})


def signed_in_as(app, name, password=PASSWORD):
    """A client of `app` signed in as `name`; `.csrf` is its session's token."""
    client = app.test_client()
    assert sign_in(client, name, password).status_code == 303
    with client.session_transaction() as session:
        client.csrf = session["csrf"]
    return client


# ---------------------------------------------------------------- a removed reviewer's session

def test_a_removed_reviewers_page_redirects_to_login(signed_in, console_desk):
    console_desk.remove("wang")
    answer = signed_in.get("/pair?a=1&b=2")
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")
    assert console_desk.table[1]["content"] not in answer.text


def test_a_removed_reviewers_api_call_answers_401(signed_in, console_desk):
    console_desk.remove("wang")
    answer = signed_in.get("/api/counts")
    assert answer.status_code == 401 and "left" not in answer.text


def test_a_removed_reviewers_decision_is_refused_and_records_nothing(signed_in, console_desk):
    console_desk.remove("wang")
    assert decide(signed_in).status_code == 401 and console_desk.decided == []


def test_a_removed_reviewers_skip_is_refused(signed_in, console_desk):
    console_desk.remove("wang")
    answer = signed_in.post("/skip", data={"key": "pair:1,2", "csrf_token": signed_in.csrf})
    assert answer.status_code == 401


def test_a_refused_session_stays_signed_out_when_the_reviewer_is_added_again(signed_in, console_desk):
    console_desk.remove("wang")
    signed_in.get("/")
    console_desk.add("wang", PASSWORD)
    assert signed_in.get("/").status_code == 302


def test_a_refused_session_keeps_its_language(signed_in, console_desk):
    signed_in.get("/?lang=en")
    console_desk.remove("wang")
    answer = signed_in.get("/")
    assert answer.status_code == 302 and 'lang="en"' in signed_in.get(answer.headers["Location"]).text


# ---------------------------------------------------------------- a new password

def test_a_new_password_ends_the_sessions_signed_in_with_the_old_one(signed_in, console_desk):
    console_desk.add("wang", NEW_PASSWORD)
    assert decide(signed_in).status_code == 401 and console_desk.decided == []


def test_the_same_password_given_again_ends_the_old_sessions_too(signed_in, console_desk):
    console_desk.add("wang", PASSWORD)  # a fresh salt: a new hash, a new stamp
    assert signed_in.get("/api/counts").status_code == 401


def test_signing_in_with_the_new_password_starts_a_session_that_holds(console_app, console_desk):
    console_desk.add("wang", NEW_PASSWORD)
    reviewer = signed_in_as(console_app, "wang", NEW_PASSWORD)
    assert decide(reviewer).status_code == 303 and [d.by for d in console_desk.decided] == ["wang"]


# ---------------------------------------------------------------- everyone else

def test_another_reviewers_session_is_untouched_by_a_removal(signed_in, console_app, console_desk):
    console_desk.add("li", PASSWORD)
    li = signed_in_as(console_app, "li")
    console_desk.remove("wang")
    assert decide(li).status_code == 303 and [d.by for d in console_desk.decided] == ["li"]


def test_another_reviewers_session_is_untouched_by_a_new_password(signed_in, console_app, console_desk):
    console_desk.add("li", PASSWORD)
    li = signed_in_as(console_app, "li")
    console_desk.add("wang", NEW_PASSWORD)
    assert li.get("/api/counts").status_code == 200


# ---------------------------------------------------------------- what a session keeps, what a check costs

def test_a_session_keeps_a_stamp_of_the_password_hash_never_the_hash(signed_in, console_desk):
    stored = console_desk.passwords["wang"]
    with signed_in.session_transaction() as session:
        kept = dict(session)
    assert kept["stamp"] == reviewers.stamp(stored)
    assert not any(stored in str(value) or stored.split("$")[-1] in str(value) for value in kept.values())


def test_a_session_without_a_stamp_is_signed_out(signed_in):
    with signed_in.session_transaction() as session:
        del session["stamp"]  # as a session signed in before sessions kept one
    assert signed_in.get("/api/counts").status_code == 401


def test_every_request_with_a_session_checks_it_once(signed_in, console_desk):
    console_desk.checked.clear()
    signed_in.get("/")
    decide(signed_in)
    assert console_desk.checked == ["wang", "wang"]


def test_a_visitor_without_a_session_and_the_static_files_cost_no_check(client, signed_in, console_desk):
    console_desk.checked.clear()
    client.get("/login")
    client.get("/")
    signed_in.get("/static/console.js")
    assert console_desk.checked == []


def test_a_stamp_changes_with_every_new_hash_and_is_not_the_hash():
    first, second = (reviewers.hash_password(PASSWORD, n=2**10) for _ in range(2))
    assert reviewers.stamp(first) == reviewers.stamp(first) != reviewers.stamp(second)
    assert len(reviewers.stamp(first)) == reviewers.STAMP_CHARS and reviewers.stamp(first) not in first


# ---------------------------------------------------------------- the command, on SQLite

def cli(config, *args, password=None):
    return CliRunner().invoke(main, ["reviewer", *args[:1], "--config", config.path, *args[1:]],
                              input=None if password is None else password + "\n")


def test_reviewer_remove_takes_the_reviewer_out_of_the_list(sqlite_config):
    for name in ("wang", "li"):
        cli(sqlite_config, "add", name, password=PASSWORD)
    result = cli(sqlite_config, "remove", "wang")
    assert result.exit_code == 0 and "'wang' removed" in result.output
    assert [r.name for r in commands.reviewer_list(sqlite_config)] == ["li"]


def test_a_removed_reviewer_can_no_longer_sign_in(sqlite_config):
    cli(sqlite_config, "add", "wang", password=PASSWORD)
    cli(sqlite_config, "remove", "wang")
    assert Desk(sqlite_config).sign_in("wang", PASSWORD) is None


def test_reviewer_remove_of_no_such_reviewer_is_one_line_and_a_usage_error(sqlite_config):
    result = cli(sqlite_config, "remove", "zhao")
    assert result.exit_code == EXIT_CONFIG == UsageError.exit_code
    assert result.output.splitlines() == ["Error: no reviewer 'zhao': `dedup-pipeline reviewer list` names them"]


def test_reviewer_remove_keeps_the_reviewers_decisions(sqlite_config):
    cli(sqlite_config, "add", "wang", password=PASSWORD)
    commands.decide(sqlite_config, 1, 2, same=True, by="wang", note="同一件事")
    cli(sqlite_config, "remove", "wang")
    assert [(d.reviewer, d.verdict, d.note) for d in commands.history(sqlite_config, 1, 2)] == [
        ("wang", "same", "同一件事")]


def test_reviewer_remove_has_help_with_an_example(sqlite_config):
    result = CliRunner().invoke(main, ["reviewer", "remove", "--help"])
    assert result.exit_code == 0 and "Example: dedup-pipeline reviewer remove" in result.output


def test_the_reviewer_group_names_remove():
    assert "reviewer remove NAME" in " ".join(CliRunner().invoke(main, ["reviewer", "--help"]).output.split())


# ---------------------------------------------------------------- the real desk on MariaDB, the CLI beside it

PETITION = ("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, name TEXT, phone TEXT, address TEXT, "
            "category TEXT, content TEXT, created_at DATETIME)")


@pytest.fixture
def mariadb_console(mysql_url, tmp_path):
    """The console's app over the real desk on a fresh MariaDB database holding a petition
    table of two rows, migrated, with reviewers wang and li added through the CLI: (app,
    config, an engine on the database)."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        conn.execute(sa.text(PETITION))
        conn.execute(sa.text("INSERT INTO petition (id, title, content) VALUES (1, '噪音', '广场舞音响太大'), "
                             "(2, '噪音', '再次反映：广场舞音响太大')"))
    data = tomllib.loads(default_config_text())
    data["source"].update(url=mysql_url, sample=False)
    data["store"] = {"kind": "memory", "data_dir": str(tmp_path / "data")}
    path = tmp_path / "dedup.toml"
    path.write_text(_toml(data), encoding="utf-8")
    config = parse_config(data, env={}, path=str(path))
    migrate.upgrade(config)
    for name in ("wang", "li"):
        assert cli(config, "add", name, password=PASSWORD).exit_code == 0
    app = create_app(Desk(config), Settings(secret=b"test-secret"))
    app.testing = True
    yield app, config, engine
    engine.dispose()


def test_on_mariadb_the_request_right_after_reviewer_remove_is_refused(mariadb_console):
    app, config, _ = mariadb_console
    wang = signed_in_as(app, "wang")
    assert wang.get("/api/counts").status_code == 200
    assert cli(config, "remove", "wang").exit_code == 0
    assert wang.get("/api/counts").status_code == 401


def test_on_mariadb_a_decision_posted_after_reviewer_remove_is_refused_and_not_kept(mariadb_console):
    app, config, engine = mariadb_console
    wang = signed_in_as(app, "wang")
    cli(config, "remove", "wang")
    assert decide(wang).status_code == 401
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT COUNT(*) FROM dedup_decision")).scalar() == 0


def test_on_mariadb_reviewer_add_replace_ends_the_old_session(mariadb_console):
    app, config, _ = mariadb_console
    wang = signed_in_as(app, "wang")
    assert cli(config, "add", "wang", "--replace", password=NEW_PASSWORD).exit_code == 0
    answer = wang.get("/")
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")


def test_on_mariadb_another_reviewers_session_is_untouched(mariadb_console):
    app, config, engine = mariadb_console
    signed_in_as(app, "wang")
    li = signed_in_as(app, "li")
    cli(config, "remove", "wang")
    assert decide(li).status_code == 303
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT reviewer FROM dedup_decision")).scalars().all() == ["li"]


def test_on_mariadb_a_session_check_is_one_select(mariadb_console):
    app, _, engine = mariadb_console
    desk = app.extensions["dedup"].desk
    desk.stamp("wang")  # the kept source opened (and the table reflected) once

    def selects():
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SHOW GLOBAL STATUS LIKE 'Com_select'")).one()[1])

    before = selects()
    for _ in range(10):
        assert desk.stamp("wang") is not None
    assert selects() - before == 10
