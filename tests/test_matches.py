"""The stored pairs kept in step with the table (matches.apply), without servers: whatever
rows are added, changed and deleted, in whatever batches, the matches end as a batch over
the final table stores them — pairs both ways, copies linked to the first of them."""

from functools import cache

import numpy as np
from hypothesis import HealthCheck, example, given, settings, strategies as st

from dedup_pipeline.config import parse_config
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.jobs.matches import MemoryMatches, apply
from dedup_pipeline.core.pairs import originals
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.core.decision import confirm, through_a_third
from dedup_pipeline.core.shingles import SketchTable, candidates
from dedup_pipeline.store.index import memory_store
from testing.labelled import generate

FIELDS = {"title": "short", "name": "short", "phone": "short", "address": "short",
          "category": "short", "content": "long", "created_at": "ignore"}
CONFIG = parse_config({"source": {"url": "sqlite://", "table": "petition"}, "fields": FIELDS,
                       "scheme": {"submitter": ["phone", "address"], "filed": "created_at"}}, {})
# Rows of the labelled quality set: re-submissions, other people's copies and edits, form
# letters, links through a third row; the first POOL of them, as the texts rows take.
POOL = 160
ROWS = generate(1200, seed=11).rows[:POOL]


def batch_pairs(table: dict, every: bool = False) -> set:
    """The pairs a batch over these rows stores (or, `every`, relates: copies with each
    other too), both ways."""
    ids = sorted(table)
    scheme = scheme_of(CONFIG)
    similar = scheme.similar(scheme.probes([table[r] for r in ids]))
    i, j, _ = similar.every_pair() if every else similar.linked()
    found = {(ids[a], ids[b]) for a, b in zip(i.tolist(), j.tolist())}
    return found | {(b, a) for a, b in found}


def batch_relations(table: dict) -> set:
    """Every (row, other) a batch over these rows relates, copies with each other too."""
    return batch_pairs(table, every=True)


def checked(index: Incremental, table: dict) -> set:
    """Every (row, other) that `check --mode all` of each row of the table lists."""
    return {(r, m.row) for r in table for m in index.check(table[r], "all", exclude=r)}


@cache
def linked_through_a_third() -> list[dict]:
    """Rows of a labelled set that share no key but that a batch compares, both paired with
    a third row (shingles.through_a_third), and every row paired with them."""
    rows = generate(6000, seed=11).rows
    scheme = scheme_of(CONFIG)
    table = SketchTable.of(scheme.probes(rows))
    original = originals(table.identity)
    near = candidates(table.keys, original)
    i, j, _, evidence, _ = confirm(scheme.shingles, table, *near)
    i, j = i[evidence > 0], j[evidence > 0]
    ends = set(np.concatenate(through_a_third(i, j, original, *near)).tolist())
    pool = ends | {x for a, b in zip(i.tolist(), j.tolist()) if {a, b} & ends for x in (a, b)}
    return [rows[n] for n in sorted(pool)]


def row(row_id: int, text_of: int, pool=ROWS) -> dict:
    return {**pool[text_of], "id": row_id}


def changes_of(pool: int):
    return st.lists(st.lists(st.tuples(st.integers(1, 60), st.none() | st.integers(0, pool - 1)),
                             min_size=1, max_size=12), min_size=1, max_size=8)


changes = changes_of(POOL)


def apply_all(batches, table, index, matches, pool=ROWS):
    for batch in batches:
        wanted = dict(batch)  # a row changed twice in a batch: its last state, as the table has it
        for row_id, text_of in wanted.items():
            if text_of is None:
                table.pop(row_id, None)
            else:
                table[row_id] = row(row_id, text_of, pool)
        apply(index, matches, {r: table[r] for r in wanted if r in table}, [r for r in wanted if r not in table])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.lists(st.integers(0, POOL - 1), min_size=0, max_size=60), batches=changes)
@example(start=[], batches=[[(3, 0), (4, 0)], [(1, 0), (2, 0)]])  # two copies, then two earlier rows of their text
@example(start=[0, 0, 0], batches=[[(1, None), (4, 0)]])  # the first of three copies goes as a fourth comes
def test_changes_applied_one_batch_at_a_time_give_the_pairs_of_a_batch_and_check_lists_them(start, batches):
    with memory_store() as store:
        index, matches = Incremental(store, CONFIG), MemoryMatches()
        table = {n + 1: row(n + 1, t) for n, t in enumerate(start)}
        apply(index, matches, dict(table), [])
        apply_all(batches, table, index, matches)
        assert set(matches.held) == batch_pairs(table)
        assert checked(index, table) == batch_relations(table)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.lists(st.integers(0, 39), min_size=0, max_size=40), batches=changes_of(40))
def test_pairs_linked_through_a_third_row_follow_changes_as_a_batch_links_them_and_check_lists_them(start, batches):
    pool = linked_through_a_third()
    pool = [pool[n % len(pool)] for n in range(40)]  # the strategy's range, whatever the pool's size
    with memory_store() as store:
        index, matches = Incremental(store, CONFIG), MemoryMatches()
        table = {n + 1: row(n + 1, t, pool) for n, t in enumerate(start)}
        apply(index, matches, dict(table), [])
        apply_all(batches, table, index, matches, pool)
        assert set(matches.held) == batch_pairs(table)
        assert checked(index, table) == batch_relations(table)


def test_the_quality_sets_rows_filed_then_deleted_and_edited_give_the_pairs_of_a_batch():
    rows = generate(1200, seed=11).rows[:450]
    with memory_store() as store:
        index, matches = Incremental(store, CONFIG), MemoryMatches()
        table = {r["id"]: r for r in rows}
        apply(index, matches, dict(table), [])
        assert set(matches.held) == batch_pairs(table)
        gone = [r for r in table if r % 7 == 0]
        edited = {r: {**table[r], "content": table[r + 1]["content"]} for r in table if r % 11 == 0 and r + 1 in table
                  and r not in gone}
        for r in gone:
            del table[r]
        table.update(edited)
        apply(index, matches, edited, gone)
        assert set(matches.held) == batch_pairs(table)


def test_a_copy_filed_later_is_linked_through_its_submitters_earlier_copy_as_the_batch_links_it():
    text = "小区门口的垃圾站已经半个月没有清运，臭味很大，苍蝇蚊子到处都是，住户连窗户都不敢开。"
    rows = [(text, "13800000001", "2025-01-01"), (text.replace("清运", "请运"), "13800000002", "2025-01-11"),
            (text.replace("清运", "请运"), "13800000002", "2025-02-02")]
    table = {n: {"id": n, "content": c, "phone": p, "created_at": day} for n, (c, p, day) in enumerate(rows, 1)}
    for order in ([1, 2, 3], [3, 2, 1], [2, 3, 1]):
        with memory_store() as store:
            index, matches = Incremental(store, CONFIG), MemoryMatches()
            for n in order:
                apply(index, matches, {n: table[n]}, [])
            assert set(matches.held) == batch_pairs(table) and (1, 3) in matches.held
