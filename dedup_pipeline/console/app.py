"""The console's pages and its JSON API, as a Flask app made by `create_app`.

Everything but /login and /static answers a visitor without a session with a redirect to
/login (pages) or 401 (the API and every POST), before any row is read. A session holds only
while its reviewer exists, enabled, with the password and session generation it was signed
in with (a stamp of both, checked on every request), and while it is used (`[console]
idle_minutes`) and younger than SESSION_HOURS: a sign-out, `reviewer remove`, `disable` or
`add --replace` ends every session of that reviewer. The rows a page shows are in the access
log (privacy.shown notes them; after_request writes them).
Database values reach the page only through Jinja2's autoescaping, as in the report (no
`|safe` anywhere); the character diff is the report's own (report.render.diff_segments).
"""

from __future__ import annotations

import collections
import datetime as dt
import itertools
import math
import re
import threading
from dataclasses import dataclass
from typing import Any, Sequence
from urllib.parse import urlsplit

import jinja2
from flask import (Flask, g, jsonify, redirect, render_template, request, session, url_for)
from werkzeug.exceptions import HTTPException

from ..core.decision import id_order
from ..errors import DedupError, InputError, UsageError
from ..sql.decisions import Conflict
from ..report.render import _text, _when, diff_segments  # the report's diff, and its display of values
from . import found, guard, matters, privacy, search
from .found import item_url  # app.item_url, as before
from .paging import paged
from .desk import Desk, NoSuchRow, item_key
from .labels import COLUMNS, LABELS, LANGS

SESSION_HOURS = 8
ROWS_LISTED = 6  # a queue item's rows listed by id
GROUP_ROWS = 1000  # rows of a group a form may name
NAMED_ROWS = 6  # rows named when the pages say what was recorded of a group
SKIPPED_KEPT = 1000  # items a reviewer skipped, remembered per reviewer while the server runs
PUBLIC = {"login", "sign_in", "static"}
UNATTENDED = {"counts"}  # what an open page asks by itself: no use of the session (idle_minutes)


@dataclass(frozen=True)
class Settings:
    """How the console is served: `secure` when reached through HTTPS (a reverse proxy), so
    that the cookie is sent over HTTPS only."""

    secure: bool = False
    secret: bytes | None = None  # else guard.secret_key of the data folder


def create_app(desk: Desk, settings: Settings = Settings(), limit: guard.LoginLimit | None = None) -> Flask:
    """The console over `desk` (the library's calls, or a test's stand-in), its failed logins
    limited by `limit` (by default kept in the desk's database)."""
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=settings.secret or guard.secret_key(desk.config.store.data_dir),
        SESSION_COOKIE_NAME="dedup_console", SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=settings.secure, PERMANENT_SESSION_LIFETIME=dt.timedelta(hours=SESSION_HOURS),
        MAX_CONTENT_LENGTH=64 * 1024, SEND_FILE_MAX_AGE_DEFAULT=0,
    )
    app.jinja_env.undefined = jinja2.StrictUndefined
    app.jinja_env.autoescape = True  # .j2 templates are not autoescaped by Flask's default rule
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters["num"] = lambda n: f"{n:,}"
    app.extensions["dedup"] = Console(desk, limit or guard.LoginLimit())
    _routes(app)
    search.register(app)
    found.register(app)
    matters.register(app)
    return app


class Console:
    """The app's state: the desk, the login limit, and what each reviewer skipped."""

    def __init__(self, desk: Desk, limit: guard.LoginLimit):
        self.desk, self.limit = desk, limit
        if limit.store is None:
            limit.store = desk  # failed logins kept in the database: they survive a restart
        self.clock = limit.clock  # seconds since the epoch: a session's sign-in and last use
        self._skipped: dict[str, collections.OrderedDict] = collections.defaultdict(collections.OrderedDict)
        self._lock = threading.Lock()

    def skip(self, reviewer: str, key: str) -> None:
        with self._lock:
            kept = self._skipped[reviewer]
            kept[key] = None
            while len(kept) > SKIPPED_KEPT:
                kept.popitem(last=False)

    def skipped(self, reviewer: str) -> set[str]:
        with self._lock:
            return set(self._skipped[reviewer])


