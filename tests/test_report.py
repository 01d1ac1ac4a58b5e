"""The admin report: escaping of database values, the summary and the top-N cut, the diff,
the CSV (UTF-8 with BOM, Excel-safe) and JSONL exports, and the build at 1M rows / 100k
groups. The same page in a real browser: test_report_browser.py."""

import csv
import dataclasses
import datetime as dt
import json
import re
import sqlite3
import time
import tomllib
from html import unescape
from html.parser import HTMLParser

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.report.render import (ReportData, Review, diff_segments, groups_table, pairs_table,
                                          render_html, write_csv, write_jsonl)
from dedup_pipeline.sql import decisions
from dedup_pipeline.store.index import open_store
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


# ---------------------------------------------------------------- what reviewers decided, on the page

@pytest.fixture
def reviewed(labelled_in_memory, mongo_uri, mongo_db):
    """Batches the labelled table (SQLite, migrated unless told not to) into the embedded
    MongoDB, which the report reads: (config, path, {pair: distance}, groups)."""
    _, config, path = labelled_in_memory
    config = dataclasses.replace(config, store=dataclasses.replace(config.store, kind="mongodb", mongo_uri=mongo_uri,
                                                                   database=mongo_db.name))

    def batch(migrated=True):
        if migrated:
            commands.migrate(config)
        commands.batch(config, processes=1)
        with open_store(config) as store:
            live = store.current_run()["run"]
            return config, path, {(a, b): d for a, b, d in store.read_matches(live)}, store.read_groups(live)
    return batch


def report_of(config, tmp_path, lang="zh") -> str:
    out = tmp_path / f"report-{lang}.html"
    commands.report(config, html=str(out), lang=lang)
    return out.read_text("utf-8")


def shown_groups(html: str) -> list[set[str]]:
    """The row ids of each group on the page."""
    sections = re.findall(r'<section class="group" data-group="\d+">(.*?)</section>', html, re.S)
    return [set(re.findall(r'<td class="id">(.*?)</td>', s)) for s in sections]


def review_section(html: str) -> str:
    return unescape(re.search(r'<section id="review" class="review">(.*?)</section>', html, re.S).group(1))


def test_a_pair_decided_different_since_the_batch_is_not_shown_and_its_group_splits(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    a, b, c = next(g for g in groups if len(g) == 3 and sum((x, y) in pairs for x in g for y in g) == 2)
    first, second = sorted(p for p in pairs if set(p) <= {a, b, c})
    assert {a, b, c} in [set(map(int, g)) for g in shown_groups(report_of(config, tmp_path))]
    commands.decide(config, *first, same=False, by="王芳")
    html = report_of(config, tmp_path)
    assert f"#{first[0]}–#{first[1]} " not in html and f"#{second[0]}–#{second[1]} " in html
    assert {str(r) for r in second} in shown_groups(html), "the group joined through the pair split"


def test_a_pair_decided_the_same_is_shown_confirmed_by_its_reviewer_where_the_rule_did_not_pair_it(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    grouped = {r for g in groups for r in g}
    a, b = [r for r in range(1, 100) if r not in grouped][:2]
    commands.decide(config, a, b, same=True, by="王芳")
    html = report_of(config, tmp_path)
    assert {str(a), str(b)} in shown_groups(html)
    assert f"#{a}–#{b} <b>—</b> <span class=\"mark confirmed\">已确认（王芳）</span>" in html
    assert '<td class="num">人工确认</td>' in html and "<b>-1</b>" not in html, "no distance the rule never measured"


def test_a_decision_whose_row_changed_since_is_shown_stale_and_does_not_apply(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    a, b = sorted(pairs)[0]
    commands.decide(config, a, b, same=False, by="王芳", note="不同诉求")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE petition SET content = content || '补充' WHERE id = ?", (b,))
    html = report_of(config, tmp_path)
    assert f'#{a}–#{b} <b>{pairs[a, b]:g}</b> <span class="mark stale">决定已过期</span>' in html, "the rule's pair again"
    section = review_section(html)
    assert "已过期的决定</dt><dd>1 个：决定后行已改动，不再适用" in section
    assert f"#{a}–#{b}</span> 不同（王芳：不同诉求）" in section


def test_the_review_section_gives_the_rules_precision_measured_by_the_audits_decisions(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    drawn = [(a, b) for a, b, _ in commands.audit(config).sample]
    other = next(pair for pair in sorted(pairs) if pair not in drawn)
    for pair, same in [(drawn[0], True), (drawn[1], True), (drawn[2], False), (other, False)]:
        commands.decide(config, *pair, same=same, by="王芳")
    low, high = decisions.wilson(2, 3)
    section = review_section(report_of(config, tmp_path))
    assert "审核决定</dt><dd>4<" in section
    assert f"抽检 3 对中 2 对确为重复：精确率估计 66.7%（95% 区间 {low:.1%}–{high:.1%}）" in section


def test_the_review_section_gives_the_queues_share_of_duplicates_and_points_to_its_open_items():
    review = Review(decisions=2, last={}, precision=decisions.Precision(0, 0, 0.0, 1.0, 1, 2), open_items=1234)
    section = review_section(render_html(data(review=review)))
    assert "待定项中确为重复的比例</dt><dd>50.0%（2 项中 1 项）" in section
    assert "待审核项</dt><dd>1,234 项：用 dedup-pipeline serve 审核，或用 dedup-pipeline report --possible 导出" in section


def test_a_table_without_decisions_says_so_plainly(reviewed, tmp_path):
    config, *_ = reviewed()
    section = review_section(report_of(config, tmp_path))
    assert "尚无审核决定。" in section and "尚未抽检" in section


def test_reviewers_names_and_notes_are_shown_as_text(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    a, b = sorted(pairs)[0]
    commands.decide(config, a, b, same=True, by=PAYLOADS[0], note=PAYLOADS[1])
    html = report_of(config, tmp_path)
    assert PAYLOADS[0] not in html and PAYLOADS[1] not in html
    assert "已确认（&lt;script&gt;alert(1)&lt;/script&gt;：&lt;img src=x onerror=alert(1)&gt;）" in html
    tags = parse(html)
    assert tags.tags.count("script") == 2 and "img" not in tags.tags and "onerror" not in tags.attributes


def test_the_review_is_in_english_with_lang_en(reviewed, tmp_path):
    config, *_ = reviewed()
    a, b, _ = commands.audit(config).sample[0]
    commands.decide(config, a, b, same=True, by="王芳")
    html = report_of(config, tmp_path, lang="en")
    section = review_section(html)
    assert "Decisions</dt><dd>1<" in section and "1 of 1 audited pairs truly duplicates: precision estimated at " \
                                                  "100.0% (95% interval" in section
    assert "confirmed by 王芳" in html and not re.search("[审核确认过期]", section)


def test_the_report_renders_when_migrate_never_made_the_decisions_table(reviewed, tmp_path):
    config, path, pairs, groups = reviewed(migrated=False)
    html = report_of(config, tmp_path)
    assert 'id="review"' not in html
    assert len(shown_groups(html)) == len([g for g in groups if len(g) > 1])


def test_the_groups_export_splits_a_group_at_a_pair_decided_different(reviewed, tmp_path):
    config, path, pairs, groups = reviewed()
    a, b = next(g for g in groups if len(g) == 2)
    commands.decide(config, a, b, same=False, by="王芳")
    out = tmp_path / "groups.jsonl"
    commands.report(config, out=str(out), groups=True)
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert not {a, b} & {r["id"] for r in rows} and len(rows) == sum(len(g) for g in groups) - 2
