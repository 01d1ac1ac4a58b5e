"""What the console asks of the library: one object, `Desk`, over the configured source and
store, so that the web layer never opens a database itself and a test can hand the app
another desk. The queue, deciding, a pair's history and the figures are the library's own
calls (`review.queue`, `decide`, `decide_group`, `history`, `precision`).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import review
from ..config import Config
from ..errors import InputError
from ..pipeline import Pipeline, stored

QUEUE_SECONDS = 5.0  # the queue is computed at most this often (and again after each decision)


class NoSuchRow(InputError):
    """A row id (as written in a URL or form) the table has not: the console answers 404."""

    def __init__(self, written: str, column: str):
        super().__init__(f"no row with {column} = {written}")
        self.written = written


@dataclass(frozen=True)
class Counts:
    """The live counts: the queue's pairs and groups left, decisions made today, and what
    the last batch found."""

    pairs_left: int
    groups_left: int
    decided_today: int
    pairs_found: int
    groups_found: int

    @property
    def left(self) -> int:
        return self.pairs_left + self.groups_left


@dataclass(frozen=True)
class Columns:
    """Which columns the console shows, and how."""

    id: str
    text: str | None
    short: tuple[str, ...]
    date: str | None

    @property
    def title(self) -> str | None:
        """The short field a row is listed by: one named as a title (TITLES), else the first."""
        return next((c for c in self.short if c.lower() in TITLES), next(iter(self.short), None))

    @property
    def name(self) -> str | None:
        """The short field naming who filed a row (NAMES), when there is one."""
        return next((c for c in self.short if c.lower() in NAMES), None)

    @property
    def phone(self) -> str | None:
        """The short field holding the filer's phone (PHONES), when there is one."""
        return next((c for c in self.short if c.lower() in PHONES), None)


TITLES = ("title", "subject", "标题")  # short fields a row is listed by, as named in tables
NAMES = ("name", "姓名")  # short fields naming who filed a row
PHONES = ("phone", "mobile", "tel", "电话", "手机", "联系电话")  # short fields holding a phone


