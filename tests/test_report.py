"""The admin report: escaping of database values, the summary and the top-N cut, the diff,
the CSV (UTF-8 with BOM, Excel-safe) and JSONL exports, and the build at 1M rows / 100k
groups. The same page in a real browser: test_report_browser.py."""

import csv
import datetime as dt
import json
import re
import time
import tomllib
from html import unescape
from html.parser import HTMLParser

import pytest

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.report.render import (ReportData, diff_segments, groups_table, pairs_table, render_html,
                                   write_csv, write_jsonl)
from testing.report_data import synthetic

PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
            "</script><script>window.__xss=1</script>", "\"><svg onload=alert(1)>", "{{ 7*7 }}&amp;"]


def data(rows=None, groups=None, pairs=None, **kwargs) -> ReportData:
    rows = rows or {
        1: {"title": "物业乱收费", "name": "张三", "category": "物业管理", "created_at": dt.datetime(2025, 3, 1, 9),
            "content": "小区物业乱收费，每月多收五十元。"},
        2: {"title": "物业乱收费", "name": "李四", "category": "物业管理", "created_at": dt.datetime(2025, 4, 2, 9),
            "content": "再次反映：小区物业乱收费，每月多收八十元。"},
        3: {"title": "噪音扰民", "name": "王五", "category": "噪音扰民", "created_at": "2025-05-06T07:08:09",
            "content": "广场舞音响太吵。"},
        4: {"title": "噪音扰民", "name": "王五", "category": "噪音扰民", "created_at": "2025-05-07 10:00:00",
            "content": "广场舞音响太吵！"},
    }
    defaults = dict(rows=rows, groups=groups or [[1, 2], [3, 4], [5]], pairs=pairs or [(1, 2, 3), (3, 4, 0)],
                    computed_at=dt.datetime(2026, 1, 2, 3, 4), rows_scanned=100,
                    settings={"scheme": "simhash", "k": 3, "fields": {"title": {"role": "short", "weight": 2.0}}},
                    date_column="created_at", category_column="category", text_column="content",
                    short_columns=["title", "name"], labels={"title": "标题"})
    return ReportData(**{**defaults, **kwargs})


def hostile() -> ReportData:
    """Every payload in every kind of value the page shows: text, short fields, category
    (which also goes to the script's JSON, a chart label and a filter option), ids, dates,
    settings and column labels."""
    rows = {f"x{i}": {"title": p, "name": p, "category": p, "created_at": p, "content": f"前文{p}后文"}
            for i, p in enumerate(PAYLOADS)}
    return data(rows=rows, groups=[list(rows)], pairs=[("x0", "x1", 2), ("x1", "x2", 1)],
                settings={"scheme": PAYLOADS[0], PAYLOADS[1]: {"k": PAYLOADS[2]}},
                labels={"title": PAYLOADS[1]}, date_column="title")


class Tags(HTMLParser):
    """The elements and attribute names of a page, as a browser's tokenizer sees them."""

    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.scripts = [], set(), []
        self._script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.update(name for name, _ in attrs)
        self._script = tag == "script"

    def handle_data(self, text):
        if self._script:
            self.scripts.append(text)

    def handle_endtag(self, tag):
        self._script = False


def parse(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_database_values_are_shown_as_text(lang):
    html = render_html(hostile(), lang=lang)
    for payload in PAYLOADS[:4]:
        assert payload not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "{{ 7*7 }}&amp;amp;" in html  # not evaluated by the template, & escaped
    tags = parse(html)
    assert tags.tags.count("script") == 2  # the JSON data and the page's own script
    assert "img" not in tags.tags and "onerror" not in tags.attributes and "onload" not in tags.attributes
    assert tags.tags.count("svg") == html.count('<svg class="chart-svg"') == 3  # no dates: no month chart


def test_script_data_is_json_that_cannot_close_its_script_element():
    html = render_html(hostile())
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in block and ">" not in block and "&" not in block.replace("\\u0026", "")
    index = json.loads(block)
    assert set(index["groups"][0]["cats"]) == set(PAYLOADS)  # the script sees the values unchanged


def test_content_security_policy_allows_only_the_page_itself():
    html = render_html(data())
    policy = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1))
    assert "default-src 'none'" in policy and "'unsafe-inline'" not in policy
    assert "http" not in policy.replace("http-equiv", "")
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing loaded from a network


def test_summary_charts_and_groups():
    html = render_html(data())
    for text in ["信访重复检测报告", "扫描行数", "100", "有相似行的行数", "4.00%", "重复组数", "2026-01-02 03:04",
                 "simhash", "title: role=short, weight=2", "重复行数（按月）", "2025-03", "物业管理", "标题",
                 "共 2 组，全部显示"]:
        assert text in html
    assert html.count('class="group"') == 2
    assert "Rows scanned" in render_html(data(), lang="en")
    with pytest.raises(ValueError, match="lang"):
        render_html(data(), lang="fr")


