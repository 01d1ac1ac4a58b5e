"""Long texts on the console (issue 50, finding 8): the character diff marks what differs in
two long texts, not whole paragraphs, and the console's pages are laid out for a 390-pixel
phone and a 1,400-pixel desk.

The diff is report.render.diff_segments (the report's and the console's). The layout is the
real `dedup-pipeline serve` in Debian's headless Chromium (testing/browser.py) over the
sample plus a 2,271-character pair differing in 57 characters (a petition that restates its
paragraphs, the case difflib's longest-block-first matcher marked as two 150-character
blocks) and a group with long addresses and titles. Screenshots of every page at both widths
are left in the test's temporary folder, to be looked at."""

import base64
import json
import math
import random
import sqlite3
from pathlib import Path

import pytest

from dedup_pipeline.report import render
from dedup_pipeline.report.render import diff_segments
from testing.browser import require_chromium
from testing.served import cli, sample_project, serving

ROOT = Path(__file__).resolve().parent.parent
REVIEWER, PASSWORD = "liu", "long texts 8"
PHONE, DESK = 390, 1400  # window widths, in CSS pixels
PARAGRAPHS = (
    ("本人系幸福里社区十二号楼业主，自二〇二三年三月起，小区物业公司在未经业主大会表决同意的情况下，擅自将物业费由每平方米一元"
     "五角上调至两元二角，并以电梯维护、二次供水、公共照明等名义另行收取费用，业主多次要求公示收支明细均被拒绝。"),
    ("物业公司还将小区东侧绿地改建为收费停车场，每月每个车位收取三百元，收入去向不明；原有的儿童游乐设施被拆除，老人和孩子没有"
     "活动场所。夜间停车场进出车辆频繁，喇叭声、关门声不断，严重影响低层住户休息。"),
    ("我们曾于去年五月、八月和十一月三次向街道办事处和住建部门书面反映，街道工作人员来小区看过一次，之后再无下文；住建部门答复"
     "称已转交属地处理，至今没有任何结果，业主们对此十分不满。"),
    ("恳请有关部门依法查处物业公司擅自涨价和违规收费的行为，责令其退还多收的费用，恢复绿地和儿童游乐设施，并督促成立业主委员会，"
     "保障全体业主的合法权益。以上情况属实，请予核查处理。"),
)
LONG_LENGTH, CHANGED = 2271, 57
DIGITS = "零一二三四五六七八九"


def long_text() -> str:
    """A 2,271-character petition that restates its four paragraphs, as long letters do."""
    text = ""
    while len(text) < LONG_LENGTH:
        text += "".join(PARAGRAPHS)
    return text[:LONG_LENGTH]


def edited_copy(text: str, changes: int = CHANGED, seed: int = 50) -> str:
    """`text` with `changes` characters, spread over it, replaced by another one (never one of
    its neighbours, so that each is a change no alignment can explain away)."""
    chars = list(text)
    for at in random.Random(seed).sample(range(1, len(text) - 1), changes):
        chars[at] = next(d for d in DIGITS if d not in text[at - 1:at + 2])
    return "".join(chars)


def marked(pieces: list[tuple[str, str]], kind: str) -> int:
    return sum(len(piece) for k, piece in pieces if k == kind)


def rebuilt(pieces: list[tuple[str, str]], leaving: str) -> str:
    return "".join(piece for kind, piece in pieces if kind != leaving)


# ---------------------------------------------------------------- the diff

def test_a_long_copy_with_57_changed_characters_marks_no_more_than_twice_that():
    text = long_text()
    copy = edited_copy(text)
    assert len(text) == LONG_LENGTH and sum(x != y for x, y in zip(text, copy)) == CHANGED
    pieces = diff_segments(text, copy)
    assert marked(pieces, "added") <= 2 * CHANGED and marked(pieces, "removed") <= 2 * CHANGED
    assert rebuilt(pieces, "removed") == copy and rebuilt(pieces, "added") == text


def test_an_insertion_in_the_middle_of_a_long_text_marks_only_the_insertion():
    text, insertion = long_text(), "（补充：今年三月又多收了一次电梯费）"
    pieces = diff_segments(text, text[:1100] + insertion + text[1100:])
    assert [piece for kind, piece in pieces if kind != "same"] == [insertion]
    assert [kind for kind, _ in pieces] == ["same", "added", "same"]


def test_a_deletion_in_the_middle_of_a_long_text_marks_only_what_was_deleted():
    text = long_text()
    pieces = diff_segments(text, text[:800] + text[950:])
    assert [(kind, piece) for kind, piece in pieces if kind != "same"] == [("removed", text[800:950])]


def test_identical_texts_mark_nothing():
    text = long_text()
    assert diff_segments(text, text) == [("same", text)]
    assert diff_segments("", "") == []


def test_two_rewritten_sentences_are_marked_as_one_change_not_a_scatter_of_shared_characters():
    pieces = diff_segments("人民路菜市场旁边的下水道堵塞已经一个多月，污水漫到路面上",
                           "和平街小学门口每天放学时段车辆乱停乱放，接送孩子的家长")
    assert [kind for kind, _ in pieces] == ["removed", "added"]


