"""The held-back labelled hotline table: its shape, its proportions, and that its truth
follows the rules of a matter (issue 52), hard negatives included."""

from __future__ import annotations

import itertools
import random
import re
from datetime import datetime, timedelta

import pytest

from testing.hotline_heldback import PROBLEMS, RESUBMIT, build, make

COLUMNS = ["id", "title", "name", "phone", "address", "category", "content", "created_at"]
PAIR_KINDS = ["sibling_buildings", "similar_company_names", "name_in_two_districts", "adjacent_crossings",
              "road_stretches", "other_problem", "other_episode"]


@pytest.fixture(scope="module")
def made():
    return build()


def people_of(hotline) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rid, key in hotline.matter.items():
        if key is not None:
            out.setdefault(key, set()).add(hotline.person[rid])
    return out


def test_the_same_seed_gives_the_same_table():
    first, second = make(1500, seed=11), make(1500, seed=11)
    assert first.rows == second.rows and first.matter == second.matter and first.person == second.person
    assert make(1500, seed=12).rows != first.rows


def test_rows_have_the_shared_shape_with_ids_in_time_order(made):
    rows = made.hotline.rows
    assert [r["id"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(list(r) == COLUMNS for r in rows)
    assert [r["created_at"] for r in rows] == sorted(r["created_at"] for r in rows)
    for r in rows:
        datetime.strptime(r["created_at"], "%Y-%m-%d %H:%M:%S")
        assert r["phone"] == "" or re.fullmatch(r"1[35789]\d{9}", r["phone"])
        assert r["content"] and r["name"]
    assert set(made.hotline.matter) == set(made.hotline.person) == {r["id"] for r in rows}


def test_rows_span_about_eighteen_months(made):
    first, last = (datetime.strptime(made.hotline.rows[i]["created_at"], "%Y-%m-%d %H:%M:%S") for i in (0, -1))
    assert timedelta(days=500) < last - first < timedelta(days=560)


def test_proportions_are_like_the_measured_set(made):
    sizes = [len(p) for p in people_of(made.hotline).values()]
    assert len(made.hotline.rows) == 8000
    assert 690 * 0.85 <= len(sizes) <= 690 * 1.15
    assert 260 * 0.8 <= sum(s >= 5 for s in sizes) <= 260 * 1.2
    assert max(sizes) >= 40 and sum(s >= 20 for s in sizes) >= 5


def test_every_matter_has_two_people_and_every_group_of_two_people_is_a_matter(made):
    hotline = made.hotline
    assert min(len(p) for p in people_of(hotline).values()) >= 2
    for rid, group in made.row_group.items():
        if group:
            assert (hotline.matter[rid] is not None) == (len(set(made.groups[group].members)) >= 2)


def test_policy_questions_are_in_no_matter(made):
    assert len(made.policy) >= 500
    assert all(made.hotline.matter[rid] is None for rid in made.policy)


def test_each_hard_negative_kind_is_made_of_distinct_matters(made):
    matters = set(people_of(made.hotline))
    for kind in PAIR_KINDS:
        sets = made.negatives[kind]
        assert len(sets) >= 8, kind
        for keys in sets:
            assert len(keys) >= 2 and len(set(keys)) == len(keys) and set(keys) <= matters, kind


def test_hard_negatives_are_as_close_as_their_kind_says(made):
    g = made.groups
    for a, b, *rest in made.negatives["sibling_buildings"]:
        assert g[a].place.compound.key == g[b].place.compound.key and g[a].place.building != g[b].place.building
        assert g[a].problem == g[b].problem and abs(g[a].start - g[b].start) <= timedelta(days=5)
    for a, b in made.negatives["similar_company_names"]:
        assert g[a].place.stem == g[b].place.stem and g[a].place.forms[0] != g[b].place.forms[0]
    for a, b in made.negatives["name_in_two_districts"]:
        assert g[a].place.forms[-1] == g[b].place.forms[-1] and g[a].place.district != g[b].place.district
    for a, b in made.negatives["adjacent_crossings"] + made.negatives["road_stretches"]:
        assert g[a].place.road == g[b].place.road and g[a].place.key != g[b].place.key
        assert g[a].problem == g[b].problem
    for a, b in made.negatives["other_problem"]:
        assert g[a].place.key == g[b].place.key and g[a].problem != g[b].problem
        assert abs(g[a].start - g[b].start) <= timedelta(days=12)
    for a, b in made.negatives["other_episode"]:
        assert g[a].place.key == g[b].place.key and g[a].problem == g[b].problem
        assert abs(g[a].start - g[b].start) >= timedelta(days=100)


def test_one_object_and_problem_never_has_two_groups_within_75_days(made):
    windows: dict[tuple[str, str], list[tuple[datetime, datetime]]] = {}
    for group in made.groups.values():
        windows.setdefault((group.place.key, group.problem), []).append(
            (group.start, group.start + timedelta(days=group.days)))
    for spans in windows.values():
        for (s1, e1), (s2, e2) in itertools.combinations(sorted(spans), 2):
            assert s2 - e1 > timedelta(days=75)


def test_one_person_issues_name_an_object_and_are_in_no_matter(made):
    hotline, rows = made.hotline, {r["id"]: r for r in made.hotline.rows}
    issues = made.negatives["one_person"]
    assert len(issues) >= 150
    for (key,) in issues:
        ids = made.groups[key].rows
        assert len(ids) >= 2 and len({hotline.person[i] for i in ids}) == 1
        assert all(hotline.matter[i] is None for i in ids)
    named = sum(any(w in rows[i]["content"] + rows[i]["address"] for w in made.groups[key].place.words())
                for (key,) in issues for i in made.groups[key].rows[:1])
    assert named >= 0.9 * len(issues)


def test_form_letters_are_one_text_from_several_people_of_their_matter(made):
    hotline, rows = made.hotline, {r["id"]: r for r in made.hotline.rows}
    assert len(made.form_letter) >= 100
    assert all(hotline.matter[rid] is not None for rid in made.form_letter)
    senders: dict[str, set[str]] = {}
    for rid in made.form_letter:
        text = re.sub(r"^(" + "|".join(map(re.escape, RESUBMIT)) + ")", "", rows[rid]["content"])
        senders.setdefault(re.sub(r"联系人：.*。$", "", text), set()).add(hotline.person[rid])
    assert min(len(s) for s in senders.values()) >= 3


def test_resubmissions_stay_in_the_matter_of_what_they_repeat(made):
    hotline, rows = made.hotline, {r["id"]: r for r in made.hotline.rows}
    inside = [rid for rid in made.resubmission if hotline.matter[rid] is not None]
    assert len(inside) >= 300
    for rid in inside:
        same = [i for i, p in hotline.person.items() if p == hotline.person[rid] and i < rid
                and made.row_group[i] == made.row_group[rid]]
        assert same and all(hotline.matter[i] == hotline.matter[rid] for i in same)
    assert sum(rows[rid]["content"].startswith(tuple(RESUBMIT)) for rid in inside) == len(inside)


def test_the_object_is_sometimes_only_in_the_address(made):
    rows = {r["id"]: r for r in made.hotline.rows}
    only_address = 0
    for rid, key in made.hotline.matter.items():
        if key and made.groups[key].place.kind == "building":
            b = made.groups[key].place.building
            forms = made.groups[key].place.words()[-8:]
            if not any(f in rows[rid]["content"] for f in forms) and str(b) in rows[rid]["address"].translate(
                    str.maketrans("０１２３４５６７８９", "0123456789")):
                only_address += 1
    assert only_address >= 100


def wording(made, rid: int, rows: dict) -> set[str]:
    """The row's 10-character pieces outside its object's names (digits alike)."""
    text = rows[rid]["content"]
    for word in sorted(made.groups[made.row_group[rid]].place.words(), key=len, reverse=True):
        text = text.replace(word, "\0")
    text = re.sub(r"[0-9０-９]", "#", text)
    return {text[i:i + 10] for i in range(len(text) - 9) if "\0" not in text[i:i + 10]}


def test_rows_of_one_matter_share_no_more_wording_than_matters_of_one_kind(made):
    hotline, rows, rng = made.hotline, {r["id"]: r for r in made.hotline.rows}, random.Random(0)
    form = set(made.form_letter)
    members: dict[str, list[int]] = {}
    for rid, key in hotline.matter.items():
        if key:
            members.setdefault(key, []).append(rid)
    within = []
    for ids in members.values():
        pairs = [(a, b) for a, b in itertools.combinations(ids, 2)
                 if hotline.person[a] != hotline.person[b] and not (a in form and b in form)]
        within += rng.sample(pairs, min(len(pairs), 20))
    by_problem: dict[str, list[str]] = {}
    for key in members:
        by_problem.setdefault(made.groups[key].problem, []).append(key)
    between = []
    for keys in by_problem.values():
        for _ in range(200):
            a, b = rng.sample(keys, 2)
            between.append((rng.choice(members[a]), rng.choice(members[b])))
    pieces = {rid: wording(made, rid, rows) for pair in within + between for rid in pair}
    share = lambda pairs: sum(bool(pieces[a] & pieces[b]) for a, b in pairs) / len(pairs)
    assert share(within) < 0.2
    assert share(within) < share(between) + 0.03


def test_every_problem_kind_appears_in_matters(made):
    problems = {made.groups[key].problem for key in people_of(made.hotline)}
    assert problems == set(PROBLEMS)


def test_a_small_table_keeps_its_proportions():
    hotline = make(2000, seed=3)
    sizes = [len(p) for p in people_of(hotline).values()]
    assert len(hotline.rows) == 2000
    assert 172 * 0.8 <= len(sizes) <= 172 * 1.2 and 65 * 0.7 <= sum(s >= 5 for s in sizes) <= 65 * 1.3
