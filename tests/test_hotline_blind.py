"""The blind labelled hotline table: its shape, its proportions, and a truth that follows the rules of a matter."""

import itertools
import re
from collections import Counter, defaultdict
from datetime import datetime

import pytest

from testing.hotline_blind import DISTRICTS, GAP_DAYS, HARD_KINDS, TYPOS, make

COLUMNS = ["id", "title", "name", "phone", "address", "category", "content", "created_at"]


@pytest.fixture(scope="module")
def table():
    return make(8000, 7)


def people_of(table):
    out = defaultdict(set)
    for i, m in table.matter.items():
        if m is not None:
            out[m].add(table.person[i])
    return out


def when(row):
    return datetime.strptime(row["created_at"], "%Y-%m-%d %H:%M:%S")


def test_same_seed_makes_the_same_table():
    a, b = make(1200, 3), make(1200, 3)
    assert a.rows == b.rows and a.matter == b.matter and a.person == b.person
    assert a.hard == b.hard and a.role == b.role


def test_another_seed_makes_another_table():
    assert make(1200, 3).rows != make(1200, 4).rows


def test_rows_have_exactly_the_pipeline_columns(table):
    assert all(list(r) == COLUMNS for r in table.rows)
    assert all(isinstance(r["content"], str) and r["content"] for r in table.rows)


def test_ids_run_one_to_n_in_created_at_order(table):
    assert [r["id"] for r in table.rows] == list(range(1, len(table.rows) + 1))
    stamps = [r["created_at"] for r in table.rows]
    assert stamps == sorted(stamps)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", s) for s in stamps)


def test_truth_covers_every_row(table):
    ids = {r["id"] for r in table.rows}
    assert set(table.matter) == set(table.person) == set(table.role) == ids


def test_asked_row_count_is_made(table):
    assert len(table.rows) == 8000
    assert len(make(1000, 7).rows) == 1000


def test_rows_span_about_eighteen_months(table):
    first, last = when(table.rows[0]), when(table.rows[-1])
    assert first < datetime(2025, 1, 15) and last > datetime(2026, 6, 1)


def test_matter_counts_match_the_measured_set(table):
    sizes = [len(p) for p in people_of(table).values()]
    assert len(sizes) == 690
    assert sum(n >= 5 for n in sizes) == 260
    assert sum(n >= 20 for n in sizes) == 25 and max(sizes) <= 60


def test_rows_outside_matters_are_mixed_in(table):
    roles = Counter(table.role.values())
    assert roles["policy"] == 600
    assert 2000 <= roles["single"] <= 3000
    assert roles["repeat"] >= 500 and roles["form"] >= 60
    in_matters = sum(m is not None for m in table.matter.values())
    assert 0.45 < in_matters / len(table.rows) < 0.65


def test_every_matter_has_two_different_people(table):
    assert min(len(p) for p in people_of(table).values()) >= 2


def test_policy_questions_and_singletons_are_in_no_matter(table):
    for i, role in table.role.items():
        if role in ("policy", "single"):
            assert table.matter[i] is None


def test_one_persons_issue_is_in_no_matter(table):
    rows_of = defaultdict(list)
    for i, m in table.matter.items():
        if m is None and table.role[i] != "policy":
            rows_of[table.person[i]].append(i)
    repeated = [ids for ids in rows_of.values() if len(ids) > 1]
    assert len(repeated) >= 200
    for ids in repeated:
        assert len({table.about[i] for i in ids}) == 1


def test_a_resubmission_repeats_its_persons_earlier_row(table):
    seen = {}
    for r in table.rows:
        i = r["id"]
        key = (table.person[i], table.about[i])
        if table.role[i] == "repeat":
            first = seen[key]
            assert table.matter[i] == table.matter[first]
            assert r["phone"] == table.rows[first - 1]["phone"]
        else:
            seen.setdefault(key, i)


def test_people_keep_their_phone_and_differ_in_it(table):
    phones = defaultdict(set)
    for r in table.rows:
        phones[table.person[r["id"]]].add(r["phone"])
    assert all(len(p) == 1 for p in phones.values())
    owner = {}
    for person, (phone,) in phones.items():
        if "*" not in phone:
            assert owner.setdefault(phone, person) == person


def test_a_matter_is_one_object_and_one_problem(table):
    abouts = defaultdict(set)
    for i, m in table.matter.items():
        if m is not None:
            abouts[m].add(table.about[i])
    assert all(len(a) == 1 for a in abouts.values())
    assert len({next(iter(a)) for a in abouts.values()}) < len(abouts)  # some object+problem has two episodes


