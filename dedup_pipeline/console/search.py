"""The console's search, `/search?q=`: rows by id (exact), by name, phone or another short
field (contains), or by the words of their text (every word present), as sql/search.py finds
them; the fields masked for the reviewer (privacy.masked_columns: phones, unless they may see
them) are not searched. Each result shows its title, name, date and an excerpt of its text
around the first word found, with links to the pairs it is in, to it and its partners as a
group, and to its queue item when it is queued. Signed-in reviewers only, as every page
(app.py's guard).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, current_app, render_template, request, url_for

from ..core.decision import id_order, pair_key
from ..report.render import _text, _when
from ..sql.search import MAX_LENGTH, Found, words
from . import privacy
from .found import item_url

EXCERPT = 120  # characters of a row's text a result shows
BEFORE = 30  # of them before the first word found
PAIRS_LISTED = 5  # pair links a result lists
GROUP_LINKED = 30  # rows at most of a group a result links to (the group page shows every row)


def register(app: Flask) -> None:
    """Add the search page to the console."""
    app.add_url_rule("/search", "search", page)


def page() -> Any:
    """The search form and, for a query, the rows it finds in the fields this reviewer sees
    unmasked (each shown as privacy.shown allows)."""
    desk = current_app.extensions["dedup"].desk
    text = request.args.get("q", "").strip()[:MAX_LENGTH]
    wanted = words(text)
    unsearched = privacy.masked_columns(f.name for f in desk.config.fields)
    found = desk.search(text, unsearched) if wanted else Found([], False, {})
    rows = privacy.shown(found.rows, "search")
    queued = {r: item for item in desk.queue() for r in item.rows} if rows else {}
    cols = desk.columns
    results = [_result(cols, row, wanted, found.partners.get(row[cols.id], []), queued.get(row[cols.id]))
               for row in rows]
    return render_template("search.html.j2", query=text, results=results, more=found.more,
                           title_column=cols.title, name_column=cols.name)


def _result(cols: Any, row: dict[str, Any], wanted: list[str], partners: list, item: Any) -> dict[str, Any]:
    """A row as a result: its fields as text, its excerpt, and its links."""
    rid = row[cols.id]
    group = sorted([rid, *partners], key=id_order)
    return {"id": str(rid), "title": marked(_text(row.get(cols.title)) if cols.title else "", wanted),
            "name": _text(row.get(cols.name)) if cols.name else "",
            "date": _when(row.get(cols.date)) if cols.date else "",
            "excerpt": excerpt(_text(row.get(cols.text)) if cols.text else "", wanted),
            "pairs": [{"id": str(p), "url": url_for("pair", a=str(a), b=str(b))}
                      for p in partners[:PAIRS_LISTED] for a, b in [pair_key(rid, p)]],
            "pairs_more": max(0, len(partners) - PAIRS_LISTED),
            "group": url_for("group", row=[str(r) for r in group]) if 3 <= len(group) <= GROUP_LINKED else None,
            "group_size": len(group), "queued": item_url(item) if item else None,
            "queued_kind": item.kind if item else None}


def excerpt(text: str, wanted: list[str]) -> list[tuple[str, str]]:
    """About EXCERPT characters of `text` (white space made single spaces) from a little before
    the first of the words found in it (its start when none is), `marked`; "…" where the text
    goes on."""
    text = " ".join(text.split())
    first = _pattern(wanted).search(text) if wanted else None
    start = max(0, first.start() - BEFORE) if first else 0
    return marked(("…" if start else "") + text[start:start + EXCERPT]
                  + ("…" if start + EXCERPT < len(text) else ""), wanted)


def marked(text: str, wanted: list[str]) -> list[tuple[str, str]]:
    """`text` as pieces: "hit" where one of the words is (in any case), for the page to mark."""
    pieces, at = [], 0
    for hit in _pattern(wanted).finditer(text) if wanted else ():
        pieces += [("same", text[at:hit.start()]), ("hit", hit.group())]
        at = hit.end()
    pieces.append(("same", text[at:]))
    return [(kind, piece) for kind, piece in pieces if piece]


def _pattern(wanted: list[str]) -> re.Pattern:
    """Any of the words, the longest first."""
    return re.compile("|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True)), re.IGNORECASE)
