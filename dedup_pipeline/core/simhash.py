"""64-bit SimHash (Charikar) over CityHash64 of each feature, and Hamming distance.

Two paths give the same fingerprint bit for bit: `fingerprint` (one row, plain Python,
the reference) and `fingerprint_many` (many rows at once with numpy, the fast path), with
every weighting of long text (weighting.py): both take a word's weight from the same
function and sum it in fixed point.
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
    with numpy (weighted by each word's weight when the weighting is not plain term
    frequency). Rows with a text longer than CHUNK_CHARS take the one-row path.
    """
    columns = {f.name: [value_text(row.get(f.name), f) or "" for row in rows] for f in featurizer.fields}
    huge = [i for i in range(len(rows))
            if any(len(columns[f.name][i]) > CHUNK_CHARS for f in featurizer.fields if f.role == "long")]
    regular = np.setdiff1d(np.arange(len(rows)), huge)
    votes = np.zeros((BITS, len(rows)), dtype=np.int64)
    titles = _titles([rows[i] for i in regular], featurizer)
    for field in featurizer.fields:
        texts = [columns[field.name][i] for i in regular]
        weights = None
        if field.role == "short":
            hashes, lengths = _short_hashes(field, texts)
        elif featurizer.weighting.plain:
            hashes, lengths = _long_hashes(texts, featurizer)
        else:
            hashes, weights, lengths = _weighted_long_hashes(texts, field, titles, featurizer)
        kept = _drop_stop_words(hashes, featurizer.stop)
        if not kept.all():
            lengths = lengths - np.bincount(np.repeat(np.arange(len(lengths)), lengths)[~kept],
                                            minlength=len(lengths))
            hashes = hashes[kept]
            weights = None if weights is None else weights[kept]
        if weights is None:
            votes[:, regular] += quantize(field.effective_weight) * _bit_balance(hashes, lengths)
        else:
            votes[:, regular] += _weighted_bit_balance(hashes, weights, lengths)
    fingerprints = np.packbits(np.ascontiguousarray((votes > 0).T), axis=1, bitorder="little")
    fingerprints = fingerprints.view("<u8").ravel().astype(np.uint64)
    for i in huge:
        fingerprints[i] = fingerprint(rows[i], featurizer)
    return fingerprints


def _short_hashes(field: Field, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One feature per non-blank value, as features.short_feature gives it."""
    keys = [short_key(field, v) for v in normalize_many(texts, "remove", join="")]  # short_key drops spaces
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


def _titles(rows: Sequence[Mapping], featurizer: Featurizer) -> list[str]:
    """Each row's title normalized as Featurizer.title_text gives it ("" without a title weight)."""
    field = featurizer.title_field
    if field is None:
        return [""] * len(rows)
    return normalize_many([value_text(r.get(field.name), field) or "" for r in rows], featurizer.punctuation)


def _long_tokens(texts: list[str], featurizer: Featurizer) -> tuple[list[str], np.ndarray]:
    """Every token of every text, concatenated, and how many each text has: one tokenizer
    call, as in _long_hashes, the texts' boundaries found as newline tokens."""
    normalized = normalize_many(texts, featurizer.punctuation)
    nonempty = [t for t in normalized if t]
    tokens = featurizer.cut("\n".join(nonempty))
    breaks = [i for i, t in enumerate(tokens) if t == "\n"]
    if len(breaks) == max(len(nonempty) - 1, 0):
        bounds = [-1, *breaks, len(tokens)]
        counts = iter([bounds[k + 1] - bounds[k] - 1 for k in range(len(bounds) - 1)])
        lengths = [next(counts) if t else 0 for t in normalized]
        return [t for t in tokens if t != "\n"], np.array(lengths, dtype=np.int64)
    token_lists = [featurizer.cut(t) if t else [] for t in normalized]
    return [t for ts in token_lists for t in ts], np.array([len(ts) for ts in token_lists], dtype=np.int64)


def _weighted_long_hashes(texts: list[str], field: Field, titles: list[str],
                          featurizer: Featurizer) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hashes of every token, each token's quantized weight, and how many each text has.
    The weight is Weighting.weight's, computed with numpy in the same order of the same
    float operations (per row: the shortest and longest word without stop words, as
    Featurizer.long_words gives them, and the title); the tests hold the two to every bit."""
    tokens, lengths = _long_tokens(texts, featurizer)
    hashes = np.fromiter(map(CityHash64, tokens), dtype=np.uint64, count=len(tokens))
    weighting, field_weight = featurizer.weighting, field.effective_weight
    memo = {t: field_weight * weighting.word_factor(t) for t in set(tokens)}
    weights = np.fromiter(map(memo.__getitem__, tokens), dtype=np.float64, count=len(tokens))
    row_of = np.repeat(np.arange(len(lengths)), lengths)
    if weighting.length == "minmax":
        weights = weights * (1.0 + _minmax_lengths(tokens, row_of, len(lengths), featurizer.stop))
    if weighting.title != 1.0:
        in_title = np.fromiter((t in titles[r] for t, r in zip(tokens, row_of.tolist())), dtype=bool, count=len(tokens))
        weights = np.where(in_title, weights * weighting.title, weights)
    return hashes, np.rint(weights * _SCALE).astype(np.int64), lengths


def _minmax_lengths(tokens: list[str], row_of: np.ndarray, rows: int, stop: frozenset[str]) -> np.ndarray:
    """weighting.minmax_length of every token, over the words (not stop words) of its row."""
    size = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    word = np.fromiter((t not in stop for t in tokens), dtype=bool, count=len(tokens))
    shortest, longest = np.full(rows, np.iinfo(np.int64).max), np.zeros(rows, dtype=np.int64)
    np.minimum.at(shortest, row_of[word], size[word])
    np.maximum.at(longest, row_of[word], size[word])
    lo, span = shortest[row_of], (longest - shortest)[row_of]
    out = np.zeros(len(tokens), dtype=np.float64)
    wide = span > 0
    out[wide] = (size[wide] - lo[wide]) / span[wide]
    return out


def _weighted_bit_balance(hashes: np.ndarray, weights: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each text (column) and bit (row): the weights of the features with the bit set
    minus those of the features without (exact: fixed-point integers)."""
    balance = np.zeros((BITS, len(lengths)), dtype=np.int64)
    if not len(hashes):
        return balance
    present = lengths > 0
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[present]
    total = np.add.reduceat(weights, starts)
    bit = np.empty_like(hashes)
    on = np.empty_like(weights)
    for i in range(BITS):
        np.bitwise_and(np.right_shift(hashes, np.uint64(i), out=bit), np.uint64(1), out=bit)
        np.multiply(weights, bit.view(np.int64), out=on)
        balance[i, present] = 2 * np.add.reduceat(on, starts) - total
    return balance


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
