"""The console's people (issue 50, findings 1, 2 and 9): sessions that end (a sign-out, a new
password, `reviewer remove`, `reviewer disable`, idling), failed logins limited per name and
per address without locking colleagues out (kept in the database: a new app over it holds the
limit), the access log of the rows shown, and phones masked except for reviewers who may see
them. HTTP-level over the stand-in desk (testing/console.py), and the SQL on a real MariaDB."""

import csv
import datetime as dt
import re
import tomllib

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.console import guard, privacy
from dedup_pipeline.console.app import SESSION_HOURS, Settings, create_app
from dedup_pipeline.sql import access, migrate, reviewers
from dedup_pipeline.sql.source import SqlSource

PASSWORD = "correct horse 1"
COOKIE = "dedup_console"


def login_token(client) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").text).group(1)


def sign_in(client, name="wang", password=PASSWORD, address="10.0.0.1"):
    return client.post("/login", data={"name": name, "password": password, "csrf_token": login_token(client)},
                       environ_base={"REMOTE_ADDR": address})


def signed_in_as(app, name="wang", address="10.0.0.1"):
    """A new client signed in as `name`, its CSRF token as `.csrf`."""
    client = app.test_client()
    assert sign_in(client, name, address=address).status_code == 303
    with client.session_transaction() as session:
        client.csrf = session["csrf"]
    return client


def copy_of(app, client):
    """Another client carrying a copy of `client`'s session cookie."""
    other = app.test_client()
    other.set_cookie(COOKIE, client.get_cookie(COOKIE).value)
    return other


def holds(client) -> bool:
    """Whether the client's session still answers the API (else 401)."""
    status = client.get("/api/counts").status_code
    assert status in (200, 401)
    return status == 200


# ---------------------------------------------------------------- sessions that end

def test_after_logout_a_copy_of_the_old_cookie_gets_401_on_the_api(signed_in, console_app):
    copy = copy_of(console_app, signed_in)
    assert holds(copy)
    assert signed_in.post("/logout", data={"csrf_token": signed_in.csrf}).status_code == 303
    assert copy.get("/api/counts").status_code == 401


def test_logout_ends_the_reviewers_sessions_on_other_computers(console_app):
    office, home = signed_in_as(console_app), signed_in_as(console_app, address="10.0.0.2")
    office.post("/logout", data={"csrf_token": office.csrf})
    assert not holds(home)


def test_logout_leaves_other_reviewers_signed_in(console_app, console_desk):
    console_desk.add("li", PASSWORD)
    wang, li = signed_in_as(console_app), signed_in_as(console_app, "li")
    wang.post("/logout", data={"csrf_token": wang.csrf})
    assert holds(li)


def test_a_new_password_ends_every_session_of_the_reviewer(signed_in, console_desk):
    console_desk.add("wang", "correct horse 2")  # as `reviewer add --replace wang`
    assert not holds(signed_in)


def test_removing_a_reviewer_ends_their_sessions(signed_in, console_desk):
    console_desk.remove("wang")
    assert not holds(signed_in)
    assert signed_in.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "none",
                                           "csrf_token": signed_in.csrf}).status_code == 401
    assert console_desk.decided == []


def test_disabling_a_reviewer_ends_their_sessions_and_refuses_their_sign_in(signed_in, client, console_desk):
    console_desk.disable("wang")
    assert not holds(signed_in)
    assert sign_in(client).status_code == 401


def test_an_enabled_reviewer_signs_in_again_but_old_sessions_stay_ended(signed_in, client, console_desk):
    console_desk.disable("wang")
    console_desk.enable("wang")
    assert not holds(signed_in)
    assert sign_in(client).status_code == 303 and holds(client)


def test_a_session_unused_for_idle_minutes_ends(signed_in, console_app, console_desk):
    console_app.clock[0] += console_desk.config.console.idle_minutes * 60 + 1
    assert not holds(signed_in)
    assert signed_in.get("/").status_code == 302