class Refusal(Exception):
    """A request the console refuses with `status` and the message labelled `key` (its
    `values` filled in), in the reviewer's language."""

    def __init__(self, status: int, key: str, **values: Any):
        super().__init__(key)
        self.status, self.key, self.values = status, key, values


TITLES = {400: "bad_request", 404: "not_found", 405: "not_allowed", 409: "conflict", 413: "too_large"}
HTTP_MESSAGES = {400: "bad_request_text", 404: "no_page", 405: "not_allowed_text", 413: "too_large_text"}


def _refused(status: int, key: str, link: tuple[str, str] | None = None, **values: Any) -> Any:
    """The console's own page (JSON under /api/) for a refusal: a title for the status, the
    message labelled `key`, and a link onward (its address and label key) besides the queue."""
    g.t = g.get("t") or LABELS[session.get("lang", "zh")]
    message = g.t[key].format(**values)
    if request.path.startswith("/api/"):
        return jsonify(error=message), status
    return render_template("message.html.j2", title=g.t[TITLES.get(status, "refused")], message=message,
                           link=(link[0], g.t[link[1]]) if link else None), status


def _console() -> Console:
    from flask import current_app

    return current_app.extensions["dedup"]


def _routes(app: Flask) -> None:
    @app.before_request
    def guard_request() -> Any:
        lang = request.args.get("lang")
        if lang in LANGS:
            session["lang"] = lang
        g.t = LABELS[session.get("lang", "zh")]
        if request.endpoint != "static" and session.get("reviewer") and not _session_holds():
            _end_session()
        if request.endpoint not in PUBLIC and not session.get("reviewer"):
            if request.path.startswith("/api/"):
                return jsonify(error="sign in first"), 401
            if request.method == "POST":  # a form sent from a page whose session has ended since
                return render_template("login.html.j2", failed=g.t["session_ended"], next=_item_of(request.form)), 401
            return redirect(url_for("login", next=request.full_path if request.query_string else request.path))
        if request.method == "POST":
            given = request.form.get(guard.CSRF_FIELD) or request.headers.get(guard.CSRF_HEADER)
            if not guard.same_token(given, session.get("csrf")):
                return render_template("message.html.j2", title=g.t["refused"], message=g.t["csrf"]), 403
        return None

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.update(guard.HEADERS)
        return response

    @app.after_request
    def log_access(response: Any) -> Any:
        """The rows this request showed, in the access log (before the answer leaves: a page
        whose viewing cannot be logged is not sent)."""
        viewed = privacy.viewed()
        if not viewed or response.status_code >= 400 or not session.get("reviewer"):
            return response
        try:
            _console().desk.log_access(session["reviewer"], request.remote_addr, viewed)
        except DedupError as error:
            return app.make_response((render_template("message.html.j2", title=g.t["unavailable"],
                                                      message=str(error)), 503))
        return response

    @app.context_processor
    def common() -> dict[str, Any]:
        if "csrf" not in session:
            session["csrf"] = guard.new_token()
        lang = session.get("lang", "zh")
        return {"t": g.t, "csrf": session["csrf"], "reviewer": session.get("reviewer"), "lang": lang,
                "column": lambda name: COLUMNS[lang].get(name, name)}

    @app.errorhandler(NoSuchRow)
    def no_such_row(error: NoSuchRow) -> Any:
        return _refused(404, "no_row", id=error.written)

    @app.errorhandler(InputError)
    @app.errorhandler(UsageError)
    def bad_input(error: DedupError) -> Any:
        return _refused(400, "input_error", detail=str(error))

    @app.errorhandler(Refusal)
    def refusal(error: Refusal) -> Any:
        return _refused(error.status, error.key, **error.values)

    @app.errorhandler(Conflict)
    def conflict(error: Conflict) -> Any:
        """A decision (or an undo) from a view no longer current: who decided what since, when,
        and a link to decide again from the current state."""
        again = (g.get("again") or url_for("queue"), "decide_again")
        latest = error.latest
        if latest is None:
            return _refused(409, "nothing_to_undo" if request.endpoint == "undo" else "conflict_gone", link=again)
        return _refused(409, "conflict_text", link=again, reviewer=latest.reviewer, when=_when(latest.decided_at),
                        what=_what(latest))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        """Werkzeug's refusals (no such page, a method or a size not allowed) as the console's page."""
        key = HTTP_MESSAGES.get(error.code or 500, "http_other")
        return _refused(error.code or 500, key, path=request.path, method=request.method, code=error.code)

    @app.errorhandler(DedupError)
    def unavailable(error: DedupError) -> Any:
        return render_template("message.html.j2", title=g.t["unavailable"], message=str(error)), 503

    @app.get("/login")
    def login() -> Any:
        return render_template("login.html.j2", failed=None, next=_safe_next(request.args.get("next")))

    @app.post("/login")
    def sign_in() -> Any:
        console = _console()
        name = request.form.get("name", "").strip()[:64]
        wait = console.limit.wait(name, request.remote_addr)
        if wait > 0:
            minutes = max(1, math.ceil(wait / 60))
            return (render_template("login.html.j2", failed=g.t["too_many"].format(minutes=minutes), next=None),
                    429, {"Retry-After": str(math.ceil(wait))})
        stamp = console.desk.sign_in(name, request.form.get("password", ""))
        if stamp is None:
            console.limit.failed(name, request.remote_addr)
            return render_template("login.html.j2", failed=g.t["bad_login"], next=None), 401
        console.limit.succeeded(name)
        _end_session()  # a new session, a new token: nothing of the visitor's carries over
        now = console.clock()
        session.update(reviewer=name, stamp=stamp, csrf=guard.new_token(), since=now, seen=now)
        session.permanent = True
        return redirect(_safe_next(request.form.get("next")) or url_for("queue"), 303)

    @app.post("/logout")
    def logout() -> Any:
        """Sign out every session of this reviewer (every copy of the cookie, every computer)."""
        _console().desk.sign_out(session["reviewer"])
        _end_session()
        return redirect(url_for("login"), 303)

    @app.get("/")
    def queue() -> Any:
        desk = _console().desk
        items = desk.queue()
        page, listed = paged(items, request.args.get("page"))
        return render_template("queue.html.j2", items=_listing(desk, listed, page.first), page=page,
                               counts=desk.counts(),
                               figures=_figures(desk.figures()))

    @app.get("/next")
    def next_item() -> Any:
        item = _next(_console(), session["reviewer"])
        return redirect(item_url(item) if item else url_for("queue"), 303)

    @app.get("/pair")
    def pair() -> Any:
        desk = _console().desk
        rows = _distinct_rows(desk, _given(request.args, "a", "b"))
        ids = (rows[0][desk.columns.id], rows[1][desk.columns.id])
        decided = desk.history(*ids)
        view = _pair_view(desk, rows, privacy.shown(rows, "pair"))
        return render_template("pair.html.j2", view=view, ids=ids, counts=desk.counts(),
                               history=_history(decided), seen=_seen_token(decided), key=item_key("pair", ids),
                               position=_position(desk, "pair", ids))

    @app.get("/group")
    def group() -> Any:
        desk = _console().desk
        rows = _distinct_rows(desk, _given_rows(request.args))
        ids = [r[desk.columns.id] for r in rows]
        decided = desk.group_history(ids)
        view = _group_view(desk, rows, privacy.shown(rows, "group"))
        return render_template("group.html.j2", view=view, ids=ids, counts=desk.counts(),
                               history=_group_history(decided), seen=_seen_token(decided),
                               key=item_key("group", ids), position=_position(desk, "group", ids))

    @app.post("/decide")
    def decide() -> Any:
        """Record a decision made from a page; refused (409) when the page showed a decision
        about its rows older than the latest (`seen`, which every form of the console carries:
        400 without it), so that nobody overwrites unawares."""
        desk, form = _console().desk, request.form
        verdict, note = form.get("verdict"), (form.get("note") or "").strip() or None
        if verdict not in ("same", "different"):
            raise Refusal(400, "bad_verdict")
        seen, kind, by = _seen(form.get("seen")), form.get("kind", "pair"), session["reviewer"]
        if kind == "group":
            shown = _distinct_rows(desk, _given_rows(form))
            rows = [r[desk.columns.id] for r in shown]
            one = desk.rows(_given(form, "other"))[0][desk.columns.id] if "other" in form else None
            g.again = url_for("group", row=[str(r) for r in rows])
            made = desk.decide_group([r for r in rows if r != one], same=verdict == "same", by=by, note=note,
                                     row=one, seen=seen)
        elif kind == "pair":
            rows = [r[desk.columns.id] for r in _distinct_rows(desk, _given(form, "a", "b"))]
            one, g.again = None, url_for("pair", a=str(rows[0]), b=str(rows[1]))
            made = desk.decide(*rows, same=verdict == "same", by=by, note=note, seen=seen)
        else:
            raise Refusal(400, "bad_field", field="kind")
        session["recorded"] = _recorded(made, kind, verdict, rows, one, g.again)
        return redirect(url_for("next_item"), 303)

    @app.post("/undo")
    def undo() -> Any:
        """Undo this reviewer's most recent act (the one the page named), then back to its item."""
        act = request.form.get("act", "")
        if not re.fullmatch(r"[0-9a-z]{1,32}", act):
            raise Refusal(400, "bad_field", field="act")
        recorded = session.get("recorded") or {}
        back = recorded.get("url") if recorded.get("act") == act else None
        g.again = back
        _console().desk.undo(session["reviewer"], act)
        if back:
            session["recorded"] = {**recorded, "undone": True}
        return redirect(back or url_for("queue"), 303)

    @app.context_processor
    def last_act() -> dict[str, Any]:
        """The reviewer's last act as the pages show it (what was recorded, and its undo);
        once undone, said once."""
        recorded = session.get("recorded") if session.get("reviewer") else None
        if recorded and recorded.get("undone"):
            session.pop("recorded")
        return {"recorded": _notice(recorded) if recorded else None}

    @app.post("/skip")
    def skip() -> Any:
        _console().skip(session["reviewer"], request.form.get("key", ""))
        return redirect(url_for("next_item"), 303)

    @app.get("/api/counts")
    def counts() -> Any:
        c = _console().desk.counts()
        return jsonify(pairs_left=c.pairs_left, groups_left=c.groups_left, left=c.left,
                       decided_today=c.decided_today, pairs_found=c.pairs_found, groups_found=c.groups_found)


