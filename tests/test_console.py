"""The review console's guard and pages through Flask's test client, over a stand-in desk
(testing/console.py): who gets in, what a request must carry, what a decision records, and
that database text reaches the page as text. Reviewers' passwords and the CLI's reviewer
commands on a real SQLite database. The real server in a real browser: test_console_browser.py."""

import os
import re
import stat
import tomllib
from dataclasses import replace
from datetime import datetime

import pytest
from click.testing import CliRunner

from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.console import guard
from dedup_pipeline.sql.decisions import wilson
from dedup_pipeline.sql import reviewers
from dedup_pipeline.sql.decisions import Decision

PAGES = ["/", "/next", "/pair?a=1&b=2", "/group?row=4&row=5&row=6"]


def login_token(client) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").text).group(1)


def seen_on(page: str) -> str:
    """What a page's decision form sends as `seen` (its latest decision's id, or "none")."""
    return re.search(r'name="seen" value="([^"]*)"', page).group(1)


def sign_in(client, name="wang", password="correct horse 1", address="10.0.0.1"):
    return client.post("/login", data={"name": name, "password": password, "csrf_token": login_token(client)},
                       environ_base={"REMOTE_ADDR": address})


# ---------------------------------------------------------------- a visitor without a session

@pytest.mark.parametrize("page", PAGES)
def test_a_page_without_a_session_redirects_to_login_and_shows_no_petition_text(client, console_desk, page):
    answer = client.get(page)
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")
    for row in console_desk.table.values():
        assert row["content"] not in answer.text and row["name"] not in answer.text


def test_the_login_page_shows_no_petition_text(client, console_desk):
    page = client.get("/login").text
    assert "<form" in page and not any(row["name"] in page for row in console_desk.table.values())


def test_the_api_without_a_session_answers_401(client):
    answer = client.get("/api/counts")
    assert answer.status_code == 401 and "left" not in answer.text


def test_a_decision_without_a_session_is_refused_and_records_nothing(client, console_desk):
    answer = client.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "none"})
    assert answer.status_code == 401 and console_desk.decided == []


# ---------------------------------------------------------------- CSRF

def test_a_decision_without_the_csrf_token_is_refused_and_records_nothing(signed_in, console_desk):
    answer = signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "none"})
    assert answer.status_code == 403 and console_desk.decided == []


def test_a_decision_with_another_sessions_token_is_refused(signed_in, console_app, console_desk):
    other = console_app.test_client()
    sign_in(other)
    with other.session_transaction() as session:
        foreign = session["csrf"]
    answer = signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same",
                                             "seen": "none", "csrf_token": foreign})
    assert foreign != signed_in.csrf and answer.status_code == 403 and console_desk.decided == []


def test_a_login_without_the_csrf_token_is_refused(client):
    answer = client.post("/login", data={"name": "wang", "password": "correct horse 1"})
    assert answer.status_code == 403
    assert client.get("/").status_code == 302


def test_the_csrf_token_is_accepted_in_the_header(signed_in, console_desk):
    answer = signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "none"},
                            headers={guard.CSRF_HEADER: signed_in.csrf})
    assert answer.status_code == 303 and len(console_desk.decided) == 1


# ---------------------------------------------------------------- signing in and out

def test_a_wrong_password_is_refused(client):
    assert sign_in(client, password="wrong horse 1").status_code == 401
    assert client.get("/").status_code == 302


def test_signing_in_starts_a_new_session_with_a_new_token(client):
    before = login_token(client)
    assert sign_in(client).status_code == 303
    with client.session_transaction() as session:
        assert session["reviewer"] == "wang" and session["csrf"] != before


def test_five_failures_for_a_name_refuse_it_even_the_right_password(client):
    for n in range(guard.LIMIT):
        assert sign_in(client, password="wrong horse 1", address=f"10.0.0.{n}").status_code == 401
    assert sign_in(client, address="10.0.0.99").status_code == 429


def test_five_failures_from_an_address_do_not_refuse_another_name_from_it(client):
    for n in range(guard.LIMIT):
        assert sign_in(client, name=f"guess{n}", password="wrong horse 1").status_code == 401
    assert sign_in(client).status_code == 303  # the address limit: tests/test_console_people.py


def test_the_login_limit_lifts_once_the_failures_are_older_than_the_window(client, console_app):
    for _ in range(guard.LIMIT):
        sign_in(client, password="wrong horse 1")
    console_app.clock[0] += guard.WINDOW
    assert sign_in(client).status_code == 303


def test_signing_out_ends_the_session(signed_in):
    answer = signed_in.post("/logout", data={"csrf_token": signed_in.csrf})
    assert answer.status_code == 303 and signed_in.get("/").status_code == 302


def test_login_goes_on_to_the_page_asked_for_never_to_another_site(client):
    token = login_token(client)
    for target, expected in [("/pair?a=1&b=2", "/pair?a=1&b=2"), ("https://evil.example/", "/"),
                             ("//evil.example/", "/"), ("/\\evil.example", "/")]:
        answer = client.post("/login", data={"name": "wang", "password": "correct horse 1", "csrf_token": token,
                                             "next": target})
        assert answer.headers["Location"] == expected
        with client.session_transaction() as session:
            token = session["csrf"]
        client.post("/logout", data={"csrf_token": token})
        token = login_token(client)


