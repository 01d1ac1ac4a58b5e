"""The store in this process's memory (`[store] kind = "memory"`): the block index, the
batch's generations and its lease as MongoStore keeps them, in dicts, for fast tests and a
library caller that keeps the store open; gone when the process ends.

It keeps no buckets: the rows filed under each key are a set. The rest is MongoStore's bookkeeping, kept the same way: a row filed since the live buckets is
`fresh` until a batch folds it, a removed row is logged until a batch reads the log, and
while a run builds, the rows other writers change are logged for its replay."""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .lock import LockHeld
from .protocol import CHANGED, Held, Record, gone_logged, refused


class MemoryStore:
    """index.MongoStore's operations over dicts (protocol.Store)."""

    where = "memory"

    def __init__(self) -> None:
        self.held: dict[tuple[str, Any], Record] = {}
        self.under: dict[tuple[str, int], set] = {}  # (table, key): the rows filed under it
        self.fresh_rows: set[tuple[str, Any]] = set()  # filed since the live buckets
        self.batched: set[tuple[str, Any]] = set()  # of those, the ones BATCHED (index.py)
        self.removed: dict[tuple[str, Any], int] = {}  # (table, row): times logged removed
        self.logged: set[tuple[str, Any]] = set()  # written while a run builds
        self.runs: dict[str, dict[str, Any]] = {}  # run: its state, settings, manifest and results
        self.live: dict[str, Any] = {"run": "", "building": None}
        self.leases: set[str] = set()
        self.scheme = ""
        self._numbers = itertools.count(1)

    # -- the block index

    def lookup(self, table: str, wanted: Mapping[Any, Iterable[int]]) -> dict[Any, Record]:
        keys = {k for row_keys in wanted.values() for k in row_keys}
        rows = set().union(*(self.under.get((table, k), ()) for k in keys)) - set(wanted)
        return {row: self.held[table, row] for row in rows}

    def records(self, table: str, rows: Sequence) -> dict[Any, Record]:
        return {row: self.held[table, row] for row in rows if (table, row) in self.held}

    def file(self, records: Iterable[Record], fresh: bool = True, batch: bool = False, stored: bool = False) -> int:
        """As MongoStore.file: a row a batch files new stays fresh if another writer filed it first."""
        records = list(records)
        for r in records:
            if fresh or (r.table, r.row) in self.held:
                self.fresh_rows.add((r.table, r.row))
            (self.batched.add if fresh and batch else self.batched.discard)((r.table, r.row))
            self._unfile(r.table, r.row)
            self.held[r.table, r.row] = r
            for k in r.keys:
                self.under.setdefault((r.table, k), set()).add(r.row)
            self._log(r.table, r.row, batch)
        return len(records)

    def remove(self, table: str, rows: Sequence, trace: bool = True, batch: bool = False) -> int:
        count = 0
        for row in rows:
            if trace:
                self.removed[table, row] = self.removed.get((table, row), 0) + 1
            count += self._unfile(table, row)
            self.fresh_rows.discard((table, row))
            self.batched.discard((table, row))
            self._log(table, row, batch)
        return count

    def _unfile(self, table: str, row: Any) -> bool:
        """Take a row out of the dicts; whether it was there."""
        record = self.held.pop((table, row), None)
        for k in record.keys if record else ():
            self.under[table, k].discard(row)
        return record is not None

    def _log(self, table: str, row: Any, batch: bool) -> None:
        if self.live["building"] and not batch:
            self.logged.add((table, row))

    def sync(self) -> None:
        pass  # nothing to make durable

    def ping(self) -> None:
        pass  # always here

    def revive(self) -> bool:
        return False  # never gone

    def require(self, scheme: str) -> None:
        self.scheme = scheme
        error = refused(self.live, scheme, self.where)
        if error:
            raise error

    # -- what a batch reads and writes

    def stored(self, table: str) -> Held:
        held = dict(self._manifest(self.live.get("base") or self.live["run"]))
        since = self.since(table, held)
        held.update(since.rows)
        return Held(held, since.removed)

    def since(self, table: str, manifest: Mapping[Any, str] | None = None, batched: bool = True) -> Held:
        rows: dict[Any, str] = {}
        for run, built in self.runs.items():
            if built["state"] == "building" and run != self.live["building"]:
                rows.update((row, CHANGED) for row, content in self._manifest(run)
                            if manifest is None or manifest.get(row) != content)
        killed = set(rows)
        removed = [(key, n) for key, n in self.removed.items() if key[0] == table]
        rows.update((row, CHANGED) for (_, row), _ in removed)
        fresh = {row: self.held[t, row].content for t, row in self.fresh_rows - (set() if batched else self.batched)
                 if t == table}
        rows.update(fresh)
        return Held(rows, removed, frozenset(row for (_, row), _ in removed) - killed - fresh.keys())

    def _manifest(self, run: str) -> Iterator[tuple[Any, str]]:
        parts = self.runs.get(run, {}).get("manifest", {})
        for n in sorted(parts):
            yield from zip(*parts[n])

    def write_manifest(self, run: str, rows: Sequence, contents: Sequence[str], first: int = 0) -> int:
        self.runs[run]["manifest"][first] = (list(rows), list(contents))
        return 1

    def write_buckets(self, run: str, bits: int, keys: np.ndarray, rows: Sequence, prints: np.ndarray,
                      span: tuple[int, int] | None = None) -> int:
        return 0  # no buckets: a lookup reads every row

    def reclaim(self) -> None:
        pass

    def remove_gone(self, table: str, gone: Sequence, held: Mapping[Any, str]) -> int:
        logged, listed = gone_logged(gone, held)
        return self.remove(table, listed, batch=True) + self.remove(table, logged, trace=False, batch=True)

    def clear_removed(self, entries: Sequence[tuple[Any, int]]) -> None:
        for key, n in entries:
            if self.removed.get(key) == n:
                del self.removed[key]

    def fresh(self, table: str) -> set:
        return {row for t, row in self.fresh_rows if t == table}

    def fold(self, table: str, bucketed: Mapping[Any, str]) -> int:
        folded = {(t, row) for t, row in self.fresh_rows
                  if t == table and bucketed.get(row) == self.held[t, row].content}
        self.fresh_rows -= folded
        self.batched -= folded
        return len(folded)

    def adopt(self, table: str, held: Mapping[Any, str]) -> int:
        adopted = {(table, row) for row, content in held.items() if (table, row) in self.fresh_rows
                   and (table, row) not in self.batched and self.held[table, row].content == content}
        self.batched |= adopted
        return len(adopted)

    # -- the batch's generations and its lease

    @contextmanager
    def lease(self, name: str) -> Iterator[None]:
        if name in self.leases:
            raise LockHeld(f"another {name} is running in this process")
        self.leases.add(name)
        try:
            yield
        finally:
            self.leases.discard(name)

    def new_run(self, settings: dict[str, Any], scheme: str = "") -> str:
        run = f"run{next(self._numbers)}"
        self.runs[run] = {"state": "building", "settings": settings, "scheme": scheme, "manifest": {},
                          "matches": [], "groups": []}
        self.logged.clear()
        self.live["building"] = run
        return run

    def write_matches(self, run: str, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray) -> None:
        self.runs[run]["matches"] = [(ids[a], ids[b], distance)
                                     for a, b, distance in zip(i.tolist(), j.tolist(), d.tolist())]

    def write_groups(self, run: str, groups: Iterable[list]) -> None:
        self.runs[run]["groups"] = list(groups)

    def switch(self, run: str, summary: dict[str, Any], bucket_bits: int = 0, base: str = "") -> None:
        """The run live, and the runs before the one it replaces forgotten, but for the bases."""
        before, built = self.live, self.runs[run]
        previous = before["run"]
        self.live = {"run": run, "base": base or run, "building": None, "previous": previous,
                     "previous_base": before.get("base") or previous, "summary": summary,
                     "bucket_bits": bucket_bits, "settings": built["settings"], "scheme": built["scheme"]}
        built["state"] = "done"
        kept = (run, previous, base or run, before.get("base") or previous)
        self.runs = {name: r for name, r in self.runs.items() if name in kept}

    def current_run(self) -> dict[str, Any] | None:
        return dict(self.live) if self.live["run"] else None

    def read_matches(self, run: str) -> list[tuple]:
        return list(self.runs[run]["matches"])

    def read_groups(self, run: str) -> list[list]:
        return list(self.runs[run]["groups"])

    def changed(self, table: str) -> list:
        return [row for t, row in self.logged if t == table]

    def clear_changed(self) -> None:
        self.logged.clear()