def _given(form: Any, *names: str) -> list[str]:
    """The values of these fields (a row id each), refused (400) when one is missing or empty."""
    values = [(form.get(name) or "").strip() for name in names]
    for name, value in zip(names, values):
        if not value or len(value) > 64:
            raise Refusal(400, "bad_field", field=name)
    return values


def _given_rows(form: Any) -> list[str]:
    """A group's row ids (`row`, repeated), refused (400) unless there are two or more."""
    values = [v.strip() for v in form.getlist("row")]
    if len(values) < 2 or len(values) > GROUP_ROWS or not all(values) or any(len(v) > 64 for v in values):
        raise Refusal(400, "bad_field", field="row")
    return values


def _distinct_rows(desk: Desk, written: list[str]) -> list[dict[str, Any]]:
    """The rows with these ids, refused (400) when one is named twice: a row is no pair with itself."""
    rows = desk.rows(written)
    ids = [r[desk.columns.id] for r in rows]
    twice = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
    if twice is not None:
        raise Refusal(400, "same_row", id=twice)
    return rows


def _seen(text: str | None) -> int:
    """The id of the latest decision the page showed (0 for "none"); refused (400) when the
    form carries none or it is no id: a decision is always checked against the page's view."""
    if text == "none":
        return 0
    if text is None or not re.fullmatch(r"[0-9]{1,18}", text):
        raise Refusal(400, "bad_field", field="seen")
    return int(text)


