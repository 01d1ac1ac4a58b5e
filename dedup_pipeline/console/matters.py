"""Matters (热点事项) in the console, to read: `/matters` lists the table's matters, the
largest first, a page at a time (object, problem, people, rows, first and last day);
`/matters/<id>` shows one matter's rows together in day order (date, title, name and phone,
an excerpt of the text), each linked to its search result (the row, its pairs, its queue
item) and to its duplicates when the batch found some, and what became of matters' ids in it
(merged, split, renamed: sql.matters.history); an id merged or renamed away says where it
went. A reviewer takes a row out of the matter (or puts it back), and puts two matters
together (or separates them): `POST /matters/<id>/decide`, review.matter_decide, obeyed at
once and by every later run. The rows pass through privacy.shown (masked, noted in the access
log).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g, redirect, render_template, request, session, url_for

from ..core.decision import id_order
from ..errors import DedupError, InputError
from ..report.render import _text, _when, object_text, problem_text
from ..sql.matters import about
from . import privacy
from .paging import paged

EXCERPT = 160  # characters of a row's text the matter page shows
GROUP_LINKED = 30  # rows at most of a duplicate group a row links to (as search.py)

LABELS = {
    "zh": {"matters": "热点事项", "matter": "热点事项", "matters_hint":
           "至少两位不同的人就同一个对象（一栋楼、一个小区、一家公司、一处工地、一个路口……）反映同一个问题的行，"
           "按人数、再按行数排序。打开一个事项可以移出不属于它的行，或与另一事项合并。",
           "matters_off": "尚无热点事项：此功能默认关闭。在配置中设 [matters] find = true，然后运行 "
                          "dedup-pipeline migrate 和 dedup-pipeline batch。",
           "matters_none": "最近一次批处理没有找到热点事项（没有两位以上不同的人反映同一对象的同一问题）。",
           "object": "对象", "problem": "问题", "people": "人数", "span": "时间", "matter_rows": "行数",
           "matter_id": "事项编号", "no_matter": "没有编号为 {id} 的热点事项。", "who": "反映人",
           "matter_rows_hint": "本事项的行，按日期排序；点编号查看该行及其相似对。",
           "duplicates": "重复组 {n} 行", "people_of": "{n} 人", "rows_of": "{n} 行", "gone": "（已不在表中）",
           "all_matters": "全部热点事项", "history": "编号变化",
           "merged": "{at} 事项 #{other} 并入本事项（{rows} 行）", "split": "{at} 从事项 #{other} 拆分出 {rows} 行",
           "renamed": "{at} 原为事项 #{other}（{rows} 行；最早的一行已不在其中，或更早的一行加入）",
           "merged_away": "{at} 事项 #{other} 并入了事项 #{matter}", "split_away": "{at} 本事项的 {rows} 行拆分为事项 #{matter}",
           "renamed_away": "{at} 本事项的编号改为 #{matter}",
           "moved": "热点事项 {id} 已{how}事项 {new}。", "moved_merged": "并入", "moved_renamed": "改编号为",
           "open_matter": "查看事项 {new}", "apart": "移出本事项", "apart_hint": "这一行说的不是本事项",
           "together": "与事项合并", "together_hint": "另一事项的编号", "together_go": "合并",
           "decided": "审核员的决定", "back": "放回", "separate": "取消合并",
           "said_apart": "{at} {who} 将 #{row} 移出", "said_back": "{at} {who} 将 #{row} 放回",
           "said_together": "{at} {who} 将本事项与 #{other} 合并", "said_separate": "{at} {who} 取消与 #{other} 的合并"},
    "en": {"matters": "Matters", "matter": "Matter", "matters_hint":
           "Rows of at least two different people about one object (a building, a compound, a company, a site, "
           "an intersection…) and one problem, by people, then rows. Open one to take out a row that is not "
           "about it, or to put it together with another.",
           "matters_off": "No matters yet: the stage is off by default. Set [matters] find = true in the "
                          "configuration, then run dedup-pipeline migrate and dedup-pipeline batch.",
           "matters_none": "The last batch found no matter (no object and problem that two different people "
                           "wrote about).",
           "object": "Object", "problem": "Problem", "people": "People", "span": "Dates", "matter_rows": "Rows",
           "matter_id": "Matter", "no_matter": "There is no matter with id {id}.", "who": "Filed by",
           "matter_rows_hint": "The matter's rows by date; an id opens the row and its pairs.",
           "duplicates": "duplicates: {n} rows", "people_of": "{n} people", "rows_of": "{n} rows",
           "gone": "(no longer in the table)", "all_matters": "All matters", "history": "Its ids",
           "merged": "{at} matter #{other} joined it ({rows} rows)", "split": "{at} {rows} rows split from matter #{other}",
           "renamed": "{at} was matter #{other} ({rows} rows; its first row went, or an earlier row joined)",
           "merged_away": "{at} matter #{other} joined matter #{matter}", "split_away": "{at} {rows} of its rows split into matter #{matter}",
           "renamed_away": "{at} its id became #{matter}",
           "moved": "Matter {id} {how} matter {new}.", "moved_merged": "joined", "moved_renamed": "is now",
           "open_matter": "Open matter {new}", "apart": "Take out", "apart_hint": "This row is not about the matter",
           "together": "Put together with matter", "together_hint": "the other matter's id", "together_go": "Put together",
           "decided": "Reviewers' decisions", "back": "Put back", "separate": "Separate",
           "said_apart": "{at} {who} took #{row} out", "said_back": "{at} {who} put #{row} back",
           "said_together": "{at} {who} put it together with #{other}",
           "said_separate": "{at} {who} separated it from #{other}"},
}


def register(app: Flask) -> None:
    """Add the matters' pages to the console, and their link to every page's header."""
    app.add_url_rule("/matters", "matters", listing)
    app.add_url_rule("/matters/<written>", "matter", matter)
    app.add_url_rule("/matters/<written>/decide", "matter_decide", decide, methods=["POST"])
    app.context_processor(_header)


def _desk() -> Any:
    return current_app.extensions["dedup"].desk


def _header() -> dict[str, Any]:
    """The matters' words, and whether the header links to them: for a signed-in reviewer
    when dedup_matter holds rows of the table. A desk that keeps no matters (a test's
    stand-in) or a database that cannot say shows no link, and the page still renders."""
    lang = session.get("lang", "zh")
    shown = False
    held = getattr(_desk(), "matters_held", None)
    if session.get("reviewer") and held is not None:
        try:
            shown = held()
        except DedupError:
            shown = False
    return {"tm": LABELS.get(lang, LABELS["zh"]), "matters_link": shown}


def listing() -> Any:
    """A page of the table's matters, the largest first."""
    desk, lang = _desk(), session.get("lang", "zh")
    found = desk.matters()
    page, listed = paged(found, request.args.get("page"))
    return render_template("matters.html.j2", endpoint="matters", page=page, held=desk.matters_held(),
                           matters=[_listed(n, m, lang) for n, m in enumerate(listed, page.first)])


