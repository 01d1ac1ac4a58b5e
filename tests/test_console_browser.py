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

import json
import os
import sqlite3
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.sql import decisions
from dedup_pipeline.sql.source import SqlSource
from testing.browser import require_chromium

pytestmark = pytest.mark.servers  # a browser and a server process of their own

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs"
REVIEWER, PASSWORD = "wang", "correct horse 1"
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


def environment() -> dict[str, str]:
    """This environment, the checkout first on the path, no DEDUP_* setting."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    return env | {"PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}


def cli(folder: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "dedup_pipeline", *args, "--config", str(folder / "dedup.toml")],
                          cwd=folder, env=environment(), input=stdin, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def console(tmp_path_factory):
    """The URL of `dedup-pipeline serve --port 0`, and its configuration, over the sample plus
    the injected rows and a possible pair, migrated and batched, with one reviewer."""
    folder = tmp_path_factory.mktemp("console")
    text = default_config_text().replace("sqlite:///dedup-data/sample.sqlite", f"sqlite:///{folder / 'sample.sqlite'}")
    text += f'\n[store]\ndata_dir = "{folder / "data"}"\n'
    (folder / "dedup.toml").write_text(text, encoding="utf-8")
    config = parse_config(tomllib.loads(text), env={}, path=str(folder / "dedup.toml"))
    SqlSource(config).close()  # makes the sample database
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
    cli(folder, "batch")
    server = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "serve", "--port", "0", "--config",
                               str(folder / "dedup.toml")], cwd=folder, env=environment(),
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = server.stderr.readline()  # "review console on http://127.0.0.1:PORT/ ...", once it listens
    assert "review console on" in line, line + server.stderr.read()
    yield line.split(" on ")[1].split()[0], config
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def url(console):
    return console[0]


@pytest.fixture(scope="module")
def visitor(browser, url):
    """The browser, not signed in, on the console's first page."""
    browser.open(url)
    return browser


@pytest.fixture(scope="module")
def reviewer(visitor, url):
    """The browser signed in as the reviewer, on the queue."""
    visitor.open(url + "login")
    visitor.navigation(lambda: visitor.js(
        f"document.getElementById('name').value = {json.dumps(REVIEWER)};"
        f"document.getElementById('password').value = {json.dumps(PASSWORD)};"
        "document.getElementById('login-form').submit()"))
    assert visitor.js("location.pathname") == "/"
    return visitor


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


def test_screenshots_for_the_readme(reviewer, url):
    SCREENSHOTS.mkdir(exist_ok=True)
    reviewer.open(url + "?lang=zh", height=1100)
    reviewer.screenshot(SCREENSHOTS / "console-queue.png")
    reviewer.open(url + "pair?a=91000&b=91001", height=1000)  # decided above: its history shows
    reviewer.screenshot(SCREENSHOTS / "console-pair.png")
    reviewer.open(url + "next", height=1000)
    reviewer.screenshot(SCREENSHOTS / "console-group.png")
    for name in ("console-queue.png", "console-pair.png", "console-group.png"):
        png = (SCREENSHOTS / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and 20_000 < len(png) < 1_500_000
