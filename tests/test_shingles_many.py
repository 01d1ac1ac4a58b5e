"""The batch's sketching (ShingleScheme.sketch_many: every row of a chunk at once, with
numpy) gives each row what the definition of its sketch says, written here one row at a
time in plain Python (shingles.py's module docstring: the hashes, the folded numbers, the
bands, the keys, the submitter hashes)."""

import re

import numpy as np
from cityhash import CityHash64
from hypothesis import given, settings, strategies as st

from dedup_pipeline.core.features import Field
from dedup_pipeline.core.shingles import (REFILED, ShingleScheme, code_points, fold_numbers, shingle_sets, _distinct)
from dedup_pipeline.core.text import normalize

M, MASK = 0x9E3779B97F4A7C15, 2**64 - 1
SCHEME = ShingleScheme(submitter=("phone", "address"))
# few characters, so that shingles repeat; ASCII, full-width and Arabic-Indic digits; an astral one
TEXT = st.text(alphabet=st.sampled_from("物业乱收费再次反映好人1209１２٣𠀀a"), max_size=60)
TEXTS = st.lists(TEXT, max_size=12)


def mix(h: int) -> int:
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & MASK
    return h ^ (h >> 31)


def shingles_of(text: str, size: int) -> list[int]:
    """One text's shingle hashes, by the definition: sorted, distinct, 32 bits."""
    width = min(len(text), size)
    hashes = set()
    for start in range(len(text) - width + 1 if text else 0):
        h = width
        for char in text[start:start + width]:
            h = ((h ^ ord(char)) * M) & MASK
        hashes.add(mix(h) >> 32)
    return sorted(hashes)


def bands_of(shingles: list[int], scheme: ShingleScheme) -> list[int]:
    """One set's band keys, by the definition: each band's minima of multiply-add hashes mixed in turn."""
    if not shingles:
        return []
    bands = scheme.bands + (scheme.short_bands if len(shingles) < scheme.short else 0)  # a short set: more
    n = bands * scheme.rows_per_band
    times = [mix((k * M) & MASK) | 1 for k in range(1, n + 1)]
    plus = [mix((~k & MASK) * M & MASK) for k in range(1, n + 1)]
    minima = [min((x * t + p) & MASK for x in shingles) for t, p in zip(times, plus)]
    keys = []
    for band in range(bands):
        key = (band * M) & MASK
        for column in range(scheme.rows_per_band):
            key = mix(key ^ minima[band * scheme.rows_per_band + column])
        keys.append(key >> 2)
    return keys


def keys_of(text: str, people: list[int], scheme: ShingleScheme) -> list[int]:
    """One text's keys, by the definition: its smallest own shingles with each submitter, its
    bands, and for a text of few own shingles its smallest not inside its opening (and the
    prefix before it) with its opening."""
    own = shingles_of(re.sub(r"\d+", "0", text), scheme.key_size)
    mixed = [mix(x ^ p) >> 2 for p in people if p for x in own[:scheme.keys]]
    if 0 < len(own) < scheme.tiny:
        refiled = REFILED.match(text)
        start = refiled.end() if refiled else 0
        opening = re.sub(r"\d+", "0", text[start:])[:scheme.opening]
        inside = set(shingles_of(re.sub(r"\d+", "0", text[:start]) + opening, scheme.key_size))
        past = [x for x in own if x not in inside]
        mixed += [mix(x ^ (CityHash64(opening) | 1)) >> 2 for x in past[:scheme.tiny_keys]]
    return sorted(set(mixed + bands_of(shingles_of(text, scheme.size), scheme)))


def as_lists(sets) -> list[list[int]]:
    return [s.tolist() for s in sets.rows()]


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.integers(1, 4))
def test_the_shingle_hashes_of_many_texts_are_each_texts_by_the_definition(texts, size):
    assert as_lists(shingle_sets(code_points(texts), size)) == [shingles_of(t, size) for t in texts]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_numbers_are_folded_as_the_digit_pattern_folds_them(texts):
    folded = fold_numbers(code_points(texts))
    assert ["".join(map(chr, s)) for s in as_lists(folded)] == [re.sub(r"\d+", "0", t) for t in texts]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**32 - 1) | st.sampled_from([0, 5, 2**32 - 1]), max_size=70), max_size=10),
       st.lists(st.integers(0, 1100), max_size=3))
def test_runs_sorted_as_a_matrix_are_each_run_sorted_and_distinct(runs, long_runs):
    runs = runs + [list(range(n, 0, -1)) * 2 for n in long_runs]  # rows wider than 16, 256, 1024
    values = np.array([v for run in runs for v in run], np.uint32)
    found = _distinct(values, np.array([len(run) for run in runs], np.int64))
    assert found.values.dtype == np.uint32 and as_lists(found) == [sorted(set(run)) for run in runs]


@settings(max_examples=100, deadline=None)
@given(TEXTS)
def test_the_band_keys_of_many_sets_are_each_sets_by_the_definition(texts):
    bands = SCHEME._bands(shingle_sets(code_points(texts), SCHEME.size))
    assert [[k for k in row if k != 2**64 - 1] for row in bands.tolist()] == \
        [bands_of(shingles_of(t, SCHEME.size), SCHEME) for t in texts]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TEXT, st.lists(st.sampled_from([0, 1, 77, 2**64 - 1]), min_size=2, max_size=2)),
                max_size=10))
def test_the_keys_of_many_sketches_are_each_rows_by_the_definition(rows):
    sketches = SCHEME.sketch_texts([t for t, _ in rows], [np.array(p, np.uint64) for _, p in rows])
    assert [s.keys.tolist() for s in sketches] == [keys_of(t, p, SCHEME) for t, p in rows]
    assert all(s.keys.dtype == np.uint64 for s in sketches)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.text(max_size=12), st.integers()),
                          st.one_of(st.none(), st.text(max_size=12))), max_size=8))
def test_the_submitter_hashes_of_many_rows_are_each_values(values):
    fields = [Field("phone", "short"), Field("content", "long"), Field("address", "short")]
    rows = [{"phone": phone, "address": address} for phone, address in values]
    expected = [[CityHash64(normalize(str(v))) | 1 if v not in (None, "") else 0 for v in pair] for pair in values]
    people = SCHEME._people(rows, fields)
    assert people.dtype == np.uint64 and people.tolist() == (expected or np.zeros((0, 2)).tolist())


@settings(max_examples=100, deadline=None)
@given(TEXTS)
def test_sketching_texts_together_gives_each_the_sketch_it_has_alone(texts):
    people = [np.array([7, 0], np.uint64)] * len(texts)
    together = SCHEME.sketch_texts(texts, people)
    for text, sketch in zip(texts, together):
        alone = SCHEME.sketch_texts([text], people[:1])[0]
        assert all(np.array_equal(a, b) and np.asarray(a).dtype == np.asarray(b).dtype
                   for a, b in zip(sketch[:4], alone[:4]))
