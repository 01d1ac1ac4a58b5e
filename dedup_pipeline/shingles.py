"""Character shingles (Broder 1997; the Shingle/DSC method, seed 002 §2.1): a row's text as
the set of its k-character substrings, filed under its smallest shingle hashes and confirmed
by exact set similarity.

Why the smallest hashes find every similar pair with high probability: order all shingles
by hash. The smallest shingle of A ∪ B lies in A ∩ B with probability J(A, B), and then it
is among the smallest of both A and B. With `keys` keys each, a pair is missed only if
none of the first `keys` of the union is shared: about (1 − J)^keys, 0.3% at J = 0.3 and
16 keys (the bottom-k sketch; prefix filtering with a hash order). Every candidate is then
confirmed exactly, so keys only decide what is looked at, never what is reported.

Pure: no I/O. Shingle hashes are computed with numpy (a splitmix64 mix of the code
points), not CityHash, so that a million rows hash in seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
from cityhash import CityHash64

from .features import Field, value_text
from .text import normalize

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_M = np.uint64(0x9E3779B97F4A7C15)


class Sketch(NamedTuple):
    """What a row is filed and compared by: its shingle hashes (sorted) and its keys."""

    shingles: np.ndarray
    keys: np.ndarray

    @property
    def fingerprint(self) -> int:
        """One 64-bit number for the whole set: equal sets, equal fingerprints."""
        return CityHash64(self.shingles.tobytes())


@dataclass(frozen=True)
class ShingleScheme:
    """Rows compared by their `size`-character shingles, filed under the `keys` smallest
    hashes of their `key_size`-character shingles; similar when the Jaccard similarity
    reaches `threshold`, or the smaller set lies `containment` inside the other (a
    sentence added or removed) and has at least `min_shingles` shingles."""

    size: int = 2
    key_size: int = 5
    keys: int = 8
    threshold: float = 0.5
    containment: float = 0.8
    min_shingles: int = 8

    def sketch(self, text: str) -> Sketch:
        return Sketch(shingle_hashes(text, self.size), shingle_hashes(text, self.key_size)[:self.keys])

    def table_keys(self, sketch: Sketch) -> list[tuple[int, int]]:
        """(table, key) pairs, as the store files them: one table, whatever the position."""
        return [(0, int(h)) for h in sketch.keys]

    def score(self, a: np.ndarray, b: np.ndarray) -> float | None:
        """The pair's similarity when it is similar, else None."""
        if len(a) == 0 or len(b) == 0:
            return None
        common = len(np.intersect1d(a, b, assume_unique=True))
        jaccard = common / (len(a) + len(b) - common)
        smaller = min(len(a), len(b))
        if jaccard >= self.threshold:
            return jaccard
        if smaller >= self.min_shingles and common / smaller >= self.containment:
            return max(jaccard, self.threshold)
        return None

    def pairs(self, sketches: Sequence[Sketch]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every similar (i, j, 1 − score) with i < j: rows sharing a key, confirmed."""
        i, j = candidates([s.keys for s in sketches])
        found = [(a, b, self.score(sketches[a].shingles, sketches[b].shingles))
                 for a, b in zip(i.tolist(), j.tolist())]
        found = [(a, b, round(1 - score, 4)) for a, b, score in found if score is not None]
        if not found:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        a, b, d = (np.array(column) for column in zip(*found))
        return a, b, d


def candidates(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, of rows with a key in common, once."""
    rows = np.repeat(np.arange(len(keys)), [len(k) for k in keys])
    flat = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
    order = np.lexsort((rows, flat))
    rows, flat = rows[order], flat[order]
    starts = np.flatnonzero(np.concatenate(([True], flat[1:] != flat[:-1])))
    ends = np.append(starts[1:], len(flat))
    left, right = [], []
    for start, end in zip(starts[ends - starts > 1].tolist(), ends[ends - starts > 1].tolist()):
        run = rows[start:end]
        a, b = np.triu_indices(len(run), 1)
        left.append(run[a])
        right.append(run[b])
    if not left:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    pairs = np.unique(np.stack([np.concatenate(left), np.concatenate(right)], axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return pairs[:, 0], pairs[:, 1]


def shingle_hashes(text: str, size: int) -> np.ndarray:
    """Sorted, distinct 62-bit hashes of the text's `size`-character shingles (the whole
    text when it is shorter; none when blank). 62 bits: a key fits a BSON int64."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if len(codes) == 0:
        return np.zeros(0, np.uint64)
    width = min(size, len(codes))
    h = np.full(len(codes) - width + 1, np.uint64(width))
    for i in range(width):
        h = (h ^ codes[i:len(h) + i]) * _M
    return np.unique(_mix(h) >> np.uint64(2))


def row_text(row: Mapping[str, Any], fields: Sequence[Field]) -> str:
    """What a row's shingles are taken from: its long fields, normalized, without
    punctuation or spaces, every number folded to one digit (a changed date or amount is
    the same complaint)."""
    parts = [value_text(row.get(f.name), f) for f in fields if f.role == "long"]
    text = normalize(" ".join(p for p in parts if p), punctuation="remove")
    return _SPACES.sub("", _DIGITS.sub("0", text))


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: every input bit moves every output bit."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))
