"""The review console in a real browser: Debian's headless Chromium, driven over the DevTools
protocol (testing/browser.py), against the real `dedup-pipeline serve` process on a free
port, over the bundled sample in SQLite (migrated, batched, a reviewer added, all through
the command line) plus rows whose values are script and template injections, and a possible
pair (another person's copy with more edits than a copy's) for the queue.

A visitor without a session gets the login page and no petition text; a request without a
session, and one without the CSRF token, are refused; a reviewer signs in, decides a pair
with the keyboard, the pair leaves the queue and its decision is in dedup_decision with the
reviewer's name; injected rows are shown as text and nothing of them runs. Screenshots of
the queue and of a pair are saved to docs/ (the reviewers' guide shows them)."""

import base64
import json
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from dedup_pipeline.sql import decisions
from dedup_pipeline.sql.source import SqlSource
from testing.browser import require_chromium
from testing.served import cli, sample_project, serving

pytestmark = pytest.mark.servers  # a browser and a server process of their own

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs"
REVIEWER, PASSWORD = "wang", "correct horse 1"
COLLEAGUE, COLLEAGUE_PASSWORD = "li", "battery staple 2"  # a second reviewer, who sees phones
WIDE, NARROW = 1400, 390  # a desk's window and a phone's, in CSS pixels
INJECTED = {  # id: the values of an injected row
    90001: {"title": "<svg onload=alert(1)>", "name": "{{7*7}}", "address": "{% raw %}{{ config }}{% endraw %}",
            "content": "<script>alert(1)</script>小区楼下广场舞音响太大，晚上十点还不停，请有关部门处理。"},
    90002: {"title": "\"><img src=x onerror=alert(1)>", "name": "{{7*7}}", "address": "${7*7}<iframe src=javascript:alert(1)>",
            "content": "小区楼下广场舞音响太大，晚上十点还不停，请有关部门处理。<svg onload=alert(1)>"},
}

# Letters others signed in place of their last clause: similar rows no rule pairs, an item
# of the queue each (a group of three, two pairs), beside the sample's own possible pair.
NOISE = ("我们小区东门外的烧烤摊每天晚上营业到凌晨两三点，油烟直接飘进楼里，吵闹声不断，居民根本无法休息。"
         "多次打电话给城管，来了就收摊，走了又摆出来。请求相关部门彻底整治，")
PARKING = ("和平街小学门口每天放学时段车辆乱停乱放，接送孩子的家长把非机动车道全部占满，学生只能走到机动车道上，"
           "非常危险。交警偶尔来贴罚单，第二天照旧。请求在校门口设置临时停车区并安排专人疏导交通，")
WATER = ("人民路菜市场旁边的下水道堵塞已经一个多月，污水漫到路面上，臭气熏天，蚊蝇成群，附近商户和居民苦不堪言。"
         "向街道反映过几次，一直说要排期疏通，到现在也没人来。请求市政部门尽快派人清淤，")
POSSIBLE = {
    91000: ("赵敏", "13911112222", "东城区幸福路1号", "2026-12-01 10:00:00", NOISE + "还居民一个安静的环境。"),
    91001: ("钱进", "13733334444", "东城区幸福路9号", "2026-12-03 10:00:00", NOISE + "反映人：钱进"),
    91002: ("孙丽", "13655556666", "东城区幸福路12号", "2026-12-04 10:00:00", NOISE + "反映人：孙丽"),
    91003: ("周平", "13577778888", "西城区和平街3号", "2026-12-05 10:00:00", PARKING + "望尽快解决。"),
    91004: ("吴芳", "13499990000", "西城区和平街8号", "2026-12-06 10:00:00", PARKING + "反映人：吴芳"),
    91005: ("郑凯", "13322223333", "南湖区人民路5号", "2026-12-07 10:00:00", WATER + "请尽快处理。"),
    91006: ("王雪", "13244445555", "南湖区人民路7号", "2026-12-08 10:00:00", WATER + "反映人：王雪"),
}

