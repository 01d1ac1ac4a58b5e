"""All pairs within k (`similar_pairs`) equal a brute-force scan; `groups` equals a union-find;
block schemes permute reversibly, key as `keys` says, and refuse schemes that miss pairs."""

from functools import lru_cache

import numpy as np
import pytest

from dedup_pipeline.core.blocks import BlockScheme, SchemeError
from dedup_pipeline.core.pairs import copy_classes, groups, similar_pairs

ROWS = 20_000


def planted(n: int, k: int, seed: int) -> np.ndarray:
    """n random fingerprints with, on rows of their own: 60 pairs at each distance 0..k+1;
    50 fingerprints each shared by 3-6 rows; 40 stars (a row and 2-5 variants of it, each
    0..k bits away, so the variants are up to 2k apart: pairs nobody planted as such); and
    chains of 30 rows, each 1..k bits from the one before."""
    rng = np.random.default_rng(seed)
    f = rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)
    rows = iter(rng.permutation(n).tolist())

    def flipped(value, distance):
        mask = sum(1 << int(p) for p in rng.choice(64, size=int(distance), replace=False))
        return np.uint64(int(value) ^ mask)

    for distance in range(k + 2):
        for _ in range(60):
            a, b = next(rows), next(rows)
            f[b] = flipped(f[a], distance)
    for size in [3, 3, 4, 5, 6] * 10:
        shared = [next(rows) for _ in range(size)]
        f[shared] = f[shared[0]]
    for _ in range(40):
        base = next(rows)
        for _ in range(rng.integers(2, 6)):
            f[next(rows)] = flipped(f[base], rng.integers(0, k + 1))
    for _ in range(5):
        previous = next(rows)
        for _ in range(29):
            row = next(rows)
            f[row] = flipped(f[previous], rng.integers(1, k + 1))
            previous = row
    return f


def brute_force(f: np.ndarray, k: int):
    """Every (i, j, distance) with i < j and distance <= k, comparing each row with all."""
    i_parts, j_parts, d_parts = [], [], []
    for start in range(0, len(f), 512):
        distance = np.bitwise_count(f[start:start + 512, None] ^ f[None, :])
        rows, cols = np.nonzero(distance <= k)
        later = cols > rows + start
        i_parts.append(rows[later] + start)
        j_parts.append(cols[later])
        d_parts.append(distance[rows[later], cols[later]])
    i, j, d = (np.concatenate(p).astype(np.int64) for p in (i_parts, j_parts, d_parts))
    order = np.lexsort((j, i))
    return i[order], j[order], d[order]


@lru_cache
def case(k: int):
    """The fingerprints, their pairs within k by brute force, and their pairs k+1 apart."""
    f = planted(ROWS, k, seed=k)
    i, j, d = brute_force(f, k + 1)
    near = d <= k
    return f, (i[near], j[near], d[near]), list(zip(i[~near].tolist(), j[~near].tolist()))


def assert_same_pairs(found, expected):
    (i, j, d), (ei, ej, ed) = found, expected
    assert len(i) == len(ei)
    np.testing.assert_array_equal(i, ei)
    np.testing.assert_array_equal(j, ej)
    np.testing.assert_array_equal(d, ed)


# ------------------------------------------------------------------ similar_pairs

@pytest.mark.parametrize("k, blocks, key_blocks", [(3, 4, 1), (3, 5, 2), (5, 7, 2)])
def test_similar_pairs_equal_brute_force(k, blocks, key_blocks):
    f, expected, _ = case(k)
    found = similar_pairs(f, BlockScheme(bits=64, k=k, blocks=blocks, key_blocks=key_blocks)).every_pair()
    assert_same_pairs(found, expected)
    assert set(np.unique(expected[2]).tolist()) == set(range(k + 1))  # every distance 0..k


def test_pairs_at_k_plus_one_are_not_reported():
    f, (i, j, _), far = case(3)
    assert len(far) >= 60
    reported = set(zip(i.tolist(), j.tolist()))
    assert not reported & set(far)


def test_exact_duplicates_pair_up_by_row():
    f = np.array([7, 9, 7, 7, 2**64 - 1, 9, 7], dtype=np.uint64)
    expected = [(a, b, (int(f[a]) ^ int(f[b])).bit_count()) for a in range(7) for b in range(a + 1, 7)]
    expected = [pair for pair in expected if pair[2] <= 3]
    i, j, d = similar_pairs(f, BlockScheme()).every_pair()
    assert list(zip(i.tolist(), j.tolist(), d.tolist())) == expected
    assert sum(1 for pair in expected if pair[2] == 0) == 6 + 1  # four rows of 7, two of 9


def test_low_entropy_fingerprints_with_long_runs():
    """Only 18 bits vary: runs of equal keys are long and pairs within k are many."""
    rng = np.random.default_rng(7)
    varying = rng.choice(64, size=18, replace=False)
    base = np.uint64(rng.integers(0, np.iinfo(np.uint64).max, dtype=np.uint64, endpoint=True))
    bits = rng.integers(0, 2, size=(3000, 18)).astype(np.uint64)
    f = base ^ np.bitwise_or.reduce(bits << varying.astype(np.uint64), axis=1)
    expected = brute_force(f, 3)
    assert len(expected[0]) > 10_000
    for scheme in (BlockScheme(), BlockScheme(k=3, blocks=5, key_blocks=2)):
        assert_same_pairs(similar_pairs(f, scheme).every_pair(), expected)


