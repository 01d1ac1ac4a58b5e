"""What the console asks of the library: one object, `Desk`, over the configured source and
store, so that the web layer never opens a database itself and a test can hand the app
another desk.

The queue, deciding and the figures are the library's (`commands.queue`, `decide`,
`decide_group`, `history`, `precision`); where an older library lacks one of them, the
stand-ins below (marked "stand-in") do the least that keeps the console usable: the rule's
own pairs, not yet decided, as the queue, and decisions through sql/decisions.py.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import commands
from ..config import Config
from ..errors import InputError

QUEUE_SECONDS = 5.0  # the queue is computed at most this often (and again after each decision)


@dataclass(frozen=True)
class QueueItem:
    """Stand-in for commands.QueueItem: a pair or a group that needs a person."""

    kind: str  # "pair" | "group"
    rows: list
    distance: float
    newest: Any = None


@dataclass(frozen=True)
class Precision:
    """Stand-in for commands.Precision: the rule's precision on the reviewed pairs it made
    (confirmed / decided, Wilson 95% interval low..high) and how many of the decided queue
    items were duplicates."""

    confirmed: int
    decided: int
    low: float
    high: float
    queue_same: int
    queue_decided: int


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
        fields = config.fields
        self.columns = Columns(config.source.id_column, next((f.name for f in fields if f.role == "long"), None),
                               tuple(f.name for f in fields if f.role == "short"),
                               config.report.date_column or None)

    # ------------------------------------------------------------ who may decide

    def authenticate(self, name: str, password: str) -> bool:
        from ..sql import reviewers
        from ..sql.source import SqlSource

        with SqlSource(self.config) as source:
            return reviewers.authenticate(source, name, password)

    # ------------------------------------------------------------ the queue

    def queue(self) -> list:
        """What needs a person, most needed first (cached for QUEUE_SECONDS)."""
        with self._lock:
            now = self.clock()
            if self._queue is None or now - self._queue[0] > QUEUE_SECONDS:
                self._queue = (now, list(_library("queue", _queue_stand_in)(self.config)))
            return self._queue[1]

    def counts(self) -> Counts:
        items = self.queue()
        pairs = sum(1 for item in items if item.kind == "pair")
        summary = self._summary()
        return Counts(pairs, len(items) - pairs, self._decided_today(), summary.get("pairs", 0),
                      summary.get("groups", 0))

    def figures(self) -> Any:
        return _library("precision", _precision_stand_in)(self.config)

    def _summary(self) -> dict[str, Any]:
        from ..store.index import open_store

        with open_store(self.config) as store:
            run = store.current_run()
        return (run or {}).get("summary") or {}

    def _decided_today(self) -> int:
        """Acts (a pair, or a group decided as one) recorded today, by the database's clock."""
        from ..sql import decisions
        from ..sql.source import SqlSource

        today = dt.date.today()
        with SqlSource(self.config) as source:
            if not decisions.exists(source):
                return 0
            return len({d.act for d in decisions.every(source) if d.decided_at and d.decided_at.date() == today})

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

    def history(self, a: Any, b: Any) -> list:
        return _library("history", _history_stand_in)(self.config, a, b)

    def decide(self, a: Any, b: Any, *, same: bool, by: str, note: str | None = None) -> list:
        try:
            return _library("decide", _decide_stand_in)(self.config, a, b, same=same, by=by, note=note)
        finally:
            self._forget_queue()

    def decide_group(self, rows: list, *, same: bool, by: str, note: str | None = None, row: Any = None) -> list:
        try:
            return _library("decide_group", _decide_group_stand_in)(self.config, rows, same=same, by=by,
                                                                    note=note, row=row)
        finally:
            self._forget_queue()

    def _forget_queue(self) -> None:
        with self._lock:
            self._queue = None


def _library(name: str, stand_in: Callable) -> Callable:
    """commands.<name> when the library has it, else the stand-in."""
    return getattr(commands, name, None) or stand_in


# ---------------------------------------------------------------- stand-ins

def _queue_stand_in(config: Config, limit: int | None = None) -> list[QueueItem]:
    """Stand-in: the last batch's pairs that no standing decision covers, the farthest
    (nearest the rule's line) first."""
    from ..report.exports import _load
    from ..sql import decisions
    from ..sql.source import SqlSource

    _, pairs, _ = _load(config)
    with SqlSource(config) as source:
        decided = {pair for pair, v in decisions.verdicts(source).items() if not v.stale}
    from ..core.decision import pair_key

    items = [QueueItem("pair", [a, b], float(d)) for a, b, d in pairs if pair_key(a, b) not in decided]
    items.sort(key=lambda item: -item.distance)
    return items[:limit] if limit else items


def _history_stand_in(config: Config, a: Any, b: Any) -> list:
    from ..sql import decisions
    from ..sql.source import SqlSource

    with SqlSource(config) as source:
        return decisions.history(source, a, b)


def _decide_stand_in(config: Config, a: Any, b: Any, *, same: bool, by: str, note: str | None = None) -> list:
    from ..sql import decisions
    from ..sql.source import SqlSource

    with SqlSource(config) as source:
        return decisions.record(source, [(a, b)], decisions.SAME if same else decisions.DIFFERENT, by, note)


def _decide_group_stand_in(config: Config, rows: list, *, same: bool, by: str, note: str | None = None,
                           row: Any = None) -> list:
    from ..sql import decisions
    from ..sql.source import SqlSource

    if same:
        pairs = [(a, b) for k, a in enumerate(rows) for b in rows[k + 1:]]
    else:
        pairs = [(row, other) for other in rows if other != row]
    with SqlSource(config) as source:
        return decisions.record(source, pairs, decisions.SAME if same else decisions.DIFFERENT, by, note)


def _precision_stand_in(config: Config) -> Precision:
    """Stand-in: of the batch's pairs with a standing decision, how many were confirmed;
    of the other decided pairs (the queue's), how many were the same."""
    from ..core.decision import pair_key
    from ..report.exports import _load
    from ..sql import decisions
    from ..sql.source import SqlSource

    _, pairs, _ = _load(config)
    auto = {pair_key(a, b) for a, b, _ in pairs}
    with SqlSource(config) as source:
        standing = {pair: v for pair, v in decisions.verdicts(source).items() if not v.stale}
    confirmed = sum(1 for pair, v in standing.items() if pair in auto and v.same)
    decided = sum(1 for pair in standing if pair in auto)
    queue_same = sum(1 for pair, v in standing.items() if pair not in auto and v.same)
    queue_decided = sum(1 for pair in standing if pair not in auto)
    low, high = wilson(confirmed, decided)
    return Precision(confirmed, decided, low, high, queue_same, queue_decided)


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a proportion; (0, 1) with no trials.

    >>> [round(x, 3) for x in wilson(9, 10)]
    [0.596, 0.982]
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - spread), min(1.0, centre + spread)
