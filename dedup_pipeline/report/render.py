"""Admin reports: one self-contained HTML page (summary, charts, the top groups side by
side with their differences highlighted, search and filters) and CSV / JSONL exports of
every group and pair.

Independent of where the results are stored: the caller fills a ReportData. Every database
value reaches the page as text: Jinja2 autoescapes it, the data for the page's script is
JSON with <, > and & escaped (Jinja2's `tojson`), and a Content-Security-Policy lets only
the page's own script and style run and nothing be fetched. Charts are inline SVG drawn
by the template from geometry computed here: no JavaScript, no network.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import hashlib
import json
import math
import os
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, NamedTuple, Sequence

import jinja2
from markupsafe import Markup
from rapidfuzz.distance import Indel

from ..core.decision import NOT_MEASURED, pair_key

if TYPE_CHECKING:
    from ..sql.decisions import Precision

MAX_ROWS_SHOWN = 30  # rows of one group on the page; the exports hold all
MAX_PAIRS_SHOWN = 40  # pairs listed under one group
TEXT_LIMIT = 4000  # characters of one text shown (and diffed) on the page
ALIGN_CELLS = 20_000 * 20_000  # characters of one text by the other's that diff_segments aligns (~50 MB)
STRAY_RUN = 3  # a shared run this short between longer changes is marked as part of them
TOP_CATEGORIES = 12
SIZE_BINS = [(2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, None)]
MATTERS_SHOWN = 20  # the largest matters (热点事项) on the page; `report --matters` exports all
GROWING_SHOWN = 10  # the fastest-growing matters on the page
GROWTH_DAYS = 14  # a matter grows by its rows of the last GROWTH_DAYS days against the GROWTH_DAYS before
MATTER_ROWS_OPEN = 5  # a matter's rows are listed open up to this many, collapsed beyond
MATTER_TEXT = 160  # characters of a matter row's text shown

Table = tuple[list[str], Iterable[Sequence[Any]]]  # header, rows: what the exports write


class PairDecision(NamedTuple):
    """A pair's last decision as the report shows it: who made it, the note, whether the
    rows are the same petition, and whether a row has changed since (stale: it no longer
    applies)."""

    reviewer: str
    note: str | None
    same: bool
    stale: bool


@dataclass
class Review:
    """What reviewers decided: how many decisions, each decided pair's last one (`last`,
    keyed by core.decision.pair_key), the rule's precision they measure (as
    sql.decisions.precision gives it) and the queue's items still open."""

    decisions: int
    last: Mapping[tuple[Any, Any], PairDecision]
    precision: Precision
    open_items: int


@dataclass
class ReportData:
    """Everything a report shows. `rows` needs only the rows that are in a group (others
    are ignored); `groups` of fewer than two rows are ignored; `labels` gives display
    names for columns (e.g. {"title": "标题"}). `pairs` are as reviewers decided them: a
    pair a reviewer made that the rule does not has distance NOT_MEASURED; `review` says
    what they decided (None: no review section, as before `migrate` made dedup_decision).
    `matters` are the 热点事项 (sql.matters.Matter: matter, rows in day order, object, problem,
    people, first, last), their rows in `rows` too; none: no matters section."""

    rows: Mapping[Any, Mapping[str, Any]]
    pairs: Sequence[tuple[Any, Any, float]]
    groups: Sequence[Sequence[Any]]
    computed_at: dt.datetime
    settings: Mapping[str, Any]
    rows_scanned: int
    date_column: str | None = None
    category_column: str | None = None
    text_column: str | None = None
    short_columns: Sequence[str] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    review: Review | None = None
    matters: Sequence = ()


