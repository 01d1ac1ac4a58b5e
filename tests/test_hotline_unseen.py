"""The unseen labelled hotline table (testing/hotline_unseen.py): deterministic, of the shared
shape, in the spec's proportions, with its truth following the rules of a matter (two people
or more; policy questions and one person's issues in none) and every kind of hard negative."""

import random
import re
from collections import Counter
from datetime import datetime

import pytest

from testing import hotline_unseen

COLUMNS = {"id", "title", "name", "phone", "address", "category", "content", "created_at"}
HARD_KINDS = ["sibling", "similar_name", "two_districts", "adjacent_crossing", "road_stretch",
              "other_problem", "other_episode"]


@pytest.fixture(scope="module")
def table():
    return hotline_unseen.make()


def people_of(table) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for i, m in table.matter.items():
        if m is not None:
            out.setdefault(m, set()).add(table.person[i])
    return out


def first_day(table) -> dict[str, datetime]:
    out: dict[str, datetime] = {}
    for row in table.rows:
        m = table.matter[row["id"]]
        if m is not None:
            at = datetime.fromisoformat(row["created_at"])
            out[m] = min(out.get(m, at), at)
    return out


def test_same_seed_same_table():
    a, b = hotline_unseen.make(2000, 11), hotline_unseen.make(2000, 11)
    assert (a.rows, a.matter, a.person, a.hard) == (b.rows, b.matter, b.person, b.hard)


def test_another_seed_another_table():
    assert hotline_unseen.make(2000, 11).rows != hotline_unseen.make(2000, 12).rows


def test_rows_have_the_pipeline_columns(table):
    assert len(table.rows) == 8000
    assert all(set(row) == COLUMNS for row in table.rows)
    assert all(row["content"] and row["title"] for row in table.rows)


def test_ids_run_from_one_in_created_at_order(table):
    assert [row["id"] for row in table.rows] == list(range(1, 8001))
    times = [row["created_at"] for row in table.rows]
    assert times == sorted(times)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", t) for t in times)


def test_every_row_has_a_matter_entry_and_a_person(table):
    ids = {row["id"] for row in table.rows}
    assert set(table.matter) == ids == set(table.person)


def test_rows_span_about_eighteen_months(table):
    first, last = (datetime.fromisoformat(table.rows[k]["created_at"]) for k in (0, -1))
    assert 500 <= (last - first).days <= 560


def test_about_690_matters_of_which_about_260_are_hot(table):
    people = people_of(table)
    assert 650 <= len(people) <= 730
    assert 240 <= sum(len(p) >= 5 for p in people.values()) <= 280


def test_some_hot_matters_have_20_to_60_people(table):
    sizes = [len(p) for p in people_of(table).values()]
    assert sum(20 <= s <= 60 for s in sizes) >= 15
    assert max(sizes) <= 60


def test_every_matter_has_two_people_or_more(table):
    assert min(len(p) for p in people_of(table).values()) >= 2


def test_policy_questions_are_in_no_matter_however_many_ask(table):
    policy = [i for i, r in table.role.items() if r == "policy"]
    assert len(policy) >= 300
    assert all(table.matter[i] is None for i in policy)
    askers = Counter(q for q in hotline_unseen.POLICY for i in policy if q in table.rows[i - 1]["content"])
    assert askers.most_common(1)[0][1] >= 10


def test_one_persons_issues_are_in_no_matter(table):
    alone = [i for i, r in table.role.items() if r in ("single", "repeat")]
    assert len(alone) >= 1500
    assert all(table.matter[i] is None for i in alone)
    repeated = Counter(table.person[i] for i, r in table.role.items() if r == "repeat")
    assert sum(n >= 2 for n in repeated.values()) >= 200


def test_resubmissions_share_their_writers_person(table):
    rows = Counter((table.matter[i], table.person[i]) for i in table.matter if table.matter[i])
    assert sum(n >= 2 for n in rows.values()) >= 300


def test_some_people_write_about_two_matters(table):
    matters: dict[str, set[str]] = {}
    for i, m in table.matter.items():
        if m:
            matters.setdefault(table.person[i], set()).add(m)
    assert sum(len(m) >= 2 for m in matters.values()) >= 50


def test_rows_of_a_matter_are_mostly_in_their_own_words(table):
    contents: dict[str, list[str]] = {}
    for row in table.rows:
        m = table.matter[row["id"]]
        if m:
            contents.setdefault(m, []).append(row["content"])
    distinct = sum(len(set(c)) for c in contents.values())
    assert distinct / sum(len(c) for c in contents.values()) >= 0.9


@pytest.mark.parametrize("kind", HARD_KINDS)
def test_each_kind_of_hard_negative_is_present(table, kind):
    assert sum(why == kind for _, _, why in table.hard) >= 15


def test_hard_pairs_are_two_matters_of_the_table(table):
    people = people_of(table)
    assert all(a != b and a in people and b in people for a, b, _ in table.hard)


def test_hard_pairs_share_their_weeks_except_other_episodes(table):
    start = first_day(table)
    for a, b, why in table.hard:
        days = abs((start[a] - start[b]).days)
        assert days >= 120 if why == "other_episode" else days <= 35, (a, b, why, days)


def test_rows_come_in_the_hotlines_registers(table):
    text = "".join(row["content"] for row in table.rows)
    assert text.count("工单编号") >= 300 and text.count("来电人") >= 500
    assert len(re.findall("[０-９]", text)) >= 200
    assert text.count("冇") >= 5


def test_no_objects_name_is_part_of_another_objects_name():
    city = hotline_unseen.City(random.Random(7))
    for kind, things in city.by_type.items():
        if kind in ("building", "tower_building"):
            continue
        forms = [(f, t.key) for t in things for f in t.forms]
        clashes = [(f, g) for f, a in forms for g, b in forms if a != b and f in g]
        assert not clashes, (kind, clashes[:3])