@pytest.mark.parametrize("f", [np.zeros(0, np.uint64), np.array([5], np.uint64)])
def test_no_pairs_in_fewer_than_two_rows(f):
    assert all(len(part) == 0 for part in similar_pairs(f, BlockScheme()).every_pair())


def test_one_thread_and_two_give_the_same_pairs():
    f, expected, _ = case(3)
    scheme = BlockScheme(k=3, blocks=5, key_blocks=2)
    assert_same_pairs(similar_pairs(f, scheme, threads=1).every_pair(), expected)


# ------------------------------------------------------------------ groups

def union_find_labels(n: int, i, j) -> np.ndarray:
    """Connected components, each labelled by its smallest row: a root is always the
    smallest row of its component because the larger root is attached to the smaller."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(i.tolist(), j.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([find(x) for x in range(n)])


def test_groups_of_similar_pairs_equal_union_find():
    f, (i, j, _), _ = case(3)
    label = groups(len(f), i, j)
    np.testing.assert_array_equal(label, union_find_labels(len(f), i, j))
    sizes = np.bincount(label)
    assert sizes.max() >= 30  # the chains are one group each


def test_groups_of_a_long_shuffled_path_and_a_random_graph():
    rng = np.random.default_rng(3)
    path = rng.permutation(3000)
    a, b = path[:-1], path[1:]
    label = groups(3000, np.minimum(a, b), np.maximum(a, b))
    np.testing.assert_array_equal(label, np.zeros(3000, dtype=label.dtype))

    a, b = rng.integers(0, 5000, size=(2, 3500))
    a, b = np.minimum(a, b), np.maximum(a, b)
    np.testing.assert_array_equal(groups(5000, a, b), union_find_labels(5000, a, b))


def test_rows_without_pairs_are_groups_of_their_own():
    empty = np.zeros(0, np.int64)
    np.testing.assert_array_equal(groups(4, empty, empty), np.arange(4))


# ------------------------------------------------------------------ BlockScheme

SCHEMES = [BlockScheme(), BlockScheme(k=3, blocks=5, key_blocks=2),
           BlockScheme(k=5, blocks=7, key_blocks=2), BlockScheme(k=3, blocks=6, key_blocks=3),
           BlockScheme(bits=32, k=2, blocks=3, key_blocks=1)]


def sample(scheme: BlockScheme, n: int = 300) -> np.ndarray:
    rng = np.random.default_rng(scheme.blocks)
    top = np.uint64((1 << scheme.bits) - 1)
    f = rng.integers(0, top, size=n, dtype=np.uint64, endpoint=True)
    return np.concatenate((f, [np.uint64(0), top]))


@pytest.mark.parametrize("scheme", SCHEMES, ids=repr)
def test_unpermute_undoes_permute_and_distance_is_kept(scheme):
    f = sample(scheme)
    other = np.roll(f, 1)
    for t in range(len(scheme.tables)):
        permuted = scheme.permute(f, t)
        np.testing.assert_array_equal(scheme.unpermute(permuted, t), f)
        np.testing.assert_array_equal(np.bitwise_count(permuted ^ scheme.permute(other, t)),
                                      np.bitwise_count(f ^ other))


@pytest.mark.parametrize("scheme", SCHEMES, ids=repr)
def test_keys_many_equals_keys_and_the_permuted_top_bits(scheme):
    f = sample(scheme)
    many = scheme.keys_many(f)
    one_by_one = [scheme.keys(int(x)) for x in f]
    assert all([t for t, _ in keys] == list(range(len(scheme.tables))) for keys in one_by_one)
    np.testing.assert_array_equal(many, np.array([[key for _, key in keys] for keys in one_by_one],
                                                 dtype=np.uint64))
    for t in range(len(scheme.tables)):
        top = scheme.permute(f, t) >> np.uint64(scheme.bits - scheme.key_bits(t))
        np.testing.assert_array_equal(top, many[:, t])


@pytest.mark.parametrize("scheme", SCHEMES, ids=repr)
def test_every_pair_within_k_shares_a_key(scheme):
    rng = np.random.default_rng(11)
    f = sample(scheme)
    masks = [sum(1 << int(p) for p in rng.choice(scheme.bits, size=int(rng.integers(0, scheme.k + 1)),
                                                  replace=False)) for _ in f]
    near = f ^ np.array(masks, dtype=np.uint64)
    assert np.all(scheme.first_shared_table(f, near) >= 0)


@pytest.mark.parametrize("k, blocks, key_blocks", [(3, 4, 2), (3, 3, 1), (5, 6, 2)])
def test_a_scheme_that_can_miss_pairs_is_refused_naming_its_values(k, blocks, key_blocks):
    with pytest.raises(SchemeError) as refused:
        BlockScheme(bits=64, k=k, blocks=blocks, key_blocks=key_blocks)
    message = str(refused.value)
    for name, value in (("blocks", blocks), ("k", k), ("key_blocks", key_blocks)):
        assert f"{name} ({value})" in message
    assert isinstance(refused.value, ValueError)


def test_the_copy_classes_are_the_rows_of_each_original_with_copies_original_first():
    rng = np.random.default_rng(12)
    original = np.arange(3_000)
    copies = rng.choice(3_000, 1_200, replace=False)
    original[copies] = rng.integers(0, 3_000, 1_200)
    original = np.minimum(original, np.arange(3_000))  # a copy's original comes before it
    want = {}
    for row, first in enumerate(original.tolist()):
        want.setdefault(first, []).append(row)
    classes = [m.tolist() for m in copy_classes(original)]
    assert classes == [want[first] for first in sorted(want) if len(want[first]) > 1] and len(classes) > 100