# ---------------------------------------------------------------- cookies and headers

def test_the_session_cookie_is_httponly_and_samesite_strict(client):
    cookie = sign_in(client).headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie


def test_the_session_cookie_is_secure_behind_an_https_proxy(console_desk):
    from dedup_pipeline.console.app import Settings, create_app

    app = create_app(console_desk, Settings(secure=True, secret=b"test-secret"))
    cookie = sign_in(app.test_client()).headers["Set-Cookie"]
    assert "Secure" in cookie


@pytest.mark.parametrize("page", ["/login", *PAGES, "/static/console.js"])
def test_every_answer_carries_a_strict_content_security_policy_and_no_framing(signed_in, page):
    headers = signed_in.get(page).headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY" and headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("page", ["/login", "/", "/pair?a=3&b=4", "/group?row=4&row=5&row=6"])
def test_no_page_has_an_inline_script_or_event_handler(signed_in, page):
    html = signed_in.get(page).text
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert re.search(r"<[^>]*\son[a-z]+=", html) is None


# ---------------------------------------------------------------- deciding

def test_deciding_a_pair_records_the_sessions_reviewer_and_goes_to_the_next_item(signed_in, console_desk):
    seen = seen_on(signed_in.get("/pair?a=1&b=2").text)
    answer = signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "different", "seen": seen,
                                             "note": "另一件事", "by": "someone else", "csrf_token": signed_in.csrf})
    assert [(d.rows, d.same, d.by, d.note) for d in console_desk.decided] == [([1, 2], False, "wang", "另一件事")]
    assert answer.headers["Location"] == "/next"
    assert signed_in.get("/next").headers["Location"] == "/pair?a=3&b=4"


def test_a_verdict_other_than_same_or_different_is_refused(signed_in, console_desk):
    answer = signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "maybe",
                                             "seen": "none", "csrf_token": signed_in.csrf})
    assert answer.status_code == 400 and console_desk.decided == []


def test_a_group_is_decided_as_one_collective_petition(signed_in, console_desk):
    seen = seen_on(signed_in.get("/group?row=4&row=5&row=6").text)
    signed_in.post("/decide", data={"kind": "group", "row": ["4", "5", "6"], "verdict": "same", "seen": seen,
                                    "csrf_token": signed_in.csrf})
    [d] = console_desk.decided
    assert (d.kind, d.rows, d.same, d.row, d.by) == ("group", [4, 5, 6], True, None, "wang")


def test_one_row_is_decided_not_of_its_group(signed_in, console_desk):
    seen = seen_on(signed_in.get("/group?row=4&row=5&row=6").text)
    signed_in.post("/decide", data={"kind": "group", "row": ["4", "5", "6"], "other": "5", "verdict": "different",
                                    "seen": seen, "csrf_token": signed_in.csrf})
    [d] = console_desk.decided
    assert (d.rows, d.same, d.row) == ([4, 6], False, 5)


def test_skipping_goes_to_the_next_item_and_decides_nothing(signed_in, console_desk):
    answer = signed_in.post("/skip", data={"key": "pair:1,2", "csrf_token": signed_in.csrf})
    assert signed_in.get(answer.headers["Location"]).headers["Location"] == "/pair?a=3&b=4"
    assert console_desk.decided == []


def test_a_row_the_table_has_not_is_a_404(signed_in):
    assert signed_in.get("/pair?a=1&b=999").status_code == 404


# ---------------------------------------------------------------- pages

def test_the_queue_lists_its_items_in_order_with_the_counts_and_figures(signed_in):
    page = signed_in.get("/").text
    assert [m for m in re.findall(r'data-key="((?:pair|group):[^"]+)"', page)] == ["pair:1,2", "pair:3,4",
                                                                                   "group:4,5,6"]
    assert 'data-count="left">3<' in page and "90.0%" in page and "25.0%" in page
    assert "2025-03-06 09:30" in page  # the group's newest row's filing date


def test_the_pair_shows_both_rows_the_fields_that_agree_and_what_each_text_has_alone(signed_in):
    page = signed_in.get("/pair?a=1&b=2").text
    assert page.count('class="agree"') == 2  # title and phone; the names differ
    assert "<mark>再次反映：</mark>" in page and "2025-03-01 09:30" in page and "2025-03-02 09:30" in page


def test_a_pairs_history_marks_a_decision_made_before_a_row_changed_as_stale(signed_in, console_desk, monkeypatch):
    made = Decision(1, 2, "different", "王芳", datetime(2025, 3, 3, 10, 0), None, "h1", "h2", "act", "auto")
    monkeypatch.setattr(console_desk, "history", lambda a, b: [replace(made, stale=True), made])
    page = signed_in.get("/pair?a=1&b=2").text
    assert page.count('class="badge stale"') == 1 and "已失效" in page


