"""The console's pages and its JSON API, as a Flask app made by `create_app`.

Everything but /login and /static answers a visitor without a session with a redirect to
/login (pages) or 401 (the API and every POST), before any row is read. A session holds only
while its reviewer exists with the password it was signed in with (a stamp of it, checked
on every request): after `reviewer remove` or `reviewer add --replace`, it is signed out.
Database values reach the page only through Jinja2's autoescaping, as in the report (no
`|safe` anywhere); the character diff is the report's own (report.render.diff_segments).
"""

from __future__ import annotations

import collections
import datetime as dt
import threading
from dataclasses import dataclass
from typing import Any, Sequence
from urllib.parse import urlsplit

import jinja2
from flask import (Flask, abort, g, jsonify, redirect, render_template, request, session, url_for)

from ..errors import DedupError, InputError
from ..report.render import _text, _when, diff_segments  # the report's diff, and its display of values
from . import guard
from .desk import Desk, item_key
from .labels import COLUMNS, LABELS, LANGS

SESSION_HOURS = 8
LISTED = 200  # queue items listed on the queue page
SKIPPED_KEPT = 1000  # items a reviewer skipped, remembered per reviewer while the server runs
PUBLIC = {"login", "sign_in", "static"}


@dataclass(frozen=True)
class Settings:
    """How the console is served: `secure` when reached through HTTPS (a reverse proxy), so
    that the cookie is sent over HTTPS only."""

    secure: bool = False
    secret: bytes | None = None  # else guard.secret_key of the data folder


def create_app(desk: Desk, settings: Settings = Settings(), limit: guard.LoginLimit | None = None) -> Flask:
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
    return app


class Console:
    """The app's state: the desk, the login limit, and what each reviewer skipped."""

    def __init__(self, desk: Desk, limit: guard.LoginLimit):
        self.desk, self.limit = desk, limit
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


def _console() -> Console:
    from flask import current_app

    return current_app.extensions["dedup"]


def item_url(item: Any) -> str:
    if item.kind == "pair":
        return url_for("pair", a=str(item.rows[0]), b=str(item.rows[1]))
    return url_for("group", row=[str(r) for r in item.rows])


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
            if request.method == "POST" or request.path.startswith("/api/"):
                return jsonify(error="sign in first"), 401
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

    @app.context_processor
    def common() -> dict[str, Any]:
        if "csrf" not in session:
            session["csrf"] = guard.new_token()
        lang = session.get("lang", "zh")
        return {"t": g.t, "csrf": session["csrf"], "reviewer": session.get("reviewer"), "lang": lang,
                "column": lambda name: COLUMNS[lang].get(name, name)}

    @app.errorhandler(InputError)
    def not_found(error: InputError) -> Any:
        return render_template("message.html.j2", title=g.t["not_found"], message=str(error)), 404

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
        keys = [f"name:{name}", f"address:{request.remote_addr}"]
        if console.limit.blocked(keys):
            return render_template("login.html.j2", failed=g.t["too_many"], next=None), 429
        stamp = console.desk.sign_in(name, request.form.get("password", ""))
        if stamp is None:
            console.limit.failed(keys)
            return render_template("login.html.j2", failed=g.t["bad_login"], next=None), 401
        console.limit.forget(keys[0])
        _end_session()  # a new session, a new token: nothing of the visitor's carries over
        session.update(reviewer=name, stamp=stamp, csrf=guard.new_token())
        session.permanent = True
        return redirect(_safe_next(request.form.get("next")) or url_for("queue"), 303)

    @app.post("/logout")
    def logout() -> Any:
        session.clear()
        return redirect(url_for("login"), 303)

    @app.get("/")
    def queue() -> Any:
        desk = _console().desk
        items = desk.queue()
        dates = desk.dates([item.newest for item in items[:LISTED]])
        return render_template("queue.html.j2", items=[_listed(n, item, dates) for n, item in
                                                       enumerate(items[:LISTED], 1)],
                               more=max(0, len(items) - LISTED), counts=desk.counts(),
                               figures=_figures(desk.figures()))

    @app.get("/next")
    def next_item() -> Any:
        item = _next(_console(), session["reviewer"])
        return redirect(item_url(item) if item else url_for("queue"), 303)

    @app.get("/pair")
    def pair() -> Any:
        desk = _console().desk
        a, b = desk.rows([request.args.get("a", ""), request.args.get("b", "")])
        ids = (a[desk.columns.id], b[desk.columns.id])
        return render_template("pair.html.j2", view=_pair_view(desk, a, b), ids=ids, counts=desk.counts(),
                               history=_history(desk.history(*ids)), key=item_key("pair", ids),
                               position=_position(desk, "pair", ids))

    @app.get("/group")
    def group() -> Any:
        desk = _console().desk
        rows = desk.rows(request.args.getlist("row"))
        ids = [r[desk.columns.id] for r in rows]
        return render_template("group.html.j2", view=_group_view(desk, rows), ids=ids, counts=desk.counts(),
                               key=item_key("group", ids), position=_position(desk, "group", ids))

    @app.post("/decide")
    def decide() -> Any:
        desk, form = _console().desk, request.form
        verdict, note = form.get("verdict"), (form.get("note") or "").strip() or None
        if verdict not in ("same", "different"):
            abort(400)
        if form.get("kind") == "group":
            rows = [r[desk.columns.id] for r in desk.rows(form.getlist("row"))]
            one = desk.rows([form["other"]])[0][desk.columns.id] if form.get("other") else None
            desk.decide_group([r for r in rows if r != one] if one is not None else rows, same=verdict == "same",
                              by=session["reviewer"], note=note, row=one)
        else:
            a, b = (r[desk.columns.id] for r in desk.rows([form.get("a", ""), form.get("b", "")]))
            desk.decide(a, b, same=verdict == "same", by=session["reviewer"], note=note)
        return redirect(url_for("next_item"), 303)

    @app.post("/skip")
    def skip() -> Any:
        _console().skip(session["reviewer"], request.form.get("key", ""))
        return redirect(url_for("next_item"), 303)

    @app.get("/api/counts")
    def counts() -> Any:
        c = _console().desk.counts()
        return jsonify(pairs_left=c.pairs_left, groups_left=c.groups_left, left=c.left,
                       decided_today=c.decided_today, pairs_found=c.pairs_found, groups_found=c.groups_found)


