"""What the rule found, for browsing: `/found/pairs` and `/found/groups` list the live batch's
pairs and groups (as the batch stored them: review.found), a page at a time, each with its
rows' ids and titles, its distance, the verdict standing on a pair, the audit's pairs (抽检)
marked, and a link to its pair or group page. Rows shown pass through privacy.shown.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Flask, current_app, render_template, request, url_for

from ..core.decision import id_order
from ..report.render import _text
from . import privacy
from .paging import paged

ROWS_TITLED = 6  # rows of a group listed with their titles (the group page shows every row)


def item_url(item: Any) -> str:
    """The page of a queue item: its pair's, or its group's."""
    if item.kind == "pair":
        return url_for("pair", a=str(item.rows[0]), b=str(item.rows[1]))
    return url_for("group", row=[str(r) for r in item.rows])


def register(app: Flask) -> None:
    """Add the pages of what the rule found to the console."""
    app.add_url_rule("/found/pairs", "found_pairs", pairs)
    app.add_url_rule("/found/groups", "found_groups", groups)


def pairs() -> Any:
    """A page of the live batch's pairs, in id order."""
    desk = current_app.extensions["dedup"].desk
    found = desk.found()
    page, listed = paged(found.pairs, request.args.get("page"))
    titles = _titles(desk, [r for a, b, _ in listed for r in (a, b)])
    verdicts = desk.verdicts([(a, b) for a, b, _ in listed])
    rows = [{"n": n, "ids": [str(a), str(b)], "titles": [titles.get(a, ""), titles.get(b, "")],
             "distance": distance_text(d), "audit": (a, b) in found.audit, "verdict": _verdict(verdicts.get((a, b))),
             "url": url_for("pair", a=str(a), b=str(b))} for n, (a, b, d) in enumerate(listed, page.first)]
    return render_template("found_pairs.html.j2", endpoint="found_pairs", pairs=rows, page=page,
                           audit=len(found.audit), title_column=desk.columns.title)


def groups() -> Any:
    """A page of the live batch's groups, by their first row's id."""
    desk = current_app.extensions["dedup"].desk
    found = desk.found()
    page, listed = paged(found.groups, request.args.get("page"))
    titles = _titles(desk, [r for members, _ in listed for r in members[:ROWS_TITLED]])
    rows = [{"n": n, "size": len(members), "ids": [str(r) for r in members[:ROWS_TITLED]],
             "more": max(0, len(members) - ROWS_TITLED), "distance": distance_text(d),
             "titles": _distinct(titles.get(r, "") for r in members[:ROWS_TITLED]),
             "url": url_for("group", row=[str(r) for r in members])}
            for n, (members, d) in enumerate(listed, page.first)]
    return render_template("found_groups.html.j2", endpoint="found_groups", groups=rows, page=page,
                           title_column=desk.columns.title)


def _titles(desk: Any, ids: list) -> dict[Any, str]:
    """{id: its title as text} of these rows (as privacy.shown lets this request see them)."""
    column = desk.columns.title
    if not column or not ids:
        return {}
    shown = privacy.shown(desk.rows_of(sorted(set(ids), key=id_order)), "found")
    return {row[desk.columns.id]: _text(row.get(column)) for row in shown}


def _distinct(titles: Any) -> list[str]:
    """The titles, each once, in order; none empty."""
    return list(dict.fromkeys(t for t in titles if t))


def distance_text(value: Any) -> str:
    """A distance as the console's pages show it (three significant digits): "—" for none
    (None, or NaN: a pair of the rule's that a reviewer decided since keeps no distance)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.3g}" if isinstance(value, (int, float)) else str(value)


def _verdict(verdict: Any) -> str | None:
    """"same" or "different" for a verdict standing, None for none (or one no longer standing)."""
    if verdict is None or verdict.stale:
        return None
    return "same" if verdict.same else "different"
