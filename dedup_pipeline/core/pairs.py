"""Every pair of fingerprints within Hamming distance k, by block classification (seed 003
§2.1, §3.3), and the groups (connected components) they form.

For each table of the scheme: move its key blocks to the top bits, sort, and compare only
neighbours inside runs of equal keys. The pigeonhole argument (blocks.py) guarantees every
pair within k shares a key in some table; a pair is kept only in the first table whose key
it shares, so it is reported once without a global set. Identical fingerprints are
collapsed first; rows holding one are copies of the first of them (`Similar`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from .blocks import BlockScheme

Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]  # (i, j, distance), i < j, row positions


class Similar(NamedTuple):
    """Every similar pair of many rows, copies apart: `pairs`, every pair of rows of
    different texts, and each row's `original`, the first row with the same text (itself when none
    is earlier). Rows of one original are all similar to each other at distance 0, which
    is not listed: a thousand copies of a collective petition cost a thousand, not 499,500."""

    pairs: Pairs
    original: np.ndarray

    @classmethod
    def of_every_pair(cls, pairs: Pairs, identity: np.ndarray) -> Similar:
        """From every pair (copies with each other too) and each row's identity (0: none)."""
        original = originals(identity)
        i, j, d = pairs
        apart = original[i] != original[j]
        return cls((i[apart], j[apart], d[apart]), original)

    @property
    def copies(self) -> np.ndarray:
        """The rows that are copies of an earlier one."""
        return np.flatnonzero(self.original != np.arange(len(self.original)))

    def linked(self) -> Pairs:
        """The pairs and each copy linked to its original at distance 0: what is stored."""
        copy = self.copies
        i, j, d = self.pairs
        return _ordered(np.concatenate([i, self.original[copy]]), np.concatenate([j, copy]),
                        np.concatenate([d, np.zeros(len(copy), d.dtype)]))

    def every_pair(self) -> Pairs:
        """Every pair, copies with each other too (n² for n copies): for small tables."""
        i, j, d = self.pairs
        parts = [(i, j, d)]
        for row_members in copy_classes(self.original):
            a, b = np.triu_indices(len(row_members), 1)
            parts.append((row_members[a], row_members[b], np.zeros(len(a), d.dtype)))
        return _ordered(*(np.concatenate(p) for p in zip(*parts)))


def originals(identity: np.ndarray) -> np.ndarray:
    """Each row's first row of the same identity (itself for identity 0: not a copy of any)."""
    out = np.arange(len(identity))
    filled = np.flatnonzero(identity != 0)
    _, first, inverse = np.unique(identity[filled], return_index=True, return_inverse=True)
    out[filled] = filled[first][inverse.ravel()]
    return out


def copy_classes(original: np.ndarray) -> list[np.ndarray]:
    """The rows of each original with copies, original first."""
    order = np.argsort(original, kind="stable")
    starts = np.flatnonzero(np.diff(original[order], prepend=-1))
    ends = np.append(starts[1:], len(order))
    return [order[starts[k]:ends[k]] for k in np.flatnonzero(ends - starts > 1).tolist()]  # not a split of every row


def _ordered(i: np.ndarray, j: np.ndarray, d: np.ndarray) -> Pairs:
    low, high = np.minimum(i, j).astype(np.int64), np.maximum(i, j).astype(np.int64)
    order = np.lexsort((high, low))
    return low[order], high[order], d[order]


def similar_pairs(fingerprints: np.ndarray, scheme: BlockScheme, threads: int = 2,
                  on_table: Callable[[int], None] = lambda t: None) -> Similar:
    """All (i, j, distance) with i < j and distance <= k, i and j positions in the input;
    rows of one fingerprint are copies of the first of them."""
    unique, row_of = np.unique(fingerprints, return_inverse=True)
    found = mapped(threads, lambda t: _table_pairs(unique, scheme, t, on_table), range(len(scheme.tables)))
    u = np.concatenate([f[0] for f in found])
    v = np.concatenate([f[1] for f in found])
    distance = np.bitwise_count(unique[u] ^ unique[v]).astype(np.int64)
    return _expand_to_rows(u, v, distance, row_of.ravel())


