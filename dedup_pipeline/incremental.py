"""增量处理 (seed 003 §2.2): check a new or changed row against every stored row, in the
paper's two modes, and keep the stored block index in step with the table.

The store and the scheme come from the configuration; nothing here speaks MongoDB.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from cityhash import CityHash64

from .config import Config
from .features import SEPARATOR, value_text
from .simhash import fingerprint_many
from .simhash import fingerprint as fingerprint_row
from .store import MongoStore, open_store

MODES = ("exists", "all")
_CHUNK = 2000


class Match(NamedTuple):
    row: Any
    distance: int


@contextmanager
def open_incremental(config: Config) -> Iterator[Incremental]:
    """The incremental index over the configured store (see `store.open_store`)."""
    with open_store(config) as store:
        yield Incremental(store, config)


class Incremental:
    """Checks and changes against the stored index of the configured table."""

    def __init__(self, store: MongoStore, config: Config):
        self.store, self.scheme, self.featurizer = store, config.block_scheme(), config.featurizer()
        self.table = config.source.table
        longs = [f.name for f in config.fields if f.role == "long"]
        self.text_field = longs[0] if longs else config.fields[0].name

    def fingerprint(self, row: Mapping[str, Any] | str) -> int:
        """A row's fingerprint; a text is read as the first long field."""
        return fingerprint_row(self._as_row(row), self.featurizer)

    def check(self, row: Mapping[str, Any] | str, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a row or a text, nearest first, never `exclude` (the
        row's own id); in `exists` mode, at most the first one found."""
        return self.similar(self.fingerprint(row), mode, exclude)

    def similar(self, fingerprint: int, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a fingerprint: read its blocks, confirm each candidate."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        found: dict[Any, int] = {}
        for entries in self.store.lookup(self.scheme.keys(fingerprint)):
            for entry in entries:
                if entry.table != self.table or entry.row == exclude:
                    continue
                distance = self.scheme.distance(fingerprint, entry.fingerprint)
                if distance is not None and distance < found.get(entry.row, distance + 1):
                    found[entry.row] = distance
                    if mode == "exists":
                        return [Match(entry.row, distance)]
        return sorted((Match(row, d) for row, d in found.items()), key=lambda m: m.distance)

    def add(self, row_id: Any, row: Mapping[str, Any]) -> None:
        """File a row; if it was filed before, its old fingerprint leaves every block it was
        in. Adding the same row again leaves one entry."""
        self.store.file(self.table, row_id, self.fingerprint(row), content_hash(row, self.featurizer.fields))

    def update(self, row_id: Any, row: Mapping[str, Any]) -> None:
        """A changed row: the same as `add`."""
        self.add(row_id, row)

    def add_and_check(self, row_id: Any, row: Mapping[str, Any], mode: str = "all") -> list[Match]:
        """File a row, then find the rows similar to it. Filing before looking means that of
        two similar rows added at the same moment, at least the later lookup sees the other
        (both do unless one looks before the other's filing is written)."""
        fingerprint = self.fingerprint(row)
        self.store.file(self.table, row_id, fingerprint, content_hash(row, self.featurizer.fields))
        return self.similar(fingerprint, mode, exclude=row_id)

    def add_many(self, rows: Iterable[tuple[Any, Mapping[str, Any]]]) -> int:
        """File many (row id, row) pairs, fingerprinted in batches; rows whose fingerprint
        is already stored are skipped. Returns how many were written."""
        return self.store.file_many(self.table, self._fingerprinted(rows))

    def remove(self, row_id: Any) -> bool:
        """Take a row out of the index; False if it was not there."""
        return self.store.remove(self.table, row_id)

    def repair(self) -> int:
        """Complete the changes a killed run left half done; how many rows needed it."""
        return self.store.repair()

    def _fingerprinted(self, rows: Iterable[tuple[Any, Mapping]]) -> Iterator[tuple[Any, int, str]]:
        chunk: list[tuple[Any, Mapping]] = []
        for item in rows:
            chunk.append(item)
            if len(chunk) == _CHUNK:
                yield from self._fingerprint_chunk(chunk)
                chunk = []
        yield from self._fingerprint_chunk(chunk)

    def _fingerprint_chunk(self, chunk: list[tuple[Any, Mapping]]) -> Iterator[tuple[Any, int, str]]:
        if not chunk:
            return
        fingerprints = fingerprint_many([row for _, row in chunk], self.featurizer).tolist()
        for (row_id, row), fp in zip(chunk, fingerprints):
            yield row_id, fp, content_hash(row, self.featurizer.fields)

    def _as_row(self, row: Mapping[str, Any] | str) -> Mapping[str, Any]:
        return {self.text_field: row} if isinstance(row, str) else row


def content_hash(row: Mapping[str, Any], fields: Iterable) -> str:
    """A hash of the configured fields' values: whether a row's content changed, whatever
    the fingerprint settings."""
    text = "\x1e".join(f"{f.name}{SEPARATOR}{value_text(row.get(f.name), f) or ''}" for f in fields)
    return f"{CityHash64(text):016x}"
