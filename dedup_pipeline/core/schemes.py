"""The one small interface the batch, the incremental check and the worker see (DESIGN.md,
"Schemes"): what a row is turned into (its *probe*), which keys it is filed under, how a
candidate is confirmed, and every similar pair of many rows. Pure: no I/O.

- `Fingerprints`: the paper's SimHash over weighted fields, within k bits (seed 003).
- `Shingles`: character shingles of the text, confirmed by exact similarity (the default,
  chosen by benchmarks/quality: it finds the re-submissions SimHash misses).

`decide` decides the pairs of many rows (decision.py), all of a table or those of some rows
of it; `relate` is its smallest case, a pair's distance with the evidence it carries. A distance is Hamming bits for fingerprints and 1 − similarity for shingles: smaller is
nearer in both, so matches sort and store the same way.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

import numpy as np

from .blocks import BlockScheme
from . import decision
from .decision import SUBMITTER, WRITTEN, Decided
from .features import Featurizer
from .tokenize import cutter
from .weighting import Weighting
from .pairs import Pairs, Similar, similar_pairs
from .shingles import ShingleScheme, Sketch, SketchTable
from .simhash import fingerprint_many

if TYPE_CHECKING:
    from ..config import Config  # the settings are read here, never imported at run time


_KEY_MASK = (1 << 56) - 1


class Scheme(Protocol):
    sketch_stored: bool  # whether confirming needs the stored rows' sketches
    settings: str  # what decides a row's keys and sketch, besides the row
    links: bool  # whether pairs without evidence of their own may be linked by a third row
    def probes(self, rows: Sequence[Mapping[str, Any]]) -> list: ...
    def keys(self, probe: Any) -> list[int]: ...
    def fingerprint(self, probe: Any) -> int: ...
    def sketch(self, probe: Any) -> bytes | None: ...
    def restore(self, stored: Sequence[tuple[int, bytes | None]]) -> list: ...
    def distance(self, a: Any, b: Any) -> float | None: ...
    def relate(self, a: Any, b: Any) -> tuple[float | None, int]: ...
    def relate_many(self, pairs: Sequence[tuple[Any, Any]]) -> list[tuple[float | None, int]]: ...
    def identity(self, probe: Any) -> int: ...
    def decide(self, probes: Sequence, focus: np.ndarray | None = None, threads: int = 1,
               numbers: np.ndarray | None = None, known: Any = None) -> Decided: ...
    def similar(self, probes: Sequence) -> Similar: ...
    def pairs(self, probes: Sequence) -> Pairs: ...


def featurizer(config: Config) -> Featurizer:
    """The SimHash scheme's features of a row, as `[fields]` and `[fingerprint]` say."""
    fp = config.fingerprint
    weighting = Weighting(fp.weighting, fp.length, fp.noun_weight, fp.verb_weight, fp.marker_weight,
                          fp.title_weight, fp.title_field)
    return Featurizer(config.fields, fp.punctuation, cutter(fp.punctuation, fp.tokenizer == "auto"), weighting)


def block_scheme(config: Config) -> BlockScheme:
    """The SimHash scheme's blocks, as `[fingerprint]` and `[scheme]` say."""
    return BlockScheme(config.fingerprint.bits, config.fingerprint.k, config.scheme.blocks, config.scheme.key_blocks)


def shingle_scheme(config: Config) -> ShingleScheme:
    """The shingles scheme, as `[scheme]` says."""
    return ShingleScheme(**{f.name: getattr(config.scheme, f.name) for f in dataclass_fields(ShingleScheme)
                            if hasattr(config.scheme, f.name)})


def scheme_of(config: Config) -> Scheme:
    return Shingles(config) if config.shingles else Fingerprints(config)