def _seen_token(decided: list) -> str:
    """What a page's forms carry of the decisions it shows: the latest one's id, or "none"."""
    return str(decided[-1].id) if decided and decided[-1].id is not None else "none"


def _what(d: Any) -> str:
    """A decision about a pair in words: "12 与 15 不是重复"."""
    key = "recorded_withdrawn" if d.withdrawn else f"recorded_pair_{d.verdict}"
    return g.t[key].format(a=d.row_id, b=d.other_id)


def _recorded(made: list, kind: str, verdict: str, rows: list, one: Any, url: str) -> dict[str, Any]:
    """What the session keeps of an act just recorded, for the next pages to say and undo."""
    others = [str(r) for r in rows if r != one]
    return {"act": made[0].act if made else "", "kind": kind, "verdict": verdict, "rows": others[:NAMED_ROWS],
            "more": max(0, len(others) - NAMED_ROWS), "row": None if one is None else str(one),
            "url": url if len(url) <= 1000 else url_for("queue"), "undone": False}


def _notice(recorded: dict[str, Any]) -> dict[str, Any]:
    """The last act as the pages say it: "已记录：12 与 15 不是重复", or that it was undone."""
    t, rows = g.t, recorded["rows"]
    listed = t["list_sep"].join(rows) + (t["and_more"].format(n=recorded["more"]) if recorded["more"] else "")
    if recorded["kind"] == "pair":
        what = t[f"recorded_pair_{recorded['verdict']}"].format(a=rows[0], b=rows[-1])
    elif recorded["row"] is not None:
        what = t["recorded_not_of_group"].format(row=recorded["row"], rows=listed)
    else:
        what = t[f"recorded_group_{recorded['verdict']}"].format(rows=listed)
    text = t["undone"].format(what=what) if recorded["undone"] else t["recorded"] + what
    return {"text": text, "act": recorded["act"], "undone": recorded["undone"]}


