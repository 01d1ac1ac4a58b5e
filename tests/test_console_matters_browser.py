"""Matters (热点事项) in the review console in a real browser (Debian's headless Chromium,
testing/browser.py) against the real `dedup-pipeline serve` process, over a labelled hotline
table in SQLite with the matters stage on: a reviewer opens the largest matter from the list,
takes a row out with its button and puts it back, and puts two matters together by typing an
id, as a person does; each holds in dedup_matter at once. Screenshots at a desk's and a
phone's width are saved for looking at (not published)."""

import sqlite3

import pytest

from testing import hotline
from testing.browser import require_chromium
from testing.labelled import write_sqlite
from testing.served import cli, sample_project, serving
from tests.test_console_browser import sign_in

pytestmark = pytest.mark.servers  # a browser and a server process of their own

REVIEWER, PASSWORD = "wang", "correct horse 1"
WIDE, NARROW = 1400, 390

require_chromium()  # never skipped: a missing browser fails the suite


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The console's URL over a 300-row hotline table, migrated and batched with the matters on
    and one reviewer, and the table's file."""
    folder = tmp_path_factory.mktemp("matters-console")
    sample_project(folder)
    (folder / "sample.sqlite").unlink()
    write_sqlite(hotline.make(300, seed=3).rows, folder / "sample.sqlite")
    with open(folder / "dedup.toml", "a", encoding="utf-8") as toml:
        toml.write("\n[matters]\nfind = true\n")
    cli(folder, "migrate")
    cli(folder, "reviewer", "add", REVIEWER, stdin=PASSWORD + "\n")
    cli(folder, "batch")
    with serving(folder) as url:
        yield url, folder / "sample.sqlite"


@pytest.fixture(scope="module")
def reviewer(browser, served):
    sign_in(browser, served[0], REVIEWER, PASSWORD)
    return browser


def matter_of(path, row):
    with sqlite3.connect(path) as db:
        found = db.execute("SELECT matter_id FROM dedup_matter WHERE row_id = ?", (row,)).fetchone()
    db.close()
    return found[0] if found else None


def test_a_reviewer_opens_the_largest_matter_from_the_list(reviewer, served):
    url, _ = served
    reviewer.open(url + "matters", width=WIDE)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('table.matters a').click()"))
    assert reviewer.js("document.body.dataset.page") == "matter"
    assert reviewer.js("document.querySelectorAll('tr.matter-row').length") >= 2 and reviewer.errors() == []


def test_taking_a_row_out_with_its_button_and_putting_it_back(reviewer, served, tmp_path_factory):
    url, path = served
    reviewer.open(url + "matters", width=WIDE)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('table.matters a').click()"))
    matter = int(reviewer.js("document.getElementById('matter').dataset.matter"))
    row = int(reviewer.js("Array.from(document.querySelectorAll('tr.matter-row')).pop().dataset.row"))
    reviewer.navigation(lambda: reviewer.js(
        "Array.from(document.querySelectorAll('tr.matter-row')).pop().querySelector('td.act button').click()"))
    assert matter_of(path, row) is None
    said = reviewer.js("document.querySelector('details.history').innerText")
    assert f"{REVIEWER} 将 #{row} 移出" in said
    shots = tmp_path_factory.mktemp("matter-shots")
    reviewer.screenshot(shots / "matter-wide.png")
    reviewer.open(reviewer.js("location.href"), width=NARROW, mobile=True)
    assert reviewer.js("document.documentElement.scrollWidth <= window.innerWidth")
    reviewer.screenshot(shots / "matter-narrow.png")
    reviewer.navigation(lambda: reviewer.js("document.querySelector('details.history form button').click()"))
    assert matter_of(path, row) == matter


def test_putting_two_matters_together_by_typing_the_others_id(reviewer, served):
    url, path = served
    reviewer.open(url + "matters", width=WIDE)
    links = reviewer.js("Array.from(document.querySelectorAll('table.matters a'), a => a.pathname)")
    first, second = list(dict.fromkeys(links))[:2]
    reviewer.open(url + first.lstrip("/"), width=WIDE)
    other = second.rsplit("/", 1)[1]
    reviewer.js("document.querySelector('form.together input[name=other]').focus()")
    reviewer.type(other)
    reviewer.navigation(lambda: reviewer.js("document.querySelector('form.together button').click()"))
    low = min(int(first.rsplit("/", 1)[1]), int(other))
    assert matter_of(path, int(other)) == matter_of(path, int(first.rsplit("/", 1)[1])) == low
    assert reviewer.js("location.pathname") == f"/matters/{low}", reviewer.js("document.body.innerText")[:800]
    assert reviewer.errors() == []