def test_a_session_used_within_idle_minutes_each_time_holds(signed_in, console_app, console_desk):
    for _ in range(4):
        console_app.clock[0] += console_desk.config.console.idle_minutes * 60 - 1
        assert signed_in.get("/").status_code == 200


def test_the_live_counts_refreshing_do_not_keep_a_session_alive(signed_in, console_app, console_desk):
    idle = console_desk.config.console.idle_minutes * 60
    for _ in range(3):
        console_app.clock[0] += idle / 3
        signed_in.get("/api/counts")
    console_app.clock[0] += 1
    assert not holds(signed_in)


def test_a_session_ends_eight_hours_after_sign_in_however_used(signed_in, console_app, console_desk):
    step = console_desk.config.console.idle_minutes * 60 - 1
    while console_app.clock[0] + step < SESSION_HOURS * 3600:
        console_app.clock[0] += step
        assert signed_in.get("/").status_code == 200
    console_app.clock[0] = SESSION_HOURS * 3600
    assert not holds(signed_in)


def test_an_idle_minutes_setting_of_the_configuration_is_obeyed(console_desk):
    from dataclasses import replace

    console_desk.config = replace(console_desk.config, console=replace(console_desk.config.console, idle_minutes=5))
    clock = [0.0]
    app = create_app(console_desk, Settings(secret=b"test-secret"), guard.LoginLimit(clock=lambda: clock[0]))
    reviewer = signed_in_as(app)
    clock[0] += 5 * 60 + 1
    assert not holds(reviewer)


# ---------------------------------------------------------------- failed logins

def test_five_failures_for_li_do_not_stop_wang_at_the_same_address(client, console_desk):
    console_desk.add("li", PASSWORD)
    for _ in range(guard.LIMIT + 1):
        sign_in(client, "li", "wrong horse 1")
    assert sign_in(client, "li").status_code == 429
    assert sign_in(client, "wang").status_code == 303


def test_a_name_that_failed_five_times_cools_down_for_a_minute(client, console_app):
    for _ in range(guard.LIMIT):
        assert sign_in(client, password="wrong horse 1").status_code == 401
    console_app.clock[0] += guard.COOL_DOWN - 1
    assert sign_in(client).status_code == 429
    console_app.clock[0] += 1
    assert sign_in(client).status_code == 303


def test_each_further_failure_doubles_the_cool_down_up_to_its_longest(client, console_app):
    for _ in range(guard.LIMIT):
        sign_in(client, password="wrong horse 1")
    waits = []
    for _ in range(6):
        console_app.clock[0] += guard.COOL_DOWN_MAX
        assert sign_in(client, password="wrong horse 1").status_code == 401
        waits.append(int(sign_in(client).headers["Retry-After"]))
    assert waits == [120, 240, 480, 900, 900, 900]


def test_the_429_page_says_in_chinese_how_long_to_wait(client, console_app):
    for _ in range(guard.LIMIT + 1):
        sign_in(client, password="wrong horse 1")
    console_app.clock[0] += guard.COOL_DOWN
    sign_in(client, password="wrong horse 1")  # the sixth failure: two minutes
    answer = sign_in(client)
    assert answer.status_code == 429 and "登录失败次数过多，请 2 分钟后再试。" in answer.text
    assert answer.headers["Retry-After"] == "120"


def test_attempts_during_a_cool_down_are_refused_unchecked_and_do_not_lengthen_it(client, console_app,
                                                                                  console_desk):
    for _ in range(guard.LIMIT + 3):
        sign_in(client, password="wrong horse 1")
    assert len(console_desk.login_failures("name", "wang", 0)) == guard.LIMIT
    assert sign_in(client).headers["Retry-After"] == str(guard.COOL_DOWN)


def test_a_success_forgets_the_names_failures(client, console_app):
    for _ in range(guard.LIMIT - 1):
        sign_in(client, password="wrong horse 1")
    assert sign_in(client).status_code == 303
    client.post("/logout", data={"csrf_token": _csrf(client)})
    for _ in range(guard.LIMIT - 1):
        sign_in(client, password="wrong horse 1")
    assert sign_in(client).status_code == 303


