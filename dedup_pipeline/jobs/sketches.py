"""What the last batch read, kept for the next one beside the store (`<data_dir>/batch`):
every row's sketch in an append-only log (`SketchLog`), and the run's rows, each with its
content hash and its slot in the log, and its pairs (`Kept`). A re-run (rerun.py) reads the
table from here and sketches only the rows that changed since.

A state is used only by the run that left it live: the store's pointer names it (its
`token`, in the run's summary), so a state left by a batch killed before its switch, or
by another store, is never read. A new log starts with each full batch; a re-run appends
past the slots its live state names, after cutting off what a killed run left there.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

import numpy as np
from cityhash import CityHash64

from ..config import Config
from ..core.shingles import Sets, SketchTable

SETS = {"keys": np.uint64, "shingles": np.uint32, "verbatim": np.uint32, "text": np.uint32}
ROWS = {"fingerprints": np.uint64, "identity": np.uint64, "filed": np.int32}  # one value a slot


def folder_of(config: Config, settings: str) -> Path:
    """Where the batch keeps its state for this table and scheme (one folder each, so that
    stores sharing a data folder keep theirs apart)."""
    what = f"{config.source.url}\x1f{config.source.table}\x1f{config.source.id_column}\x1f{settings}"
    return Path(config.store.data_dir) / "batch" / f"{config.source.table}-{CityHash64(what):016x}"


class SketchLog:
    """Sketches appended to files, a slot each, read back memory-mapped: the keys of every
    row (and what the shingles scheme compares, `SketchTable`, when it has one)."""

    def __init__(self, folder: Path, slots: int | None = None):
        """The log in `folder` (created), cut to its first `slots` when given."""
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.slots = slots if slots is not None else self._count()
        self._cut(self.slots)

    def append(self, fingerprints: np.ndarray, keys: Sets, table: SketchTable | None) -> np.ndarray:
        """Append sketches; their slots."""
        parts = {"keys": keys, **({name: getattr(table, name) for name in SETS if name != "keys"} if table else {})}
        for name, sets in parts.items():
            self._write(f"{name}.values", np.ascontiguousarray(sets.values, SETS[name]))
            self._write(f"{name}.sizes", sets.sizes().astype(np.int64))
        self._write("fingerprints", np.asarray(fingerprints, np.uint64))
        if table is not None:
            self._write("identity", table.identity.astype(np.uint64))
            self._write("filed", table.filed.astype(np.int32))
            self._write("people", np.ascontiguousarray(table.people, np.uint64))
            (self.folder / "people.width").write_text(str(table.people.shape[1]))
        first, self.slots = self.slots, self.slots + len(fingerprints)
        return np.arange(first, self.slots)

    def sets(self, name: str) -> Sets:
        """The sets `name` of every slot, their values memory-mapped."""
        if not self.slots:
            return Sets(np.zeros(0, SETS[name]), np.zeros(1, np.int64))
        sizes = np.fromfile(self.folder / f"{name}.sizes", np.int64, count=self.slots)
        starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        values = _mapped(self.folder / f"{name}.values", SETS[name], int(starts[-1]))
        return Sets(values, starts)

    def scan(self, name: str, per_read: int = 1 << 22) -> Iterator[tuple[int, np.ndarray]]:
        """(the first entry's number, the values) of the sets `name` of every slot, read a
        part at a time from the file (not mapped: they would stay in this process's RSS)."""
        total = self.sets(name).starts[-1]
        dtype = np.dtype(SETS[name])
        with open(self.folder / f"{name}.values", "rb") as f:
            for first in range(0, int(total), per_read):
                yield first, np.fromfile(f, dtype, count=min(per_read, int(total) - first))

    def values(self, name: str) -> np.ndarray:
        """The one value a slot of `name` (ROWS), or the people rows, of every slot."""
        if not self.slots:
            return np.zeros((0, 0) if name == "people" else 0, np.uint64 if name == "people" else ROWS[name])
        if name == "people":
            width = int((self.folder / "people.width").read_text())
            return np.fromfile(self.folder / "people", np.uint64, count=self.slots * width).reshape(self.slots, width)
        return np.fromfile(self.folder / name, ROWS[name], count=self.slots)

    def table(self) -> SketchTable:
        """What the shingles scheme compares, of every slot (in slot order)."""
        return SketchTable(self.sets("shingles"), self.sets("verbatim"), self.values("people"), self.sets("keys"),
                           self.values("identity"), self.sets("text"), self.values("filed"))

    def _write(self, name: str, values: np.ndarray) -> None:
        """Append the values' bytes; a failed write (a full disk) an OSError naming the file
        and why (numpy's `tofile` says only how many bytes it wrote)."""
        with _named(self.folder / name), open(self.folder / name, "ab") as f:
            f.write(np.ascontiguousarray(values).reshape(-1).view(np.uint8))

    def _count(self) -> int:
        sizes = self.folder / "keys.sizes"
        return sizes.stat().st_size // 8 if sizes.exists() else 0

    def _cut(self, slots: int) -> None:
        """Cut every file to `slots` slots: what a run killed after appending left beyond."""
        sizes = self.folder / "keys.sizes"
        if not sizes.exists() or sizes.stat().st_size == 8 * slots:
            return
        for name, dtype in SETS.items():
            if (self.folder / f"{name}.sizes").exists():
                kept = np.fromfile(self.folder / f"{name}.sizes", np.int64, count=slots)
                _truncate(self.folder / f"{name}.sizes", 8 * slots)
                _truncate(self.folder / f"{name}.values", int(kept.sum()) * np.dtype(dtype).itemsize)
        for name, dtype in ROWS.items():
            if (self.folder / name).exists():
                _truncate(self.folder / name, slots * np.dtype(dtype).itemsize)
        if (self.folder / "people").exists():
            _truncate(self.folder / "people", slots * 8 * int((self.folder / "people.width").read_text()))


class Kept(NamedTuple):
    """A run's rows as its batch read them (in id order): each one's content hash and slot
    in the log, and the run's pairs as the rule stored them (positions in `ids`,
    pairs.Similar.linked) with its possible ones (decision.Decided.possible): before the
    reviewers' verdicts, which each run applies afresh."""

    token: str  # named by the run's summary in the store
    log: str  # the log's folder, beside this state
    slots: int  # the log's slots this state uses
    base: int  # the slots its full batch wrote: rows in later slots are filed fresh
    ids: list
    hashes: np.ndarray  # content hashes, bytes
    at: np.ndarray  # each row's slot
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray]
    possible: tuple[np.ndarray, np.ndarray, np.ndarray]

    def save(self, folder: Path) -> None:
        """Write this state, whole or not at all."""
        numbers = all(type(i) is int for i in self.ids)
        ids = np.array(self.ids, np.int64) if numbers else np.array(self.ids, dtype=object)
        meta = json.dumps({"token": self.token, "log": self.log, "slots": self.slots, "base": self.base})
        part = folder / f"{self.token}.partial.npz"
        with _named(part), open(part, "wb") as f:
            np.savez(f, meta=np.array(meta), ids=ids, hashes=self.hashes, at=self.at,
                     i=self.pairs[0], j=self.pairs[1], d=self.pairs[2],
                     pi=self.possible[0], pj=self.possible[1], pd=self.possible[2])
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, folder / f"{self.token}.npz")


    @property
    def fresh_share(self) -> float:
        """The share of its rows sketched since its full batch: filed fresh, beside buckets
        that still file what they were."""
        return float(np.count_nonzero(self.at >= self.base)) / max(len(self.ids), 1)