def _listed(number: int, m: Any, lang: str) -> dict[str, Any]:
    """A matter as the list shows it."""
    kind, name = object_text(_text(m.object), lang)
    return {"n": number, "id": str(m.matter), "kind": kind, "name": name,
            "problem": problem_text(_text(m.problem), lang), "people": m.people, "rows": len(m.rows),
            "span": _span(m), "url": url_for("matter", written=str(m.matter))}


def _span(m: Any) -> str:
    """A matter's first and last day: "2025-03-01 – 2025-03-20", one day once."""
    first, last = _text(m.first), _text(m.last)
    return first if first == last else f"{first} – {last}"


def matter(written: str) -> Any:
    """A matter's rows together, in day order, a page at a time; 404 for no such matter."""
    desk, lang = _desk(), session.get("lang", "zh")
    found = desk.matter(written) if len(written) <= 64 else None
    words = LABELS.get(lang, LABELS["zh"])
    if found is None:
        return _not_found(desk, written[:64], words)
    page, listed = paged(found.rows, request.args.get("page"))
    rows = _rows(desk, listed)
    return render_template("matter.html.j2", endpoint="matter", page=page, view=_listed(0, found, lang),
                           rows=rows, columns=desk.columns, history=_history(desk, found.matter, words),
                           decisions=_decisions(desk, found.matter, words))


VERDICTS = ("apart", "back", "together", "separate")


def decide(written: str) -> Any:
    """Record a reviewer's decision on this matter (review.matter_decide), then back to the
    page of the matter the row is in now (this one's, when in none)."""
    form = request.form
    verdict, row, other = form.get("verdict"), (form.get("row") or "").strip(), (form.get("other") or "").strip()
    if verdict not in VERDICTS or not row or len(row) > 64 or len(other) > 64 or (
            verdict in ("together", "separate") and not other):
        raise InputError("the form's decision, row or other matter is missing or malformed: go back and send it again")
    g.again = url_for("matter", written=written[:64])
    now = _desk().matter_decide(verdict, row, other or None, by=session["reviewer"])
    return redirect(url_for("matter", written=str(now if now is not None else written[:64])), 303)