def _csrf(client) -> str:
    with client.session_transaction() as session:
        return session["csrf"]


def test_many_failures_from_one_address_slow_it_only_past_the_address_limit(client, console_desk):
    for n in range(guard.ADDRESS_LIMIT):
        console_desk.passwords[f"guess{n}"] = reviewers.hash_password(PASSWORD, n=2**4)
    for n in range(guard.ADDRESS_LIMIT - 1):
        assert sign_in(client, f"guess{n}", "wrong horse 1").status_code == 401
    assert sign_in(client).status_code == 303  # 49 failures: a colleague still gets in
    assert sign_in(client, f"guess{guard.ADDRESS_LIMIT - 1}", "wrong horse 1").status_code == 401
    assert sign_in(client).status_code == 429
    assert sign_in(client, address="10.0.0.2").status_code == 303


def test_an_address_past_its_limit_waits_until_its_oldest_failure_leaves_the_window(client, console_app,
                                                                                    console_desk):
    for n in range(guard.ADDRESS_LIMIT):
        console_desk.passwords[f"guess{n}"] = reviewers.hash_password(PASSWORD, n=2**4)
        sign_in(client, f"guess{n}", "wrong horse 1")
    assert int(sign_in(client).headers["Retry-After"]) == guard.WINDOW
    console_app.clock[0] += guard.WINDOW
    assert sign_in(client).status_code == 303


def test_the_limit_holds_in_a_new_app_over_the_same_desk(client, console_app, console_desk):
    for _ in range(guard.LIMIT):
        sign_in(client, password="wrong horse 1")
    again = create_app(console_desk, Settings(secret=b"test-secret"), guard.LoginLimit(clock=lambda: 0.0))
    assert sign_in(again.test_client()).status_code == 429


# ---------------------------------------------------------------- the access log

def test_a_pair_page_writes_an_access_row_for_each_row_shown(signed_in, console_desk):
    assert signed_in.get("/pair?a=1&b=2", environ_base={"REMOTE_ADDR": "10.0.0.7"}).status_code == 200
    assert sorted((r, a, p, i) for r, a, p, i in console_desk.accessed if p == "pair") == [
        ("wang", "10.0.0.7", "pair", 1), ("wang", "10.0.0.7", "pair", 2)]


def test_a_group_page_writes_an_access_row_for_each_of_its_rows(signed_in, console_desk):
    assert signed_in.get("/group?row=4&row=5&row=6").status_code == 200
    assert sorted(i for _, _, page, i in console_desk.accessed if page == "group") == [4, 5, 6]


def test_a_refused_page_writes_no_access_row(client, signed_in, console_desk):
    client.get("/pair?a=1&b=2")  # no session
    signed_in.get("/pair?a=1&b=999")  # no such row
    assert [a for a in console_desk.accessed if a[2] == "pair"] == []


def test_a_page_whose_viewing_cannot_be_logged_is_not_sent(signed_in, console_desk, monkeypatch):
    from dedup_pipeline.sql.source import SourceError

    def broken(*args):
        raise SourceError("the database went away")

    monkeypatch.setattr(console_desk, "log_access", broken)
    answer = signed_in.get("/pair?a=1&b=2")
    assert answer.status_code == 503 and console_desk.table[1]["content"] not in answer.text


# ---------------------------------------------------------------- phones masked

def test_a_reviewer_without_the_role_sees_phones_masked(signed_in):
    page = signed_in.get("/pair?a=1&b=2").text
    assert "138****0000" in page and "13800000000" not in page


def test_a_reviewer_who_sees_phones_sees_them_whole(console_app, console_desk):
    console_desk.add("li", PASSWORD, sees_phones=True)
    page = signed_in_as(console_app, "li").get("/pair?a=1&b=2").text
    assert "13800000000" in page and "138****0000" not in page


