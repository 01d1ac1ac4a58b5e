"""Matters (热点事项) in the review console (console/matters.py), to read: `/matters` lists the
table's matters, the largest first, a page at a time; `/matters/<id>` shows one matter's rows
together in day order, masked for a reviewer without the phone role and noted in the access
log. Over the real desk on a labelled hotline table in SQLite whose batch found its matters
(testing/hotline.py), and the stand-in desk (testing/console.py) for the header of a console
that keeps no matters."""

import re
import shutil
import sqlite3
import tomllib

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.console.app import Settings, create_app
from dedup_pipeline.console.desk import Desk
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.sql import access, reviewers
from dedup_pipeline.sql import matters as stored
from dedup_pipeline.sql.source import SqlSource
from testing import hotline
from testing.console import INJECTED
from testing.labelled import write_sqlite

PASSWORD = "correct horse 1"


def configured(path, folder, find=True):
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": f"sqlite:///{path}", "table": "petition"}
    data["store"] = {"kind": "memory", "data_dir": str(folder)}
    data["matters"] = {"find": find}
    return parse_config(data, env={})


@pytest.fixture(scope="module")
def batched(tmp_path_factory):
    """A 300-row hotline table in SQLite, migrated and batched with the matters stage on,
    with the reviewers wang and li (li sees phones): the file, its rows by id."""
    folder = tmp_path_factory.mktemp("matters")
    table = hotline.make(300, seed=3)
    path = write_sqlite(table.rows, folder / "petition.sqlite")
    config = configured(path, folder / "data")
    commands.migrate(config)
    with Pipeline(config) as pipe:
        commands.batch(pipe)
    with SqlSource(config) as source:
        reviewers.add(source, "wang", PASSWORD)
        reviewers.add(source, "li", PASSWORD, sees_phones=True)
    return path, {r["id"]: r for r in table.rows}


@pytest.fixture
def project(batched, tmp_path):
    """A copy of the batched table of this test's own: its configuration."""
    path = shutil.copy(batched[0], tmp_path / "petition.sqlite")
    return configured(path, tmp_path / "data")


@pytest.fixture
def app(project):
    desk = Desk(project)
    app = create_app(desk, Settings(secret=b"test-secret"))
    app.testing = True
    yield app
    desk.close()


def signed_in(app, name="wang"):
    client = app.test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"name": name, "password": PASSWORD, "csrf_token": token}).status_code == 303
    return client


def the_matters(config):
    with SqlSource(config) as source:
        return stored.matters(source)


def listed(page):
    """The ids of the matters a list page shows, in order."""
    return re.findall(r'<tr class="matter" data-matter="([^"]+)"', page)


def rows_shown(page):
    return re.findall(r'<tr class="matter-row" data-row="([^"]+)"', page)


def row_html(page, row):
    """The table row of a matter's page listing the row `row`."""
    return re.search(rf'<tr class="matter-row" data-row="{row}">.*?</tr>', page, re.DOTALL).group(0)


def cell(page, row, kind):
    """The text of the cell of class `kind` of the row `row`, None when it has none."""
    found = re.search(rf'<td class="{kind}">(.*?)</td>', row_html(page, row), re.DOTALL)
    return found.group(1) if found else None


def accessed(config):
    with SqlSource(config) as source:
        return [(a.reviewer, a.page, a.row_id) for a in access.read(source)]


# ---------------------------------------------------------------- without a session

@pytest.mark.parametrize("path", ["/matters", "/matters/13", "/matters/999999"])
def test_the_matters_pages_redirect_a_visitor_without_a_session_to_login_and_show_nothing(app, project, path):
    answer = app.test_client().get(path)
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")
    assert "data-matter" not in answer.text and "data-row" not in answer.text
    assert accessed(project) == []


# ---------------------------------------------------------------- the list

def test_the_list_shows_the_matters_largest_first_as_the_library_orders_them(app, project):
    expected = the_matters(project)
    assert len(expected) >= 10
    page = signed_in(app).get("/matters").text
    assert listed(page) == [str(m.matter) for m in expected][:50]
    people = [int(p) for p in re.findall(r'class="num people">(\d+) 人', page)]
    assert people == sorted(people, reverse=True) and people[0] == expected[0].people


