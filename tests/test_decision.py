"""The one decision (core/decision.py): a focused decision gives the whole table's answer,
so that `check` lists exactly what the batch relates a row to."""

from datetime import datetime, timedelta
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dedup_pipeline.core import decision
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.store.index import memory_store
from testing.labelled import generate, letters, signed_letter
from tests.test_matches import CONFIG, batch_relations, checked, linked_through_a_third


@cache
def labelled_rows() -> list[dict]:
    """The held-back labelled quality set: 6,000 petition rows."""
    return generate(6000, seed=11).rows


def pairs(decided, scope=lambda a, b: True) -> set:
    i, j, d = decided.pairs
    return {(a, b, x) for a, b, x in zip(i.tolist(), j.tolist(), d.tolist()) if scope(a, b)}


def test_check_lists_exactly_the_rows_the_batch_relates_to_every_row_of_the_labelled_set():
    rows = labelled_rows()
    table = {r["id"]: r for r in rows}
    with memory_store() as store:
        index = Incremental(store, CONFIG)
        index.add_many(table.items())
        relations = batch_relations(table)
        assert len(relations) > 4000 and checked(index, table) == relations


@cache
def pool() -> list[dict]:
    """Rows linked through a third row, their partners, and rows of the labelled set: 80 in
    all (the strategy's range), whatever the number of linked rows (keys decide it)."""
    linked = linked_through_a_third()
    return (linked + labelled_rows()[:max(0, 80 - len(linked))])[:80]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(range(80)), dropped=st.sets(st.integers(0, 79), max_size=8),
       focus=st.sets(st.integers(0, 79), min_size=1, max_size=5))
def test_a_decision_focused_on_some_rows_gives_the_whole_tables_pairs_of_those_rows_and_their_centre(order, dropped,
                                                                                                     focus):
    scheme = scheme_of(CONFIG)
    taken = [n for n in order if n not in dropped]
    probes = scheme.probes([pool()[n] for n in taken])
    mask = np.isin(taken, sorted(focus))
    focused, whole = scheme.decide(probes, mask), scheme.decide(probes)
    assert pairs(focused) == pairs(whole, lambda a, b: mask[a] or mask[b] or focused.centre[a] and focused.centre[b])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(focus=st.sets(st.integers(0, 79), min_size=1, max_size=5), first=st.sets(st.integers(0, 79), max_size=40))
def test_a_decision_in_rounds_decides_as_one_and_confirms_no_pair_twice(focus, first):
    # a round over some rows, then one over all of them taking what the first confirmed
    scheme = scheme_of(CONFIG)
    probes = scheme.probes(pool())
    rows = np.array(sorted(focus | first))
    one = scheme.decide([probes[n] for n in rows], np.isin(rows, sorted(focus)), numbers=rows)
    everything = np.arange(len(probes))
    mask = np.isin(everything, sorted(focus))
    with pytest.MonkeyPatch.context() as patch:
        given_to_confirm = confirming(patch)
        rounds = scheme.decide(probes, mask, numbers=everything, known=one.known)
    whole = scheme.decide(probes, mask)
    assert pairs(rounds) == pairs(whole) and np.array_equal(rounds.centre, whole.centre)
    assert [p.tolist() for p in rounds.possible] == [p.tolist() for p in whole.possible]
    assert np.array_equal(rounds.via, whole.via) and np.array_equal(rounds.evidence, whole.evidence)
    first_round = set(zip(*(x.tolist() for x in np.divmod(one.known.compared, 1 << 32))))
    assert not first_round & set(given_to_confirm)


def confirming(patch) -> list:
    """Records the pairs `decision.confirm` is given from now on (positions)."""
    given_to_confirm, real = [], decision.confirm

    def recording(rule, table, i, j, threads=1):
        given_to_confirm.extend(zip(i.tolist(), j.tolist()))
        return real(rule, table, i, j, threads)
    patch.setattr(decision, "confirm", recording)
    return given_to_confirm


class CountingStore:
    """A store that counts the keys it is asked for."""

    def __init__(self, store) -> None:
        self.store, self.asked = store, []

    def __getattr__(self, name):
        return getattr(self.store, name)

    def lookup(self, table, wanted):
        self.asked += [k for keys in wanted.values() for k in keys]
        return self.store.lookup(table, wanted)


def test_a_check_of_one_of_20000_copies_lists_them_all_reading_each_key_once():
    text = "小区门口的垃圾站已经半个月没有清运，臭味很大，苍蝇蚊子到处都是，住户连窗户都不敢开，请有关部门尽快处理。"
    row = {"title": "垃圾", "name": "张三", "phone": "13800000001", "address": "某小区", "content": text,
           "created_at": "2025-01-01"}
    with memory_store() as memory:
        store = CountingStore(memory)
        index = Incremental(store, CONFIG)
        index.add_many((n, {**row, "id": n}) for n in range(1, 20_001))
        found = index.check({**row, "id": 1}, "all", exclude=1)
    assert {m.row for m in found} == set(range(2, 20_001)) and {m.distance for m in found} == {0.0}
    assert sorted(store.asked) == sorted(set(index.scheme.keys(index.probe(row))))


def letter_and_others(rows: list[dict], make) -> tuple[list[dict], int]:
    """The first of the `letters` in `rows` and the rows `make` makes of it: (the rows, its
    position)."""
    source = letters(rows)[0]
    return [source, *make(source)], 0


def possible_and_pairs(rows: list[dict]) -> tuple[set, set]:
    decided = scheme_of(CONFIG).decide(scheme_of(CONFIG).probes(rows))
    return set(zip(*map(np.ndarray.tolist, decided.possible[:2]))), set(zip(*map(np.ndarray.tolist, decided.pairs[:2])))


def test_a_letter_others_signed_in_place_of_its_last_clause_is_possible_and_no_pair():
    rows, source = letter_and_others(labelled_rows(), lambda r: signed_letter(r, 2, 10**6))
    possible, pairs = possible_and_pairs(rows)
    assert possible == {(source, 1), (source, 2)} and (source, 1) not in pairs and (source, 2) not in pairs


def test_a_letter_filled_in_anew_with_another_place_is_neither_a_pair_nor_possible():
    def filled_anew(r: dict) -> list[dict]:
        text, third = r["content"], len(r["content"]) // 3
        [other] = signed_letter(r, 1, 10**6)
        return [{**other, "content": text[:third] + "解放路口" + text[third + 4:2 * third] + "宏达公司" + text[2 * third + 4:]}]
    rows, source = letter_and_others(labelled_rows(), filled_anew)
    assert possible_and_pairs(rows) == (set(), set())


def test_a_letter_signed_by_another_a_year_later_is_not_possible():
    def a_year_later(r: dict) -> list[dict]:
        [other] = signed_letter(r, 1, 10**6)
        return [{**other, "created_at": str(datetime.fromisoformat(r["created_at"]) + timedelta(days=365))}]
    rows, source = letter_and_others(labelled_rows(), a_year_later)
    assert possible_and_pairs(rows) == (set(), set())