def test_the_group_page_masks_phones_too(signed_in):
    page = signed_in.get("/group?row=4&row=5&row=6").text
    assert "138****0000" in page and "13800000000" not in page


def field_row(page: str, label: str) -> str:
    """The pair page's table row of the field labelled `label`."""
    return re.search(rf'<tr[^>]*><th>{label}.*?</tr>', page, re.DOTALL).group(0)


def test_two_phones_masked_alike_are_not_shown_as_agreeing(signed_in, console_desk):
    console_desk.table[1]["phone"], console_desk.table[2]["phone"] = "13812340000", "13856780000"
    row = field_row(signed_in.get("/pair?a=1&b=2").text, "电话")
    assert row.count("138****0000") == 2 and 'class="agree"' not in row and "一致" not in row


def test_phones_that_agree_are_shown_agreeing_and_masked(signed_in):
    row = field_row(signed_in.get("/pair?a=1&b=2").text, "电话")
    assert 'class="agree"' in row and row.count("138****0000") == 2 and "13800000000" not in row


def test_the_group_page_marks_agreement_from_the_whole_phones(signed_in, console_desk):
    console_desk.table[5]["phone"], console_desk.table[6]["phone"] = "13812340000", "13800000000"
    page = signed_in.get("/group?row=4&row=5&row=6").text
    phones = re.findall(r'<td class="short( agree)?" data-label="电话">([^<]*)</td>', page)
    assert phones == [("", "138****0000"), ("", "138****0000"), (" agree", "138****0000")]


def test_a_phone_is_masked_keeping_its_first_three_and_last_four_characters():
    assert privacy.mask("13812345678") == "138****5678"
    assert privacy.mask("010-62345678") == "010****5678"
    assert privacy.mask(13812345678) == "138****5678"
    assert privacy.mask("62345678") == "****5678"
    assert privacy.mask("12345") == "****"
    assert privacy.mask(None) is None and privacy.mask("") == ""


def test_the_default_masks_the_columns_that_look_like_phones(console_app):
    row = {"id": 1, "phone": "13812345678", "联系电话": "13812345678", "Mobile_No": "13812345678",
           "tel": "13812345678", "title": "13812345678", "hotel": "13812345678"}
    with console_app.test_request_context():
        shown = privacy.shown([row], "pair")[0]
    assert {k for k, v in shown.items() if v == "138****5678"} == {"phone", "联系电话", "Mobile_No", "tel"}
    assert row["phone"] == "13812345678"  # the desk's row is left as it was


def test_masked_columns_names_the_columns_masked(console_app, console_desk):
    from dataclasses import replace

    console = replace(console_desk.config.console, masked_columns=("name",))
    console_desk.config = replace(console_desk.config, console=console)
    with console_app.test_request_context():
        shown = privacy.shown([console_desk.table[1]], "pair")[0]
    assert shown["phone"] == "13800000000" and shown["name"] == "****"


def test_masked_columns_may_be_set_in_the_configuration():
    data = tomllib.loads(default_config_text())
    data["console"] = {"masked_columns": ["phone", "address"], "idle_minutes": 10}
    config = parse_config(data, env={})
    assert config.console.masked_columns == ("phone", "address") and config.console.idle_minutes == 10.0


# ---------------------------------------------------------------- on a real MariaDB

@pytest.fixture
def petition(mysql_url, tmp_path):
    """The configuration of a migrated MariaDB database holding a `petition` table with phones,
    written to a file too (`.path`)."""
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INT PRIMARY KEY, title VARCHAR(100), phone VARCHAR(20), "
                             "content TEXT) CHARACTER SET utf8mb4"))
        conn.execute(sa.text("INSERT INTO petition VALUES (1, '噪音', '13800000000', '广场舞太吵'), "
                             "(2, '噪音', '13800000001', '广场舞太吵了')"))
    engine.dispose()
    path = tmp_path / "dedup.toml"
    path.write_text(f'[source]\nurl = "{mysql_url}"\ntable = "petition"\n\n[fields]\ntitle = "short"\n'
                    f'phone = "short"\ncontent = "long"\n\n[store]\nkind = "memory"\n'
                    f'data_dir = "{tmp_path / "data"}"\n', encoding="utf-8")
    from dedup_pipeline.config import load_config

    config = load_config(path, env={})
    migrate.upgrade(config)
    return config