def test_the_list_shows_the_object_and_problem_readably_with_people_rows_and_days(app, project):
    biggest = the_matters(project)[0]
    page = signed_in(app).get("/matters").text
    row = re.search(rf'data-matter="{biggest.matter}">.*?</tr>', page, re.DOTALL).group(0)
    assert "雁塔北路" in row and "路段" in row and "路灯" in row  # stretch:雁塔北路:…, streetlight
    assert "stretch:" not in row and "streetlight" not in row
    assert f"{len(biggest.rows)} 行" in row and f"{biggest.first} – {biggest.last}" in row
    assert f'href="/matters/{biggest.matter}"' in row


def test_the_list_is_paged_fifty_a_page(app, project, monkeypatch):
    desk = app.extensions["dedup"].desk
    many = the_matters(project) * 3
    monkeypatch.setattr(desk, "matters", lambda: many)
    client = signed_in(app)
    assert len(listed(client.get("/matters").text)) == 50
    second = client.get("/matters?page=2").text
    assert listed(second) == [str(m.matter) for m in many[50:100]]
    assert '<a href="/matters?page=1" rel="prev">' in second


def test_the_header_links_to_the_matters_when_the_table_has_them(app):
    page = signed_in(app).get("/").text
    assert 'class="matters-link">热点事项</a>' in page


def test_without_the_stage_the_header_has_no_link_and_the_page_says_how_to_turn_it_on(tmp_path):
    path = write_sqlite(hotline.make(40, seed=3).rows, tmp_path / "petition.sqlite")
    config = configured(path, tmp_path / "data", find=False)
    commands.migrate(config)
    with SqlSource(config) as source:
        reviewers.add(source, "wang", PASSWORD)
    desk = Desk(config)
    try:
        client = signed_in(create_app(desk, Settings(secret=b"test-secret")))
        assert "matters-link" not in client.get("/").text
        page = client.get("/matters").text
        assert 'id="matters-off"' in page and "[matters] find = true" in page and "migrate" in page
    finally:
        desk.close()


def test_a_console_whose_desk_keeps_no_matters_shows_every_page_without_the_link(signed_in):
    page = signed_in.get("/")
    assert page.status_code == 200 and "matters-link" not in page.text


# ---------------------------------------------------------------- a matter

def test_a_matters_page_shows_all_its_rows_in_day_order(app, project, batched):
    _, table = batched
    matter = the_matters(project)[2]
    page = signed_in(app).get(f"/matters/{matter.matter}").text
    shown = [int(r) for r in rows_shown(page)]
    assert shown == matter.rows
    days = [table[r]["created_at"][:10] for r in shown]
    assert days == sorted(days)
    first = table[shown[0]]
    assert cell(page, shown[0], "title") == first["title"] and first["name"] in cell(page, shown[0], "who")
    assert first["content"][:40] in cell(page, shown[0], "text")


def test_each_row_of_a_matter_links_to_its_search_result(app, project):
    matter = the_matters(project)[2]
    page = signed_in(app).get(f"/matters/{matter.matter}").text
    assert f'<a href="/search?q={matter.rows[0]}">#{matter.rows[0]}</a>' in page


def test_a_row_the_batch_found_a_duplicate_of_links_to_their_pair(app, project, monkeypatch):
    from dedup_pipeline.commands import Found

    matter = the_matters(project)[2]
    a, b = matter.rows[:2]
    desk = app.extensions["dedup"].desk
    monkeypatch.setattr(desk, "found", lambda: Found("run-1", [(a, b, 0.1)], [([a, b], 0.1)], set()))
    page = signed_in(app).get(f"/matters/{matter.matter}").text
    assert f'href="/pair?a={a}&amp;b={b}" class="badge dup"' in page


def test_a_long_matter_is_paged(app, project):
    biggest = the_matters(project)[0]
    assert len(biggest.rows) > 50
    client = signed_in(app)
    assert rows_shown(client.get(f"/matters/{biggest.matter}").text) == [str(r) for r in biggest.rows[:50]]
    second = client.get(f"/matters/{biggest.matter}?page=2").text
    assert rows_shown(second) == [str(r) for r in biggest.rows[50:]]
    assert f'href="/matters/{biggest.matter}?page=1"' in second