@contextlib.contextmanager
def _named(path: Path) -> Iterator[None]:
    """An OSError inside said of `path` (a write's, or its flush's at close, names no file)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None:
            raise
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


REBUILD_SHARE = 0.5  # a re-run with more rows fresh than this rebuilds the buckets (a full batch)


def live_state(live: Mapping[str, Any] | None, folder: Path) -> Kept | None:
    """The state the live run left (`live`: the store's pointer), for a re-run; None when
    there is none here, or so many rows changed since its full batch that one is due."""
    kept = load(folder, ((live or {}).get("summary") or {}).get("sketches", ""))
    return kept if kept is not None and kept.fresh_share <= REBUILD_SHARE else None


def new_token() -> str:
    return uuid.uuid4().hex


def load(folder: Path, token: str) -> Kept | None:
    """The state a run left under `token`, or None when it is not here (or unreadable: a
    re-run then reads the table whole)."""
    path = folder / f"{token}.npz"
    if not token or not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=True) as saved:
            meta = json.loads(str(saved["meta"]))
            ids = saved["ids"].tolist()
            return Kept(meta["token"], meta["log"], meta["slots"], meta["base"], ids, saved["hashes"], saved["at"],
                        (saved["i"], saved["j"], saved["d"]), (saved["pi"], saved["pj"], saved["pd"]))
    except (OSError, ValueError, KeyError):
        return None


def forget_others(folder: Path, kept: Kept) -> None:
    """Delete every state and log in `folder` but `kept`'s: those of runs replaced or killed."""
    for path in folder.iterdir():
        if path.name not in (f"{kept.token}.npz", kept.log):
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)


def _mapped(path: Path, dtype: Any, count: int) -> np.ndarray:
    if not count:
        return np.zeros(0, dtype)
    return _Released(path, dtype, "r", shape=(count,))


class _Released(np.memmap):
    """A file mapped in memory that lets go of the pages each gather touched (they stay in
    the page cache): the sets read for one chunk of pairs leave this process's RSS."""

    def __getitem__(self, index: Any) -> Any:
        out = super().__getitem__(index)
        if isinstance(index, np.ndarray):
            out = np.array(out)
            self._mmap.madvise(mmap.MADV_DONTNEED)
        return out


def _truncate(path: Path, size: int) -> None:
    if path.exists() and path.stat().st_size > size:
        os.truncate(path, size)
