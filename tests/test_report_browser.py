"""The admin report in a real browser: Debian's headless Chromium, driven over the DevTools
protocol. A report of the bundled sample (found by the real pipeline) plus a group of
script-injection rows opens with no console error, its charts and tables present, the
injected values shown as text and nothing of them run; search and filters work; the
screenshot is saved to docs/report.png (the README shows it). The 1M-row report opens
without freezing."""

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from dedup_pipeline.config import load_config
from dedup_pipeline.core.pairs import groups, similar_pairs
from dedup_pipeline.report.render import ReportData, render_html
from dedup_pipeline.core.simhash import fingerprint_many
from dedup_pipeline.core.schemes import block_scheme, featurizer
from testing.browser import require_chromium
from testing.report_data import synthetic

pytestmark = pytest.mark.servers  # real servers or processes of their own

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "dedup_pipeline" / "data" / "sample_petitions.csv"
SCREENSHOT = ROOT / "docs" / "report.png"
INJECTED = {
    "content": ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                "</script><script>window.__xss = true</script>"],
    "title": ["<b onmouseover=alert(1)>标题</b>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>"],
    "name": ["\"><script>window.__xss=1</script>", "<iframe src=javascript:alert(1)>", "张<u>三</u>"],
}
XSS_CATEGORY = "</script><img src=x onerror=alert(1)>"

require_chromium()  # never skipped: a missing browser fails the suite


def sample_report() -> ReportData:
    """The bundled sample's groups as the pipeline finds them, plus one group of rows
    whose values are script injections."""
    config = load_config()
    with open(SAMPLE, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    fingerprints = fingerprint_many(rows, featurizer(config))
    i, j, distance = similar_pairs(fingerprints, block_scheme(config)).linked()
    ids = [int(r["id"]) for r in rows]
    members: dict[int, list[int]] = {}
    for position, label in enumerate(groups(len(rows), i, j).tolist()):
        members.setdefault(label, []).append(ids[position])
    by_id = {int(r["id"]): r for r in rows}
    injected = list(range(90001, 90004))
    for k, rid in enumerate(injected):
        by_id[rid] = {"created_at": f"2026-12-0{k + 1}T10:00:00", "category": XSS_CATEGORY, "phone": "13800000000",
                      **{column: values[k] for column, values in INJECTED.items()}}
    return ReportData(
        rows=by_id, groups=[*members.values(), injected],
        pairs=[*zip(map(ids.__getitem__, i.tolist()), map(ids.__getitem__, j.tolist()), distance.tolist()),
               (90001, 90002, 2), (90002, 90003, 1)],
        computed_at=dt.datetime(2027, 1, 2, 3, 4), rows_scanned=len(rows) + len(injected),
        settings={"scheme": "blocks: 4 × 16 bits, 1 key block", "k": config.fingerprint.k,
                  "fields": {f.name: f"{f.role}, weight {f.effective_weight:g}" for f in config.fields}},
        date_column="created_at", category_column="category", text_column="content",
        short_columns=["title", "name", "phone"], labels={"title": "标题", "name": "姓名", "phone": "电话"})


@pytest.fixture(scope="module")
def sample_page(browser, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_html(sample_report()), encoding="utf-8")
    browser.open(path)
    return browser


def test_opens_with_no_console_error(sample_page):
    assert sample_page.js("document.readyState") == "complete"
    assert sample_page.errors() == []


def test_charts_and_tables_are_present(sample_page):
    assert sample_page.js("document.querySelectorAll('svg.chart-svg').length") == 4
    assert sample_page.js("document.querySelectorAll('svg.chart-svg rect.bar').length") > 20
    groups = sample_page.js("document.querySelectorAll('section.group').length")
    assert groups == sample_page.js("JSON.parse(document.getElementById('report-data').textContent).groups.length")
    assert groups > 50
    assert sample_page.js("document.querySelectorAll('section.group tbody tr').length") >= 2 * groups
    assert sample_page.js("document.querySelectorAll('section.group mark').length") > 10
    assert "扫描行数" in sample_page.js("document.getElementById('summary').innerText")


def test_injected_values_are_text_and_run_nothing(sample_page):
    assert sample_page.js("window.__xss") is None
    assert sample_page.js("document.scripts.length") == 2  # the JSON data and the page's own
    injected_elements = "img, iframe, u, [onerror], [onload], [onmouseover], [src]"
    assert sample_page.js(f"document.querySelectorAll('{injected_elements}').length") == 0
    assert sample_page.js("document.querySelectorAll('svg').length") == 4
    # textContent: innerText leaves out the groups that content-visibility has not laid out yet;
    # each row's own text, without what only the group's first row has (<del>, shown inline)
    text = sample_page.js("(() => { const page = document.body.cloneNode(true);"
                          " page.querySelectorAll('del').forEach(d => d.remove()); return page.textContent; })()")
    for values in INJECTED.values():
        for value in values:
            assert value in text
    assert sample_page.js("Array.from(document.querySelectorAll('#category option'), o => o.value)").count(
        XSS_CATEGORY) == 1


def test_search_and_filters_work_in_the_page(sample_page):
    def visible():
        return sample_page.js("Array.from(document.querySelectorAll('section.group'))"
                              ".filter(s => !s.hidden).map(s => Number(s.dataset.group))")

    def set_value(element, value):
        sample_page.js(f"(e => {{ e.value = {json.dumps(value)}; e.dispatchEvent(new Event('input')); }})"
                       f"(document.getElementById({json.dumps(element)}))")

    everything = visible()
    set_value("search", "onerror=alert(1)")
    assert len(visible()) == 1
    assert sample_page.js("document.getElementById('matching').textContent") == "1 组符合条件"
    set_value("search", "")
    set_value("category", XSS_CATEGORY)
    assert len(visible()) == 1
    set_value("category", "噪音扰民")
    noise = visible()
    assert 0 < len(noise) < len(everything)
    set_value("category", "")
    set_value("date-from", "2026-06-01")
    set_value("date-to", "2026-06-30")
    june = visible()
    assert 0 < len(june) < len(everything)
    set_value("date-from", "")
    set_value("date-to", "")
    set_value("sort", "recent")
    order = visible()
    assert sorted(order) == sorted(everything) and order != everything
    last = {g["n"]: g["last"] for g in sample_page.js(
        "JSON.parse(document.getElementById('report-data').textContent).groups")}
    assert [last[n] for n in order] == sorted(last.values(), reverse=True)
    set_value("sort", "size")
    assert visible() == everything
    assert sample_page.errors() == []


def test_screenshot_for_the_readme(sample_page):
    sample_page.js("window.scrollTo(0, 0)")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    sample_page.screenshot(SCREENSHOT)
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 20_000 < SCREENSHOT.stat().st_size < 1_000_000


def test_a_million_row_report_opens_without_freezing(browser, tmp_path):
    path = tmp_path / "big.html"
    path.write_text(render_html(synthetic(rows=1_000_000, groups=100_000), top=200), encoding="utf-8")
    seconds = browser.open(path, height=1000)
    assert seconds < 5, f"the page took {seconds:.1f} s to load"
    assert browser.errors() == []
    assert browser.js("document.querySelectorAll('section.group').length") <= 400
    assert "另有" in browser.js("document.querySelector('#groups-section .note').innerText")
    typing = browser.js("(() => { const s = document.getElementById('search'), t = performance.now();"
                        " s.value = '再次反映'; s.dispatchEvent(new Event('input'));"
                        " document.body.offsetHeight; return performance.now() - t; })()")  # with layout
    assert typing < 1000, f"one search took {typing:.0f} ms"
