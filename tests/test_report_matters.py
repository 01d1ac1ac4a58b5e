"""The admin report's 热点事项 section (issue 52): absent without matters; the largest matters
first (by people, then rows); the fastest-growing by their rows of the last 14 days against
the 14 before; each matter's object and problem in words, its rows per week and its rows
(collapsed past five); every database value shown as text; zh and en."""

import datetime as dt
import re
from html import unescape

import pytest

from dedup_pipeline.report.render import MATTERS_SHOWN, ReportData, object_text, problem_text, render_html
from dedup_pipeline.sql.matters import Matter

REPORT_DAY = dt.date(2025, 12, 1)
PAYLOAD = "<script>alert(1)</script>"


class Made:
    """Matters and their rows, made one at a time: each row `age` days before REPORT_DAY."""

    def __init__(self):
        self.rows: dict[int, dict] = {}
        self.matters: list[Matter] = []

    def matter(self, name: str, ages: list[int], people: int = 2, obj: str = "", problem: str = "heating",
               text: str = "家里暖气不热") -> "Made":
        days = sorted(REPORT_DAY - dt.timedelta(days=a) for a in ages)
        ids = []
        for day in days:
            rid = len(self.rows) + 1
            self.rows[rid] = {"title": f"{name}的问题", "name": f"居民{rid}", "content": text,
                              "created_at": dt.datetime.combine(day, dt.time(9, 30))}
            ids.append(rid)
        self.matters.append(Matter(name, ids, obj or f"building:{name}#1", problem, people, days[0], days[-1]))
        return self

    def report(self, lang: str = "zh", **kwargs) -> str:
        data = ReportData(rows=self.rows, pairs=[], groups=[], rows_scanned=1000,
                          computed_at=dt.datetime.combine(REPORT_DAY, dt.time(2, 30)),
                          settings={"scheme": "shingles", "matters": {"window_days": 30}},
                          date_column="created_at", text_column="content", short_columns=["title", "name"],
                          labels={"title": "标题", "name": "姓名"}, matters=self.matters)
        for key, value in kwargs.items():
            setattr(data, key, value)
        return render_html(data, lang=lang)


def section(html: str, name: str) -> str:
    """The page's section with this id (the matters' sections hold none of their own)."""
    found = re.search(rf'<section id="{name}">(.*?)</section>', html, re.S)
    assert found, f"no section {name}"
    return found.group(1)


def listed(html: str, name: str) -> list[str]:
    """The matters of a section, in its order."""
    return [unescape(m) for m in re.findall(r'<article class="matter[^"]*"[^>]*data-matter="([^"]*)"',
                                            section(html, name))]


def card(html: str, matter: str) -> str:
    """The first card of a matter."""
    return re.search(rf'<article class="matter[^"]*"[^>]*data-matter="{matter}">(.*?)</article>', html, re.S).group(1)


def test_a_report_without_matters_has_no_matters_section():
    html = Made().report()
    assert 'id="matters"' not in html and "热点事项" not in html


def test_the_largest_matters_come_first_by_people_then_rows():
    html = (Made().matter("三人", [40, 41, 42], people=3).matter("五人", [40, 41, 42, 43, 44], people=5)
            .matter("三人四行", [40, 41, 42, 43], people=3).matter("三人六行", [40, 41, 42, 43, 44, 45], people=3)
            .report())
    assert listed(html, "largest-matters") == ["五人", "三人六行", "三人四行", "三人"]


def test_only_the_largest_are_shown_and_the_page_says_of_how_many():
    made = Made()
    for k in range(MATTERS_SHOWN + 5):
        made.matter(f"m{k}", [40, 41], people=2 + k)
    html = made.report()
    assert listed(html, "largest-matters") == [f"m{k}" for k in reversed(range(5, MATTERS_SHOWN + 5))]
    assert f"前 {MATTERS_SHOWN} 个（共 {MATTERS_SHOWN + 5} 个）" in html


def test_the_fastest_growing_are_those_with_the_most_more_rows_in_the_last_14_days_than_the_14_before():
    html = (Made().matter("+3", [1, 2, 3])                    # 3 against 0
            .matter("+4", [0, 5, 6, 7, 8, 20])               # 5 against 1
            .matter("fewer", [1, 2, 15, 16, 17, 18])          # 2 against 4
            .matter("steady", [1, 2, 15, 16])                 # 2 against 2
            .matter("+1, more rows", [1, 2, 3, 4, 15, 16, 17])  # 4 against 3
            .matter("+1", [1]).report())
    assert listed(html, "growing-matters") == ["+4", "+3", "+1, more rows", "+1"]


