"""The quality benchmark's instrument (benchmarks/quality, on testing/labelled.py): the labelled
generator is deterministic and its truth is guarded, the exact Jaccard search equals brute force, the
scorer gives hand-computed figures, and every method runs on a tiny set."""

import sqlite3
from datetime import datetime

import pytest

from benchmarks.quality import methods, options, weightings
from benchmarks.quality.score import INDIRECT, components, score
from dedup_pipeline.core.schemes import featurizer
from testing import jaccard
from testing import labelled as dsmod
from testing.labelled import GUARD, Dataset, Row, generate


@pytest.fixture(scope="module")
def small():
    return generate(600, seed=3)


def test_the_same_seed_gives_the_same_table_and_truth():
    a, b = generate(300, seed=7), generate(300, seed=7)
    assert a.rows == b.rows and a.groups == b.groups and a.edit_pairs == b.edit_pairs
    assert a.hard_pairs == b.hard_pairs
    assert generate(300, seed=8).rows != a.rows


def test_every_label_is_present_and_groups_hold_two_to_five_rows(small):
    labels = {r.label for r in small.meta.values()}
    assert set(dsmod.HARD_TYPES) <= labels and {"original", "unrelated"} <= labels
    assert len(labels & set(dsmod.EDITS)) >= 8
    assert all(2 <= len(g) <= 5 for g in small.groups)
    assert [r["id"] for r in small.rows] == list(range(1, len(small.rows) + 1))
    group_of = {x: n for n, g in enumerate(small.groups) for x in g}
    assert all(group_of.get(a) == group_of.get(b) is not None for a, b, _ in small.edit_pairs)
    for pairs in small.hard_pairs.values():
        assert pairs and all(group_of.get(a, -a) != group_of.get(b, -b) for a, b in pairs)


def test_same_person_and_same_title_negatives_share_their_fields(small):
    meta = small.meta
    assert all((meta[a].name, meta[a].phone) == (meta[b].name, meta[b].phone)
               for a, b in small.hard_pairs["same_person"])
    assert all((meta[a].title, meta[a].category) == (meta[b].title, meta[b].category)
               for a, b in small.hard_pairs["same_title"])


def test_another_persons_edited_copy_has_another_submitter_and_another_text(small):
    copies = [(a, b) for a, b, edit in small.edit_pairs if edit == "other_submitter_edited"]
    assert copies
    for a, b in copies:
        ra, rb = small.meta[a], small.meta[b]
        assert (ra.name, ra.phone) != (rb.name, rb.phone) and ra.content != rb.content


def test_no_row_reaches_the_guard_jaccard_with_a_row_of_another_group(small):
    ids = [r["id"] for r in small.rows]
    sets = [jaccard.shingle_set(r["content"]) for r in small.rows]
    group_of = {x: n for n, g in enumerate(small.groups) for x in g}
    close = jaccard.brute_force_pairs(sets, GUARD)
    assert close, "the set has near-duplicates at all"
    for i, j in close:
        a, b = ids[i], ids[j]
        assert a in group_of and group_of[a] == group_of.get(b), (small.rows[i], small.rows[j])


def test_the_guard_drops_an_unrelated_row_that_copies_another_rows_text():
    import random

    rng = random.Random(1)
    pools = dsmod.Pools(rng)
    rows = [dsmod.new_row(rng, pools, group=n, label="unrelated", short=False) for n in range(20)]
    copy = dsmod.new_row(rng, pools, group=99, label="same_title", short=False)
    copy.content = "再次反映：" + rows[4].content
    ds = dsmod.finish(0, rows + [copy])
    assert ds.dropped == {"same_title": 1} and len(ds.rows) == 20
    assert rows[4].content in {r["content"] for r in ds.rows}


@pytest.mark.parametrize("t", [0.2, 0.4, 0.75, 1.0])
def test_exact_jaccard_search_equals_brute_force(small, t):
    sets = [jaccard.shingle_set(r["content"]) for r in small.rows[:300]]
    sets += [frozenset(), frozenset(["ab"])]
    i, j, sim = jaccard.similar_pairs(sets, t)
    assert set(zip(i.tolist(), j.tolist())) == jaccard.brute_force_pairs(sets, t)
    assert all(abs(s - jaccard.jaccard(sets[a], sets[b])) < 1e-9 for a, b, s in zip(i, j, sim))


def test_shingles_ignore_width_punctuation_and_spaces():
    assert jaccard.shingle_set("再次反映：１２３元，  好") == jaccard.shingle_set("再次反映:123元,好")
    assert jaccard.shingle_set("好") == frozenset(["好"]) and jaccard.shingle_set("，") == frozenset()