def _session_holds() -> bool:
    """Whether the session holds: used within `[console] idle_minutes` and signed in less
    than SESSION_HOURS ago, its reviewer still there and enabled, with the password and
    session generation it began with (a sign-out, `reviewer add --replace`, `remove` or
    `disable` changes them). Notes the reviewer's role (g.sees_phones) and this use."""
    console = _console()
    now, idle = console.clock(), console.desk.config.console.idle_minutes * 60
    fresh = now - session.get("seen", -math.inf) <= idle
    if not fresh or now - session.get("since", -math.inf) >= SESSION_HOURS * 3600:
        return False
    current = console.desk.current(session["reviewer"])
    if current is None or not guard.same_token(session.get("stamp"), current.stamp):
        return False
    g.sees_phones = current.sees_phones
    if request.endpoint not in UNATTENDED:
        session["seen"] = now
    return True


def _end_session() -> None:
    """Sign the session out: nothing of it is kept but its language."""
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang


def _item_of(form: Any) -> str | None:
    """The page of the pair or group a form decided about, to go back to after signing in."""
    if form.get("a") and form.get("b"):
        return url_for("pair", a=form["a"], b=form["b"])
    rows = form.getlist("row")
    return url_for("group", row=rows) if rows else None


def _safe_next(target: str | None) -> str | None:
    """A path on this site to go on to after login, never another site's address."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    return target


def _next(console: Console, reviewer: str) -> Any:
    skipped = console.skipped(reviewer)
    return next((item for item in console.desk.queue() if item_key(item.kind, item.rows) not in skipped), None)


def _position(desk: Desk, kind: str, ids: Sequence[Any]) -> tuple[int, int] | None:
    """(place, length) of this item in the queue, when it is in it."""
    items = desk.queue()
    key = item_key(kind, ids)
    return next(((n, len(items)) for n, item in enumerate(items, 1) if item_key(item.kind, item.rows) == key), None)


def _listing(desk: Desk, items: list, first: int) -> list[dict[str, Any]]:
    """These queue items as the page lists them, numbered from `first`: their rows' titles,
    names and dates read in one query for the page (shown as privacy.shown allows), the
    items this reviewer skipped marked."""
    ids = {r for item in items for r in [*item.rows[:ROWS_LISTED], item.newest]}
    shown = privacy.shown(desk.rows_of(sorted(ids, key=id_order)), "queue")
    rows = {row[desk.columns.id]: row for row in shown}
    skipped = _console().skipped(session["reviewer"])
    return [_listed(n, item, rows, desk.columns, skipped) for n, item in enumerate(items, first)]


def _listed(number: int, item: Any, rows: dict[Any, dict], cols: Any, skipped: set[str]) -> dict[str, Any]:
    """A queue item as the queue page lists it: its rows' distinct titles and names (of `rows`,
    by id), `newest` the filing date of its newest row, `skipped` when this reviewer skipped it."""
    listed = [rows[r] for r in item.rows[:ROWS_LISTED] if r in rows]
    return {"n": number, "kind": item.kind, "rows": [str(r) for r in item.rows[:ROWS_LISTED]],
            "more": max(0, len(item.rows) - ROWS_LISTED), "size": len(item.rows),
            "distance": found.distance_text(item.distance),
            "titles": _distinct(listed, cols.title), "names": _distinct(listed, cols.name),
            "newest": _when(rows.get(item.newest, {}).get(cols.date)) if cols.date else "",
            "skipped": item_key(item.kind, item.rows) in skipped, "url": item_url(item), "audit": item.audit}


def _distinct(rows: list[dict], column: str | None) -> list[str]:
    """The rows' values of `column` as text, each once, in order, empty ones left out."""
    values = [_text(row.get(column)) for row in rows] if column else []
    return list(dict.fromkeys(v for v in values if v))


