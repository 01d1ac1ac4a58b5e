"""增量处理 (seed 003 §2.2): check a new or changed row against every stored row, in the
paper's two modes, and keep the stored block index in step with the table.

The store and the scheme come from the configuration; nothing here speaks MongoDB.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import numpy as np

from ..config import Config
from ..core.features import content_hash
from ..core.decision import Decided, Verdict, id_order, obey, pair_key
from ..core.pairs import copy_classes
from ..core.schemes import scheme_of
from ..store.index import BlockStore, Record, batched

MODES = ("exists", "all")
_CHUNK = 2000
RESTORED = 20_000  # restored sketches kept
STALE = Verdict(same=False, stale=True)  # as no decision: the rule's to settle


class Looked(NamedTuple):
    """A decision over stored rows: {(row, other): distance} of its pairs as a check lists
    them and as the batch stores them (`_as_pairs`), the probe of every row it looked at,
    and the rows of each text of a probe that has copies, in id order."""

    pairs: dict[tuple, Any]
    linked: dict[tuple, Any]
    seen: dict[Any, Any]
    copies: list[list]
    confirmed: frozenset = frozenset()  # the pairs a reviewer decided the same (decision.obey)
    possible: dict[tuple, Any] = {}  # (probe, other): similar texts for a person (Decided.possible)


class Match(NamedTuple):
    row: Any
    distance: float  # Hamming bits (an int) for fingerprints, 1 - similarity for shingles


class Checked(NamedTuple):
    """What a check found: the stored rows similar to a row, and those the rule cannot
    settle (`possible`: for a person, never duplicates); each nearest first; and the matter
    of a row of the table checked by its id."""

    similar: list[Match]
    possible: list[Match]
    matter: Any = None  # the matter (热点事项) of the row checked, when it is in one (sql.matters.Matter)


class Incremental:
    """Checks and changes against the stored index of the configured table."""

    def __init__(self, store: BlockStore, config: Config):
        """Refuses (ConfigError) a store whose live batch was made with other scheme settings."""
        self.store, self.scheme, self.fields = store, scheme_of(config), config.fields
        # {pair: Verdict} standing for pairs with one of some rows (sql.decisions.reader);
        # None: no reviewer's decision is read (an index without its source database).
        self.verdicts: Callable[[Iterable], Mapping[tuple, Verdict]] | None = None
        store.require(self.scheme.settings)
        # A stored sketch is restored by sketching its text again: the rows a worker meets
        # again and again (the partners of many rows) are sketched once.
        self._restored: OrderedDict[tuple[int, bytes | None], Any] = OrderedDict()
        self.table = config.source.table
        longs = [f.name for f in config.fields if f.role == "long"]
        self.text_field = longs[0] if longs else config.fields[0].name

    def ready(self) -> None:
        """Load what the scheme loads when first used (its dictionaries, 0.3 s), so that a
        worker's first rows do not wait for it."""
        self.probe("投诉")

    def probe(self, row: Mapping[str, Any] | str) -> Any:
        """What the scheme compares a row (or a text, read as the first long field) by."""
        return self.scheme.probes([self._as_row(row)])[0]

    def fingerprint(self, row: Mapping[str, Any] | str) -> int:
        """A row's 64-bit fingerprint (for shingles: of its shingle set)."""
        return self.scheme.fingerprint(self.probe(row))

    def check(self, row: Mapping[str, Any] | str, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a row or a text, nearest first, never `exclude` (the
        row's own id); in `exists` mode, at most the nearest one."""
        return self.checked(row, mode, exclude).similar

    def checked(self, row: Mapping[str, Any] | str, mode: str = "all", exclude: Any = None) -> Checked:
        """`check`, with the stored rows the rule cannot settle beside it (`possible`)."""
        return self._checked(self.probe(row), mode, exclude)

    def similar(self, probe: Any, mode: str = "all", exclude: Any = None) -> list[Match]:
        """Stored rows similar to a probe: read its blocks, confirm each candidate."""
        return self._checked(probe, mode, exclude).similar

    def _checked(self, probe: Any, mode: str, exclude: Any) -> Checked:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        looked = self.decide({exclude: probe})
        similar, possible = (_nearest(pairs, [exclude])[exclude] for pairs in (looked.pairs, looked.possible))
        return Checked(similar[:1] if mode == "exists" else similar, possible)

    def similar_many(self, probes: Mapping[Any, Any]) -> dict[Any, list[Match]]:
        """{row id: stored rows similar to its probe, nearest first, never itself}, with one
        decision for all of them (see `decide`)."""
        return _nearest(self.decide(probes).pairs, probes)

    def decide(self, probes: Mapping[Any, Any]) -> Looked:
        """The batch's pairs of these rows (`probes`: what they are now) with the stored rows
        and each other, their copies included, and of the rows around them (decision.py):
        decided over the stored rows sharing a key with the centre of the decision, read
        until the centre holds no row not read. Each key is read once: the copies of a
        collective petition share theirs."""
        if not probes:
            return Looked({}, {}, {}, [])
        seen = dict(probes)
        keys = {row: set(self.scheme.keys(p)) for row, p in probes.items()}
        looked: set = set()
        read: set = set()
        wanted = set(probes)
        while wanted - looked:
            ask = {row: keys[row] - read for row in sorted(wanted - looked, key=str) if keys[row] - read}
            found = {row: record for row, record in self.store.lookup(self.table, ask).items() if row not in seen}
            for (row, record), probe in zip(found.items(), self._restore(found.values())):
                seen[row], keys[row] = probe, set(record.keys)
            looked |= wanted
            read.update(*ask.values())
            ids = sorted(seen, key=_id_order)  # a text's first row is the first in id order, as the batch's
            focus = np.array([row in probes for row in ids], bool)
            decided = self.scheme.decide([seen[row] for row in ids], focus)
            wanted = {ids[n] for n in np.flatnonzero(decided.centre).tolist()}
        copies = [[ids[m] for m in members] for members in copy_classes(decided.original) if focus[members].any()]
        pairs, linked = _as_pairs(decided, ids, copies, probes)
        # the verdicts of every pair decided here: a focused decision gives pairs of the rows
        # around the probes too, and a worker writes them
        rows = {row for pair in [*pairs, *linked] for row in pair} | set(probes)
        verdicts = self.verdicts(sorted(rows - {None}, key=_id_order)) if self.verdicts else {}
        pairs, confirmed = obey(pairs, verdicts)
        i, j, d = decided.possible
        possible = {(ids[a], ids[b]): x for a, b, x in zip(i.tolist(), j.tolist(), d.tolist())
                    if verdicts.get(pair_key(ids[a], ids[b]), STALE).stale}
        return Looked(pairs, obey(linked, verdicts)[0], seen, copies, frozenset(confirmed), possible)

    def obey(self, pairs: Mapping[tuple, float]) -> tuple[dict[tuple, float], set[tuple]]:
        """Pairs made outside `decide` (copies linked to their next first row) as reviewers
        decided them, and those confirmed: (decision.obey, over these pairs alone)."""
        if not pairs or self.verdicts is None:
            return dict(pairs), set()
        kept, confirmed = obey(pairs, self.verdicts(sorted({r for pair in pairs for r in pair}, key=_id_order)))
        return {pair: d for pair, d in kept.items() if pair in pairs}, confirmed & pairs.keys()

    def add(self, row_id: Any, row: Mapping[str, Any]) -> Any:
        """File a row, replacing what was filed of it before. Returns its probe."""
        probe = self.probe(row)
        self.file_many([(row_id, row, probe)])
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
        """File many (row id, row) pairs, in batches; rows stored as they are are skipped.
        Returns how many were written."""
        written = 0
        for chunk in batched(rows, _CHUNK):
            probes = self.scheme.probes([row for _, row in chunk])
            written += self.file_many((i, row, p) for (i, row), p in zip(chunk, probes))
        return written

    def file_many(self, items: Iterable[tuple[Any, Mapping[str, Any], Any]]) -> int:
        """File (row id, row, probe) triples whose probes are known; rows stored as they are
        are skipped. Returns how many were written."""
        records = [self.record(i, row, p) for i, row, p in items]
        held = self.store.records(self.table, [r.row for r in records])
        return self.store.file(r for r in records if held.get(r.row) != r)

    def record(self, row_id: Any, row: Mapping[str, Any], probe: Any) -> Record:
        """What the store files of a row."""
        return Record(self.table, row_id, self.scheme.fingerprint(probe),
                      content_hash(row, self.fields, self.scheme.settings),
                      tuple(self.scheme.keys(probe)), self.scheme.sketch(probe))

    def remove(self, row_id: Any) -> bool:
        """Take a row out of the index; False if it was not there."""
        return self.store.remove(self.table, [row_id]) > 0

    def current(self, rows: Iterable) -> dict[Any, Any]:
        """The probes of these rows as the index holds them now (those it holds)."""
        held = self.store.records(self.table, sorted(rows, key=str))
        return dict(zip(held, self._restore(held.values())))

    def near_stored(self, rows: Iterable) -> dict[Any, Any]:
        """The probes of the other rows filed under a key of one of these rows as the index
        holds them now (a text's copies in one read)."""
        mine = self.store.records(self.table, sorted(rows, key=str))
        near = self.store.lookup(self.table, {r: record.keys for r, record in mine.items()}) if mine else {}
        return dict(zip(near, self._restore(near.values())))

    def _restore(self, records: Iterable[Record]) -> list[Any]:
        """The probes of stored rows, those not restored lately restored together."""
        wanted = [(record.fingerprint, record.sketch) for record in records]
        held = self._restored
        missing = [key for key in dict.fromkeys(wanted) if key not in held]
        found = dict(zip(missing, self.scheme.restore(missing)))
        for key in wanted:
            if key not in found:
                found[key] = held[key]
                held.move_to_end(key)
        held.update(found)
        while len(held) > RESTORED:
            held.popitem(last=False)
        return [found[key] for key in wanted]

    def _as_row(self, row: Mapping[str, Any] | str) -> Mapping[str, Any]:
        return {self.text_field: row} if isinstance(row, str) else row


def _id_order(row: Any) -> tuple:
    """Rows in id order, a text checked (None: no row) after them."""
    return (True,) if row is None else (False, id_order(row))


def _nearest(pairs: Mapping[tuple, Any], rows: Iterable) -> dict[Any, list[Match]]:
    """{row: the other rows of its pairs, nearest first} for each of `rows`."""
    found: dict[Any, list[Match]] = {row: [] for row in rows}
    for (a, b), distance in pairs.items():
        if a in found:
            found[a].append(Match(b, distance))
        if b in found:
            found[b].append(Match(a, distance))
    return {row: sorted(near, key=lambda m: (m.distance, str(m.row))) for row, near in found.items()}


def _as_pairs(decided: Decided, ids: list, copies: list[list], probes: Mapping[Any, Any]) -> tuple[dict, dict]:
    """The pairs decided, {(row, other): distance}: as a check lists them (each probe with
    every row of its text, at distance 0), and as the batch stores them (pairs.Similar.linked:
    each row of a probe's text linked to the first of them, where a probe is either: the
    others' links stand). A probe's text is whole in what was read: copies share their keys."""
    i, j, d = decided.pairs
    listed = {(ids[a], ids[b]): distance for a, b, distance in zip(i.tolist(), j.tolist(), d.tolist())}
    linked, zero = dict(listed), d.dtype.type(0).item()
    for rows in copies:
        linked.update(((row, rows[0]), zero) for row in rows[1:] if row in probes or rows[0] in probes)
        for row in (r for r in rows if r in probes):
            for other in rows:
                if other != row and (other, row) not in listed:
                    listed[row, other] = zero
    return listed, linked