def test_phones_are_masked_for_a_reviewer_without_the_phone_role(app, project, batched):
    _, table = batched
    matter = the_matters(project)[2]
    row = matter.rows[0]
    phone = table[row]["phone"]
    masked = signed_in(app, "wang").get(f"/matters/{matter.matter}").text
    assert phone not in masked and f"{phone[:3]}****{phone[-4:]}" in cell(masked, row, "who")
    seen = signed_in(app, "li").get(f"/matters/{matter.matter}").text
    assert phone in cell(seen, row, "who")


def test_every_row_a_matters_page_shows_is_in_the_access_log(app, project):
    matter = the_matters(project)[2]
    signed_in(app).get(f"/matters/{matter.matter}")
    assert accessed(project) == [("wang", "matter", r) for r in matter.rows]


def test_a_row_deleted_since_the_batch_is_listed_by_its_id_alone_and_not_logged(app, project):
    matter = the_matters(project)[2]
    gone = matter.rows[1]
    with sqlite3.connect(project.source.url.removeprefix("sqlite:///")) as conn:
        conn.execute("DELETE FROM petition WHERE id = ?", (gone,))
    page = signed_in(app).get(f"/matters/{matter.matter}").text
    assert rows_shown(page) == [str(r) for r in matter.rows] and "已不在表中" in page
    assert "已不在表中" in row_html(page, gone) and cell(page, gone, "who") is None
    assert accessed(project) == [("wang", "matter", r) for r in matter.rows if r != gone]


def test_the_list_shows_no_row_and_logs_none(app, project):
    signed_in(app).get("/matters")
    assert accessed(project) == []


def test_an_unknown_matter_is_a_404_in_chinese(app, project):
    client = signed_in(app)
    not_in_one = next(r for r in range(1, 301) if r not in {x for m in the_matters(project) for x in m.rows})
    for path in ("/matters/999999", f"/matters/{not_in_one}", "/matters/abc", "/matters/" + "9" * 80):
        answer = client.get(path)
        assert answer.status_code == 404 and "没有编号为" in answer.text and "热点事项" in answer.text
    assert accessed(project) == []


def test_a_row_of_a_matter_that_is_not_its_first_is_no_matter_id(app, project):
    matter = the_matters(project)[2]
    assert signed_in(app).get(f"/matters/{matter.rows[1]}").status_code == 404


# ---------------------------------------------------------------- hostile text

def test_hostile_text_in_the_rows_and_the_object_is_escaped(app, project):
    matter = the_matters(project)[2]
    row = matter.rows[0]
    path = project.source.url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE petition SET title = ?, name = ?, content = ? WHERE id = ?",
                     (INJECTED[0], INJECTED[4], INJECTED[1] + INJECTED[2], row))
        conn.execute("UPDATE dedup_matter SET object = ?, problem = ? WHERE matter_id = ?",
                     ("compound:" + INJECTED[0], INJECTED[1], matter.matter))
    client = signed_in(app)
    for page in (client.get(f"/matters/{matter.matter}").text, client.get("/matters").text):
        assert "<script>alert(1)</script>" not in page and "<svg onload" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "{{7*7}}" in client.get(f"/matters/{matter.matter}").text  # not evaluated


def test_the_pages_speak_english_when_asked(app, project):
    biggest = the_matters(project)[0]
    client = signed_in(app)
    page = client.get("/matters?lang=en").text
    assert 'class="matters-link">Matters</a>' in page and "Stretch of road" in page and "street lights" in page
    assert f"{biggest.people} people" in page
    assert "There is no matter with id 999999." in client.get("/matters/999999").text