def _session_holds() -> bool:
    """Whether the session's reviewer still exists with the password the session was signed
    in with (removed, or given a new one by `reviewer add --replace`: it no longer holds)."""
    current = _console().desk.stamp(session["reviewer"])
    return current is not None and guard.same_token(session.get("stamp"), current)


def _end_session() -> None:
    """Sign the session out: nothing of it is kept but its language."""
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang


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


def _listed(number: int, item: Any, dates: dict[Any, Any]) -> dict[str, Any]:
    """A queue item as the queue page lists it; `newest` is the filing date of its newest row."""
    return {"n": number, "kind": item.kind, "rows": [str(r) for r in item.rows[:6]],
            "more": max(0, len(item.rows) - 6), "size": len(item.rows), "distance": _distance(item.distance),
            "newest": _when(dates.get(item.newest)), "url": item_url(item)}


def _distance(value: Any) -> str:
    return "—" if value is None else f"{value:.3g}" if isinstance(value, float) else str(value)


def _figures(p: Any) -> dict[str, Any]:
    """The precision figures as text: a share with its interval, or None before any review."""
    return {"precision": f"{p.confirmed / p.decided:.1%}" if p.decided else None,
            "interval": f"{p.low:.1%}–{p.high:.1%}", "confirmed": p.confirmed, "decided": p.decided,
            "queue_share": f"{p.queue_same / p.queue_decided:.1%}" if p.queue_decided else None,
            "queue_same": p.queue_same, "queue_decided": p.queue_decided}


def _pair_view(desk: Desk, a: dict, b: dict) -> dict[str, Any]:
    """Both rows field by field (agreeing fields marked), and each text with what only it has marked."""
    cols = desk.columns
    fields = [{"name": c, "a": _text(a.get(c)), "b": _text(b.get(c)),
               "agree": _text(a.get(c)) != "" and _text(a.get(c)) == _text(b.get(c))} for c in cols.short]
    text_a, text_b = (_text(r.get(cols.text)) if cols.text else "" for r in (a, b))
    return {"fields": fields, "dates": [_when(r.get(cols.date)) if cols.date else "" for r in (a, b)],
            "texts": [_own(text_b, text_a), _own(text_a, text_b)], "text_column": cols.text}


def _own(other: str, text: str) -> list[tuple[str, str]]:
    """`text` as pieces, "added" where it differs from `other` (what `other` has instead is left out)."""
    return [(kind, piece) for kind, piece in diff_segments(other, text) if kind != "removed"]


def _group_view(desk: Desk, rows: list[dict]) -> dict[str, Any]:
    """The group's rows, oldest first, each text diffed with the first row's."""
    cols = desk.columns
    if cols.date:
        rows = sorted(rows, key=lambda r: (_when(r.get(cols.date)) or "\uffff", str(r[cols.id])))
    base = rows[0]
    base_text = _text(base.get(cols.text)) if cols.text else ""
    return {"columns": list(cols.short), "text_column": cols.text, "rows": [
        {"id": str(r[cols.id]), "date": _when(r.get(cols.date)) if cols.date else "",
         "short": [(_text(r.get(c)), k > 0 and _text(r.get(c)) == _text(base.get(c)) and _text(r.get(c)) != "")
                   for c in cols.short],
         "segments": _own(base_text, _text(r.get(cols.text))) if k and cols.text else
         [("same", _text(r.get(cols.text)) if cols.text else "")]}
        for k, r in enumerate(rows)]}


def _history(decisions: list) -> list[dict[str, Any]]:
    return [{"when": _when(d.decided_at), "reviewer": d.reviewer, "verdict": d.verdict, "note": d.note or "",
             "stale": d.stale} for d in reversed(decisions)]


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