LABELS = {
    "zh": {
        "html_lang": "zh-CN", "title": "信访重复检测报告", "summary": "概览",
        "rows_scanned": "扫描行数", "rows_similar": "有相似行的行数", "dup_rate": "重复率",
        "groups": "重复组数", "largest": "最大组（行）", "mean_size": "平均组大小",
        "pairs": "相似对数", "computed_at": "计算时间", "settings": "参数",
        "charts": "图表", "by_month": "重复行数（按月）", "by_category": "重复行数（按类别）",
        "group_sizes": "组大小分布（组数）", "distances": "相似对的距离分布（对数）",
        "groups_heading": "重复组",
        "shown": "页面显示 {shown} 组（最大的 {top} 组与最新的 {top} 组），另有 {more} 组未显示；"
                 "完整列表见 CSV / JSONL 导出。",
        "search": "搜索", "search_hint": "编号、姓名、内容……", "category": "类别", "all": "全部",
        "date_from": "起始日期", "date_to": "截止日期", "sort": "排序",
        "by_size": "按组大小", "by_recent": "按最近日期", "matching": "{n} 组符合条件",
        "id": "编号", "date": "日期", "text": "内容", "distance": "与首行距离",
        "group": "组", "rows": "行", "latest": "最近", "base": "首行",
        "pairs_in_group": "相似对：", "more_rows": "另有 {n} 行未显示", "more_pairs": "另有 {n} 对",
        "empty": "（空）", "other": "其他（{n} 类）", "no_groups": "没有找到重复组。",
        "shown_all": "共 {shown} 组，全部显示。", "legend_added": "新增或改动", "legend_removed": "删去",
        "legend": "每行与本组首行（最早的一行）逐字比较。",
        "truncated": "……（全文见导出）", "footer": "由 dedup-pipeline 生成，离线可用。",
        "review": "审核", "decisions": "审核决定", "precision": "规则的准确率",
        "precision_of": "抽检 {decided} 对中 {same} 对确为重复：精确率估计 {share}（95% 区间 {low}–{high}）",
        "precision_none": "尚未抽检",
        "queue_share": "待定项中确为重复的比例", "queue_of": "{share}（{decided} 项中 {same} 项）",
        "queue_none": "待定项尚未审核", "open_items": "待审核项",
        "open_hint": "{n} 项：用 dedup-pipeline serve 审核，或用 dedup-pipeline report --possible 导出",
        "stale": "已过期的决定", "stale_hint": "{n} 个：决定后行已改动，不再适用",
        "no_decisions": "尚无审核决定。", "same": "相同", "different": "不同",
        "confirmed_by": "已确认（{name}）", "by_reviewer": "人工确认", "stale_mark": "决定已过期",
        "note": "：{note}", "more_stale": "另有 {n} 个", "decided_as": "{verdict}（{by}）",
        "matters": "热点事项",
        "matters_note": "热点事项：至少两位不同的人就同一个对象（一栋楼、一个小区、一家公司、一处工地、一个路口、"
                        "一段路……）反映同一个问题的行，各用各的话{within}。同一人的重复反映只算一人。共 {n} 个事项。",
        "within_days": "；相邻两行相隔不超过 {n} 天，隔得更久就是另一个事项",
        "within": "；相邻两行相隔不超过设定的天数（[matters] window_days）",
        "largest_matters": "规模最大", "largest_rule": "按人数、再按行数排序的前 {shown} 个（共 {n} 个）。",
        "growing_matters": "增长最快",
        "growing_rule": "近 {days} 天（{recent_from} 至 {end}）的行数比此前 {days} 天（{previous_from} 至 "
                        "{previous_to}）多出最多的 {top} 个事项；只列有增长的。",
        "no_growing": "没有事项的行数在近 {days} 天比此前 {days} 天多。",
        "matter_id": "事项编号", "span": "时间",
        "growth": "近 {days} 天 / 此前 {days} 天", "growth_of": "{recent} / {previous}（+{up}）",
        "growth_line": "近 {days} 天 / 此前 {days} 天：{growth}",
        "per_week": "每周行数", "per_month": "每月行数", "rows_of": "{n} 行", "people_of": "{n} 人",
        "earlier_rows": "更早的 {n} 行未显示（report --matters 导出全部）", "shown_above": "行与图表见上文",
        "matters_nav": "跳到：",
    },
    "en": {
        "html_lang": "en", "title": "Duplicate petitions report", "summary": "Summary",
        "rows_scanned": "Rows scanned", "rows_similar": "Rows with a similar row",
        "dup_rate": "Duplicate rate", "groups": "Groups", "largest": "Largest group (rows)",
        "mean_size": "Mean group size", "pairs": "Similar pairs", "computed_at": "Computed at",
        "settings": "Settings", "charts": "Charts", "by_month": "Duplicate rows by month",
        "by_category": "Duplicate rows by category", "group_sizes": "Group sizes (groups)",
        "distances": "Distances of similar pairs (pairs)", "groups_heading": "Groups",
        "shown": "Showing {shown} groups (the {top} largest and the {top} most recent); "
                 "{more} more are not shown: the CSV / JSONL exports hold them all.",
        "search": "Search", "search_hint": "id, name, text…", "category": "Category",
        "all": "All", "date_from": "From", "date_to": "To", "sort": "Sort",
        "by_size": "Largest first", "by_recent": "Most recent first",
        "matching": "{n} groups match", "id": "Id", "date": "Date", "text": "Text",
        "distance": "Distance to first row", "group": "Group", "rows": "rows",
        "latest": "latest", "base": "first row", "pairs_in_group": "Similar pairs:",
        "more_rows": "{n} more rows not shown", "more_pairs": "{n} more pairs",
        "empty": "(empty)", "other": "Other ({n} categories)", "no_groups": "No duplicate groups found.",
        "shown_all": "All {shown} groups are shown.", "legend_added": "added or changed",
        "legend_removed": "removed",
        "legend": "each row compared character by character with the group's first (earliest) row.",
        "truncated": "… (full text in the exports)", "footer": "Made by dedup-pipeline; works offline.",
        "review": "Review", "decisions": "Decisions", "precision": "The rule's precision",
        "precision_of": "{same} of {decided} audited pairs truly duplicates: precision estimated at {share} "
                        "(95% interval {low}–{high})",
        "precision_none": "not audited yet",
        "queue_share": "Queue items that were duplicates", "queue_of": "{share} ({same} of {decided} items)",
        "queue_none": "no queue item decided yet", "open_items": "Open queue items",
        "open_hint": "{n}: review them with dedup-pipeline serve, or export them with dedup-pipeline report --possible",
        "stale": "Stale decisions", "stale_hint": "{n}: a row changed since, so they no longer apply",
        "no_decisions": "No decisions yet.", "same": "same", "different": "different",
        "confirmed_by": "confirmed by {name}", "by_reviewer": "confirmed", "stale_mark": "decision stale",
        "note": ": {note}", "more_stale": "{n} more", "decided_as": "{verdict} ({by})",
        "matters": "Matters (热点事项)",
        "matters_note": "A matter: rows of at least two different people naming one object (a building, a "
                        "compound, a company, a site, an intersection, a stretch of road, …) and one problem, "
                        "each in their own words{within}; one person's re-submissions count once. {n} matters.",
        "within_days": ", each row within {n} days of the one before it (a longer gap starts another matter)",
        "within": ", each row within a window of days ([matters] window_days) of the one before it",
        "largest_matters": "Largest", "largest_rule": "The {shown} largest by people, then rows (of {n}).",
        "growing_matters": "Fastest-growing",
        "growing_rule": "The {top} matters whose rows of the last {days} days ({recent_from} to {end}) exceed "
                        "those of the {days} days before ({previous_from} to {previous_to}) the most; only "
                        "matters that grew.",
        "no_growing": "No matter has more rows in the last {days} days than in the {days} before.",
        "matter_id": "Matter", "span": "Dates",
        "growth": "Last {days} days / {days} before", "growth_of": "{recent} / {previous} (+{up})",
        "growth_line": "Last {days} days / {days} before: {growth}",
        "per_week": "Rows per week", "per_month": "Rows per month", "rows_of": "{n} rows",
        "people_of": "{n} people",
        "earlier_rows": "{n} earlier rows not shown (report --matters exports them all)",
        "shown_above": "rows and chart above", "matters_nav": "Go to:",
    },
}