def tiny() -> Dataset:
    """Groups {1,2,3} and {4,5}; 6 shares a person with 1 and a title with 7."""
    when = datetime(2025, 1, 1)
    contents = {1: "a" * 10, 2: "b" * 10, 3: "c" * 10, 4: "d" * 200, 5: "e" * 200, 6: "f" * 80, 7: "g" * 80}
    meta = {i: Row("", "", "", "", "", when, c, group=0, label="", id=i) for i, c in contents.items()}
    return Dataset(seed=0, rows=[m.values() for m in meta.values()], meta=meta, groups=[[1, 2, 3], [4, 5]],
                   edit_pairs=[(1, 2, "prefix"), (2, 3, "typo"), (4, 5, "prefix")],
                   hard_pairs={"same_person": {(1, 6)}, "same_title": {(6, 7)}, "form_letter": set()})


def test_scorer_gives_hand_computed_figures():
    s = score(tiny(), [(2, 1), (1, 2), (4, 5), (6, 1), (3, 3)])
    # reported {(1,2), (4,5), (1,6)}; true {(1,2), (1,3), (2,3), (4,5)}
    assert (s.reported, s.true_positives) == (3, 2)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(4 / 7)
    # components {1,2,6} and {4,5}: 4 implied pairs, 2 of them true
    assert s.grouped_precision == pytest.approx(0.5) and s.grouped_recall == pytest.approx(0.5)
    assert s.group_recall == pytest.approx(0.5)
    assert s.by_edit == {"prefix": (2, 2), "typo": (0, 1), INDIRECT: (0, 1)}
    assert s.by_submitter == {"same name and phone": (2, 4)}
    assert s.by_hard == {"same_person": (1, 1), "same_title": (0, 1), "form_letter": (0, 0)}
    assert s.other_false == 0
    assert s.by_length == {"<60": (1, 3), "150-299": (1, 1)}


def test_scorer_with_groups_given_and_with_nothing_reported():
    s = score(tiny(), [(1, 2)], groups=[[1, 2, 3], [4, 5, 7]])
    assert s.group_recall == 1.0 and s.grouped_recall == 1.0
    assert s.grouped_precision == pytest.approx(4 / 6)
    empty = score(tiny(), [])
    assert (empty.precision, empty.recall, empty.f1) == (1.0, 0.0, 0.0)
    assert components([(1, 2), (3, 2), (5, 6)]) == [[1, 2, 3], [5, 6]]


def test_every_method_runs_on_a_tiny_set_and_exact_jaccard_is_precise_above_the_guard():
    ds = generate(250, seed=5)
    ids = {r["id"] for r in ds.rows}
    runs = [methods.ours(*methods.OURS[0]), methods.ours(*methods.OURS[1]), methods.simhash_peer(3),
            methods.minhash_peer(0.5, 3, verify=True), methods.jaccard_peer(GUARD, 3)]
    for method in runs:
        pairs, seconds = methods.timed(method, ds.rows)
        assert all(a < b and a in ids and b in ids for a, b in pairs), method.name
        assert seconds >= 0 and method.settings
    exact = score(ds, methods.jaccard_peer(GUARD, 3).pairs(ds.rows))
    assert exact.precision == 1.0 and exact.recall > 0.9


def test_tuning_picks_the_best_f1_on_the_dev_set():
    dev = generate(250, seed=6)
    t = methods.tune_jaccard(dev, sizes=(3,), ts=(0.1, GUARD, 0.95))
    assert t.best == (GUARD, 3)
    assert t.best_f1 == max(s.f1 for _, s in t.tried)


def test_the_table_written_to_sqlite_reads_back(tmp_path, small):
    path = dsmod.write_sqlite(small.rows, tmp_path / "q.sqlite")
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        back = [dict(r) for r in db.execute("SELECT * FROM petition ORDER BY id")]
    assert back == small.rows


def test_the_default_rule_compared_pair_by_pair_is_the_schemes_as_written_evidence(small):
    from dedup_pipeline.core.decision import WRITTEN
    from dedup_pipeline.core.schemes import scheme_of

    pairs = options.pairs_of(small.rows, small.true_pairs)
    accepted = options.decide(pairs)[options.RULES[1][0]]
    scheme = scheme_of(methods.make_config({}))
    probe = dict(zip((r["id"] for r in small.rows), scheme.probes(small.rows)))
    assert pairs and all(bool(scheme.relate(probe[a], probe[b])[1] & WRITTEN) == ((a, b) in accepted)
                         for a, b in (p.ids for p in pairs))


def test_the_weightings_table_has_a_row_per_weighting_and_scope_with_figures_in_range():
    ds = generate(250, seed=5)
    lines = weightings.table(ds, ds, ds.rows[:60], [[1, 2]])
    rows = [line.split(" | ") for line in lines[2:]]
    assert len(rows) == len(weightings.WEIGHTINGS) * len(weightings.SCOPES)
    assert all(0.0 <= float(x.strip(" |")) <= 1.0 for row in rows for x in row[2:])


def test_the_papers_variants_of_ours_keep_the_papers_term_frequency():
    paper = dict(methods.OURS)["paper: SimHash k=3 4x16"]
    assert featurizer(methods.make_config(paper)).weighting.plain
