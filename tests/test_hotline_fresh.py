"""The fresh labelled hotline table (testing/hotline_fresh.py): its shape, its proportions, and
the truth following the rules of issue 52 (a matter has two people or more; policy questions and
one person's issue are in none; every kind of hard negative is there)."""

import re
from collections import defaultdict
from datetime import datetime
from difflib import SequenceMatcher

import pytest

from testing.hotline_fresh import HARD_COUNTS, make, matter_parts


@pytest.fixture(scope="module")
def table():
    return make()


@pytest.fixture(scope="module")
def people(table):
    out = defaultdict(set)
    for i, m in table.matter.items():
        if m is not None:
            out[m].add(table.person[i])
    return out


def test_the_same_seed_makes_the_same_table(table):
    again = make()
    assert again.rows == table.rows and again.matter == table.matter and again.person == table.person


def test_another_seed_makes_another_table(table):
    assert make(seed=8).rows != table.rows


def test_rows_have_the_pipeline_columns_and_ids_in_time_order(table):
    assert len(table.rows) == 8000
    assert [r["id"] for r in table.rows] == list(range(1, 8001))
    assert all(set(r) == {"id", "title", "name", "phone", "address", "category", "content", "created_at"}
               for r in table.rows)
    times = [r["created_at"] for r in table.rows]
    assert times == sorted(times)
    assert set(table.matter) == set(table.person) == set(range(1, 8001))


def test_rows_span_about_eighteen_months(table):
    first, last = (datetime.strptime(table.rows[i]["created_at"], "%Y-%m-%d %H:%M:%S") for i in (0, -1))
    assert 500 <= (last - first).days <= 560


def test_matters_number_about_690(people):
    assert 690 * 0.85 <= len(people) <= 690 * 1.15


def test_hot_matters_number_about_260_and_some_have_20_to_60_people(people):
    sizes = [len(p) for p in people.values()]
    assert 260 * 0.8 <= sum(s >= 5 for s in sizes) <= 260 * 1.2
    assert sum(20 <= s <= 60 for s in sizes) >= 10 and max(sizes) <= 60


def test_every_matter_has_two_people_or_more(people):
    assert min(len(p) for p in people.values()) >= 2


def test_policy_questions_are_in_no_matter(table):
    policy = [r["id"] for r in table.rows if r["category"] == "咨询/政策咨询"]
    assert len(policy) >= 300
    assert all(table.matter[i] is None for i in policy)


def test_one_persons_rows_are_in_one_matter_or_none(table):
    by_person = defaultdict(set)
    for i, p in table.person.items():
        by_person[p].add(table.matter[i])
    assert all(len(ms) == 1 for ms in by_person.values())
    resubmitted = [p for p, ms in by_person.items() if list(table.person.values()).count(p) > 1 and ms == {None}]
    assert len(resubmitted) >= 100  # one-person issues with re-submissions, in no matter


def test_each_kind_of_hard_negative_is_present(table):
    matters = set(table.matter.values())
    for kind in HARD_COUNTS:
        pairs = table.hard[kind]
        assert pairs, kind
        assert all(a in matters and b in matters and a != b for a, b in pairs), kind


def test_sibling_buildings_share_compound_problem_and_week(table):
    for a, b in table.hard["sibling_buildings"]:
        (pa, oa, da), (pb, ob, db) = matter_parts(a), matter_parts(b)
        assert pa == pb and oa != ob and oa.rsplit("/", 1)[0] == ob.rsplit("/", 1)[0]
        assert abs((datetime.strptime(da, "%Y%m%d") - datetime.strptime(db, "%Y%m%d")).days) <= 7


def test_other_problem_pairs_share_the_object_and_other_episodes_are_months_apart(table):
    for a, b in table.hard["other_problem"]:
        (pa, oa, _), (pb, ob, _) = matter_parts(a), matter_parts(b)
        assert oa == ob and pa != pb
    for a, b in table.hard["other_episode"]:
        (pa, oa, da), (pb, ob, db) = matter_parts(a), matter_parts(b)
        assert oa == ob and pa == pb
        assert abs((datetime.strptime(da, "%Y%m%d") - datetime.strptime(db, "%Y%m%d")).days) >= 150


def test_adjacent_intersections_share_a_road_and_stretches_share_their_road(table):
    for a, b in table.hard["adjacent_intersections"]:
        ra, rb = (set(matter_parts(k)[1][2:].split("/")) for k in (a, b))
        assert ra != rb and ra & rb
    for a, b in table.hard["two_stretches"]:
        oa, ob = matter_parts(a)[1], matter_parts(b)[1]
        assert oa != ob and oa.split(":")[1] == ob.split(":")[1]


def letter_body(text: str) -> str:
    """A form letter without its signature and without the object it was filled in for."""
    body = text.split("望领导重视！")[0]
    named = re.search(r"我们是(.+?)(的住户|的业主|的员工|的村民|的学生家长|附近的居民)", body)
    return body.replace(named.group(1), "") if named else body


def test_one_form_letter_is_filed_for_two_objects(table):
    letters = defaultdict(list)
    for r in table.rows:
        if "联名反映" in r["content"]:
            letters[table.matter[r["id"]]].append(letter_body(r["content"]))
    for a, b in table.hard["form_letter_other_object"]:
        assert max(SequenceMatcher(None, x, y).ratio() for x in letters[a] for y in letters[b]) >= 0.9


def test_a_building_is_written_many_ways(table):
    text = " ".join(r["content"] + r["address"] for r in table.rows)
    for form in ("号楼", "栋", "#楼", "幢", "座", "单元"):
        assert form in text