def cli(config, *args, password=None):
    result = CliRunner().invoke(main, [*args, "--config", config.path], input=password and password + "\n")
    assert result.exit_code == 0, result.output
    return result


def test_a_sign_out_changes_the_stamp_a_session_must_carry(petition):
    with SqlSource(petition) as source:
        reviewers.add(source, "wang", PASSWORD)
        stamp = reviewers.sign_in(source, "wang", PASSWORD)
        assert reviewers.current_stamp(source, "wang") == stamp
        reviewers.sign_out(source, "wang")
        assert reviewers.current_stamp(source, "wang") not in (None, stamp)


def test_reviewer_add_replace_changes_the_stamp(petition):
    cli(petition, "reviewer", "add", "wang", password=PASSWORD)
    with SqlSource(petition) as source:
        stamp = reviewers.sign_in(source, "wang", PASSWORD)
    cli(petition, "reviewer", "add", "wang", "--replace", password=PASSWORD)
    with SqlSource(petition) as source:
        assert reviewers.current_stamp(source, "wang") != stamp
        assert reviewers.sign_in(source, "wang", PASSWORD) == reviewers.current_stamp(source, "wang")


def test_reviewer_disable_ends_sessions_and_sign_in_and_enable_lets_them_back(petition):
    cli(petition, "reviewer", "add", "wang", password=PASSWORD)
    with SqlSource(petition) as source:
        before = reviewers.sign_in(source, "wang", PASSWORD)
    cli(petition, "reviewer", "disable", "wang")
    with SqlSource(petition) as source:
        assert reviewers.current(source, "wang") is None and reviewers.sign_in(source, "wang", PASSWORD) is None
    cli(petition, "reviewer", "enable", "wang")
    with SqlSource(petition) as source:
        after = reviewers.sign_in(source, "wang", PASSWORD)
        assert after is not None and after != before


def test_reviewer_disable_of_nobody_says_so(petition):
    result = CliRunner().invoke(main, ["reviewer", "disable", "nobody", "--config", petition.path])
    assert result.exit_code != 0 and "no reviewer 'nobody'" in result.output


def test_reviewer_remove_ends_sessions(petition):
    cli(petition, "reviewer", "add", "wang", password=PASSWORD)
    cli(petition, "reviewer", "remove", "wang")
    with SqlSource(petition) as source:
        assert reviewers.current(source, "wang") is None


def test_reviewer_list_shows_who_sees_phones_and_who_is_disabled(petition):
    cli(petition, "reviewer", "add", "li", "--sees-phones", password=PASSWORD)
    cli(petition, "reviewer", "add", "wang", password=PASSWORD)
    cli(petition, "reviewer", "disable", "wang")
    lines = [line.split("\t") for line in cli(petition, "reviewer", "list").output.splitlines()]
    assert [(cells[0], cells[2:]) for cells in lines] == [("li", ["sees phones"]), ("wang", ["disabled"])]
    with SqlSource(petition) as source:
        assert reviewers.current(source, "li").sees_phones and not reviewers.every(source)[1].sees_phones


def test_failed_sign_ins_are_kept_per_name_and_address_and_forgotten_by_name(petition):
    with SqlSource(petition) as source:
        access.failed(source, [("name", "li"), ("address", "10.0.0.1")], at=1000.0)
        access.failed(source, [("name", "li"), ("address", "10.0.0.1")], at=1001.5)
        assert access.failures(source, "name", "li", since=0) == [1000.0, 1001.5]
        assert access.failures(source, "name", "li", since=1001.0) == [1001.5]
        access.forget(source, "name", "li")
        assert access.failures(source, "name", "li", since=0) == []
        assert len(access.failures(source, "address", "10.0.0.1", since=0)) == 2