def test_texts_too_long_to_align_are_marked_between_their_common_start_and_end(monkeypatch):
    monkeypatch.setattr(render, "ALIGN_CELLS", 100)
    text = long_text()
    copy = text[:500] + "改" + text[501:1500] + "动" + text[1501:]
    assert diff_segments(text, copy) == [("same", text[:500]), ("removed", text[500:1501]),
                                         ("added", copy[500:1501]), ("same", text[1501:])]


def test_a_5000_character_pair_with_120_changes_marks_no_more_than_twice_that():
    text = (long_text() * 3)[:5000]
    copy = edited_copy(text, changes=120)
    assert marked(diff_segments(text, copy), "added") <= 2 * 120


# ---------------------------------------------------------------- the console in Chromium

LONG_PAIR = (92000, 92001)
GROUP = (92010, 92011, 92012)
ADDRESS = "东城区幸福路街道幸福里社区十二号楼三单元五〇二室"
TITLE = "物业公司擅自上调物业费并违规收取停车费"
PAGES = {"login": "login", "queue": "", "pair": "pair?a=92000&b=92001",
         "group": "group?row=92010&row=92011&row=92012"}


def rows() -> dict[int, tuple]:
    """id: (title, name, phone, address, created_at, content) of the rows this module adds."""
    text = long_text()
    return {
        92000: (TITLE, "欧阳明远", "13911112222", ADDRESS, "2026-12-01 10:00:00", text),
        92001: (TITLE, "欧阳明远", "13911112222", ADDRESS, "2026-12-09 10:00:00", edited_copy(text)),
        92010: (TITLE, "欧阳明远", "13911112222", ADDRESS, "2026-12-02 10:00:00", PARAGRAPHS[0] + PARAGRAPHS[3]),
        92011: (TITLE + "（再次反映）", "司马慧", "13822223333", ADDRESS.replace("五〇二", "六〇一"),
                "2026-12-05 10:00:00", "再次反映：" + PARAGRAPHS[0] + PARAGRAPHS[2] + PARAGRAPHS[3]),
        92012: (TITLE, "诸葛文静", "13733334444", ADDRESS.replace("三单元", "一单元"), "2026-12-07 10:00:00",
                PARAGRAPHS[0].replace("二〇二三年三月", "二〇二三年四月") + PARAGRAPHS[3]),
    }


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    """`dedup-pipeline serve --port 0` over the sample plus this module's rows, batched, with
    one reviewer."""
    require_chromium()  # never skipped: a missing browser fails the suite
    folder = tmp_path_factory.mktemp("console-layout")
    sample_project(folder)
    with sqlite3.connect(folder / "sample.sqlite") as db:
        for row_id, (title, name, phone, address, filed, content) in rows().items():
            db.execute("INSERT INTO petition (id, title, name, phone, address, category, created_at, content) "
                       "VALUES (?, ?, ?, ?, ?, '物业管理', ?, ?)", (row_id, title, name, phone, address, filed, content))
    db.close()
    cli(folder, "migrate")
    cli(folder, "reviewer", "add", REVIEWER, stdin=PASSWORD + "\n")
    cli(folder, "batch")
    with serving(folder) as url:
        yield url


@pytest.fixture(scope="module")
def reviewer(browser, url):
    """The browser signed in as the reviewer."""
    browser.open(url + "login")
    browser.navigation(lambda: browser.js(
        f"document.getElementById('name').value = {json.dumps(REVIEWER)};"
        f"document.getElementById('password').value = {json.dumps(PASSWORD)};"
        "document.getElementById('login-form').submit()"))
    assert browser.js("location.pathname") == "/", browser.js("document.body.innerText")
    return browser


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """The folder the screenshots are left in."""
    return tmp_path_factory.mktemp("screenshots")


def show(browser, url: str, page: str, width: int, height: int = 900) -> None:
    browser.open(url + PAGES[page], width=width, height=height, mobile=width == PHONE)
    assert browser.js("document.body.dataset.page || 'login'") == page


def sideways(browser) -> int:
    """How many pixels the page is wider than the window."""
    return browser.js("document.documentElement.scrollWidth - document.documentElement.clientWidth")


# Each non-empty cell's text and its lines (the distinct tops of its line boxes).
LINES = """Array.from(document.querySelectorAll(%s), cell => {
  const range = document.createRange(); range.selectNodeContents(cell);
  const tops = new Set(Array.from(range.getClientRects(), r => Math.round(r.top)));
  return [cell.textContent.trim(), tops.size];
}).filter(([text]) => text)"""


def squeezed(cells: list) -> list[str]:
    """The cells with fewer than five characters a line (the issue's address had two)."""
    return [text for text, lines in cells if lines > math.ceil(len(text) / 5)]


def screenshot(browser, path: Path) -> None:
    """The whole page, beyond the window too."""
    shot = browser.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("width", [PHONE, DESK])