require_chromium()  # never skipped: a missing browser fails the suite


@pytest.fixture(scope="module")
def console(tmp_path_factory):
    """The URL of `dedup-pipeline serve --port 0`, and its configuration, over the sample plus
    the injected rows and a possible pair, migrated and batched, with one reviewer."""
    folder = tmp_path_factory.mktemp("console")
    config = sample_project(folder)
    with sqlite3.connect(folder / "sample.sqlite") as db:
        for row_id, values in INJECTED.items():
            db.execute("INSERT INTO petition (id, phone, category, created_at, title, name, address, content) "
                       "VALUES (?, '13800000000', '噪音扰民', '2026-12-01 10:00:00', ?, ?, ?, ?)",
                       (row_id, values["title"], values["name"], values["address"], values["content"]))
        for row_id, (name, phone, address, filed, content) in POSSIBLE.items():
            db.execute("INSERT INTO petition (id, title, name, phone, address, category, created_at, content) "
                       "VALUES (?, '烧烤扰民', ?, ?, ?, '噪音扰民', ?, ?)", (row_id, name, phone, address, filed, content))
    db.close()
    cli(folder, "migrate")
    cli(folder, "reviewer", "add", REVIEWER, stdin=PASSWORD + "\n")
    cli(folder, "reviewer", "add", COLLEAGUE, "--sees-phones", stdin=COLLEAGUE_PASSWORD + "\n")
    cli(folder, "batch")
    with serving(folder) as url:
        yield url, config


@pytest.fixture(scope="module")
def url(console):
    return console[0]


@pytest.fixture(scope="module")
def visitor(browser, url):
    """The browser, not signed in, on the console's first page."""
    browser.open(url)
    return browser


def sign_in(browser, url: str, name: str, password: str) -> None:
    """Sign in as a person does: type the name and the password into the login form, press its button."""
    browser.open(url + "login")
    for field, text in (("name", name), ("password", password)):
        browser.js(f"document.getElementById('{field}').focus()")
        browser.type(text)
    browser.navigation(lambda: browser.js("document.querySelector('#login-form button[type=submit]').click()"))


@pytest.fixture(scope="module")
def reviewer(visitor, url):
    """The browser signed in as the reviewer, on the queue."""
    sign_in(visitor, url, REVIEWER, PASSWORD)
    assert visitor.js("location.pathname") == "/"
    return visitor


@pytest.fixture(scope="module")
def colleague(tmp_path_factory, url):
    """A second reviewer at another computer: a browser of its own (its own profile and
    cookies), signed in as COLLEAGUE."""
    from testing.browser import Browser

    other = Browser(tmp_path_factory.mktemp("colleague-profile"))
    sign_in(other, url, COLLEAGUE, COLLEAGUE_PASSWORD)
    assert other.js("location.pathname") == "/"
    yield other
    other.close()


@pytest.fixture(scope="module")
def narrow_shots(tmp_path_factory):
    """Where the screenshots at a phone's width go (looked at, not published)."""
    return tmp_path_factory.mktemp("narrow")


def request(url: str, data: bytes | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data)) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def queue_keys(browser) -> list[str]:
    return browser.js("Array.from(document.querySelectorAll('tr.item'), r => r.dataset.key)")


def test_a_visitor_without_a_session_gets_the_login_page_and_no_petition_text(visitor, console):
    assert visitor.js("location.pathname") == "/login"
    assert visitor.js("document.querySelectorAll('input[type=password]').length") == 1
    text = visitor.js("document.body.textContent")
    with SqlSource(console[1]) as source:
        first = source.rows_by_id([1])[0]
    assert first["content"][:20] not in text and first["name"] not in text


def test_a_request_without_a_session_is_refused(url):
    assert request(url + "api/counts") == 401
    assert request(url + "decide", b"kind=pair&a=1&b=2&verdict=same") == 401


def test_the_reviewer_signs_in_and_sees_the_queue_with_no_console_error(reviewer):
    assert reviewer.js("document.querySelector('#counts [data-count=left]').textContent") != ""
    assert reviewer.errors() == []


