"""The admin report in a real browser: Debian's headless Chromium, driven over the DevTools
protocol. A report of the bundled sample (found by the real pipeline) plus a group of
script-injection rows opens with no console error, its charts and tables present, the
injected values shown as text and nothing of them run; search and filters work; the
screenshot is saved to docs/report.png (the README shows it). The 1M-row report opens
without freezing."""

import csv
import datetime as dt
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import websocket

from dedup_pipeline.config import load_config
from dedup_pipeline.core.pairs import groups, similar_pairs
from dedup_pipeline.report.render import ReportData, render_html
from dedup_pipeline.core.simhash import fingerprint_many
from dedup_pipeline.core.schemes import block_scheme, featurizer
from testing.report_data import synthetic

pytestmark = pytest.mark.servers  # real servers or processes of their own

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "dedup_pipeline" / "data" / "sample_petitions.csv"
SCREENSHOT = ROOT / "docs" / "report.png"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0"]
# Any script the data managed to run would call alert or set window.__xss.
TRAP = "window.alert = window.confirm = window.prompt = () => { window.__xss = true; };"
INJECTED = {
    "content": ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                "</script><script>window.__xss = true</script>"],
    "title": ["<b onmouseover=alert(1)>标题</b>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>"],
    "name": ["\"><script>window.__xss=1</script>", "<iframe src=javascript:alert(1)>", "张<u>三</u>"],
}
XSS_CATEGORY = "</script><img src=x onerror=alert(1)>"

if not os.path.exists(CHROMIUM):  # never skipped: a missing browser fails the suite
    raise RuntimeError("Chromium is not installed: apt-get install chromium fonts-noto-cjk "
                       "(.ci/run does it)")


class Browser:
    """Headless Chromium with one page, spoken to over the DevTools protocol."""

    def __init__(self, profile: Path):
        self.process = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port(profile / "DevToolsActivePort")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            page = next(t for t in json.load(answer) if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def _port(self, path: Path) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().strip():
                return int(path.read_text().split()[0])
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            time.sleep(0.1)
        raise TimeoutError("chromium did not open its DevTools port")

    def send(self, method: str, **params):
        """Run one command and return its result; events that arrive meanwhile are kept."""
        number = next(self.ids)
        self.ws.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self.events.append(message)

    def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(json.loads(self.ws.recv()))

    def js(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path, width: int = 1280, height: int = 2000) -> float:
        """Load a file with the trap in place; the seconds until its load event."""
        self.events.clear()
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Page.addScriptToEvaluateOnNewDocument", source=TRAP)
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        start = time.perf_counter()
        self.send("Page.navigate", url=path.as_uri())
        self.wait_for("Page.loadEventFired")
        return time.perf_counter() - start

    def errors(self) -> list:
        """Console errors, uncaught exceptions and browser log errors (CSP violations...)."""
        return [e for e in self.events
                if e.get("method") == "Runtime.exceptionThrown"
                or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]

    def screenshot(self, path: Path) -> None:
        import base64
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        self.ws.close()
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


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
    # textContent: innerText leaves out the groups that content-visibility has not laid out yet
    text = sample_page.js("document.body.textContent")
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