class Desk:
    """The console's library calls over one configuration. Thread-safe: the server is threaded."""

    def __init__(self, config: Config, clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.clock = clock
        self._lock = threading.Lock()
        self._queue: tuple[float, list] | None = None  # (when computed, the queue): `_recent`
        self._found: tuple[float, Any] | None = None  # (when read, review.found)
        self._matters: tuple[float, list] | None = None  # (when read, sql.matters.matters)
        self._matters_held: tuple[float, bool] | None = None  # (when read, whether dedup_matter has rows)
        self._reviewers_lock = threading.Lock()
        self.pipe = Pipeline(config)  # the source and store kept open for the Desk's life
        self._access_table: Any = None  # dedup_access, reflected once
        fields = config.fields
        self.columns = Columns(config.source.id_column, next((f.name for f in fields if f.role == "long"), None),
                               tuple(f.name for f in fields if f.role == "short"),
                               config.report.date_column or None)

    # ------------------------------------------------------------ who may decide

    def sign_in(self, name: str, password: str) -> str | None:
        """The stamp a new session of `name` keeps when this is their password, else None."""
        from ..sql import reviewers

        return reviewers.sign_in(self._source(), name, password)

    def stamp(self, name: str) -> str | None:
        """The stamp of `name`'s current password and session generation, None when they are
        no reviewer or disabled (`current`)."""
        found = self.current(name)
        return found.stamp if found else None

    def current(self, name: str) -> Any:
        """What a session of `name` must carry and may see (reviewers.Current), None when
        none holds: read afresh on every request (one query), so that a session ends at the
        request after a sign-out, `reviewer remove`, `disable` or `add --replace`, whichever
        process ran it."""
        from ..sql import reviewers

        return reviewers.current(self._source(), name)

    def sign_out(self, name: str) -> None:
        """End every session of `name`, on every computer."""
        from ..sql import reviewers

        reviewers.sign_out(self._source(), name)

    def login_failures(self, kind: str, subject: str, since: float) -> list[float]:
        """When a name or an address (`kind`) failed to sign in since `since` (epoch seconds)."""
        from ..sql import access

        return access.failures(self._source(), kind, subject, since)

    def login_failed(self, subjects: list[tuple[str, str]], at: float) -> None:
        """Note a failed sign-in at `at` for each (kind, subject): the name tried, the address."""
        from ..sql import access

        access.failed(self._source(), subjects, at)

    def login_forget(self, kind: str, subject: str) -> None:
        """Forget the failed sign-ins of a name that signed in."""
        from ..sql import access

        access.forget(self._source(), kind, subject)

    def log_access(self, reviewer: str, address: str | None, viewed: Sequence[tuple[str, Any]]) -> None:
        """Note in the access log the rows (page, id) a page showed `reviewer`."""
        from ..sql import access

        source = self._source()
        with self._reviewers_lock:
            if self._access_table is None:
                with source.errors("read the access log beside"), source.engine.connect() as conn:
                    self._access_table = access.reflect(conn)
        access.log(source, reviewer, address, viewed, self._access_table)

    def _source(self) -> Any:
        """The one source the console keeps open for its life (the reviewers' checks, rows,
        verdicts): no engine or reflection a request. SqlSource is thread-safe (its engine pools)."""
        return self.pipe.source

    def close(self) -> None:
        """Close the source and store the console held."""
        self.pipe.close()

    # ------------------------------------------------------------ the queue

    def queue(self) -> list:
        """What needs a person, most needed first (cached for QUEUE_SECONDS)."""
        return self._recent("_queue", lambda: review.queue(self.pipe))

    def _recent(self, kept: str, compute: Callable[[], Any]) -> Any:
        """The value kept in the attribute `kept` as (when, value), computed afresh when it is
        none or older than QUEUE_SECONDS: the pages of many reviewers share one computation."""
        with self._lock:
            now = self.clock()
            value = getattr(self, kept)
            if value is None or now - value[0] > QUEUE_SECONDS:
                value = (now, compute())
                setattr(self, kept, value)
            return value[1]

    def counts(self) -> Counts:
        """The live counts (Counts): the queue's, today's decisions, and the last batch's."""
        items = self.queue()
        pairs = sum(1 for item in items if item.kind == "pair")
        summary = self._summary()
        return Counts(pairs, len(items) - pairs, self._decided_today(), summary.get("pairs", 0),
                      summary.get("groups", 0))

    def figures(self) -> Any:
        """The rule's precision from the audit, and the queue's share of duplicates (review.precision)."""
        return review.precision(self.pipe)

    def found(self) -> Any:
        """The live batch's pairs and groups, for browsing (review.found; cached for QUEUE_SECONDS)."""
        return self._recent("_found", lambda: review.found(self.pipe))

    def matters(self) -> list:
        """The table's matters (热点事项), the largest first (sql.matters.matters; cached for QUEUE_SECONDS)."""
        from ..sql import matters

        return self._recent("_matters", lambda: matters.matters(self._source()))

    def matter(self, written: str) -> Any:
        """The matter whose id is `written` (as in a URL), its rows in day order
        (sql.matters.Matter), or None when there is none. A matter's id is its smallest row's
        id (core.matters), so it is that row's matter."""
        from ..sql import matters

        source = self._source()
        row = source.row_by_written_id(written)
        found = row and matters.matter_of(source, row[self.columns.id])
        return found if found and found.matter == row[self.columns.id] else None

    def matter_history(self, matter: Any) -> list:
        """What became of matters' ids in this one and of its own, oldest first (sql.matters.events)."""
        from ..sql import matters

        return matters.events(self._source(), str(matter))

    def matter_decisions(self, matter: Any) -> list:
        """The decisions reviewers made looking at this matter, oldest first (sql.matters.decisions_on)."""
        from ..sql import matters

        return matters.decisions_on(self._source(), str(matter))

    def matter_decide(self, verdict: str, row: Any, other: Any, *, by: str) -> Any:
        """A reviewer's decision on matters (review.matter_decide): the row's matter now."""
        try:
            return review.matter_decide(self.pipe, verdict, row, other, by=by)
        finally:
            self._forget("_matters")

    def matters_held(self) -> bool:
        """Whether dedup_matter holds rows of the table: the matters stage has run on it
        (cached for QUEUE_SECONDS: every page asks, for its header's link)."""
        return self._recent("_matters_held", self._read_matters_held)

    def _read_matters_held(self) -> bool:
        from ..sql import matters

        source = self._source()
        with source.errors("read the matters of"), source.engine.connect() as conn:
            tables = matters.reflect(conn)
            return tables is not None and matters.counts(conn, tables, self.config.source.table).marked > 0

    def verdicts(self, pairs: Sequence[tuple]) -> dict[tuple, Any]:
        """{pair: its standing verdict (core.decision.Verdict)} of these pairs decided."""
        from ..sql import decisions

        wanted = set(pairs)
        source = self._source()
        if not wanted or not decisions.exists(source):
            return {}
        found = decisions.verdicts(source, {r for pair in wanted for r in pair})
        return {pair: v for pair, v in found.items() if pair in wanted}

    def _summary(self) -> dict[str, Any]:
        with stored(self.pipe) as store:
            run = store.current_run()
        return (run or {}).get("summary") or {}

    def _decided_today(self) -> int:
        """Acts (a pair, or a group decided as one) recorded today."""
        from ..sql import decisions

        midnight = dt.datetime.combine(dt.date.today(), dt.time())
        source = self._source()
        return decisions.acts_since(source, midnight) if decisions.exists(source) else 0

    # ------------------------------------------------------------ rows and decisions

    def rows(self, written: Sequence[str]) -> list[dict[str, Any]]:
        """The rows with these ids (as written in a URL), in that order; an InputError names
        an id the table has not."""
        found = []
        source = self._source()
        for text in written:
            row = source.row_by_written_id(str(text))
            if row is None:
                raise NoSuchRow(str(text), self.columns.id)
            found.append(row)
        return found

    def rows_of(self, ids: Sequence[Any]) -> list[dict[str, Any]]:
        """The rows with these ids, in id order, ids with no row left out: one query for a
        page's worth (a queue page's rows), not one a row."""
        if not ids:
            return []
        return self._source().rows_by_id(ids)

    def search(self, text: str, unsearched: Sequence[str] = ()) -> Any:
        """The rows `text` finds, best first, with the rows each is paired with (sql.search.Found);
        the fields named `unsearched` (those masked for the reviewer) are not compared with it."""
        return review.search(self.pipe, text, unsearched=unsearched)

    def history(self, a: Any, b: Any) -> list:
        """Every decision about the pair, oldest first (review.history)."""
        return review.history(self.pipe, a, b)

    def group_history(self, rows: Sequence[Any]) -> list:
        """Every decision about a pair of these rows, oldest first."""
        return review.group_history(self.pipe, list(rows))

    def decide(self, a: Any, b: Any, *, same: bool, by: str, note: str | None = None,
               seen: int | None = None) -> list:
        """Decide a pair; `seen` the id of its latest decision the page showed (0: none):
        another made since refuses this one (sql.decisions.Conflict)."""
        try:
            return review.decide(self.pipe, a, b, same=same, by=by, note=note, seen=seen)
        finally:
            self._forget("_queue")

    def decide_group(self, rows: list, *, same: bool, by: str, note: str | None = None, row: Any = None,
                     seen: int | None = None) -> list:
        try:
            return review.decide_group(self.pipe, rows, same=same, by=by, note=note, row=row, seen=seen)
        finally:
            self._forget("_queue")

    def undo(self, by: str, act: str) -> list:
        """Undo `by`'s most recent act, when it is `act` (sql.decisions.undo)."""
        try:
            return review.undo(self.pipe, by, act)
        finally:
            self._forget("_queue")

    def _forget(self, kept: str) -> None:
        """Forget a value `_recent` keeps (`kept`): the next page computes it afresh."""
        with self._lock:
            setattr(self, kept, None)


def item_key(kind: str, rows: Sequence[Any]) -> str:
    """A queue item's name: its kind and its rows (in the queue's order, by id)."""
    return f"{kind}:" + ",".join(map(str, rows))