def test_a_matter_whose_first_row_went_says_its_old_id_and_the_old_id_says_where_it_went(app, project):
    from dedup_pipeline.jobs import matters

    biggest = the_matters(project)[0]
    old = biggest.matter
    with sqlite3.connect(project.source.url.removeprefix("sqlite:///")) as db:
        db.execute("DELETE FROM petition WHERE id = ?", (old,))
    with Pipeline(project) as pipe, pipe.source.engine.begin() as conn:
        matters.follow(conn, matters.tables_of(project, conn), project, {}, [old])
    new = next(m.matter for m in the_matters(project) if set(m.rows) <= set(biggest.rows))
    client = signed_in(app)
    page = client.get(f"/matters/{new}")
    assert page.status_code == 200 and f"原为事项 #{old}" in page.text
    gone = client.get(f"/matters/{old}")
    assert gone.status_code == 404 and f"热点事项 {old} 已改编号为事项 {new}" in gone.text
    assert f'href="/matters/{new}"' in gone.text


# ---------------------------------------------------------------- reviewers' decisions

def csrf_of(page):
    return re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)


def test_a_row_taken_out_from_a_matters_page_is_in_no_matter_and_the_page_says_who_did_it(app, project):
    matter = the_matters(project)[0]
    client = signed_in(app)
    page = client.get(f"/matters/{matter.matter}")
    row = matter.rows[-1]
    sent = client.post(f"/matters/{matter.matter}/decide", data={"verdict": "apart", "row": str(row),
                                                                "csrf_token": csrf_of(page)})
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/matters/{matter.matter}")
    assert row not in {r for m in the_matters(project) for r in m.rows}
    again = client.get(f"/matters/{matter.matter}")
    assert f"wang 将 #{row} 移出" in again.text and "放回" in again.text


def test_two_matters_put_together_from_a_page_are_one_and_it_opens(app, project):
    first, second = the_matters(project)[:2]
    client = signed_in(app)
    page = client.get(f"/matters/{first.matter}")
    sent = client.post(f"/matters/{first.matter}/decide", data={"verdict": "together", "row": str(first.matter),
                                                               "other": str(second.matter), "csrf_token": csrf_of(page)})
    low, high = sorted((first.matter, second.matter))
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/matters/{low}")
    assert len({m.matter for m in the_matters(project) if set(m.rows) & {*first.rows, *second.rows}}) == 1
    assert f"事项 #{high} 并入本事项" in client.get(f"/matters/{low}").text


def test_a_matter_decision_without_the_csrf_token_is_refused_and_changes_nothing(app, project):
    matter = the_matters(project)[0]
    client = signed_in(app)
    sent = client.post(f"/matters/{matter.matter}/decide", data={"verdict": "apart", "row": str(matter.rows[-1])})
    assert sent.status_code == 403 and the_matters(project)[0] == matter


def test_a_matter_decision_the_rows_do_not_allow_is_refused_in_words(app, project):
    matter = the_matters(project)[0]
    client = signed_in(app)
    page = client.get(f"/matters/{matter.matter}")
    sent = client.post(f"/matters/{matter.matter}/decide", data={"verdict": "back", "row": str(matter.rows[-1]),
                                                                "csrf_token": csrf_of(page)})
    assert sent.status_code == 400 and "nothing to put back" in sent.text


def test_a_matter_decision_form_without_its_verdict_is_refused_and_changes_nothing(app, project):
    matter = the_matters(project)[0]
    client = signed_in(app)
    page = client.get(f"/matters/{matter.matter}")
    sent = client.post(f"/matters/{matter.matter}/decide", data={"row": str(matter.rows[-1]), "csrf_token": csrf_of(page)})
    assert sent.status_code == 400 and "malformed" in sent.text and the_matters(project)[0] == matter


def test_matters_separated_again_leave_no_undo_on_their_page(app, project):
    first, second = the_matters(project)[:2]
    client = signed_in(app)
    low, high = sorted((first.matter, second.matter))
    for verdict, row, other in (("together", low, high), ("separate", high, low)):
        page = client.get(f"/matters/{low}")
        sent = client.post(f"/matters/{low}/decide", data={"verdict": verdict, "row": str(row), "other": str(other),
                                                          "csrf_token": csrf_of(page)})
        assert sent.status_code == 303
    page = client.get(f"/matters/{low}").text
    assert "取消与" in page and 'value="separate"' not in page and 'value="back"' not in page