# The kinds of object a matter is about (core.objects: the key's text before its first ":").
OBJECT_KINDS = {
    "zh": {"building": "楼栋", "compound": "小区", "company": "公司", "site": "工地", "junction": "路口",
           "stretch": "路段", "road": "道路", "stop": "公交站", "school": "学校", "market": "市场", "shop": "商铺",
           "place": "场所", "line": "公交线路", "addr": "门牌"},
    "en": {"building": "Building", "compound": "Compound", "company": "Company", "site": "Site",
           "junction": "Intersection", "stretch": "Stretch of road", "road": "Road", "stop": "Bus stop",
           "school": "School", "market": "Market", "shop": "Shop", "place": "Place", "line": "Bus line",
           "addr": "Street address"},
}
# The problems a matter is about, by their names in data/matter-problems-zh.txt; a name not
# here is shown as it is.
PROBLEMS = {
    "zh": {"heating": "供暖", "lift": "电梯", "leak": "漏水", "water": "停水供水", "power": "停电供电",
           "gas": "燃气", "wages": "欠薪", "insurance": "社保", "refund": "退费", "dust": "扬尘", "noise": "噪音",
           "fumes": "油烟", "signal": "信号灯", "flooding": "积水", "streetlight": "路灯", "potholes": "路面破损",
           "stop": "站台设施", "bus": "公交班次线路", "fees": "乱收费", "food": "食品安全", "stalls": "占道摆摊",
           "weight": "缺斤短两", "built": "违章建筑", "charging": "电动车充电", "traffic": "交通拥堵",
           "sewage": "污水下水道", "garbage": "垃圾", "parking": "停车", "property": "物业", "throwing": "高空抛物",
           "reno": "装修扰民", "cracks": "房屋开裂", "certificate": "办证", "delivery": "交房", "compensation": "拆迁补偿",
           "trees": "树木倒伏", "effluent": "偷排废水", "queue": "看病排队", "enrolment": "入学学位", "bikes": "共享单车",
           "renewal": "老旧小区改造", "facade": "外墙脱落", "overtime": "加班", "hoarding": "施工围挡占道",
           "facilities": "公共设施损坏"},
    "en": {"heating": "heating", "lift": "lifts", "leak": "leaks", "water": "water supply", "power": "power supply",
           "gas": "gas", "wages": "unpaid wages", "insurance": "social insurance", "refund": "refunds",
           "dust": "dust", "noise": "noise", "fumes": "cooking fumes", "signal": "traffic lights",
           "flooding": "flooding", "streetlight": "street lights", "potholes": "road surface", "stop": "bus stop",
           "bus": "bus service", "fees": "fees", "food": "food safety", "stalls": "street stalls",
           "weight": "short weight", "built": "illegal building", "charging": "e-bike charging",
           "traffic": "traffic jams", "sewage": "sewage", "garbage": "garbage", "parking": "parking",
           "property": "property management", "throwing": "things thrown from windows",
           "reno": "renovation noise", "cracks": "cracked walls", "certificate": "property certificates",
           "delivery": "late handover", "compensation": "demolition compensation", "trees": "fallen trees",
           "effluent": "waste water", "queue": "hospital queues", "enrolment": "school places", "bikes": "shared bikes",
           "renewal": "old-compound renewal", "facade": "falling facade tiles", "overtime": "overtime",
           "hoarding": "site hoarding on the road", "facilities": "broken public facilities"},
}


# ---------------------------------------------------------------- the page

def render_html(data: ReportData, lang: str = "zh", top: int = 200) -> str:
    """The whole report as one self-contained HTML document."""
    if lang not in LABELS:
        raise ValueError(f"lang must be one of {', '.join(LABELS)}, got {lang!r}")
    t = LABELS[lang]
    groups = numbered_groups(data)
    days = _days(data, groups)
    shown = _shown(groups, days, top)
    within = _pairs_within(data, shown)
    index = [_group_index(data, n, ids, days, t) for n, ids in shown]
    script, style = _asset("report.js"), _asset("report.css")
    return _env().get_template("report.html.j2").render(
        t=t, summary=_summary(data, groups), review=_review_view(data.review, t),
        settings=_settings_view(data.settings),
        charts=_charts(data, groups, days, t), columns=_column_names(data),
        matters=_matters_section(data, t, lang), growth_days=GROWTH_DAYS,
        groups=[_group_view(data, n, ids, days, within.get(n, []), t) for n, ids in shown],
        index=index, categories=sorted({c for g in index for c in g["cats"]}),
        has_dates=bool(data.date_column), more=len(groups) - len(shown), top=top,
        script=Markup(script), style=Markup(style), csp=_csp(script, style),
    )