class Fingerprints:
    """A row is its 64-bit SimHash; similar within k bits, found by block keys."""

    sketch_stored = links = False

    def __init__(self, config: Config):
        self.blocks, self.featurizer = block_scheme(config), featurizer(config)
        self.settings = f"({config.fingerprint!r}, {config.scheme.stored()}, {config.fields!r})"

    def probes(self, rows: Sequence[Mapping[str, Any]]) -> list[int]:
        return fingerprint_many(list(rows), self.featurizer).tolist() if rows else []

    def keys(self, probe: int) -> list[int]:
        """Each table's key with the table's number in the top byte (a key wider than 56
        bits loses its top bits: more candidates, never fewer)."""
        return [t << 56 | k & _KEY_MASK for t, k in self.blocks.keys(probe)]

    def fingerprint(self, probe: int) -> int:
        return probe

    def sketch(self, probe: int) -> None:
        return None

    def restore(self, stored: Sequence[tuple[int, bytes | None]]) -> list[int]:
        return [fingerprint for fingerprint, _ in stored]

    def distance(self, a: int, b: int) -> int | None:
        return self.blocks.distance(a, b)

    def relate(self, a: int, b: int) -> tuple[int | None, int]:
        """Fingerprints carry no evidence apart from their distance: near is confirmed."""
        distance = self.distance(a, b)
        return distance, 0 if distance is None else SUBMITTER | WRITTEN

    def relate_many(self, pairs: Sequence[tuple[int, int]]) -> list[tuple[int | None, int]]:
        return [self.relate(a, b) for a, b in pairs]

    def identity(self, probe: int) -> int:
        """Rows of one fingerprint are copies of each other (distance 0); never 0, which
        means none."""
        return probe + 1

    def decide(self, probes: Sequence[int], focus: np.ndarray | None = None, threads: int = 1,
               numbers: np.ndarray | None = None, known: Any = None) -> Decided:
        """Every pair within k bits (those of a focus row, given `focus`: the rows sharing a
        key with it are its centre), on `threads` threads; in one round (`numbers` and
        `known` are the shingles' decision's)."""
        found = similar_pairs(np.asarray(probes, dtype=np.uint64), self.blocks, threads)
        i, j, d = found.pairs
        if focus is not None:
            keep = focus[i] | focus[j]
            i, j, d = i[keep], j[keep], d[keep]
        return Decided((i, j, d), found.original, np.full(len(i), SUBMITTER | WRITTEN), np.ones(len(i), bool),
                       np.full(len(i), -1, np.int64), np.ones(len(found.original), bool) if focus is None else focus)

    def similar(self, probes: Sequence[int]) -> Similar:
        return self.decide(probes).similar

    def pairs(self, probes: Sequence[int]) -> Pairs:
        return self.similar(probes).every_pair()


class Shingles:
    """A row is the shingle set of its long fields; similar by exact set similarity."""

    sketch_stored = True

    def __init__(self, config: Config):
        self.shingles, self.fields = shingle_scheme(config), config.fields
        self.links = self.shingles.corroborate
        self.settings = f"({config.scheme.stored()}, {config.fields!r}{_short_texts(self.shingles)})"

    def probes(self, rows: Sequence[Mapping[str, Any]]) -> list[Sketch]:
        return self.shingles.sketch_many(rows, self.fields)

    def keys(self, probe: Sketch) -> list[int]:
        return probe.keys.tolist()

    def fingerprint(self, probe: Sketch) -> int:
        return probe.fingerprint

    def sketch(self, probe: Sketch) -> bytes:
        return probe.to_bytes()

    def restore(self, stored: Sequence[tuple[int, bytes | None]]) -> list[Sketch]:
        return self.shingles.restore_many([sketch or b"" for _, sketch in stored])

    def distance(self, a: Sketch, b: Sketch) -> float | None:
        distance, evidence = self.relate(a, b)
        return distance if evidence else None

    def relate(self, a: Sketch, b: Sketch) -> tuple[float | None, int]:
        return self.relate_many([(a, b)])[0]

    def relate_many(self, pairs: Sequence[tuple[Sketch, Sketch]]) -> list[tuple[float | None, int]]:
        """`relate` of each pair, confirmed together (a worker re-checks hundreds at once)."""
        if not pairs:
            return []
        slots: dict[int, int] = {}  # each sketch once, however many pairs it is in
        sketches = []
        for sketch in (s for pair in pairs for s in pair):
            if id(sketch) not in slots:
                slots[id(sketch)] = len(sketches)
                sketches.append(sketch)
        i, j = (np.array([slots[id(pair[n])] for pair in pairs]) for n in (0, 1))
        return [(None if score is None else round(1 - score, 4), evidence)
                for score, evidence in decision.relate_many(self.shingles, sketches, i, j)]

    def identity(self, probe: Sketch) -> int:
        return probe.identity

    def decide(self, probes: Sequence[Sketch] | SketchTable, focus: np.ndarray | None = None,
               threads: int = 1, numbers: np.ndarray | None = None, known: decision.Known | None = None) -> Decided:
        return decision.decide(self.shingles, _table(probes), focus, threads, numbers, known)

    def similar(self, probes: Sequence[Sketch] | SketchTable) -> Similar:
        return self.decide(probes).similar

    def pairs(self, probes: Sequence[Sketch] | SketchTable) -> Pairs:
        return self.similar(probes).every_pair()


def _short_texts(rule: ShingleScheme) -> str:
    """The settings of short texts' keys, which `[scheme]` does not set, for the settings
    text: they decide a row's keys as the others do ("" when there are none, the text of a
    store built before them)."""
    if not (rule.short_bands or rule.tiny_keys):
        return ""
    return (f", ShortTexts(short={rule.short}, short_bands={rule.short_bands}, tiny={rule.tiny}, "
            f"tiny_keys={rule.tiny_keys}, opening={rule.opening}, past_opening=True)")


def _table(probes: Sequence[Sketch] | SketchTable) -> SketchTable:
    return probes if isinstance(probes, SketchTable) else SketchTable.of(probes)
