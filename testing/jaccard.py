"""Character shingles and exact all-pairs Jaccard: the labelled set's guard (labelled.py) and the
quality benchmark's Shingle/DSC peer.

All pairs with Jaccard >= t are found exactly by prefix filtering (Chaudhuri et al. 2006):
order shingles by document frequency; a set S keeps its |S| - ceil(t|S|) + 1 rarest
shingles as its prefix, and two sets with Jaccard >= t must share a prefix shingle. The
candidates come from one sparse product of prefix-incidence matrices; each candidate's
intersection is then counted exactly from the full incidence matrix.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
from scipy import sparse

SHINGLE = 3  # characters; Chinese words are 1-3 characters, so 3-grams span word joins
CANDIDATE_CHUNK = 400_000


def clean(text: str) -> str:
    """NFKC, lower case, letters and digits only: width, punctuation and spacing do not count."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    return "".join(c for c in text if unicodedata.category(c)[0] in "LN")


def shingle_set(text: str, size: int = SHINGLE) -> frozenset[str]:
    """Character `size`-grams of the cleaned text; a shorter non-empty text is one shingle."""
    t = clean(text)
    if len(t) <= size:
        return frozenset([t]) if t else frozenset()
    return frozenset(t[i:i + size] for i in range(len(t) - size + 1))


def jaccard(a: frozenset, b: frozenset) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets are 0 (nothing to compare)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def incidence(sets: Sequence[frozenset]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Rows x shingles 0/1 matrix, shingle columns ordered rarest first; and the set sizes."""
    vocab: dict[str, int] = {}
    indptr, indices = [0], []
    for s in sets:
        indices.extend(vocab.setdefault(x, len(vocab)) for x in s)
        indptr.append(len(indices))
    cols = np.array(indices, dtype=np.int64)
    df = np.bincount(cols, minlength=len(vocab))
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[np.lexsort((np.arange(len(vocab)), df))] = np.arange(len(vocab))
    data = np.ones(len(cols), dtype=np.int32)
    matrix = sparse.csr_matrix((data, rank[cols], np.array(indptr)), shape=(len(sets), len(vocab)))
    matrix.sort_indices()  # within a row: rarest shingle first
    return matrix, np.diff(matrix.indptr)


def _prefix(matrix: sparse.csr_matrix, sizes: np.ndarray, t: float) -> sparse.csr_matrix:
    """Each row's rarest |S| - ceil(t|S|) + 1 shingles."""
    keep = np.minimum(sizes, sizes - np.ceil(t * sizes - 1e-9).astype(np.int64) + 1)
    starts = matrix.indptr[:-1]
    row = np.repeat(np.arange(len(sizes)), keep)
    offset = np.arange(keep.sum()) - np.repeat(np.cumsum(keep) - keep, keep)
    cols = matrix.indices[np.repeat(starts, keep) + offset]
    return sparse.csr_matrix((np.ones(len(cols), np.int32), (row, cols)), shape=matrix.shape)


def similar_pairs(sets: Sequence[frozenset], t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exactly every (i, j, jaccard) with i < j and jaccard >= t (t > 0)."""
    if not 0 < t <= 1:
        raise ValueError(f"threshold t must be in (0, 1], got {t}")
    matrix, sizes = incidence(sets)
    prefix = _prefix(matrix, sizes, t)
    candidates = sparse.triu(prefix @ prefix.T, k=1).tocoo()
    i, j = candidates.row.astype(np.int64), candidates.col.astype(np.int64)
    small, large = np.minimum(sizes[i], sizes[j]), np.maximum(sizes[i], sizes[j])
    fit = small >= t * large - 1e-9  # the length filter
    i, j = i[fit], j[fit]
    inter = np.concatenate([np.asarray(matrix[i[s:s + CANDIDATE_CHUNK]].multiply(
        matrix[j[s:s + CANDIDATE_CHUNK]]).sum(axis=1)).ravel()
        for s in range(0, len(i), CANDIDATE_CHUNK)] or [np.zeros(0)])
    score = inter / np.maximum(1, sizes[i] + sizes[j] - inter)
    keep = score >= t - 1e-12
    order = np.lexsort((j[keep], i[keep]))
    return i[keep][order], j[keep][order], score[keep][order]


def brute_force_pairs(sets: Sequence[frozenset], t: float) -> set[tuple[int, int]]:
    """The same by comparing every pair: the reference for tests on small inputs."""
    return {(i, j) for i in range(len(sets)) for j in range(i + 1, len(sets))
            if jaccard(sets[i], sets[j]) >= t - 1e-12}