def _figures(p: Any) -> dict[str, Any]:
    """The figures as text: the rule's precision estimated from the audit's pairs decided
    alone (抽检 n 对中 k 对…, with its 95% interval; "尚未抽检" before any), how many pairs
    the audit drew, and the share of the queue's items found duplicates."""
    share, low, high = (f"{x:.1%}" for x in (p.confirmed / p.decided if p.decided else 0, p.low, p.high))
    return {"precision": share if p.decided else None, "interval": f"{low}–{high}",
            "audit": g.t["audit_of"].format(n=f"{p.decided:,}", k=f"{p.confirmed:,}", share=share, low=low, high=high)
            if p.decided else g.t["audit_none"],
            "drawn": g.t["audit_drawn"].format(n=f"{p.sampled:,}", done=f"{p.decided:,}") if p.sampled else None,
            "confirmed": p.confirmed, "decided": p.decided, "sampled": p.sampled,
            "queue_share": f"{p.queue_same / p.queue_decided:.1%}" if p.queue_decided else None,
            "queue_same": p.queue_same, "queue_decided": p.queue_decided}


def _agree(row: dict, other: dict, column: str) -> bool:
    """Whether two rows hold the same value, not nothing, in `column` (whole values: compared
    before privacy.shown masks them, so that two phones masked alike do not agree)."""
    value = _text(row.get(column))
    return value != "" and value == _text(other.get(column))