def test_database_text_is_shown_as_text_never_as_markup_or_template(signed_in):
    page = signed_in.get("/pair?a=3&b=4").text + signed_in.get("/group?row=4&row=5&row=6").text
    assert "<script>alert" not in page and "<svg" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;svg onload=alert(1)&gt;" in page
    shown = re.sub(r'name="csrf_token" value="[^"]*"', "", page)  # a random token may hold "49"
    assert "{{7*7}}" in page and "49" not in shown and "{% raw %}" in page


def test_english_with_lang_en_and_it_stays_for_the_session(signed_in):
    assert "Queue" in signed_in.get("/?lang=en").text
    assert 'lang="en"' in signed_in.get("/pair?a=1&b=2").text
    assert "待审队列" in signed_in.get("/?lang=zh").text


def test_chinese_is_the_default(client):
    assert 'lang="zh-CN"' in client.get("/login").text


# ---------------------------------------------------------------- the secret, passwords, figures

def test_the_secret_key_is_made_once_readable_by_its_owner_only(tmp_path):
    first = guard.secret_key(tmp_path, env={})
    assert guard.secret_key(tmp_path, env={}) == first and len(first) == 64
    assert stat.S_IMODE(os.stat(tmp_path / guard.SECRET_FILE).st_mode) == 0o600


def test_the_secret_key_comes_from_the_environment_when_set(tmp_path):
    assert guard.secret_key(tmp_path, env={guard.ENV_SECRET: "from-env"}) == b"from-env"
    assert not (tmp_path / guard.SECRET_FILE).exists()


def test_a_password_is_stored_as_salted_scrypt_with_its_parameters():
    first, second = reviewers.hash_password("correct horse 1"), reviewers.hash_password("correct horse 1")
    assert first != second and first.startswith(f"scrypt${reviewers.N}${reviewers.R}${reviewers.P}$")
    assert "correct horse" not in first


def test_a_password_is_checked_against_its_hash():
    stored = reviewers.hash_password("correct horse 1", n=2**10)
    assert reviewers.verify("correct horse 1", stored)
    assert not reviewers.verify("correct horse 2", stored)
    assert not reviewers.verify("correct horse 1", None) and not reviewers.verify("correct horse 1", "md5$x")


def test_the_precision_interval_is_wilsons():
    low, high = wilson(9, 10)
    assert (round(low, 3), round(high, 3)) == (0.596, 0.982)
    assert wilson(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------- reviewer add, reviewer list

@pytest.fixture
def sqlite_config(tmp_path):
    """The built-in configuration on a sample SQLite database of its own, migrated (SQL only)."""
    from dedup_pipeline.sql import migrate

    data = tomllib.loads(default_config_text())
    data["source"]["url"] = f"sqlite:///{tmp_path / 'sample.sqlite'}"
    data["store"] = {"kind": "memory", "data_dir": str(tmp_path / "data")}
    path = tmp_path / "dedup.toml"
    path.write_text(_toml(data), encoding="utf-8")
    config = parse_config(data, env={}, path=str(path))
    from dedup_pipeline.sql.source import SqlSource

    SqlSource(config).close()  # creates the sample database
    migrate.upgrade(config)
    return config


def _toml(data: dict) -> str:
    import json

    lines = []
    for section, values in data.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def test_reviewer_add_reads_the_password_from_stdin_and_stores_only_its_hash(sqlite_config):
    result = CliRunner().invoke(main, ["reviewer", "add", "--config", sqlite_config.path, "wang"],
                                input="correct horse 1\n")
    assert result.exit_code == 0, result.output
    from dedup_pipeline.sql.source import SqlSource

    with SqlSource(sqlite_config) as source:
        assert reviewers.authenticate(source, "wang", "correct horse 1")
        assert not reviewers.authenticate(source, "wang", "correct horse 2")


def test_reviewer_add_refuses_a_short_password(sqlite_config):
    result = CliRunner().invoke(main, ["reviewer", "add", "--config", sqlite_config.path, "wang"], input="short\n")
    assert result.exit_code != 0 and "at least" in result.output


def test_reviewer_add_refuses_a_name_taken_unless_replace(sqlite_config):
    add = ["reviewer", "add", "--config", sqlite_config.path, "wang"]
    CliRunner().invoke(main, add, input="correct horse 1\n")
    assert CliRunner().invoke(main, add, input="correct horse 2\n").exit_code == 1
    assert CliRunner().invoke(main, [*add, "--replace"], input="correct horse 2\n").exit_code == 0
    from dedup_pipeline.sql.source import SqlSource

    with SqlSource(sqlite_config) as source:
        assert reviewers.authenticate(source, "wang", "correct horse 2")


def test_reviewer_list_names_every_reviewer(sqlite_config):
    for name in ("wang", "li"):
        CliRunner().invoke(main, ["reviewer", "add", "--config", sqlite_config.path, name], input="correct horse 1\n")
    result = CliRunner().invoke(main, ["reviewer", "list", "--config", sqlite_config.path])
    assert [line.split("\t")[0] for line in result.output.splitlines()] == ["li", "wang"]
