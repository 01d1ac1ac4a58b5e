"""64-bit SimHash (Charikar) over CityHash64 of each feature, and Hamming distance.

Two paths give the same fingerprint bit for bit: `fingerprint` (one row, plain Python,
the reference) and `fingerprint_many` (many rows at once with numpy, the fast path).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Iterable, Mapping, Sequence

import numpy as np
from cityhash import CityHash64

from .features import CHUNK_CHARS, Featurizer, Field, Segment, short_key, value_text
from .text import normalize_many

BITS = 64
# Weights are summed as integers in units of 1/65536: the sum is then exact in any order,
# which is what keeps the numpy path bit-identical to the one-row path.
_SCALE = 1 << 16


def feature_hash(feature: str) -> int:
    """CityHash64 of the feature's UTF-8 bytes, as an unsigned 64-bit int (the batch path
    calls CityHash64 itself: a Python wrapper per word costs as much as the hash)."""
    return CityHash64(feature)


def quantize(weight: float) -> int:
    """A weight in fixed point, the unit in which bits are summed."""
    return round(weight * _SCALE)


def combine(hashed: Iterable[tuple[int, int]]) -> int:
    """SimHash of (feature hash, quantized weight) pairs: bit i is 1 where the weighted
    votes of the features with bit i set outweigh those without."""
    totals: dict[int, int] = defaultdict(int)
    for h, w in hashed:  # a repeated word votes once with its summed weight: same sums
        totals[h] += w
    sums = [0] * BITS
    for h, w in totals.items():
        for i in range(BITS):
            sums[i] += w if h >> i & 1 else -w
    return sum(1 << i for i, s in enumerate(sums) if s > 0)


def fingerprint_segments(segments: Iterable[Segment], stop: frozenset[str]) -> int:
    """SimHash of weighted feature segments (the reference, one feature at a time).

    A feature whose hash equals a stop word's does not count: fingerprint_many drops stop
    words by hash, and this keeps the two paths identical even for a 64-bit collision."""
    ignored = set(_stop_hashes(stop).tolist())
    hashed = ((feature_hash(f), quantize(w)) for feats, w in segments for f in feats)
    return combine((h, w) for h, w in hashed if h not in ignored)


def fingerprint(row: Mapping, featurizer: Featurizer) -> int:
    """The fingerprint of one row."""
    return fingerprint_segments(featurizer.segments(row), featurizer.stop)


def hamming(a: int, b: int) -> int:
    """Number of differing bits."""
    return (a ^ b).bit_count()


def to_hex(fp: int) -> str:
    return f"{fp:016x}"


@cache
def _stop_hashes(stop: frozenset[str]) -> np.ndarray:
    """The hashes of the stop words, sorted."""
    return np.unique(np.array([feature_hash(w) for w in stop], dtype=np.uint64))


@cache
def _stop_filter(stop: frozenset[str]) -> np.ndarray:
    """For each value of a hash's low 16 bits: could it be a stop word's?"""
    table = np.zeros(1 << 16, dtype=bool)
    table[_stop_hashes(stop) & np.uint64(0xFFFF)] = True
    return table


def _drop_stop_words(hashes: np.ndarray, stop: frozenset[str]) -> np.ndarray:
    """A mask of the hashes that are not a stop word's (a 16-bit table first, exact after)."""
    kept = ~_stop_filter(stop)[hashes & np.uint64(0xFFFF)]
    maybe = np.flatnonzero(~kept)
    stops = _stop_hashes(stop)
    at = np.minimum(np.searchsorted(stops, hashes[maybe]), len(stops) - 1)
    kept[maybe] = stops[at] != hashes[maybe]
    return kept


_NEWLINE = feature_hash("\n")


def fingerprint_many(rows: Sequence[Mapping], featurizer: Featurizer) -> np.ndarray:
    """Fingerprints of many rows (uint64 array), bit-identical to `fingerprint` of each.

    Works a column at a time: normalize_many over the column, one tokenizer call over all
    its texts joined by newlines (a word boundary), hashes through a cache, bits counted
    with numpy. Rows with a text longer than CHUNK_CHARS take the one-row path.
    """
    columns = {f.name: [value_text(row.get(f.name), f) or "" for row in rows] for f in featurizer.fields}
    huge = [i for i in range(len(rows))
            if any(len(columns[f.name][i]) > CHUNK_CHARS for f in featurizer.fields if f.role == "long")]
    regular = np.setdiff1d(np.arange(len(rows)), huge)
    votes = np.zeros((BITS, len(rows)), dtype=np.int64)
    for field in featurizer.fields:
        texts = [columns[field.name][i] for i in regular]
        if field.role == "short":
            hashes, lengths = _short_hashes(field, texts)
        else:
            hashes, lengths = _long_hashes(texts, featurizer)
        kept = _drop_stop_words(hashes, featurizer.stop)
        if not kept.all():
            lengths = lengths - np.bincount(np.repeat(np.arange(len(lengths)), lengths)[~kept],
                                            minlength=len(lengths))
            hashes = hashes[kept]
        votes[:, regular] += quantize(field.effective_weight) * _bit_balance(hashes, lengths)
    fingerprints = np.packbits(np.ascontiguousarray((votes > 0).T), axis=1, bitorder="little")
    fingerprints = fingerprints.view("<u8").ravel().astype(np.uint64)
    for i in huge:
        fingerprints[i] = fingerprint(rows[i], featurizer)
    return fingerprints


def _short_hashes(field: Field, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One feature per non-blank value, as features.short_feature gives it."""
    keys = [short_key(field, v) for v in normalize_many(texts, "remove")]
    hashes = [feature_hash(k) for k in keys if k]
    return np.array(hashes, dtype=np.uint64), np.array([k is not None for k in keys], dtype=np.int64)


def _long_hashes(texts: list[str], featurizer: Featurizer) -> tuple[np.ndarray, np.ndarray]:
    """The hashes of every token of every text, concatenated, and how many each text has.
    One tokenizer call for all texts, joined by newlines: a word boundary that normalized
    text never contains (should a word hash like a newline, each text is cut alone)."""
    normalized = normalize_many(texts, featurizer.punctuation)
    nonempty = [t for t in normalized if t]
    tokens = featurizer.cut("\n".join(nonempty))
    hashes = np.fromiter(map(CityHash64, tokens), dtype=np.uint64, count=len(tokens))
    breaks = hashes == _NEWLINE
    if breaks.sum() != max(len(nonempty) - 1, 0):
        token_lists = [featurizer.cut(t) for t in normalized]
        hashes = np.fromiter(map(CityHash64, (t for ts in token_lists for t in ts)), dtype=np.uint64)
        return hashes, np.array([len(ts) for ts in token_lists], dtype=np.int64)
    lengths = np.zeros(len(texts), dtype=np.int64)
    lengths[[bool(t) for t in normalized]] = np.bincount(np.cumsum(breaks)[~breaks], minlength=len(nonempty))
    return hashes[~breaks], lengths
def _bit_balance(hashes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each text (column) and bit (row): features with the bit set minus those without."""
    balance = np.zeros((BITS, len(lengths)), dtype=np.int64)
    if not len(hashes):
        return balance
    present = lengths > 0
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[present]
    bit = np.empty_like(hashes)
    for i in range(BITS):
        np.bitwise_and(np.right_shift(hashes, np.uint64(i), out=bit), np.uint64(1), out=bit)
        balance[i, present] = np.add.reduceat(bit.view(np.int64), starts)
    balance[:, present] = 2 * balance[:, present] - lengths[present]
    return balance
