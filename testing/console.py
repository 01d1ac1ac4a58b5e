"""A stand-in desk for the console's fast tests (tests/test_console.py): rows, a queue and
decisions in memory, reviewers checked with the real scrypt hashes and session stamps of
sql/reviewers.py (`add` and `remove` do what `reviewer add --replace` and `reviewer remove`
do from another process). What it records lets a test see who decided what, and how often
a session was checked; the real desk is exercised end to end by
tests/test_console_browser.py."""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field, replace
from typing import Any

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.commands import Found as Found_
from dedup_pipeline.core.decision import Verdict, pair_key
from dedup_pipeline.sql.queue import Item
from dedup_pipeline.sql.decisions import UNDO, WITHDRAWN, Conflict, Decision, Precision, wilson
from dedup_pipeline.console.desk import Columns, Counts, NoSuchRow
from dedup_pipeline.sql.reviewers import Current, hash_password, stamp, verify
from dedup_pipeline.sql.search import Found, words

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
    act: str = ""


@dataclass
class FakeDesk:
    """Rows 1..6 (3 and 4 carry injected text), the queue pairs (1, 2), (3, 4) and the group [4, 5, 6]."""

    passwords: dict[str, str] = field(default_factory=lambda: {"wang": hash_password("correct horse 1", n=2**10)})
    decided: list[Recorded] = field(default_factory=list)
    made: list[Decision] = field(default_factory=list)  # every decision, as dedup_decision keeps them
    checked: list[str] = field(default_factory=list)  # the reviewer of each session check, in order
    generations: dict[str, int] = field(default_factory=dict)  # each reviewer's session generation (0 if none)
    disabled: set[str] = field(default_factory=set)  # `reviewer disable`d
    sees_phones: set[str] = field(default_factory=set)  # `reviewer add --sees-phones`
    failures: list[tuple[str, str, float]] = field(default_factory=list)  # dedup_login_failure: kind, subject, at
    accessed: list[tuple] = field(default_factory=list)  # dedup_access: reviewer, address, page, row id
    matches: list[tuple] = field(default_factory=lambda: [(1, 2), (4, 5), (4, 6), (5, 6)])  # dedup_match's pairs
    read: list[list] = field(default_factory=list)  # the ids of each `rows_of` call (a query), in order
    search_limit: int = 50
    # what the rule found (commands.found), its audit's items still open, and the figures
    found_pairs: list[tuple] = field(default_factory=lambda: [(1, 2, 0.1), (4, 5, 0.0), (4, 6, 0.05), (5, 6, 0.05)])
    found_groups: list[tuple] = field(default_factory=lambda: [([1, 2], 0.1), ([4, 5, 6], 0.0)])
    audit: list[Item] = field(default_factory=list)  # the audit's pairs still to decide, after the queue
    precision: Precision = field(default_factory=lambda: Precision(9, 10, *wilson(9, 10), 1, 4, 50))

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
        right = verify(password, stored)
        return stamp(stored, self.generations.get(name, 0)) if right and name not in self.disabled else None

    def stamp(self, name: str) -> str | None:
        self.checked.append(name)
        if name not in self.passwords or name in self.disabled:
            return None
        return stamp(self.passwords[name], self.generations.get(name, 0))

    def current(self, name: str) -> Current | None:
        found = self.stamp(name)
        return Current(found, name in self.sees_phones) if found else None

    def sign_out(self, name: str) -> None:
        self.generations[name] = self.generations.get(name, 0) + 1

    def add(self, name: str, password: str, sees_phones: bool = False) -> None:
        """A reviewer, or a new password and role for one (a fresh salt and a new session
        generation, as `reviewer add --replace`)."""
        self.passwords[name] = hash_password(password, n=2**10)
        self.sign_out(name)
        (self.sees_phones.add if sees_phones else self.sees_phones.discard)(name)

    def remove(self, name: str) -> None:
        del self.passwords[name]

    def disable(self, name: str) -> None:
        """As `reviewer disable`: every session ends, no sign-in."""
        self.disabled.add(name)
        self.sign_out(name)

    def enable(self, name: str) -> None:
        self.disabled.discard(name)

    def login_failures(self, kind: str, subject: str, since: float) -> list[float]:
        return sorted(at for k, s, at in self.failures if (k, s) == (kind, subject) and at >= since)

    def login_failed(self, subjects: list[tuple[str, str]], at: float) -> None:
        self.failures += [(kind, subject, at) for kind, subject in subjects]

    def login_forget(self, kind: str, subject: str) -> None:
        self.failures = [f for f in self.failures if f[:2] != (kind, subject)]

    def log_access(self, reviewer: str, address: str | None, viewed: list[tuple[str, Any]]) -> None:
        self.accessed += [(reviewer, address, page, row_id) for page, row_id in viewed]

    def queue(self) -> list[Item]:
        items = [Item([1, 2], 0.2), Item([3, 4], 0.3), Item([4, 5, 6], 0.4), *self.audit]
        done = {tuple(r.rows) for r in self.decided}
        return [item for item in items if tuple(item.rows) not in done]

    def counts(self) -> Counts:
        items = self.queue()
        pairs = sum(item.kind == "pair" for item in items)
        return Counts(pairs, len(items) - pairs, len(self.decided), 10, 4)

    def figures(self) -> Precision:
        return self.precision

    def found(self) -> Found_:
        """The rule's pairs and groups (`found_pairs`, `found_groups`), the audit's pairs marked."""
        return Found_("run-1", self.found_pairs, self.found_groups, {tuple(i.rows) for i in self.audit} | {(1, 2)})

    def verdicts(self, pairs: list[tuple]) -> dict[tuple, Verdict]:
        """The verdict of each of these pairs decided (the last decision of it stands)."""
        last = {tuple(r.rows): Verdict(r.same, False) for r in self.decided if r.kind == "pair"}
        return {pair: last[pair] for pair in pairs if pair in last}

    def rows(self, written: list[str]) -> list[dict[str, Any]]:
        found = []
        for w in written:
            try:
                found.append(self.table[int(w)])
            except (KeyError, ValueError):
                raise NoSuchRow(w, "id") from None
        return found

    def rows_of(self, ids: list) -> list[dict[str, Any]]:
        self.read.append(list(ids))
        return [self.table[i] for i in sorted(ids) if i in self.table]

    def search(self, text: str, unsearched: list[str] = ()) -> Found:
        """What sql/search.py finds: the row whose id is the query, and those with every word of
        it in a short field or the text (but the fields named `unsearched`); exact first, then newest."""
        wanted, whole = words(text), " ".join(words(text))
        short = [c for c in self.columns.short if c not in unsearched]

        def exact(row: dict) -> bool:
            return str(row["id"]) == whole or any(str(row[c]) == whole for c in short)

        def has(row: dict, word: str) -> bool:
            return any(word.lower() in str(row[c]).lower() for c in (*short, self.columns.text))

        hits = [r for r in self.table.values() if exact(r) or all(has(r, w) for w in wanted)]
        hits.sort(key=lambda r: (not exact(r), -r["created_at"].timestamp(), -r["id"]))
        shown = hits[:self.search_limit]
        partners = {r["id"]: sorted({b for a, b in self.matches if a == r["id"]} |
                                    {a for a, b in self.matches if b == r["id"]}) for r in shown}
        return Found(shown, len(hits) > self.search_limit, {k: v for k, v in partners.items() if v})

    # -- decisions as sql/decisions.py keeps them (`made`, ids from 1): a stale view refused, undo

    def history(self, a: Any, b: Any) -> list[Decision]:
        return [d for d in self.made if d.pair == pair_key(a, b)]

    def group_history(self, rows: list) -> list[Decision]:
        return [d for d in self.made if d.row_id in rows and d.other_id in rows]

    def decide(self, a: Any, b: Any, *, same: bool, by: str, note: str | None = None, seen: int | None = None) -> list:
        made = self._record([(a, b)], {a, b}, same, by, note, seen)
        self.decided.append(Recorded("pair", [a, b], same, by, note, act=made[0].act))
        return made

    def decide_group(self, rows: list, *, same: bool, by: str, note: str | None = None, row: Any = None,
                     seen: int | None = None) -> list:
        pairs = ([(row, r) for r in rows] if row is not None else [(rows[0], r) for r in rows[1:]] if same else
                 [(a, b) for n, a in enumerate(rows) for b in rows[n + 1:]])
        made = self._record(pairs, {*rows, row} - {None}, same, by, note, seen)
        self.decided.append(Recorded("group", list(rows), same, by, note, row, act=made[0].act))
        return made

    def undo(self, by: str, act: str) -> list[Decision]:
        """As sql.decisions.undo: each pair of `by`'s last act back to its decision before, or none."""
        mine = [d for d in self.made if d.reviewer == by]
        if not mine or mine[-1].act != act:
            raise Conflict(None, "nothing to undo")
        new, made = f"{UNDO}{len(self.made):028x}", []
        for d in [d for d in self.made if d.act == act]:
            decided = self.history(*d.pair)
            if decided[-1].act != act:
                raise Conflict(decided[-1], "decided since")
            before = [e for e in decided if e.id < d.id]
            was = before[-1] if before else replace(d, row_hash=WITHDRAWN, other_hash=WITHDRAWN)
            made.append(replace(was, reviewer=by, note=None, act=new))
        self.decided = [r for r in self.decided if r.act != act]
        return self._write(made)

    def _record(self, pairs: list, among: set, same: bool, by: str, note: str | None, seen: int | None) -> list:
        if seen is not None:
            latest = self.group_history(among)
            if (latest[-1].id if latest else 0) != seen:
                raise Conflict(latest[-1] if latest else None, "decided since")
        act = f"{len(self.made) + 1:032x}"
        return self._write([Decision(*pair_key(a, b), "same" if same else "different", by, None, note, "h", "h", act,
                                     "possible") for a, b in pairs if a != b])

    def _write(self, made: list[Decision]) -> list[Decision]:
        start = len(self.made)
        made = [replace(d, id=start + n, decided_at=dt.datetime(2025, 3, 10, 9, 0) + dt.timedelta(minutes=start + n))
                for n, d in enumerate(made, 1)]
        self.made += made
        return made