def test_the_last_14_days_end_on_the_reports_day_and_the_14_before_end_a_day_before_them():
    html = (Made().matter("ages 13 and 14", [13, 14])        # one in each: no growth
            .matter("age 27 counts, 28 not", [0, 27, 28, 28])  # 1 against 1
            .matter("age 0 and 28", [0, 28]).report())        # 1 against 0
    assert listed(html, "growing-matters") == ["age 0 and 28"]
    assert "近 14 天（2025-11-18 至 2025-12-01）的行数比此前 14 天（2025-11-04 至 2025-11-17）多出最多" in html
    assert "1 / 0（+1）" in card(html, "age 0 and 28")


def test_rows_dated_after_the_report_end_the_last_14_days_on_their_day():
    html = Made().matter("later", [-3, -4]).report()         # written since the batch
    assert listed(html, "growing-matters") == ["later"]
    assert "2025-12-04" in section(html, "growing-matters")


def test_a_growing_matter_already_among_the_largest_points_to_its_card():
    html = Made().matter("big", [1, 2, 3], people=3).report()
    assert listed(html, "largest-matters") == listed(html, "growing-matters") == ["big"]
    brief = section(html, "growing-matters")
    assert '<a href="#matter-1">' in brief and "<table" not in brief
    assert 'id="matter-1"' in section(html, "largest-matters")


def test_without_a_date_column_there_is_no_growing_list_nor_chart():
    html = Made().matter("a", [1, 2, 3]).report(date_column=None)
    assert listed(html, "largest-matters") == ["a"]
    assert 'id="growing-matters"' not in html and "<svg" not in card(html, "a")


def test_no_growing_matter_is_said_plainly():
    html = Made().matter("old", [100, 101]).report()
    assert listed(html, "growing-matters") == []
    assert "没有事项的行数在近 14 天比此前 14 天多" in section(html, "growing-matters")


def test_a_matters_chart_counts_its_rows_per_week_from_monday():
    # 2025-11-03 is a Monday: two rows that week, none the next, one the week after
    made = Made().matter("weeks", [(REPORT_DAY - dt.date(2025, 11, d)).days for d in (3, 9, 17)])
    shown = card(made.report(), "weeks")
    assert re.findall(r"<title>([^<]*)</title>", shown) == ["11-03: 2", "11-10: 0", "11-17: 1"]
    assert "每周行数" in shown


@pytest.mark.parametrize("key, lang, shown", [
    ("building:春华佳园#6", "zh", ("楼栋", "春华佳园6号楼")),
    ("building:春华佳园#B", "zh", ("楼栋", "春华佳园B座")),
    ("building:春华佳园#6", "en", ("Building", "春华佳园, building 6")),
    ("compound:春华佳园", "zh", ("小区", "春华佳园")),
    ("company:永兴/建材@雁塔区", "zh", ("公司", "永兴建材（雁塔区）")),
    ("company:永兴", "zh", ("公司", "永兴")),
    ("junction:人民路+中山路", "zh", ("路口", "人民路与中山路")),
    ("stretch:人民路:和平路-解放路", "zh", ("路段", "人民路（和平路至解放路）")),
    ("stretch:人民路:北段", "zh", ("路段", "人民路北段")),
    ("stretch:人民路:和平路", "en", ("Stretch of road", "人民路 (near 和平路)")),
    ("shop:好再来烧烤", "zh", ("商铺", "好再来烧烤")),
    ("building:新华新城@湾口区#2期5", "zh", ("楼栋", "新华新城2期5号楼（湾口区）")),
    ("building:美林雅居#T6", "zh", ("楼栋", "美林雅居T6座")),
    ("building:新华新城#2期5", "en", ("Building", "新华新城, phase 2, building 5")),
    ("school:明德小学@凤岗区", "zh", ("学校", "明德小学（凤岗区）")),
    ("company:隆鑫/纸箱@花岭区|addr:并州南路95号", "zh", ("公司", "隆鑫纸箱（花岭区，并州南路95号）")),
    ("shop:老张烧烤|addr:迎泽大街25号", "en", ("Shop", "老张烧烤 (迎泽大街25号)")),
    ("line:98", "zh", ("公交线路", "98路")),
    ("addr:经二路236号", "zh", ("门牌", "经二路236号")),
    ("planet:火星", "zh", ("", "planet:火星")),
    ("无种类", "zh", ("", "无种类")),
])
def test_an_objects_key_is_shown_as_its_kind_and_name(key, lang, shown):
    assert object_text(key, lang) == shown