def test_failed_sign_ins_older_than_a_day_are_deleted(petition):
    with SqlSource(petition) as source:
        access.failed(source, [("name", "li")], at=1000.0)
        access.failed(source, [("name", "wang")], at=1000.0 + access.KEPT_SECONDS + 1)
        with source.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT subject FROM dedup_login_failure")).scalars().all() == ["wang"]


def test_the_login_limit_survives_a_new_app_over_the_same_database(petition):
    from dedup_pipeline.console.desk import Desk

    cli(petition, "reviewer", "add", "li", password=PASSWORD)
    first = create_app(Desk(petition), Settings(secret=b"test-secret")).test_client()
    for _ in range(guard.LIMIT):
        assert sign_in(first, "li", "wrong horse 1").status_code == 401
    restarted = create_app(Desk(petition), Settings(secret=b"test-secret")).test_client()
    assert sign_in(restarted, "li").status_code == 429
    assert sign_in(restarted, "wang", "wrong horse 1").status_code == 401  # another name: no cool-down


def test_the_access_log_keeps_who_saw_which_rows_from_where(petition):
    with SqlSource(petition) as source:
        access.log(source, "wang", "10.0.0.7", [("pair", 1), ("pair", 2)])
        found = access.read(source)
    assert [(a.reviewer, a.page, a.row_id, a.address, a.source_table) for a in found] == [
        ("wang", "pair", 1, "10.0.0.7", "petition"), ("wang", "pair", 2, "10.0.0.7", "petition")]
    assert all(isinstance(a.viewed_at, dt.datetime) for a in found)


def test_a_real_desk_writes_the_access_log_of_a_page(petition):
    from dedup_pipeline.console.desk import Desk

    desk = Desk(petition)
    desk.log_access("wang", "10.0.0.7", [("pair", 1), ("pair", 2)])
    desk.log_access("li", None, [("group", 2)])
    with SqlSource(petition) as source:
        assert [(a.reviewer, a.row_id, a.address) for a in access.read(source)] == [
            ("wang", 1, "10.0.0.7"), ("wang", 2, "10.0.0.7"), ("li", 2, None)]


def test_access_log_exports_csv_from_a_date_on(petition, tmp_path):
    with SqlSource(petition) as source:
        access.log(source, "wang", "10.0.0.7", [("pair", 1)])
        with source.engine.begin() as conn:
            conn.execute(sa.text("UPDATE dedup_access SET viewed_at = '2024-01-02 03:04:05'"))
        access.log(source, "li", "10.0.0.8", [("search", 2)])
    out = tmp_path / "access.csv"
    cli(petition, "access-log", "--out", str(out))
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["reviewer"], r["page"], r["row_id"], r["address"]) for r in rows] == [
        ("wang", "pair", "1", "10.0.0.7"), ("li", "search", "2", "10.0.0.8")]
    assert rows[0]["viewed_at"].startswith("2024-01-02 03:04:05")
    cli(petition, "access-log", "--out", str(out), "--since", "2025-01-01")
    assert [r["reviewer"] for r in csv.DictReader(out.open(encoding="utf-8"))] == ["li"]


def test_the_access_log_is_read_through_the_library(petition):
    from dedup_pipeline import commands

    with SqlSource(petition) as source:
        access.log(source, "wang", "10.0.0.7", [("pair", 1)])
    assert [a.reviewer for a in commands.access_log(petition, since=dt.date(2000, 1, 1))] == ["wang"]
    assert commands.access_log(petition, since="2999-01-01") == []


def test_a_decision_sent_after_the_session_ended_gets_the_login_form_saying_it_was_not_recorded(client, console_desk):
    answer = client.post("/decide", data={"kind": "pair", "a": "1", "b": "2", "verdict": "same", "seen": "none"})
    assert answer.status_code == 401 and console_desk.decided == []
    assert "没有记录" in answer.text and 'id="login-form"' in answer.text
    assert 'name="next" value="/pair?a=1&amp;b=2"' in answer.text