def _decisions(desk: Any, matter: Any, words: dict[str, str]) -> list[dict[str, Any]]:
    """The decisions reviewers made on this matter, as its page lists them, each standing
    apart or together with the form that undoes it."""
    made = getattr(desk, "matter_decisions", None)
    listed = made(matter) if made is not None else []
    standing = {about(d.row, d.other): d for d in listed}  # the last on a row, or a pair, holds
    undo = {"apart": "back", "together": "separate"}
    return [{"said": words["said_" + d.verdict].format(at=_when(d.at), who=d.reviewer, row=d.row, other=d.other),
             "undo": undo.get(d.verdict) if standing[about(d.row, d.other)] is d
             else None, "row": str(d.row), "other": "" if d.other is None else str(d.other)} for d in listed]


def _events(desk: Any, matter: Any) -> list:
    """What became of ids in this matter and of its own ((when, sql.matters.Event), oldest
    first); none from a desk that keeps no history (a test's stand-in)."""
    history = getattr(desk, "matter_history", None)
    return history(matter) if history is not None else []


def _history(desk: Any, matter: Any, words: dict[str, str]) -> list[str]:
    """The matter's history, a line an event, as its page says it."""
    lines = []
    for at, e in _events(desk, matter):
        away = "" if e.matter == matter else "_away"
        lines.append(words[e.kind + away].format(at=_when(at), other=e.other, matter=e.matter, rows=e.rows))
    return lines


def _not_found(desk: Any, written: str, words: dict[str, str]) -> Any:
    """404 for an id that is no matter, saying where it went when it was merged or renamed
    into another (its last such event)."""
    moved = [e for _, e in _events(desk, written) if str(e.other) == written and e.kind in ("merged", "renamed")]
    if moved and desk.matter(str(moved[-1].matter)) is not None:
        new = moved[-1].matter
        message = words["moved"].format(id=written, how=words["moved_" + moved[-1].kind], new=new)
        link = (url_for("matter", written=str(new)), words["open_matter"].format(new=new))
    else:
        message, link = words["no_matter"].format(id=written), (url_for("matters"), words["all_matters"])
    return render_template("message.html.j2", title=g.t["not_found"], message=message, link=link), 404


def _rows(desk: Any, ids: list) -> list[dict[str, Any]]:
    """These rows of a matter as its page lists them, in the matter's order (by day), as
    privacy.shown lets this request see them; a row gone from the table since the batch is
    listed by its id alone."""
    cols = desk.columns
    shown = privacy.shown(desk.rows_of(sorted(set(ids), key=id_order)), "matter")
    by_id = {row[cols.id]: row for row in shown}
    duplicates = _duplicates(desk, ids)
    return [_row(cols, rid, by_id.get(rid), duplicates.get(rid)) for rid in ids]


def _row(cols: Any, rid: Any, row: dict[str, Any] | None, group: list | None) -> dict[str, Any]:
    """One row of a matter: its date, title, name, phone and text's start, its links."""
    def value(column: str | None) -> str:
        return _text(row.get(column)) if row is not None and column else ""

    return {"id": str(rid), "present": row is not None, "url": url_for("search", q=str(rid)),
            "date": _when(row.get(cols.date)) if row is not None and cols.date else "",
            "title": value(cols.title), "name": value(cols.name), "phone": value(cols.phone),
            "excerpt": _excerpt(value(cols.text)),
            "duplicates": _group_link(group)}


def _excerpt(text: str) -> str:
    """The start of a text, white space made single spaces: EXCERPT characters, "…" where it goes on."""
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


def _duplicates(desk: Any, ids: list) -> dict[Any, list]:
    """{row: its duplicate group (the batch's, review.found)} of these rows that are in one."""
    wanted = set(ids)
    return {r: list(members) for members, _ in desk.found().groups for r in members if r in wanted}


def _group_link(group: list | None) -> dict[str, Any] | None:
    """The page of a row's duplicates: their pair's, or their group's (when small enough to name)."""
    if not group or len(group) < 2 or len(group) > GROUP_LINKED:
        return None
    rows = [str(r) for r in group]
    url = url_for("pair", a=rows[0], b=rows[1]) if len(rows) == 2 else url_for("group", row=rows)
    return {"url": url, "n": len(rows)}