def _pair_view(desk: Desk, rows: Sequence[dict], shown: Sequence[dict]) -> dict[str, Any]:
    """Both rows field by field as `shown` (privacy.shown's copies of `rows`), the fields
    agreeing in `rows` marked, and each text with what only it has marked."""
    cols, (a, b) = desk.columns, shown
    fields = [{"name": c, "a": _text(a.get(c)), "b": _text(b.get(c)), "agree": _agree(*rows, c)} for c in cols.short]
    text_a, text_b = (_text(r.get(cols.text)) if cols.text else "" for r in (a, b))
    return {"fields": fields, "dates": [_when(r.get(cols.date)) if cols.date else "" for r in (a, b)],
            "texts": [_own(text_b, text_a), _own(text_a, text_b)], "text_column": cols.text}


def _own(other: str, text: str) -> list[tuple[str, str]]:
    """`text` as pieces, "added" where it differs from `other` (what `other` has instead is left out)."""
    return [(kind, piece) for kind, piece in diff_segments(other, text) if kind != "removed"]


def _group_view(desk: Desk, rows: Sequence[dict], shown: Sequence[dict]) -> dict[str, Any]:
    """The group's rows as `shown` (privacy.shown's copies of `rows`, in their order), oldest
    first, each field agreeing in `rows` with the first row's marked, each text diffed with its."""
    cols = desk.columns
    both = list(zip(rows, shown))
    if cols.date:
        both.sort(key=lambda rs: (_when(rs[0].get(cols.date)) or "\uffff", str(rs[0][cols.id])))
    base, base_text = both[0][0], _text(both[0][1].get(cols.text)) if cols.text else ""
    return {"columns": list(cols.short), "text_column": cols.text, "rows": [
        {"id": str(r[cols.id]), "date": _when(r.get(cols.date)) if cols.date else "",
         "short": [(_text(r.get(c)), k > 0 and _agree(row, base, c)) for c in cols.short],
         "segments": _own(base_text, _text(r.get(cols.text))) if k and cols.text else
         [("same", _text(r.get(cols.text)) if cols.text else "")]}
        for k, (row, r) in enumerate(both)]}


def _history(decisions: list) -> list[dict[str, Any]]:
    """A pair's decisions as its page lists them, newest first (an undo, a withdrawal and a
    decision no longer standing marked)."""
    return [{"when": _when(d.decided_at), "reviewer": d.reviewer, "verdict": d.verdict, "note": d.note or "",
             "stale": d.stale and not d.withdrawn, "undo": d.undo, "withdrawn": d.withdrawn}
            for d in reversed(decisions)]


def _group_history(decisions: list) -> list[dict[str, Any]]:
    """A group's decisions, newest act first, one line an act: who, when, and its pairs by
    what they were decided ("same", "different", or "withdrawn" by an undo)."""
    acts = []
    for _, made in itertools.groupby(decisions, key=lambda d: d.act):
        made = list(made)
        states: dict[str, list[str]] = {}
        for d in made:
            states.setdefault("withdrawn" if d.withdrawn else d.verdict, []).append(f"{d.row_id}–{d.other_id}")
        first = made[0]
        acts.append({"when": _when(first.decided_at), "reviewer": first.reviewer, "note": first.note or "",
                     "undo": first.undo, "stale": any(d.stale and not d.withdrawn for d in made),
                     "states": sorted(states.items())})
    return acts[::-1]


def serve(desk: Desk, host: str, port: int, settings: Settings = Settings(), behind_proxy: bool = False,
          ready: Any = None) -> None:
    """Serve the console with Werkzeug's threaded server until interrupted; `ready(url)` is
    called once it listens (port 0: a free port, named in the url)."""
    from werkzeug.serving import make_server

    app: Any = create_app(desk, settings)
    if behind_proxy:  # one proxy in front: the client's address and scheme from its headers
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)
    server = make_server(host, port, app, threaded=True)
    if ready:
        ready(f"http://{host if ':' not in host else f'[{host}]'}:{server.server_port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