def test_rows_on_one_object_and_problem_within_the_gap_are_one_matter_or_one_person(table):
    rows_of = defaultdict(list)
    for r in table.rows:
        if table.role[r["id"]] != "policy":
            rows_of[table.about[r["id"]]].append(r)
    for rows in rows_of.values():
        for a, b in itertools.pairwise(rows):
            if (when(b) - when(a)).days < GAP_DAYS:
                ma, mb = table.matter[a["id"]], table.matter[b["id"]]
                assert ma == mb
                if ma is None:
                    assert table.person[a["id"]] == table.person[b["id"]]


def test_every_hard_negative_kind_is_present_in_its_stated_count(table):
    assert Counter(kind for _, _, kind in table.hard) == HARD_KINDS
    named = set(table.matter.values())
    assert all(a in named and b in named and a != b for a, b, _ in table.hard)


def abouts_of(table):
    out = {}
    for i, m in table.matter.items():
        if m is not None:
            out[m] = table.about[i]
    return out


def test_hard_negatives_differ_as_their_kind_says(table):
    about = abouts_of(table)
    for a, b, kind in table.hard:
        (oa, pa), (ob, pb) = about[a], about[b]
        if kind == "other_problem":
            assert oa == ob and pa != pb
        elif kind == "other_episode":
            assert oa == ob and pa == pb
        else:
            assert oa != ob and pa == pb
        if kind == "sibling_building":
            assert oa.split("#")[0] == ob.split("#")[0]


def test_other_episodes_are_at_least_the_gap_apart(table):
    days = defaultdict(list)
    for r in table.rows:
        if table.matter[r["id"]]:
            days[table.matter[r["id"]]].append(when(r))
    for a, b, kind in table.hard:
        if kind == "other_episode":
            assert (min(days[b]) - max(days[a])).days >= GAP_DAYS


def test_siblings_and_neighbours_fall_in_the_same_weeks(table):
    first = {}
    for r in table.rows:
        first.setdefault(table.matter[r["id"]], when(r))
    for a, b, kind in table.hard:
        if kind in ("sibling_building", "similar_company", "adjacent_intersection", "other_stretch",
                    "same_name_other_district"):
            assert abs((first[a] - first[b]).days) <= 7


def districts_named(row):
    text = row["title"] + row["content"]
    found = {d for d in DISTRICTS if d[:2] in text}
    return found or {d for d in DISTRICTS if d in row["address"]}


def test_one_name_in_two_districts_always_says_which(table):
    rows_of = defaultdict(list)
    for r in table.rows:
        rows_of[table.matter[r["id"]]].append(r)
    for a, b, kind in table.hard:
        if kind == "same_name_other_district":
            da = [districts_named(r) for r in rows_of[a]]
            db = [districts_named(r) for r in rows_of[b]]
            assert all(da) and all(db)
            assert not set.union(*da) & set.union(*db)


def test_form_letters_are_one_text_from_several_people_of_a_matter(table):
    texts = defaultdict(set)
    for r in table.rows:
        if table.role[r["id"]] == "form":
            assert table.matter[r["id"]] is not None
            body = r["content"].split("\n联名人")[0]
            texts[(table.matter[r["id"]], body)].add(table.person[r["id"]])
    assert len(texts) >= 10
    assert all(len(people) >= 3 for people in texts.values())


def test_some_rows_name_their_building_only_in_the_address(table):
    hidden = [r for r in table.rows if table.matter[r["id"]] and re.search("我们楼|我家这栋楼|我住的楼|本楼", r["content"])]
    assert len(hidden) >= 100
    assert all(re.search(r"号楼|栋|幢|#楼|-\d+-", r["address"]) for r in hidden)


def test_writers_slip_and_mix_widths(table):
    contents = [r["content"] for r in table.rows]
    assert sum(bool(re.search("[０-９]", c)) for c in contents) > 300
    assert sum("," in c for c in contents) > 1000
    assert sum(any(typo in c for typo in TYPOS.values()) for c in contents) > 500
    assert sum(c.startswith(("来电人", "市民来电")) for c in contents) > 1000


def test_names_of_one_object_vary_within_a_matter(table):
    rows_of = defaultdict(list)
    for r in table.rows:
        if table.matter[r["id"]]:
            rows_of[table.matter[r["id"]]].append(r["content"][:25])
    varied = sum(len(set(c)) == len(c) for c in rows_of.values() if len(c) >= 5)
    assert varied >= 200