def numbered_groups(data: ReportData) -> list[tuple[int, Sequence[Any]]]:
    """(number, row ids) of every group of two or more rows; numbers count from 1 and are
    the same on the page and in the exports."""
    return list(enumerate((g for g in data.groups if len(g) > 1), start=1))


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("dedup_pipeline.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "sort_keys": True}
    env.filters["num"] = lambda n: f"{n:,}"
    env.filters["px"] = lambda v: f"{v:.1f}"
    return env


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return resources.files("dedup_pipeline.report").joinpath(f"templates/{name}").read_text("utf-8")


def _csp(script: str, style: str) -> str:
    """Only this page's own script and style run; nothing is fetched from anywhere."""
    def sha(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
    return (f"default-src 'none'; script-src {sha(script)}; style-src {sha(style)}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def _summary(data: ReportData, groups: list[tuple[int, Sequence[Any]]]) -> dict[str, Any]:
    sizes = [len(ids) for _, ids in groups]
    similar = sum(sizes)
    computed = data.computed_at
    return {
        "rows_scanned": data.rows_scanned, "rows_similar": similar,
        "dup_rate": f"{similar / data.rows_scanned:.2%}" if data.rows_scanned else "—",
        "groups": len(groups), "largest": max(sizes, default=0),
        "mean_size": f"{statistics.fmean(sizes):.1f}" if sizes else "—", "pairs": len(data.pairs),
        "computed_at": computed.strftime("%Y-%m-%d %H:%M") + (f" {computed.tzname()}" if computed.tzinfo else ""),
    }


def _review_view(review: Review | None, t: Mapping[str, str]) -> dict[str, Any] | None:
    """The summary's review section: each figure as a line of text, the stale decisions
    listed; None: no section."""
    if review is None:
        return None
    stale = [(pair, d) for pair, d in review.last.items() if d.stale]
    return {"decisions": review.decisions,
            "lines": [(t["decisions"], f"{review.decisions:,}"), (t["precision"], _precision(review.precision, t)),
                      (t["queue_share"], _queue_share(review.precision, t)),
                      (t["open_items"], _count(review.open_items, t["open_hint"])),
                      (t["stale"], _count(len(stale), t["stale_hint"]))],
            "stale": [(str(a), str(b), _verdict(d, t)) for (a, b), d in stale[:MAX_PAIRS_SHOWN]],
            "more_stale": max(0, len(stale) - MAX_PAIRS_SHOWN)}


def _count(n: int, hint: str) -> str:
    """A count, said with what to know of it (`hint`) when it is not 0."""
    return hint.format(n=f"{n:,}") if n else "0"


def _verdict(decided: PairDecision, t: Mapping[str, str]) -> str:
    """What was decided of a pair, by whom: 相同（王芳：集体信访）."""
    return t["decided_as"].format(verdict=t["same" if decided.same else "different"], by=_by(decided, t))


def _precision(p: Precision, t: Mapping[str, str]) -> str:
    """The rule's precision on its pairs decided, with its 95% interval, as text."""
    if not p.decided:
        return t["precision_none"]
    return t["precision_of"].format(share=_percent(p.confirmed / p.decided), low=_percent(p.low),
                                    high=_percent(p.high), same=f"{p.confirmed:,}", decided=f"{p.decided:,}")


def _queue_share(p: Precision, t: Mapping[str, str]) -> str:
    """The share of the queue's items decided that were duplicates, as text."""
    if not p.queue_decided:
        return t["queue_none"]
    return t["queue_of"].format(share=_percent(p.queue_same / p.queue_decided), same=f"{p.queue_same:,}",
                                decided=f"{p.queue_decided:,}")


def _percent(x: float) -> str:
    """A share as the review shows it, to a tenth of a percent: 97.5%."""
    return f"{x:.1%}"


def _by(decided: PairDecision, t: Mapping[str, str]) -> str:
    """Who decided, and the note when there is one: 王芳：集体信访."""
    return decided.reviewer + (t["note"].format(note=decided.note) if decided.note else "")


def _decided(data: ReportData, a: Any, b: Any) -> PairDecision | None:
    """The last decision about the pair (a, b), if any."""
    return data.review.last.get(pair_key(a, b)) if data.review else None


def _mark(decided: PairDecision | None, t: Mapping[str, str]) -> tuple[str, str]:
    """(kind, text) of what reviewers decided of a pair shown: confirmed (by whom), or a
    stale decision (which no longer applies); else nothing."""
    if decided is not None and decided.stale:
        return "stale", t["stale_mark"]
    if decided is not None and decided.same:
        return "confirmed", t["confirmed_by"].format(name=_by(decided, t))
    return "", ""


def _settings_view(settings: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """Each setting as lines of text: a mapping gives one line per key."""
    def flat(value: Any) -> str:
        if isinstance(value, Mapping):
            return ", ".join(f"{k}={flat(v)}" for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return ", ".join(flat(v) for v in value)
        return f"{value:g}" if isinstance(value, float) else str(value)
    return [(str(key), [f"{k}: {flat(v)}" for k, v in value.items()] if isinstance(value, Mapping)
             else [flat(value)]) for key, value in settings.items()]


def _column_names(data: ReportData) -> list[str]:
    return [data.labels.get(c, c) for c in data.short_columns]


# ---------------------------------------------------------------- dates and choosing groups

def _day(value: Any) -> dt.date | None:
    """A date from a datetime, a date or an ISO-like string; None when there is none."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and len(value) >= 10:
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _days(data: ReportData, groups: list[tuple[int, Sequence[Any]]]) -> dict[Any, dt.date | None]:
    """The date of every grouped row."""
    column = data.date_column
    if not column:
        return {}
    return {rid: _day(data.rows.get(rid, {}).get(column)) for _, ids in groups for rid in ids}


def _latest(ids: Sequence[Any], days: Mapping[Any, dt.date | None]) -> dt.date | None:
    return max((d for d in (days.get(i) for i in ids) if d), default=None)


def _shown(groups: list[tuple[int, Sequence[Any]]], days: Mapping[Any, dt.date | None],
           top: int) -> list[tuple[int, Sequence[Any]]]:
    """The `top` largest groups and the `top` most recent, largest first."""
    largest = sorted(groups, key=lambda g: (-len(g[1]), g[0]))[:top]
    recent = sorted(groups, key=lambda g: (_latest(g[1], days) or dt.date.min, -g[0]), reverse=True)[:top]
    chosen = {n: ids for n, ids in largest + recent}
    return sorted(chosen.items(), key=lambda g: (-len(g[1]), g[0]))


# ---------------------------------------------------------------- charts

def _charts(data: ReportData, groups: list[tuple[int, Sequence[Any]]],
            days: Mapping[Any, dt.date | None], t: Mapping[str, str]) -> list[dict[str, Any]]:
    charts = []
    if data.date_column:
        charts.append(column_chart(t["by_month"], _by_month(days)))
    if data.category_column:
        charts.append(bar_chart(t["by_category"], _by_category(data, groups, t)))
    charts.append(column_chart(t["group_sizes"], _size_bins([len(ids) for _, ids in groups])))
    measured = [p[2] for p in data.pairs if p[2] != NOT_MEASURED]
    charts.append(column_chart(t["distances"], _distance_bins(measured)))
    return charts


def _by_month(days: Mapping[Any, dt.date | None]) -> list[tuple[str, int]]:
    """Grouped rows per month, every month from the first to the last (per year past 6 years)."""
    counts = Counter((d.year, d.month) for d in days.values() if d)
    if not counts:
        return []
    (y0, m0), (y1, m1) = min(counts), max(counts)
    span = (y1 - y0) * 12 + m1 - m0 + 1
    if span > 72:
        years = Counter()
        for (y, _), n in counts.items():
            years[y] += n
        return [(str(y), years[y]) for y in range(y0, y1 + 1)]
    months = [((y0 * 12 + m0 - 1 + i) // 12, (m0 - 1 + i) % 12 + 1) for i in range(span)]
    return [(f"{y}-{m:02d}", counts[y, m]) for y, m in months]


def _by_category(data: ReportData, groups: list[tuple[int, Sequence[Any]]],
                 t: Mapping[str, str]) -> list[tuple[str, int]]:
    counts = Counter(_category(data, rid, t) for _, ids in groups for rid in ids)
    ranked = counts.most_common()
    if len(ranked) <= TOP_CATEGORIES + 3:
        return ranked
    head, tail = ranked[:TOP_CATEGORIES], ranked[TOP_CATEGORIES:]
    head.append((t["other"].format(n=len(tail)), sum(n for _, n in tail)))
    return head


def _category(data: ReportData, rid: Any, t: Mapping[str, str]) -> str:
    value = _text(data.rows.get(rid, {}).get(data.category_column or ""))
    return value or t["empty"]


def _size_bins(sizes: list[int]) -> list[tuple[str, int]]:
    by_size = Counter(sizes)
    counts = [sum(n for s, n in by_size.items() if lo <= s and (hi is None or s <= hi)) for lo, hi in SIZE_BINS]
    labels = [str(lo) if lo == hi else f"{lo}–{hi}" if hi else f">{lo - 1}" for lo, hi in SIZE_BINS]
    last = max((i for i, n in enumerate(counts) if n), default=0)
    return list(zip(labels, counts))[:max(last + 1, 4)]


def _distance_bins(distances: list[float]) -> list[tuple[str, int]]:
    """One bar per whole distance (Hamming); ten equal bins for fractional scores."""
    if not distances:
        return []
    counts = Counter(distances)
    if all(float(d).is_integer() and 0 <= d <= 64 for d in counts):
        return [(str(d), counts.get(d, 0)) for d in range(int(max(counts)) + 1)]
    lo, hi = min(counts), max(counts)
    width = (hi - lo) / 10 or 1
    bins = Counter()
    for d, n in counts.items():
        bins[min(int((d - lo) / width), 9)] += n
    return [(f"{lo + i * width:.2f}", bins[i]) for i in range(10)]


def _ticks(top: int) -> list[int]:
    """Round gridline values from 0 to at least `top`."""
    if top <= 0:
        return [0]
    raw = top / 4
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    step = max(1, int(step))
    return list(range(0, int(step * math.ceil(top / step)) + 1, step))


def column_chart(title: str, items: list[tuple[str, int]], width: int = 560, height: int = 240,
                 fixed: bool = False) -> dict[str, Any]:
    """Geometry of a vertical bar chart; the template draws it as SVG, as wide as its box
    or (`fixed`) at `width` pixels at most."""
    left, right, top_pad, bottom = 48, 8, 16, 46
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    ticks = _ticks(max((n for _, n in items), default=0))
    scale = plot_h / (ticks[-1] or 1)
    slot = plot_w / max(len(items), 1)
    every = max(1, math.ceil(len(items) / 12))  # at most ~12 axis labels
    bars = [{"x": left + i * slot + slot * 0.15, "w": slot * 0.7, "h": n * scale,
             "y": top_pad + plot_h - n * scale, "label": label, "value": n,
             "cx": left + (i + 0.5) * slot, "show_label": i % every == 0}
            for i, (label, n) in enumerate(items)]
    grid = [{"y": top_pad + plot_h - v * scale, "value": v} for v in ticks]
    return {"kind": "columns", "title": title, "width": width, "height": height, "bars": bars,
            "grid": grid, "left": left, "right": width - right, "base": top_pad + plot_h,
            "show_values": len(items) <= 16, "rotate": len(items) > 8, "empty": not items, "fixed": fixed}


def bar_chart(title: str, items: list[tuple[str, int]], width: int = 560) -> dict[str, Any]:
    """Geometry of a horizontal bar chart (long labels such as categories)."""
    left, right, row = 150, 56, 22
    biggest = max((n for _, n in items), default=0) or 1
    bars = [{"y": 8 + i * row, "h": row - 6, "w": (width - left - right) * n / biggest,
             "label": label if len(label) <= 10 else label[:9] + "…", "full": label, "value": n}
            for i, (label, n) in enumerate(items)]
    return {"kind": "bars", "title": title, "width": width, "height": max(8 + len(items) * row + 8, 60),
            "bars": bars, "left": left, "empty": not items}


# ---------------------------------------------------------------- matters (热点事项)

def _matters_section(data: ReportData, t: Mapping[str, str], lang: str) -> dict[str, Any] | None:
    """The 热点事项 section: the largest matters and the fastest-growing, each as a card
    (a growing one already among the largest as a line pointing to its card); None: no matters."""
    if not data.matters:
        return None
    days = [[_day(data.rows.get(rid, {}).get(data.date_column)) if data.date_column else None for rid in m.rows]
            for m in data.matters]
    end = max([data.computed_at.date(), *(d for ds in days for d in ds if d)])
    growth = [_growth(ds, end) for ds in days]
    largest = largest_matters(data.matters)[:MATTERS_SHOWN]
    growing = fastest_growing(growth)[:GROWING_SHOWN]
    cards = {k: _matter_view(data, k, days[k], growth[k], t, lang) for k in {*largest, *growing}}
    window = _window_days(data.settings)
    return {
        "note": t["matters_note"].format(n=f"{len(data.matters):,}", within=t["within_days"].format(n=window)
                                         if window else t["within"]),
        "largest_rule": t["largest_rule"].format(shown=len(largest), n=f"{len(data.matters):,}"),
        "growing_rule": _growing_rule(end, t),
        "largest": [cards[k] for k in largest], "growing": [(cards[k], k in largest) for k in growing],
        "dated": bool(data.date_column),
    }


def largest_matters(matters: Sequence) -> list[int]:
    """The positions of `matters`, the largest first: by people, then rows, then as given."""
    return sorted(range(len(matters)), key=lambda k: (-matters[k].people, -len(matters[k].rows), k))


def fastest_growing(growth: Sequence[tuple[int, int]]) -> list[int]:
    """The positions of the matters that grew ((recent rows, previous rows) each), the
    largest increase first, then the most recent rows, then as given."""
    grew = [k for k, (recent, previous) in enumerate(growth) if recent > previous]
    return sorted(grew, key=lambda k: (growth[k][1] - growth[k][0], -growth[k][0], k))


def _growth(days: Iterable[dt.date | None], end: dt.date) -> tuple[int, int]:
    """(rows of the GROWTH_DAYS days up to `end`, rows of the GROWTH_DAYS days before those)."""
    ages = [(end - d).days for d in days if d]
    return (sum(0 <= a < GROWTH_DAYS for a in ages), sum(GROWTH_DAYS <= a < 2 * GROWTH_DAYS for a in ages))


def _growing_rule(end: dt.date, t: Mapping[str, str]) -> str:
    """The fastest-growing rule as the page says it, with its dates (`end`: the report's
    date, or the last row's when later)."""
    def back(days: int) -> str:
        return (end - dt.timedelta(days=days)).isoformat()
    return t["growing_rule"].format(days=GROWTH_DAYS, end=end.isoformat(), recent_from=back(GROWTH_DAYS - 1),
                                    previous_from=back(2 * GROWTH_DAYS - 1), previous_to=back(GROWTH_DAYS),
                                    top=GROWING_SHOWN)


def _window_days(settings: Mapping[str, Any]) -> int | None:
    """The matters' window of days the run was made with ([matters] window_days), if it says."""
    matters = settings.get("matters")
    window = matters.get("window_days") if isinstance(matters, Mapping) else None
    return window if isinstance(window, int) and not isinstance(window, bool) else None


def _matter_view(data: ReportData, position: int, days: list[dt.date | None], growth: tuple[int, int],
                 t: Mapping[str, str], lang: str) -> dict[str, Any]:
    """One matter as its card shows it: what and where, its figures, its rows per week and
    its latest rows (day order)."""
    matter = data.matters[position]
    kind, name = object_text(_text(matter.object), lang)
    members = list(matter.rows)
    shown = members[-MAX_ROWS_SHOWN:]
    first, last = _iso(matter.first), _iso(matter.last)
    recent, previous = growth
    return {
        "n": position + 1, "id": _text(matter.matter), "kind": kind, "name": name,
        "problem": problem_text(_text(matter.problem), lang), "people": matter.people, "size": len(members),
        "span": f"{first} – {last}" if first != last else first,
        "growth": t["growth_of"].format(recent=recent, previous=previous, up=recent - previous)
        if recent > previous else f"{recent} / {previous}",
        "chart": _matter_chart([d for d in days if d], t),
        "rows": [_matter_row(data, rid) for rid in shown], "earlier": len(members) - len(shown),
        "collapsed": len(members) > MATTER_ROWS_OPEN,
    }


def _iso(value: Any) -> str:
    """A day as ISO text (2025-03-01); another value as it is."""
    day = _day(value)
    return day.isoformat() if day else _text(value)


def _matter_row(data: ReportData, rid: Any) -> dict[str, Any]:
    """A matter's row as its card lists it: id, date, the short columns and the text's start."""
    row = data.rows.get(rid, {})
    text = _text(row.get(data.text_column or "")).strip()
    return {"id": str(rid), "date": _when(row.get(data.date_column or "")),
            "short": [_text(row.get(c)) for c in data.short_columns],
            "text": text if len(text) <= MATTER_TEXT else text[:MATTER_TEXT] + "…"}


def _matter_chart(days: list[dt.date], t: Mapping[str, str]) -> dict[str, Any] | None:
    """A matter's rows per week (Monday to Sunday) from its first row's week to its last's,
    per month past a year; None without dated rows. About 36 pixels a column, so that a
    matter of two weeks is not two wide slabs."""
    if not days:
        return None
    monday = min(days) - dt.timedelta(days=min(days).weekday())
    weeks = (max(days) - monday).days // 7 + 1
    if weeks > 53:
        items, title = _by_month({k: d for k, d in enumerate(days)}), t["per_month"]
    else:
        counts = Counter((d - monday).days // 7 for d in days)
        items = [((monday + dt.timedelta(weeks=w)).strftime("%m-%d"), counts[w]) for w in range(weeks)]
        title = t["per_week"]
    return column_chart(title, items, width=min(440, max(110, 56 + 36 * len(items))), height=150, fixed=True)


def object_text(key: str, lang: str = "zh") -> tuple[str, str]:
    """An object's key (core.matters) as (kind, name) to read: building:春华佳园@雁塔区#6 is
    (楼栋, 春华佳园6号楼（雁塔区）); a key of no known kind is ("", the key)."""
    kind, colon, name = key.partition(":")
    if not colon or kind not in OBJECT_KINDS[lang]:
        return "", key
    zh = lang == "zh"
    name, _, address = name.partition("|addr:")
    if kind == "building":
        name, _, number = name.partition("#")
    named, _, district = name.partition("@")
    where = [w for w in (district, address) if w]
    return OBJECT_KINDS[lang][kind], _named(kind, named, number if kind == "building" else "", zh) + (
        f"（{'，'.join(where)}）" if zh else f" ({', '.join(where)})") * bool(where)


def _named(kind: str, name: str, number: str, zh: bool) -> str:
    """An object's name in words, but for its district and street address."""
    if kind == "building" and number:
        phase, _, building = number.rpartition("期")
        said = f"{phase}期" if phase else ""
        if zh:
            return name + said + (f"{building}号楼" if building.isdigit() else f"{building}座")
        return f"{name}{', phase ' + phase if phase else ''}, building {building}"
    if kind == "company":
        brand, _, trade = name.partition("/")
        return brand + trade
    if kind == "junction" and "+" in name:
        a, _, b = name.partition("+")
        return f"{a}与{b}" if zh else f"{a} & {b}"
    if kind == "stretch" and ":" in name:
        return _stretch_text(name, zh)
    if kind == "line":
        return f"{name}路" if zh else f"route {name}"
    return name


def _stretch_text(name: str, zh: bool) -> str:
    """A stretch's key as words: 人民路:和平路-解放路 is 人民路（和平路至解放路）; 人民路:北段
    is 人民路北段; 人民路:和平路 is 人民路（和平路段）."""
    road, _, part = name.partition(":")
    if "-" in part:
        a, _, b = part.partition("-")
        return f"{road}（{a}至{b}）" if zh else f"{road} ({a} to {b})"
    if len(part) == 2 and part.endswith("段"):
        return road + part if zh else f"{road} {part}"
    return f"{road}（{part}段）" if zh else f"{road} (near {part})"


def problem_text(problem: str, lang: str = "zh") -> str:
    """A problem's name (heating) as the report's language says it (供暖); an unknown one as it is."""
    return PROBLEMS[lang].get(problem, problem)


# ---------------------------------------------------------------- groups

def _pairs_within(data: ReportData, shown: list[tuple[int, Sequence[Any]]]) -> dict[int, list]:
    """The pairs inside each shown group, by group number: one pass over all pairs."""
    group_of = {rid: n for n, ids in shown for rid in ids}
    found: dict[int, list] = defaultdict(list)
    for a, b, d in data.pairs:
        g = group_of.get(a)
        if g is not None and group_of.get(b) == g:
            found[g].append((a, b, d))
    return found


def _group_view(data: ReportData, number: int, ids: Sequence[Any], days: Mapping[Any, dt.date | None],
                pairs: list, t: Mapping[str, str]) -> dict[str, Any]:
    """One group as the template shows it: its rows oldest first, each text diffed
    against the first row's."""
    members = sorted(ids, key=lambda i: (days.get(i) or dt.date.max, str(i)))
    rows = [data.rows.get(i, {}) for i in members[:MAX_ROWS_SHOWN]]
    base_id, base = members[0], rows[0]
    base_text = _text(base.get(data.text_column or ""))[:TEXT_LIMIT]
    group_pairs = sorted(pairs, key=lambda p: (p[2], str(p[0]), str(p[1])))
    to_base = {(b if a == base_id else a): d for a, b, d in group_pairs if base_id in (a, b)}
    view_rows = []
    for k, (rid, row) in enumerate(zip(members, rows)):
        text = _text(row.get(data.text_column or ""))
        shown_text = text[:TEXT_LIMIT]
        view_rows.append({
            "id": str(rid), "date": _when(row.get(data.date_column or "")),
            "short": [(_text(row.get(c)), k > 0 and _text(row.get(c)) != _text(base.get(c)))
                      for c in data.short_columns],
            "segments": diff_segments(base_text, shown_text) if k else [("same", shown_text)],
            "truncated": len(text) > TEXT_LIMIT, "distance": "" if k == 0 else _distance(to_base.get(rid), t),
        })
    latest = _latest(ids, days)
    return {"number": number, "size": len(ids), "rows": view_rows, "more_rows": len(ids) - len(rows),
            "latest": latest.isoformat() if latest else "",
            "categories": sorted({_category(data, i, t) for i in ids}) if data.category_column else [],
            "pairs": [(str(a), str(b), _fmt(d), *_mark(_decided(data, a, b), t))
                      for a, b, d in group_pairs[:MAX_PAIRS_SHOWN]],
            "more_pairs": max(0, len(group_pairs) - MAX_PAIRS_SHOWN)}


def _group_index(data: ReportData, number: int, ids: Sequence[Any],
                 days: Mapping[Any, dt.date | None], t: Mapping[str, str]) -> dict[str, Any]:
    """What the page's script filters and sorts on."""
    dates = [d for d in (days.get(i) for i in ids) if d]
    return {"n": number, "size": len(ids),
            "first": min(dates).isoformat() if dates else "", "last": max(dates).isoformat() if dates else "",
            "cats": sorted({_category(data, i, t) for i in ids}) if data.category_column else []}


def diff_segments(base: str, text: str) -> list[tuple[str, str]]:
    """`text` as (kind, characters) pieces against `base`: "same", "added" (new or changed
    here) or "removed" (in base, not here), each change as removed then added. What is
    marked is what differs: the texts aligned on their longest common subsequence."""
    pieces: list[tuple[str, str]] = []
    done_a = done_b = 0
    for a, b, size in _shared_runs(base, text):
        if a > done_a:
            pieces.append(("removed", base[done_a:a]))
        if b > done_b:
            pieces.append(("added", text[done_b:b]))
        pieces.append(("same", text[b:b + size]))
        done_a, done_b = a + size, b + size
    if done_a < len(base):
        pieces.append(("removed", base[done_a:]))
    if done_b < len(text):
        pieces.append(("added", text[done_b:]))
    return pieces


def _shared_runs(base: str, text: str) -> list[tuple[int, int, int]]:
    """The runs both texts share, in order, as (start in base, start in text, length): an
    optimal character alignment (rapidfuzz's Indel opcodes, the longest common subsequence),
    where difflib's longest-block-first heuristic pairs a repeated phrase of a long text with
    the wrong repetition and marks whole paragraphs. Texts too long to align in
    ALIGN_CELLS share only their common start and end."""
    head = len(os.path.commonprefix([base, text]))
    tail = len(os.path.commonprefix([base[head:][::-1], text[head:][::-1]]))
    if (len(base) - head - tail) * (len(text) - head - tail) > ALIGN_CELLS:
        return [run for run in ((0, 0, head), (len(base) - tail, len(text) - tail, tail)) if run[2]]
    runs = [(a0, b0, a1 - a0) for tag, a0, a1, b0, b1 in Indel.opcodes(base, text).as_list() if tag == "equal"]
    return _without_stray_runs(runs, len(base), len(text))


def _without_stray_runs(runs: list[tuple[int, int, int]], len_a: int, len_b: int) -> list[tuple[int, int, int]]:
    """`runs` less those of at most STRAY_RUN characters between longer changes (a 的 or a
    comma two rewritten sentences happen to share), until none is left: a rewrite is then
    marked as one phrase, not a scatter of single characters."""
    while True:
        kept: list[tuple[int, int, int]] = []
        for k, (a, b, size) in enumerate(runs):
            end_a, end_b = (kept[-1][0] + kept[-1][2], kept[-1][1] + kept[-1][2]) if kept else (0, 0)
            next_a, next_b = runs[k + 1][:2] if k + 1 < len(runs) else (len_a, len_b)
            before, after = max(a - end_a, b - end_b), max(next_a - a - size, next_b - b - size)
            if not (size <= STRAY_RUN and size < before and size < after):
                kept.append((a, b, size))
        if len(kept) == len(runs):
            return kept
        runs = kept


def _text(value: Any) -> str:
    """A database value as display text; NULL is empty."""
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _when(value: Any) -> str:
    """A date or time to the minute: 2025-03-01 09:30; other values as they are."""
    text = _text(value)
    return text[:16].replace("T", " ") if _day(value) and len(text) > 10 else text


def _distance(distance: Any, t: Mapping[str, str]) -> str:
    """A row's distance to its group's first row: a number, or that a reviewer made them a
    pair (the rule did not measure it)."""
    return t["by_reviewer"] if distance == NOT_MEASURED else _fmt(distance)


def _fmt(distance: Any) -> str:
    """A distance as text; "—" when there is none or the rule did not measure it."""
    if distance is None or distance == NOT_MEASURED:
        return "—"
    return f"{distance:g}" if isinstance(distance, float) else str(distance)


# ---------------------------------------------------------------- exports

def groups_table(data: ReportData, columns: Sequence[str]) -> Table:
    """Every row of every group: group number, group size, id and the chosen columns."""
    def rows() -> Iterator[list[Any]]:
        for number, ids in numbered_groups(data):
            for rid in ids:
                row = data.rows.get(rid, {})
                yield [number, len(ids), rid, *(row.get(c) for c in columns)]
    return ["group", "group_size", "id", *columns], rows()


def pairs_table(data: ReportData, columns: Sequence[str]) -> Table:
    """Every similar pair: its group, both ids, the distance and the chosen columns of both."""
    def rows() -> Iterator[list[Any]]:
        group_of = {rid: n for n, ids in numbered_groups(data) for rid in ids}
        for a, b, d in data.pairs:
            ra, rb = data.rows.get(a, {}), data.rows.get(b, {})
            yield [group_of.get(a), a, b, d, *(ra.get(c) for c in columns), *(rb.get(c) for c in columns)]
    return (["group", "id_a", "id_b", "distance", *(f"{c}_a" for c in columns), *(f"{c}_b" for c in columns)],
            rows())


def write_csv(path: str, table: Table) -> int:
    """CSV in UTF-8 with a byte-order mark, so Excel reads Chinese correctly. A text that
    Excel would run as a formula (=, +, -, @ at the start, not a number) gets a leading '.
    Returns the number of data rows."""
    header, rows = table
    count = 0
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in rows:
            writer.writerow([_csv_cell(v) for v in row])
            count += 1
    return count


def write_jsonl(path: str, table: Table) -> int:
    """One JSON object per line, UTF-8, values as they are (dates as ISO text)."""
    header, rows = table
    count = 0
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(dict(zip(header, row)), ensure_ascii=False, default=_json_default) + "\n")
            count += 1
    return count


def _csv_cell(value: Any) -> str:
    text = value if type(value) is str else _text(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return str(value)
