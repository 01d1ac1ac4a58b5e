"""What the console asks of the library: one object, `Desk`, over the configured source and
store, so that the web layer never opens a database itself and a test can hand the app
another desk. The queue, deciding, a pair's history and the figures are the library's own
calls (`commands.queue`, `decide`, `decide_group`, `history`, `precision`).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import commands
from ..config import Config
from ..errors import InputError

QUEUE_SECONDS = 5.0  # the queue is computed at most this often (and again after each decision)


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


class Desk:
    """The console's library calls over one configuration. Thread-safe: the server is threaded."""

    def __init__(self, config: Config, clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.clock = clock
        self._lock = threading.Lock()
        self._queue: tuple[float, list] | None = None
        self._reviewers_lock = threading.Lock()
        self._reviewers: Any = None  # a SqlSource kept open for the check of every request
        fields = config.fields
        self.columns = Columns(config.source.id_column, next((f.name for f in fields if f.role == "long"), None),
                               tuple(f.name for f in fields if f.role == "short"),
                               config.report.date_column or None)

    # ------------------------------------------------------------ who may decide

    def sign_in(self, name: str, password: str) -> str | None:
        """The stamp a new session of `name` keeps when this is their password, else None."""
        from ..sql import reviewers

        return reviewers.sign_in(self._reviewer_source(), name, password)

    def stamp(self, name: str) -> str | None:
        """The stamp of `name`'s current password, None when they are no reviewer: read
        afresh on every call (one query), so that a session ends at the request after
        `reviewer remove` or `reviewer add --replace`, whichever process ran it."""
        from ..sql import reviewers

        return reviewers.current_stamp(self._reviewer_source(), name)

    def _reviewer_source(self) -> Any:
        """One source kept open for the reviewers' checks: no engine or reflection a request."""
        from ..sql.source import SqlSource

        with self._reviewers_lock:
            if self._reviewers is None:
                self._reviewers = SqlSource(self.config)
            return self._reviewers

    # ------------------------------------------------------------ the queue

    def queue(self) -> list:
        """What needs a person, most needed first (cached for QUEUE_SECONDS)."""
        with self._lock:
            now = self.clock()
            if self._queue is None or now - self._queue[0] > QUEUE_SECONDS:
                self._queue = (now, commands.queue(self.config))
            return self._queue[1]

    def counts(self) -> Counts:
        items = self.queue()
        pairs = sum(1 for item in items if item.kind == "pair")
        summary = self._summary()
        return Counts(pairs, len(items) - pairs, self._decided_today(), summary.get("pairs", 0),
                      summary.get("groups", 0))

    def figures(self) -> Any:
        return commands.precision(self.config)

    def _summary(self) -> dict[str, Any]:
        from ..store.index import open_store

        with open_store(self.config) as store:
            run = store.current_run()
        return (run or {}).get("summary") or {}

    def _decided_today(self) -> int:
        """Acts (a pair, or a group decided as one) recorded today."""
        from ..sql import decisions
        from ..sql.source import SqlSource

        midnight = dt.datetime.combine(dt.date.today(), dt.time())
        with SqlSource(self.config) as source:
            return decisions.acts_since(source, midnight) if decisions.exists(source) else 0

    # ------------------------------------------------------------ rows and decisions

    def rows(self, written: Sequence[str]) -> list[dict[str, Any]]:
        """The rows with these ids (as written in a URL), in that order; an InputError names
        an id the table has not."""
        from ..sql.source import SqlSource

        found = []
        with SqlSource(self.config) as source:
            for text in written:
                row = source.row_by_written_id(str(text))
                if row is None:
                    raise InputError(f"no row with {self.columns.id} = {text}")
                found.append(row)
        return found

    def dates(self, ids: Sequence[Any]) -> dict[Any, Any]:
        """{id: its filing date} of these rows (none without a date column)."""
        from ..sql.source import SqlSource

        if not self.columns.date or not ids:
            return {}
        with SqlSource(self.config) as source:
            return {r[self.columns.id]: r.get(self.columns.date) for r in source.rows_by_id(ids)}

    def history(self, a: Any, b: Any) -> list:
        return commands.history(self.config, a, b)

    def decide(self, a: Any, b: Any, *, same: bool, by: str, note: str | None = None) -> list:
        try:
            return commands.decide(self.config, a, b, same=same, by=by, note=note)
        finally:
            self._forget_queue()

    def decide_group(self, rows: list, *, same: bool, by: str, note: str | None = None, row: Any = None) -> list:
        try:
            return commands.decide_group(self.config, rows, same=same, by=by, note=note, row=row)
        finally:
            self._forget_queue()

    def _forget_queue(self) -> None:
        with self._lock:
            self._queue = None


def item_key(kind: str, rows: Sequence[Any]) -> str:
    """A queue item's name: its kind and its rows (in the queue's order, by id)."""
    return f"{kind}:" + ",".join(map(str, rows))

