"""A stand-in desk for the console's fast tests (tests/test_console.py): rows, a queue and
decisions in memory, reviewers checked with the real scrypt hashes and session stamps of
sql/reviewers.py (`add` and `remove` do what `reviewer add --replace` and `reviewer remove`
do from another process). What it records lets a test see who decided what, and how often
a session was checked; the real desk is exercised end to end by
tests/test_console_browser.py."""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from typing import Any

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.sql.queue import Item
from dedup_pipeline.sql.decisions import Precision, wilson
from dedup_pipeline.console.desk import Columns, Counts
from dedup_pipeline.errors import InputError
from dedup_pipeline.sql.reviewers import hash_password, stamp, verify

INJECTED = ["<script>alert(1)</script>", "<svg onload=alert(1)>", "{{7*7}}", "{% raw %}{{ config }}{% endraw %}",
            "\"><img src=x onerror=alert(1)>"]


@dataclass
class Recorded:
    kind: str
    rows: list
    same: bool
    by: str
    note: str | None
    row: Any = None


@dataclass
class FakeDesk:
    """Rows 1..6 (3 and 4 carry injected text), the queue pairs (1, 2), (3, 4) and the group [4, 5, 6]."""

    passwords: dict[str, str] = field(default_factory=lambda: {"wang": hash_password("correct horse 1", n=2**10)})
    decided: list[Recorded] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # the reviewer of each session check, in order

    def __post_init__(self) -> None:
        data = tomllib.loads(default_config_text())
        self.config = parse_config(data, env={})
        self.columns = Columns("id", "content", ("title", "name", "phone"), "created_at")
        base = "小区楼下广场舞音响太大，晚上十点还不停，请有关部门处理。"
        self.table = {i: {"id": i, "title": "噪音扰民", "name": f"张{i}", "phone": "13800000000",
                          "content": ("再次反映：" if i % 2 == 0 else "") + base,
                          "created_at": dt.datetime(2025, 3, i, 9, 30)} for i in range(1, 7)}
        self.table[3].update(title=INJECTED[1], name=INJECTED[4], content=INJECTED[0] + base + INJECTED[2])
        self.table[4].update(title=INJECTED[3], content=base + INJECTED[0])

    def sign_in(self, name: str, password: str) -> str | None:
        stored = self.passwords.get(name)
        return stamp(stored) if verify(password, stored) else None

    def stamp(self, name: str) -> str | None:
        self.checked.append(name)
        return stamp(self.passwords[name]) if name in self.passwords else None

    def add(self, name: str, password: str) -> None:
        """A reviewer, or a new password for one (a fresh salt, as `reviewer add --replace`)."""
        self.passwords[name] = hash_password(password, n=2**10)

    def remove(self, name: str) -> None:
        del self.passwords[name]

    def queue(self) -> list[Item]:
        items = [Item([1, 2], 0.2), Item([3, 4], 0.3), Item([4, 5, 6], 0.4)]
        done = {tuple(r.rows) for r in self.decided}
        return [item for item in items if tuple(item.rows) not in done]

    def counts(self) -> Counts:
        items = self.queue()
        pairs = sum(item.kind == "pair" for item in items)
        return Counts(pairs, len(items) - pairs, len(self.decided), 10, 4)

    def figures(self) -> Precision:
        return Precision(9, 10, *wilson(9, 10), 1, 4)

    def rows(self, written: list[str]) -> list[dict[str, Any]]:
        try:
            return [self.table[int(w)] for w in written]
        except (KeyError, ValueError):
            raise InputError(f"no row with id = {written}") from None

    def dates(self, ids: list) -> dict[Any, Any]:
        return {i: self.table[i]["created_at"] for i in ids}

    def history(self, a: Any, b: Any) -> list:
        return []

    def decide(self, a: Any, b: Any, *, same: bool, by: str, note: str | None = None) -> list:
        self.decided.append(Recorded("pair", [a, b], same, by, note))
        return []

    def decide_group(self, rows: list, *, same: bool, by: str, note: str | None = None, row: Any = None) -> list:
        self.decided.append(Recorded("group", list(rows), same, by, note, row))
        return []
