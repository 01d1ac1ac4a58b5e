"""增量处理 (seed 003 §2.2): check a new or changed row against every stored row, in the
paper's two modes, and keep the stored block index in step with the table.

The store and the scheme come from the configuration; nothing here speaks MongoDB.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from cityhash import CityHash64

from .config import Config
from .corroboration import corroborated, corroborates, neighbours
from .features import SEPARATOR, value_text
from .schemes import scheme_of
from .store import Loaded, MongoStore, block_id, open_store

MODES = ("exists", "all")
_CHUNK = 2000


class Match(NamedTuple):
    row: Any
    distance: float  # Hamming bits (an int) for fingerprints, 1 - similarity for shingles


@contextmanager
def open_incremental(config: Config) -> Iterator[Incremental]:
    """The incremental index over the configured store (see `store.open_store`)."""
    with open_store(config) as store:
        yield Incremental(store, config)


class Incremental:
    """Checks and changes against the stored index of the configured table."""

    def __init__(self, store: MongoStore, config: Config):
        self.store, self.scheme, self.fields = store, scheme_of(config), config.fields
        self.table = config.source.table
        longs = [f.name for f in config.fields if f.role == "long"]
        self.text_field = longs[0] if longs else config.fields[0].name

    def probe(self, row: Mapping[str, Any] | str) -> Any:
        """What the scheme compares a row (or a text, read as the first long field) by."""
        return self.scheme.probes([self._as_row(row)])[0]

    def fingerprint(self, row: Mapping[str, Any] | str) -> int:
        """A row's 64-bit fingerprint (for shingles: of its shingle set)."""
        return self.scheme.fingerprint(self.probe(row))

    def check(self, row: Mapping[str, Any] | str, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a row or a text, nearest first, never `exclude` (the
        row's own id); in `exists` mode, at most the nearest one."""
        return self.similar(self.probe(row), mode, exclude)

    def similar(self, probe: Any, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a probe: read its blocks, confirm each candidate."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        found = self.similar_many({exclude: probe})[exclude]
        return found[:1] if mode == "exists" else found

    def similar_many(self, probes: Mapping[Any, Any],
                     created: frozenset[str] = frozenset()) -> dict[Any, list[Match]]:
        """{row id: stored rows similar to its probe, nearest first, never itself}, with one
        lookup for all of them (see `pairs_many`)."""
        found: dict[Any, list[Match]] = {row: [] for row in probes}
        for (a, b), distance in self.pairs_many(probes, created).items():
            if a in found:
                found[a].append(Match(b, distance))
            if b in found:
                found[b].append(Match(a, distance))
        return {row: sorted(near, key=lambda m: (m.distance, str(m.row))) for row, near in found.items()}

    def pairs_many(self, probes: Mapping[Any, Any],
                   created: frozenset[str] = frozenset()) -> dict[tuple, Any]:
        """{(row, other): distance} of the pairs these probes make with stored rows and with
        each other (once each), and of the stored pairs they corroborate (corroboration.py),
        with one lookup. `created`: blocks that these rows' filing created (`Loaded`), which
        hold only them."""
        keys = {row: self.scheme.keys(p) for row, p in probes.items()}
        blocks = {row: {block_id(t, k) for t, k in row_keys} for row, row_keys in keys.items()}
        in_block: dict[str, set] = {}
        for row, row_blocks in blocks.items():
            for block in row_blocks & created:
                in_block.setdefault(block, set()).add(row)
        fingerprints: dict[Any, int] = {}
        wanted = {key for row_keys in keys.values() for key in row_keys if block_id(*key) not in created}
        for entries in self.store.lookup(sorted(wanted)):
            for entry in entries:
                if entry.table == self.table:
                    in_block.setdefault(entry.block, set()).add(entry.row)
                    fingerprints.setdefault(entry.row, entry.fingerprint)
        stored, stored_blocks = self._stored({r: fp for r, fp in fingerprints.items() if r not in probes})
        stored.update(probes)
        blocks = {**stored_blocks, **blocks}
        near: dict[tuple, tuple[Any, int]] = {}
        for row, p in probes.items():
            for other in set().union(*(in_block.get(b, ()) for b in blocks[row])) - {row}:
                if (other, row) not in near:
                    near[(row, other)] = self.scheme.relate(p, stored[other])
        if self.scheme.links:
            near.update(self._around(probes, near, stored, blocks))
        edges = {pair: evidence for pair, (d, evidence) in near.items() if d is not None and evidence}
        weak = [pair for pair, (d, evidence) in near.items() if d is not None and not evidence]
        keep = set(edges) | set(corroborated(edges, weak))
        return {pair: near[pair][0] for pair in keep if pair[0] in probes or pair[1] in probes
                or not near[pair][1]}

    def _around(self, probes: Mapping[Any, Any], near: Mapping[tuple, tuple[Any, int]],
                stored: Mapping[Any, Any], blocks: Mapping[Any, set]) -> dict[tuple, tuple[Any, int]]:
        """The pairs of stored rows near a probe that corroboration may need: a row the probe
        confirms, with any other row near it (candidates: rows sharing a block)."""
        partners = neighbours({pair: evidence for pair, (d, evidence) in near.items() if d is not None})
        found: dict[tuple, tuple[Any, int]] = {}
        for row in probes:
            mine = {o: e for o, e in partners.get(row, {}).items() if o not in probes}
            for u, v in ((u, v) for u, e_u in mine.items() if e_u for v, e_v in mine.items()
                         if u != v and (e_v == 0 or corroborates(e_u, e_v))):
                if (v, u) not in found and (u, v) not in found and blocks[u] & blocks[v]:
                    found[(u, v)] = self.scheme.relate(stored[u], stored[v])
        return found

    def add(self, row_id: Any, row: Mapping[str, Any]) -> Any:
        """File a row; if it was filed before, it leaves every block it was in. Adding the
        same row again leaves one entry. Returns its probe."""
        probe = self.probe(row)
        self.store.file(self.table, row_id, *self._filing(row, probe))
        return probe

    def update(self, row_id: Any, row: Mapping[str, Any]) -> Any:
        """A changed row: the same as `add`."""
        return self.add(row_id, row)

    def add_and_check(self, row_id: Any, row: Mapping[str, Any], mode: str = "all") -> list[Match]:
        """File a row, then find the rows similar to it. Filing before looking means that of
        two similar rows added at the same moment, at least the later lookup sees the other
        (both do unless one looks before the other's filing is written)."""
        return self.similar(self.add(row_id, row), mode, exclude=row_id)

    def add_many(self, rows: Iterable[tuple[Any, Mapping[str, Any]]]) -> int:
        """File many (row id, row) pairs, in batches; rows whose fingerprint is already
        stored are skipped. Returns how many were written."""
        return self.store.file_many(self.table, self._probed(rows))

    def file_many(self, items: Iterable[tuple[Any, Mapping[str, Any], Any]]) -> Loaded:
        """File (row id, row, probe) triples whose probes are known; as `add_many`, and
        which blocks the filing created (for `similar_many`)."""
        return self.store.load(self.table, ((i, *self._filing(row, p)) for i, row, p in items))

    def remove(self, row_id: Any) -> bool:
        """Take a row out of the index; False if it was not there."""
        return self.store.remove(self.table, row_id)

    def repair(self) -> int:
        """Complete the changes a killed run left half done; how many rows needed it."""
        return self.store.repair()

    def _stored(self, fingerprints: Mapping[Any, int]) -> tuple[dict[Any, Any], dict[Any, set]]:
        """The probes of stored rows (by their fingerprints), as the scheme compares them,
        and the blocks they are filed under."""
        filed = self.store.sketches(self.table, list(fingerprints)) if self.scheme.sketch_stored else {}
        probes = {row: self.scheme.restore(fp, filed.get(row, (None,))[0]) for row, fp in fingerprints.items()}
        return probes, {row: set(filed[row][1]) if row in filed
                        else {block_id(t, k) for t, k in self.scheme.keys(probes[row])} for row in probes}

    def _filing(self, row: Mapping[str, Any], probe: Any) -> tuple:
        """What the store files with a row: fingerprint, content hash, keys, sketch."""
        return (self.scheme.fingerprint(probe), content_hash(row, self.fields),
                self.scheme.keys(probe), self.scheme.sketch(probe))

    def _probed(self, rows: Iterable[tuple[Any, Mapping]]) -> Iterator[tuple]:
        chunk: list[tuple[Any, Mapping]] = []
        for item in rows:
            chunk.append(item)
            if len(chunk) == _CHUNK:
                yield from self._probe_chunk(chunk)
                chunk = []
        yield from self._probe_chunk(chunk)

    def _probe_chunk(self, chunk: list[tuple[Any, Mapping]]) -> Iterator[tuple]:
        probes = self.scheme.probes([row for _, row in chunk])
        for (row_id, row), p in zip(chunk, probes):
            yield (row_id, *self._filing(row, p))

    def _as_row(self, row: Mapping[str, Any] | str) -> Mapping[str, Any]:
        return {self.text_field: row} if isinstance(row, str) else row


def content_hash(row: Mapping[str, Any], fields: Iterable) -> str:
    """A hash of the configured fields' values: whether a row's content changed, whatever
    the fingerprint settings."""
    text = "\x1e".join(f"{f.name}{SEPARATOR}{value_text(row.get(f.name), f) or ''}" for f in fields)
    return f"{CityHash64(text):016x}"