def mapped(threads: int, work: Callable[[Any], Any], items: Iterable) -> list:
    """work(item) of each item, in order, on `threads` threads: numpy lets go of the GIL in
    its sorts and gathers, so the parts of an all-pairs run side by side on the cores."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        return list(pool.map(work, items))


def _table_pairs(unique: np.ndarray, scheme: BlockScheme, t: int,
                 on_table: Callable[[int], None]) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (positions in `unique`) within k whose first shared key is table t's."""
    permuted = np.sort(scheme.permute(unique, t))
    key = permuted >> np.uint64(scheme.bits - scheme.key_bits(t))
    run_start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    run_end = np.repeat(np.append(run_start[1:], len(key)), np.diff(np.append(run_start, len(key))))
    left, right = [], []
    candidates = np.flatnonzero(run_end - np.arange(len(key)) > 1)
    offset = 1
    while len(candidates):  # compare each element with the one `offset` places on in its run
        near = np.bitwise_count(permuted[candidates] ^ permuted[candidates + offset]) <= scheme.k
        left.append(candidates[near])
        right.append(candidates[near] + offset)
        offset += 1
        candidates = candidates[run_end[candidates] - candidates > offset]
    a = scheme.unpermute(permuted[np.concatenate(left or [np.zeros(0, np.int64)])], t)
    b = scheme.unpermute(permuted[np.concatenate(right or [np.zeros(0, np.int64)])], t)
    first = scheme.first_shared_table(a, b) == t
    on_table(t)
    return np.searchsorted(unique, a[first]), np.searchsorted(unique, b[first])


def _expand_to_rows(u: np.ndarray, v: np.ndarray, distance: np.ndarray, row_of: np.ndarray) -> Similar:
    """Pairs of distinct fingerprints become pairs of every row holding them; rows holding
    one fingerprint are copies of its first row."""
    rows_by_print = np.argsort(row_of, kind="stable")
    counts = np.bincount(row_of, minlength=int(row_of.max(initial=-1)) + 1)
    starts = np.cumsum(counts) - counts
    per_pair = counts[u] * counts[v]
    pair_index = np.repeat(np.arange(len(u)), per_pair)
    within = np.arange(len(pair_index)) - np.repeat(np.cumsum(per_pair) - per_pair, per_pair)
    cv = counts[v][pair_index]
    i = rows_by_print[starts[u][pair_index] + within // cv]
    j = rows_by_print[starts[v][pair_index] + within % cv]
    pairs = _ordered(i, j, distance[pair_index].astype(np.int64))
    return Similar(pairs, rows_by_print[starts][row_of].astype(np.int64))


def groups(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Connected components of the pairs: a group label per row (the smallest row position
    in its group); a row with no similar row is a group of its own."""
    label = np.arange(n)
    while True:  # min-label propagation with pointer jumping: O(log diameter) rounds
        low = np.minimum(label[i], label[j])
        changed = label.copy()
        np.minimum.at(changed, i, low)
        np.minimum.at(changed, j, low)
        changed = changed[changed]
        if np.array_equal(changed, label):
            return label
        label = changed


def groups_of(ids: list, pairs: Pairs) -> list[list]:
    """Groups of two or more row ids (pairs: positions in `ids`), largest first, then by first id."""
    label = groups(len(ids), pairs[0], pairs[1])
    members: dict[int, list] = {}
    for position in np.union1d(pairs[0], pairs[1]).tolist():
        members.setdefault(int(label[position]), []).append(ids[position])
    return sorted(members.values(), key=lambda g: (-len(g), g[0]))


def single_pass_pairs(fingerprints: np.ndarray, k: int) -> Pairs:
    """The Single-Pass clustering the paper compares against (seed 003 §2.1): each row is
    compared with every row before it. O(n^2); for comparison only, same output."""
    fingerprints = np.asarray(fingerprints, dtype=np.uint64)
    chunk = max(1, (1 << 24) // max(1, len(fingerprints)))  # ~128 MB of distances at a time
    i_parts, j_parts, d_parts = [], [], []
    for start in range(0, len(fingerprints), chunk):
        block = fingerprints[start:start + chunk]
        distance = np.bitwise_count(block[:, None] ^ fingerprints[None, :start + len(block)])
        rows, cols = np.nonzero(distance <= k)
        earlier = cols < rows + start
        i_parts.append(cols[earlier])
        j_parts.append(rows[earlier] + start)
        d_parts.append(distance[rows[earlier], cols[earlier]].astype(np.int64))
    i, j, d = (np.concatenate(p or [np.zeros(0, np.int64)]).astype(np.int64) for p in (i_parts, j_parts, d_parts))
    order = np.lexsort((j, i))
    return i[order], j[order], d[order]
