"""What every store is, whichever keeps it (index.MongoStore in MongoDB, memory.MemoryStore
in this process): the rows it holds (`Record`), and the operations the checks, the worker
and the batch use (`BlockStore`, `Store`). No driver here: index.open_store makes the
configured one."""

from __future__ import annotations

import re
from typing import Any, ContextManager, Iterable, Mapping, NamedTuple, Protocol, Sequence

import numpy as np

from ..config import ConfigError

CHANGED = ""  # the content hash of a row whose document may hold anything: no row's hash


class Record(NamedTuple):
    """What the store holds about one row: its fingerprint, the hash of its content, the
    keys it is filed under, and its sketch (if the scheme keeps one)."""

    table: str
    row: Any
    fingerprint: int
    content: str
    keys: tuple[int, ...]
    sketch: bytes | None = None


class Held(NamedTuple):
    """{row: content hash} of what the store holds, the `removed` log entries read (each
    with the times it was logged, for `clear_removed`), and the rows removed as logged
    there: neither filed since nor listed by a batch killed since (a re-run has nothing
    to remove of them)."""

    rows: dict[Any, str]
    removed: list[tuple[Any, int]]
    logged: frozenset = frozenset()


class BlockStore(Protocol):
    """Rows filed under opaque keys: what the checks and the worker need."""

    where: str  # the store, named for messages

    def lookup(self, table: str, wanted: Mapping[Any, Iterable[int]]) -> dict[Any, Record]: ...
    def records(self, table: str, rows: Sequence) -> dict[Any, Record]: ...
    def file(self, records: Iterable[Record], fresh: bool = True, batch: bool = False, stored: bool = False) -> int: ...
    def remove(self, table: str, rows: Sequence, trace: bool = True, batch: bool = False) -> int: ...
    def sync(self) -> None: ...
    def require(self, scheme: str) -> None: ...
    def ping(self) -> None: ...
    def revive(self) -> bool: ...


class Store(BlockStore, Protocol):
    """A block index with the batch's generations and its lease: what a batch needs.

    A batch takes the lease, starts a run (`new_run`: from then on, writes are logged until
    its switch), reads what the store holds (`stored`), files rows with the run's manifest,
    writes the run's buckets and results, removes the rows gone, switches the run live,
    folds the fresh rows into its buckets, and decides again the rows logged (`changed`)."""

    def lease(self, name: str) -> ContextManager[Any]: ...
    def new_run(self, settings: dict[str, Any], scheme: str = "") -> str: ...
    def stored(self, table: str) -> Held: ...
    def since(self, table: str, manifest: Mapping[Any, str] | None = None, batched: bool = True) -> Held: ...
    def write_manifest(self, run: str, rows: Sequence, contents: Sequence[str], first: int = 0) -> int: ...
    def write_buckets(self, run: str, bits: int, keys: np.ndarray, rows: Sequence, prints: np.ndarray,
                      span: tuple[int, int] | None = None) -> int: ...
    def write_matches(self, run: str, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray) -> None: ...
    def write_groups(self, run: str, groups: Iterable[list]) -> None: ...
    def remove_gone(self, table: str, gone: Sequence, held: Mapping[Any, str]) -> int: ...
    def switch(self, run: str, summary: dict[str, Any], bucket_bits: int = 0, base: str = "") -> None: ...
    def fresh(self, table: str) -> set: ...
    def fold(self, table: str, bucketed: Mapping[Any, str]) -> int: ...
    def adopt(self, table: str, held: Mapping[Any, str]) -> int: ...
    def clear_removed(self, entries: Sequence[tuple[Any, int]]) -> None: ...
    def reclaim(self) -> Any: ...
    def changed(self, table: str) -> list: ...
    def clear_changed(self) -> None: ...
    def current_run(self) -> dict[str, Any] | None: ...
    def read_matches(self, run: str) -> list[tuple]: ...
    def read_groups(self, run: str) -> list[list]: ...


def gone_logged(gone: Sequence, held: Mapping[Any, str]) -> tuple[list, list]:
    """The rows a batch found gone from the table, `held` as `stored` gave them: (those it
    read in a log, CHANGED, which keep their entry; those listed, which need one)."""
    return [row for row in gone if held.get(row) == CHANGED], [row for row in gone if held.get(row) != CHANGED]


def refused(live: Mapping[str, Any], scheme: str, where: str) -> ConfigError | None:
    """The error for a user of scheme settings `scheme` (opaque) when the live batch was
    made with others: its keys would not be the buckets' keys, and every lookup would miss."""
    built = live.get("scheme")
    if not (built and scheme and built != scheme):
        return None
    return ConfigError(f"the live batch (run {live['run']}, {where}) was made with other scheme settings "
                       f"({_differences(built, scheme)}): run `dedup-pipeline batch` with this configuration "
                       f"first, or use the one that batch ran with")


def _differences(built: str, wanted: str, shown: int = 3) -> str:
    """The `name=value` items of two settings texts that differ, as "x there, y here"."""
    items = re.compile(r"(\w+)=('[^']*'|\([^()]*\)|[^,()]+)")
    there, here = items.findall(built), items.findall(wanted)
    changed = [f"{key}={value} there, {new} here" for key, value in there if (key, value) not in here
               for new in [next((v for k, v in here if k == key and (k, v) not in there), None)] if new]
    return "; ".join(changed[:shown]) or "they differ"