def test_a_decision_without_the_csrf_token_is_refused(reviewer, console):
    status = reviewer.js("fetch('/decide', {method: 'POST', body: new URLSearchParams("
                         "{kind: 'pair', a: '1', b: '2', verdict: 'same'})}).then(r => r.status)")
    assert status == 403
    with SqlSource(console[1]) as source:
        assert decisions.history(source, 1, 2) == []


def item_on_page(browser) -> str:
    return browser.js("document.querySelector('#skip input[name=key]').value")


def test_deciding_a_pair_with_the_keyboard_records_it_and_it_leaves_the_queue(reviewer, url, console):
    reviewer.open(url)
    before = queue_keys(reviewer)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('tr.item.pair a').click()"))
    a, b = reviewer.js("Array.from(document.querySelectorAll('#decide input[name=a], #decide input[name=b]'),"
                       " i => i.value)")
    reviewer.navigation(lambda: reviewer.press("d"))
    assert item_on_page(reviewer) != f"pair:{a},{b}"  # on to the next item
    reviewer.open(url)
    assert f"pair:{a},{b}" in before and f"pair:{a},{b}" not in queue_keys(reviewer)
    with SqlSource(console[1]) as source:
        [decided] = decisions.history(source, int(a), int(b))
    assert (decided.verdict, decided.reviewer) == ("different", REVIEWER)


def test_deciding_a_group_as_one_petition_with_the_keyboard_records_its_pairs(reviewer, url, console):
    reviewer.open(url)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('tr.item.group a').click()"))
    key = item_on_page(reviewer)
    rows = [int(r) for r in key.removeprefix("group:").split(",")]
    reviewer.navigation(lambda: reviewer.press("s"))
    reviewer.open(url)
    assert key not in queue_keys(reviewer)
    with SqlSource(console[1]) as source:
        made = [d for d in decisions.touching(source, rows) if {d.row_id, d.other_id} <= set(rows)]
    assert len(made) == len(rows) - 1 and {(d.verdict, d.reviewer) for d in made} == {("same", REVIEWER)}


def test_the_next_batch_respects_what_was_decided_in_the_console(reviewer, url, console):
    config = console[1]
    with SqlSource(config) as source:
        decided = {d.pair: d.verdict for d in decisions.every(source)}
    assert "different" in decided.values() and "same" in decided.values(), "the tests above decided"
    cli(Path(config.source.url.removeprefix("sqlite:///")).parent, "batch")
    reviewer.open(url)
    items = [{int(r) for r in key.split(":")[1].split(",")} for key in queue_keys(reviewer)]
    assert items and not any(set(pair) <= rows for pair in decided for rows in items)
    with sqlite3.connect(config.source.url.removeprefix("sqlite:///")) as db:
        held = {(a, b): s for a, b, s in db.execute("SELECT row_id, similar_id, status FROM dedup_match")}
    for pair, verdict in decided.items():
        assert held.get(pair) == ("confirmed" if verdict == "same" else None)


def test_skipping_with_the_space_bar_decides_nothing(reviewer, url, console):
    with SqlSource(console[1]) as source:
        before = len(decisions.every(source))
    reviewer.open(url + "next")
    key = item_on_page(reviewer)
    reviewer.navigation(lambda: reviewer.press(" "))
    assert item_on_page(reviewer) != key
    with SqlSource(console[1]) as source:
        assert len(decisions.every(source)) == before


def test_injected_rows_are_shown_as_text_and_nothing_runs(reviewer, url):
    reviewer.open(url + "pair?a=90001&b=90002")
    assert reviewer.js("window.__xss") is None
    assert reviewer.js("document.querySelectorAll('main svg, main img, main iframe, [onload], [onerror]').length") == 0
    assert reviewer.js("document.scripts.length") == 1  # the console's own file
    text = reviewer.js("document.querySelector('table.side').textContent")
    for values in INJECTED.values():
        for value in values.values():
            assert value in text
    assert "49" not in text
    assert reviewer.errors() == []