def test_the_login_page_does_not_scroll_sideways(browser, url, shots, width):
    """Before the reviewer signs in (the first tests of the module): a visitor's page."""
    show(browser, url, "login", width)
    screenshot(browser, shots / f"login-{width}.png")
    assert browser.js("document.querySelector('header .who')") is None, "signed in already"
    assert sideways(browser) <= 0
    assert browser.errors() == []


@pytest.mark.parametrize("width", [PHONE, DESK])
@pytest.mark.parametrize("page", ["queue", "pair", "group"])
def test_no_page_scrolls_sideways(reviewer, url, shots, page, width):
    show(reviewer, url, page, width)
    screenshot(reviewer, shots / f"{page}-{width}.png")
    assert sideways(reviewer) <= 0
    assert reviewer.errors() == []


HEADER = {"title": "h1", "lang": ".lang", "found": ".found-link", "who": ".who",
          "logout": "form[action='/logout']", "search": ".search-box"}


def header_boxes(browser) -> dict[str, dict]:
    """{part: its box} of the header's parts (HEADER), and of the header itself."""
    parts = json.dumps({**HEADER, "header": ""})
    return browser.js(f"Object.fromEntries(Object.entries({parts}).map(([part, selector]) => {{"
                      " const r = document.querySelector('header.top ' + selector).getBoundingClientRect();"
                      " return [part, {left: r.left, top: r.top, right: r.right, bottom: r.bottom}]; }))")


def test_at_390_px_the_header_is_the_title_then_the_links_and_reviewer_then_the_search_box(reviewer, url):
    show(reviewer, url, "queue", PHONE)
    box = header_boxes(reviewer)
    line = [box[part] for part in ("lang", "found", "who", "logout")]
    assert box["title"]["bottom"] <= min(b["top"] for b in line)
    assert max(b["top"] for b in line) - min(b["top"] for b in line) <= 2  # one line
    assert box["search"]["top"] >= max(b["bottom"] for b in line)
    assert box["search"]["right"] - box["search"]["left"] >= PHONE - 40  # across the width
    assert box["logout"]["right"] <= PHONE and box["header"]["bottom"] <= 120


def test_at_1400_px_the_header_is_one_line(reviewer, url):
    show(reviewer, url, "queue", DESK)
    box = header_boxes(reviewer)
    assert box["header"]["bottom"] - box["header"]["top"] <= 60
    assert box["title"]["right"] < box["lang"]["left"] < box["search"]["left"] < box["who"]["left"]


@pytest.mark.parametrize("width", [PHONE, DESK])
def test_the_group_s_short_columns_keep_at_least_five_characters_a_line(reviewer, url, width):
    show(reviewer, url, "group", width)
    cells = reviewer.js(LINES % json.dumps("table.members td.short"))
    assert len(cells) == 3 * 5  # three rows, five short columns
    assert squeezed(cells) == []


@pytest.mark.parametrize("width", [PHONE, DESK])
def test_the_pair_s_fields_keep_at_least_five_characters_a_line(reviewer, url, width):
    show(reviewer, url, "pair", width)
    cells = reviewer.js(LINES % json.dumps("table.side tr:not(.texts) td"))
    assert cells and squeezed(cells) == []


def text_boxes(browser) -> list[dict]:
    return browser.js("Array.from(document.querySelectorAll('table.side td.text .scroll'), box => {"
                      " const r = box.getBoundingClientRect(); return {left: r.left, top: r.top, height: r.height,"
                      " scrolls: box.scrollHeight > box.clientHeight + 1, chars: box.textContent.length}; })")


def test_at_1400_px_the_long_pair_s_texts_sit_side_by_side_in_boxes_that_scroll(reviewer, url):
    show(reviewer, url, "pair", DESK)
    left, right = text_boxes(reviewer)
    assert left["top"] == right["top"] and right["left"] > left["left"] + 400
    assert left["chars"] == right["chars"] == LONG_LENGTH  # the whole text is there, to scroll through
    assert left["scrolls"] and right["scrolls"] and max(left["height"], right["height"]) <= 600
    assert reviewer.js("document.documentElement.scrollHeight") <= 1600  # 2,000 px and more before


def test_at_390_px_the_long_pair_s_texts_are_one_above_the_other_in_boxes_that_scroll(reviewer, url):
    show(reviewer, url, "pair", PHONE, height=844)
    upper, lower = text_boxes(reviewer)
    assert lower["top"] >= upper["top"] + upper["height"] and upper["left"] == lower["left"]
    assert upper["scrolls"] and lower["scrolls"] and max(upper["height"], lower["height"]) <= 560
    assert reviewer.js("document.documentElement.scrollHeight") <= 3000


def test_the_long_pair_marks_only_what_differs_on_each_side(reviewer, url):
    show(reviewer, url, "pair", DESK)
    per_side = reviewer.js("Array.from(document.querySelectorAll('table.side td.text'),"
                           " td => Array.from(td.querySelectorAll('mark'), m => m.textContent.length)"
                           ".reduce((a, b) => a + b, 0))")
    assert len(per_side) == 2 and all(0 < n <= 2 * CHANGED for n in per_side)