def settings_panel(html: str) -> dict[str, list[str]]:
    """The settings panel as shown: each heading with its lines."""
    panel = re.search(r'<details class="settings" open>(.*?)</details>', html, re.S).group(1)
    return {unescape(key): [unescape(line) for line in re.findall(r"<div>(.*?)</div>", lines)]
            for key, lines in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", panel)}


def shown_settings(name: str) -> dict[str, list[str]]:
    """The panel of a report of a batch run with the built-in configuration and this scheme
    (a batch stores Config.masked() as its settings)."""
    toml = tomllib.loads(default_config_text())
    config = parse_config({**toml, "scheme": {**toml["scheme"], "name": name}}, env={})
    return settings_panel(render_html(data(settings=config.masked())))


def test_the_settings_panel_of_shingles_shows_no_simhash_settings():
    panel = shown_settings("shingles")
    assert "fingerprint" not in panel
    assert {"name: shingles", "threshold: 0.3", "slips: 3", "submitter: phone, address"} <= set(panel["scheme"])
    assert not [line for line in panel["scheme"] if line.startswith(("blocks:", "key_blocks:"))]


def test_the_settings_panel_of_simhash_shows_no_shingles_settings():
    panel = shown_settings("simhash")
    assert panel["scheme"] == ["name: simhash", "blocks: 4", "key_blocks: 1"]
    assert "k: 3" in panel["fingerprint"]


def test_differences_are_marked_against_the_first_row():
    html = render_html(data())
    assert "<mark>再次反映：</mark>" in html
    assert "<del>五</del><mark>八</mark>" in html or "<mark>八</mark>" in html
    assert "<mark>！</mark>" in html


@pytest.mark.parametrize("base, text", [
    ("小区物业乱收费，每月多收五十元。", "再次反映：小区物业乱收费，每月多收八十元。"),
    ("", "全新"), ("全删", ""), ("abc<d>", "a<b>c"),
])
def test_diff_segments_rebuild_both_texts(base, text):
    pieces = diff_segments(base, text)
    assert "".join(p for kind, p in pieces if kind != "removed") == text
    assert "".join(p for kind, p in pieces if kind != "added") == base


def test_only_the_top_groups_are_shown_and_the_rest_counted():
    rows = {i: {"created_at": dt.date(2025, 1, 1) + dt.timedelta(days=i), "content": f"内容{i % 7}",
                "category": "类" + str(i % 3)} for i in range(1000)}
    groups = [[i, i + 1] for i in range(0, 996, 2)] + [[996, 997, 998, 999]]
    html = render_html(data(rows=rows, groups=groups, pairs=[(0, 1, 1)], short_columns=[]), top=10)
    shown = re.findall(r'<section class="group" data-group="(\d+)"', html)
    # the 10 largest (group 499 first, then by number) and the 10 most recent, once each
    assert shown[0] == "499" and len(shown) == len(set(shown)) == 19
    assert {"498", "490"} <= set(shown) and "1" in shown
    assert "页面显示 19 组（最大的 10 组与最新的 10 组），另有 480 组未显示" in html


def test_csv_has_a_bom_and_round_trips_chinese(tmp_path):
    path = tmp_path / "groups.csv"
    count = write_csv(path, groups_table(data(), ["title", "content", "created_at"]))
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and count == 4
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["group", "group_size", "id", "title", "content", "created_at"]
    assert rows[1]["content"] == "再次反映：小区物业乱收费，每月多收八十元。"
    assert rows[0]["created_at"] == "2025-03-01 09:00:00" and rows[3]["group"] == "2"


def test_csv_keeps_excel_from_running_formulas(tmp_path):
    rows = {1: {"content": "=HYPERLINK(\"http://x\")", "phone": "+8613800000000"},
            2: {"content": "-5", "phone": "@SUM(A1)"}}
    path = tmp_path / "pairs.csv"
    write_csv(path, pairs_table(data(rows=rows, groups=[[1, 2]], pairs=[(1, 2, 0.25)]), ["content", "phone"]))
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["group", "id_a", "id_b", "distance", "content_a", "phone_a", "content_b", "phone_b"]
    assert rows[1] == ["1", "1", "2", "0.25", "'=HYPERLINK(\"http://x\")", "+8613800000000", "-5", "'@SUM(A1)"]


def test_jsonl_holds_every_pair_with_values_as_they_are(tmp_path):
    path = tmp_path / "pairs.jsonl"
    assert write_jsonl(path, pairs_table(data(), ["name", "created_at"])) == 2
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert lines[0] == {"group": 1, "id_a": 1, "id_b": 2, "distance": 3, "name_a": "张三", "name_b": "李四",
                        "created_at_a": "2025-03-01T09:00:00", "created_at_b": "2025-04-02T09:00:00"}
    assert "张三" in path.read_text("utf-8")  # UTF-8, not \u escapes


def test_report_of_a_million_rows_and_100k_groups_builds_fast():
    big = synthetic(rows=1_000_000, groups=100_000)
    start = time.perf_counter()
    html = render_html(big, top=200)
    seconds = time.perf_counter() - start
    assert seconds < 20, f"report took {seconds:.1f} s to build"
    assert len(html.encode()) < 20e6
    shown = html.count('<section class="group"')
    assert 200 <= shown <= 400
    assert f"另有 {100_000 - shown:,} 组未显示" in html
    assert "1,000,000" in html and "100,000" in html