def snap(browser, name: str, narrow: Path, tallest: int = 1100, element: str | None = None) -> None:
    """The page as it stands, at a desk's width into docs/<name> (its top `tallest` pixels, or
    only `element`), and at a phone's, whole, into `narrow`, where nothing may scroll sideways."""
    for width, folder, mobile, most in ((NARROW, narrow, True, 1600), (WIDE, SCREENSHOTS, False, tallest)):
        browser.send("Emulation.setDeviceMetricsOverride", width=width, height=most, deviceScaleFactor=1,
                     mobile=mobile)
        height = min(most, browser.js("document.body.scrollHeight"))
        browser.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                     mobile=mobile)
        browser.js("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        if mobile:
            assert browser.js("document.documentElement.scrollWidth") <= NARROW, f"{name} scrolls sideways"
        clip = {}
        if element and not mobile:
            box = browser.js(f"(b => ({{x: b.x, y: b.y, width: b.width, height: b.height}}))"
                             f"(document.querySelector({json.dumps(element)}).getBoundingClientRect())")
            clip = {"clip": {**box, "scale": 1}}
        png = base64.b64decode(browser.send("Page.captureScreenshot", format="png", **clip)["data"])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and 5_000 < len(png) < 1_500_000
        (folder / name).write_bytes(png)


def text_of(browser, selector: str) -> str:
    return browser.js(f"document.querySelector({json.dumps(selector)})?.innerText ?? ''")


def search_from_the_header(browser, words: str) -> None:
    """Type `words` into the search box at the top of the page and press Enter."""
    browser.js("document.querySelector('header .search-box input').focus()")
    browser.type(words)
    browser.navigation(lambda: browser.press("Enter"))


def found_rows(browser) -> list[str]:
    return browser.js("Array.from(document.querySelectorAll('li.result'), r => r.dataset.row)")


def test_searching_a_name_from_the_header_finds_the_row_and_opens_its_queue_item(reviewer, url):
    reviewer.open(url)
    search_from_the_header(reviewer, "郑凯")
    assert reviewer.js("location.pathname") == "/search" and found_rows(reviewer) == ["91005"]
    reviewer.navigation(lambda: reviewer.js("document.querySelector('li.result a.queued').click()"))
    assert reviewer.js("location.pathname + location.search") == "/pair?a=91005&b=91006"
    assert "郑凯" in text_of(reviewer, "table.side") and "王雪" in text_of(reviewer, "table.side")


def test_searching_words_finds_the_rows_with_all_of_them_marked(reviewer, url, narrow_shots):
    reviewer.open(url)
    search_from_the_header(reviewer, "下水道 清淤")
    assert sorted(found_rows(reviewer)) == ["91005", "91006"]
    marked = reviewer.js("Array.from(document.querySelectorAll('li.result .excerpt mark'), m => m.textContent)")
    assert set(marked) == {"下水道", "清淤"}
    snap(reviewer, "console-search.png", narrow_shots, tallest=700)


def test_a_search_for_words_in_no_row_says_so(reviewer, url):
    reviewer.open(url + "search?q=" + urllib.parse.quote("火星 登陆"))
    assert found_rows(reviewer) == [] and text_of(reviewer, "#nothing-found") != ""


def test_rows_carrying_script_are_found_and_listed_as_text(reviewer, url):
    reviewer.open(url + "search?q=" + urllib.parse.quote("广场舞"))
    assert {"90001", "90002"} <= set(found_rows(reviewer))
    assert "<script>alert(1)</script>" in text_of(reviewer, "ol.results")
    assert reviewer.js("window.__xss") is None
    assert reviewer.js("document.querySelectorAll('main script, main svg, main img, main iframe').length") == 0


def test_deciding_with_d_says_what_was_recorded_with_its_undo(reviewer, url, console, narrow_shots):
    reviewer.open(url + "pair?a=91003&b=91004")
    reviewer.navigation(lambda: reviewer.press("d"))
    assert text_of(reviewer, "#recorded .said") == "已记录：91003 与 91004 不是重复"
    assert "撤销" in text_of(reviewer, "#recorded button.undo")
    snap(reviewer, "console-undo.png", narrow_shots, tallest=560)
    with SqlSource(console[1]) as source:
        assert [(d.verdict, d.reviewer) for d in decisions.history(source, 91003, 91004)] == [("different", REVIEWER)]


def undecided_again(browser, console, a: int, b: int) -> None:
    """The pair's page says its decision was undone, its history's newest line is "无决定（已撤销）",
    and no verdict about it stands in the database."""
    assert browser.js("location.pathname + location.search") == f"/pair?a={a}&b={b}"
    assert text_of(browser, "#recorded") == f"已撤销：{a} 与 {b} 不是重复（恢复为此前的状态）"
    assert browser.js("document.querySelector('table.history tbody tr').className") == "withdrawn"
    assert "无决定（已撤销）" in text_of(browser, "table.history tbody tr")
    with SqlSource(console[1]) as source:
        assert (a, b) not in decisions.verdicts(source, [a])
        assert [d.reviewer for d in decisions.history(source, a, b)] == [REVIEWER, REVIEWER]


def test_the_undo_button_of_the_recorded_bar_leaves_the_pair_undecided(reviewer, url, console):
    reviewer.open(url + "pair?a=91005&b=91006")
    reviewer.navigation(lambda: reviewer.press("d"))
    reviewer.navigation(lambda: reviewer.js("document.querySelector('#recorded button.undo').click()"))
    undecided_again(reviewer, console, 91005, 91006)
    reviewer.open(url)
    assert "pair:91005,91006" in queue_keys(reviewer)  # back in the queue


def test_pressing_u_undoes_the_last_decision(reviewer, url, console):
    reviewer.open(url + "pair?a=1159&b=1183")
    reviewer.navigation(lambda: reviewer.press("d"))
    reviewer.navigation(lambda: reviewer.press("u"))
    undecided_again(reviewer, console, 1159, 1183)


def test_a_decision_from_a_stale_page_is_refused_saying_who_decided_what(reviewer, colleague, url, console,
                                                                          narrow_shots):
    for browser in (reviewer, colleague):
        browser.open(url + "pair?a=353&b=357")
        assert browser.js("document.getElementById('no-history') !== null")
    colleague.navigation(lambda: colleague.press("s"))
    reviewer.navigation(lambda: reviewer.press("d"))  # from the page that still says "尚无决定"
    assert text_of(reviewer, "main h2") == "决定未记录"
    said = text_of(reviewer, "section.message")
    assert f"{COLLEAGUE} 于" in said and "已决定：353 与 357 是重复" in said and "您的决定没有记录" in said
    with SqlSource(console[1]) as source:
        assert [(d.verdict, d.reviewer) for d in decisions.history(source, 353, 357)] == [("same", COLLEAGUE)]
    snap(reviewer, "console-conflict.png", narrow_shots, tallest=400)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('a.again').click()"))
    assert reviewer.js("location.pathname + location.search") == "/pair?a=353&b=357"
    assert text_of(reviewer, "table.history tbody").split("\t")[1:3] == [COLLEAGUE, "重复"]


def phone_cells(browser) -> list[str]:
    return browser.js("Array.from(document.querySelectorAll('table.side tbody tr'))"
                      ".filter(r => r.querySelector('th').textContent.trim() === '电话')"
                      ".flatMap(r => Array.from(r.querySelectorAll('td'), c => c.textContent))")


def test_a_reviewer_without_the_phone_role_sees_phones_masked(reviewer, url):
    reviewer.open(url + "pair?a=91003&b=91004")
    assert phone_cells(reviewer) == ["135****8888", "134****0000"]
    assert "13577778888" not in reviewer.js("document.documentElement.outerHTML")


def test_a_reviewer_with_the_phone_role_sees_phones_whole(colleague, url):
    colleague.open(url + "pair?a=91003&b=91004")
    assert phone_cells(colleague) == ["13577778888", "13499990000"]


def test_the_rules_pairs_are_listed_from_the_header_with_the_audits_marked(reviewer, url, narrow_shots):
    reviewer.open(url)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('header a.found-link').click()"))
    assert reviewer.js("location.pathname") == "/found/pairs"
    assert reviewer.js("document.querySelectorAll('tr.found-pair').length") == 50
    assert reviewer.js("document.querySelectorAll('tr.found-pair.audit .badge.audit').length") > 0
    snap(reviewer, "console-found-pairs.png", narrow_shots, tallest=900)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('tr.found-pair a[href^=\"/pair\"]').click()"))
    assert reviewer.js("location.pathname") == "/pair"


def test_the_injected_rows_titles_on_the_rules_pairs_are_text(reviewer, url):
    reviewer.open(url + "found/pairs?page=999")  # the last page: the highest ids
    assert "<svg onload=alert(1)>" in text_of(reviewer, "tr.found-pair[data-pair='90001,90002']")
    assert reviewer.js("window.__xss") is None and reviewer.js("document.querySelectorAll('main svg').length") == 0


def audit_card(browser) -> str:
    return text_of(browser, "#audit")


def test_deciding_audit_pairs_gives_the_precision_estimate_with_its_interval(reviewer, url, narrow_shots):
    reviewer.open(url)
    before = audit_card(reviewer)
    assert before == "尚未抽检", before
    for key in ("s", "d"):
        reviewer.open(url)
        reviewer.navigation(lambda: reviewer.js("document.querySelector('tr.item.audit a').click()"))
        reviewer.navigation(lambda key=key: reviewer.press(key))
    reviewer.open(url)
    assert audit_card(reviewer) == "抽检 2 对中 1 对确为重复：精确率估计 50.0%（95% 区间 9.5%–90.5%）"
    assert text_of(reviewer, "#precision .value").startswith("50.0%")
    snap(reviewer, "console-audit.png", narrow_shots, element="#figures")


def test_screenshots_for_the_guide(reviewer, url, narrow_shots):
    """The queue, a pair (decided above: its history shows) and a group, as the guide shows them."""
    reviewer.open(url + "?lang=zh")
    snap(reviewer, "console-queue.png", narrow_shots)
    reviewer.open(url + "pair?a=91003&b=91004")
    snap(reviewer, "console-pair.png", narrow_shots, tallest=1000)
    reviewer.open(url + "group?row=91000&row=91001&row=91002")
    snap(reviewer, "console-group.png", narrow_shots, tallest=1000)


def test_every_screenshot_the_docs_show_is_one_these_tests_write():
    shown = {m for page in (ROOT / "docs").rglob("*.md")
             for m in re.findall(r"\]\((?:\.\./)*([\w-]+\.png)\)", page.read_text(encoding="utf-8"))}
    written = set(re.findall(r'"(console-[\w-]+\.png)"', Path(__file__).read_text(encoding="utf-8")))
    assert {s for s in shown if s.startswith("console-")} <= written
    assert all((SCREENSHOTS / name).exists() for name in written)


def test_after_signing_out_the_old_page_leads_to_the_login_page_and_the_old_cookie_gets_401(colleague, url):
    colleague.open(url + "pair?a=91003&b=91004")
    copied = colleague.cookies()
    colleague.navigation(lambda: colleague.js("document.querySelector('header form[action=\"/logout\"] button').click()"))
    assert colleague.js("location.pathname") == "/login"
    colleague.navigation(lambda: colleague.js("history.back()"))  # the pair's page, asked for again
    assert colleague.js("location.pathname + location.search") == "/login?next=/pair?a%3D91003%26b%3D91004"
    assert "13577778888" not in colleague.js("document.documentElement.outerHTML")
    cookie = "; ".join(f"{name}={value}" for name, value in copied.items())
    request = urllib.request.Request(url + "api/counts", headers={"Cookie": cookie})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 401