def test_the_card_shows_the_object_in_words_not_its_key():
    shown = card(Made().matter("m", [40, 41], obj="building:春华佳园#6").report(), "m")
    assert "春华佳园6号楼" in shown and "楼栋" in shown and "building:" not in shown


def test_problems_are_named_in_chinese_in_the_chinese_report_and_unknown_ones_as_they_are():
    made = Made().matter("a", [40, 41], problem="wages").matter("b", [40, 41], problem="comets")
    html = made.report()
    assert "欠薪" in card(html, "a") and "wages" not in card(html, "a")
    assert "comets" in card(html, "b")
    assert problem_text("heating") == "供暖" and problem_text("heating", "en") == "heating"
    assert "unpaid wages" in card(made.report("en"), "a")


@pytest.mark.parametrize("lang, words, not_words", [
    ("zh", ["热点事项", "相邻两行相隔不超过 30 天", "规模最大", "增长最快", "事项编号", "每周行数", "2 人"],
     ["Largest", "Fastest-growing"]),
    ("en", ["Matters (热点事项)", "at least two different people", "within 30 days of the one before", "Largest",
            "Fastest-growing", "Rows per week", "2 people"], ["规模最大", "增长最快", "每周行数"]),
])
def test_the_section_speaks_the_reports_language(lang, words, not_words):
    html = Made().matter("a", [1, 2]).report(lang)
    shown = html[html.index('<section id="matters">'):html.index('<section id="groups-section">')]
    for word in words:
        assert word in shown
    for word in not_words:
        assert word not in shown


def test_the_rows_of_a_matter_of_more_than_five_rows_are_collapsed():
    html = Made().matter("six", [40, 41, 42, 43, 44, 45]).matter("five", [40, 41, 42, 43, 44]).report()
    six, five = card(html, "six"), card(html, "five")
    assert re.search(r"<details[^>]*>\s*<summary>6 行</summary>.*<table>.*</table>.*</details>", six, re.S)
    assert "<details" not in five and five.count("<tr>") == 1 + 5


def test_a_matter_of_more_rows_than_shown_lists_its_latest_and_counts_the_earlier():
    shown = card(Made().matter("m", list(range(35, 0, -1))).report(), "m")
    assert shown.count('<td class="id">') == 30
    assert '<td class="id">6</td>' in shown and '<td class="id">5</td>' not in shown
    assert "更早的 5 行未显示" in shown


def test_a_matter_of_more_than_a_year_is_charted_per_month():
    shown = card(Made().matter("m", [10, 400]).report(), "m")
    assert "每月行数" in shown and "<title>2024-10: 1</title>" in shown and "<title>2025-11: 1</title>" in shown


def test_a_matters_rows_are_listed_in_day_order_with_date_title_and_name():
    shown = card(Made().matter("m", [41, 40]).report(), "m")
    assert re.findall(r'<td class="date">([^<]*)</td>', shown) == ["2025-10-21 09:30", "2025-10-22 09:30"]
    assert "m的问题" in shown and "居民1" in shown and "家里暖气不热" in shown


def test_database_values_in_a_matter_are_shown_as_text():
    made = Made().matter(PAYLOAD, [1, 2], obj=f"building:{PAYLOAD}#3", problem=PAYLOAD, text=PAYLOAD)
    made.rows[1]["title"] = made.rows[2]["name"] = "<img src=x onerror=alert(1)>"
    html = made.report()
    assert PAYLOAD not in html and "<img" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4  # object, problem, id, text
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert len(re.findall(r"<script\b", html)) == 2  # the JSON data and the page's own script


def test_the_section_needs_no_inline_style_the_policy_would_block():
    html = Made().matter("a", [1, 2, 3, 4, 5, 6]).report()
    assert " style=" not in html and "'unsafe-inline'" not in html


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_problem_and_object_kind_the_rules_know_has_a_name_to_read(lang):
    from dedup_pipeline.core.matters import problems
    from dedup_pipeline.report.render import OBJECT_KINDS, PROBLEMS

    known = problems().problems
    assert {p.name for p in known} <= PROBLEMS[lang].keys()
    assert {kind for p in known for kind in p.kinds} <= OBJECT_KINDS[lang].keys()
