"""The truth of the sixth labelled hotline table (testing.hotline_judge), checked row by row."""

import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from testing import hotline_judge
from testing.hotline_judge import CROSSES, HARD, make, make_with_names

COLUMNS = ["id", "title", "name", "phone", "address", "category", "content", "created_at"]


@pytest.fixture(scope="module")
def world():
    """The table of make(8000, 7) and its objects' surface names."""
    return make_with_names(8000, 7)


@pytest.fixture(scope="module")
def table(world):
    """The table of make(8000, 7)."""
    return world[0]


def when(row):
    """A row's created_at as a datetime."""
    return datetime.strptime(row["created_at"], "%Y-%m-%d %H:%M:%S")


def flat(text):
    """Width-normalised text (full-width digits and punctuation to half-width)."""
    return unicodedata.normalize("NFKC", text)


def groups(table):
    """Matter name -> its rows."""
    out = defaultdict(list)
    for row in table.rows:
        if table.matter[row["id"]] is not None:
            out[table.matter[row["id"]]].append(row)
    return out


def people(table):
    """Matter name -> its distinct people."""
    return {m: {table.person[r["id"]] for r in rows} for m, rows in groups(table).items()}


def span(rows):
    """First and last created_at of rows."""
    times = [when(r) for r in rows]
    return min(times), max(times)


def subject(table, matter):
    """The (object key, problem) of a matter."""
    return table.about[groups(table)[matter][0]["id"]]


def docstring():
    """The module docstring with its lines joined."""
    return " ".join(hotline_judge.__doc__.split())


def test_same_seed_gives_the_same_table(table):
    again = make(8000, 7)
    assert again.rows == table.rows
    assert (again.matter, again.person, again.role, again.about, again.hard) == (
        table.matter, table.person, table.role, table.about, table.hard)


def test_table_does_not_depend_on_the_hash_seed():
    code = ("import hashlib; from testing.hotline_judge import make; t = make(1200, 5); "
            "truth = (t.rows, t.matter, t.person, t.role, t.about, t.hard); "
            "print(hashlib.md5(repr(truth).encode()).hexdigest())")
    root = Path(__file__).resolve().parent.parent
    digests = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                              check=True, env=dict(os.environ, PYTHONHASHSEED=seed)).stdout
               for seed in ("1", "2")}
    assert len(digests) == 1


def test_another_seed_gives_another_table(table):
    other = make(8000, 8)
    assert [r["content"] for r in other.rows[:50]] != [r["content"] for r in table.rows[:50]]


def test_rows_have_exactly_the_columns(table):
    assert all(list(row) == COLUMNS for row in table.rows)
    assert all(isinstance(row[c], str) for row in table.rows for c in COLUMNS[1:])


def test_ids_run_from_one_and_follow_created_at(table):
    assert [r["id"] for r in table.rows] == list(range(1, len(table.rows) + 1))
    times = [r["created_at"] for r in table.rows]
    assert times == sorted(times)


def test_table_has_eight_thousand_rows_over_eighteen_months(table):
    first, last = span(table.rows)
    assert len(table.rows) == 8000
    assert 500 <= (last - first).days <= 549


def test_truth_covers_every_row(table):
    ids = [r["id"] for r in table.rows]
    for truth in (table.matter, table.person, table.role, table.about):
        assert sorted(truth) == ids


def test_about_seven_hundred_matters(table):
    assert 650 <= len(groups(table)) <= 750


def test_about_250_hot_matters_some_of_20_to_60_people(table):
    sizes = [len(p) for p in people(table).values()]
    assert 220 <= sum(s >= 5 for s in sizes) <= 280
    assert sum(s >= 20 for s in sizes) >= 30
    assert max(sizes) <= 60


def test_roles_are_the_five_and_policy_about_600(table):
    roles = Counter(table.role.values())
    assert sorted(roles) == ["form", "matter", "policy", "repeat", "single"]
    assert 550 <= roles["policy"] <= 650


def test_roles_agree_with_matters(table):
    for rid, role in table.role.items():
        if role in ("single", "policy"):
            assert table.matter[rid] is None
        if role in ("matter", "form"):
            assert table.matter[rid] is not None


def test_docstring_figures_are_measured(table):
    doc = docstring()
    sizes = [len(p) for p in people(table).values()]
    roles = Counter(table.role.values())
    assert f"{len(groups(table))} matters covering" in doc
    assert f"{sum(s >= 5 for s in sizes)} matters with >= 5 distinct people" in doc
    assert f"{sum(s >= 20 for s in sizes)} with 20-60" in doc
    assert f"policy {roles['policy']} rows" in doc
    assert f"{roles['single']:,} single issues" in doc
    assert f"largest matter has {max(sizes)} people" in doc


def test_every_matter_has_two_distinct_people(table):
    assert all(len(p) >= 2 for p in people(table).values())


def test_rows_of_a_matter_share_object_and_problem(table):
    for rows in groups(table).values():
        assert len({table.about[r["id"]] for r in rows}) == 1


def test_rows_of_a_matter_lie_within_one_episode(table):
    for rows in groups(table).values():
        first, last = span(rows)
        assert last - first < timedelta(days=hotline_judge.EPISODE + 1)


def test_matters_of_one_object_and_problem_are_120_days_apart(table):
    by_subject = defaultdict(list)
    for matter, rows in groups(table).items():
        by_subject[table.about[rows[0]["id"]]].append(span(rows))
    for spans in by_subject.values():
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert start - end >= timedelta(days=hotline_judge.GAP)


def test_hard_negative_kinds_come_in_the_documented_numbers(table):
    doc = docstring()
    counts = Counter(kind for _, _, kind in table.hard)
    assert counts == Counter(HARD)
    for kind, count in HARD.items():
        assert re.search(rf"\b{count} {kind}\b", doc), kind


def test_hard_negatives_are_matters_of_the_table(table):
    names = set(groups(table))
    assert all(a in names and b in names and a != b for a, b, _ in table.hard)


def test_hard_negatives_are_really_different(table):
    found = groups(table)
    for a, b, _ in table.hard:
        if subject(table, a) == subject(table, b):
            (_, end), (start, _) = sorted([span(found[a]), span(found[b])])
            assert start - end >= timedelta(days=hotline_judge.GAP)


def pair_keys(table, kind):
    """(object key parts, problem) of both matters of each hard pair of kind."""
    out = []
    for a, b, k in table.hard:
        if k == kind:
            (ka, pa), (kb, pb) = subject(table, a), subject(table, b)
            out.append((ka.split("|"), pa, kb.split("|"), pb, a, b))
    return out


def test_sibling_buildings_share_compound_problem_and_week(table):
    found = groups(table)
    for ka, pa, kb, pb, a, b in pair_keys(table, "sibling_building"):
        assert ka[0] == kb[0] == "B" and ka[1:3] == kb[1:3] and ka[3] != kb[3] and pa == pb
        assert abs(span(found[a])[0] - span(found[b])[0]) <= timedelta(days=5)


def test_similar_companies_have_alike_names_and_one_problem(table):
    for ka, pa, kb, pb, _, _ in pair_keys(table, "similar_company"):
        assert ka[0] == kb[0] == "Q" and ka[2] != kb[2] and pa == pb
        same_head = ka[2][:2] == kb[2][:2]
        one_char = len(ka[2]) == len(kb[2]) and sum(x != y for x, y in zip(ka[2], kb[2])) == 1
        assert same_head or one_char


def test_two_district_twins_share_name_not_district(table):
    kinds = set()
    for ka, pa, kb, pb, _, _ in pair_keys(table, "two_districts"):
        assert ka[0] == kb[0] and ka[2] == kb[2] and ka[1] != kb[1] and pa == pb
        kinds.add(ka[0])
    assert kinds == {"C", "M", "E", "R"}


def test_adjacent_intersections_are_next_crossings_of_one_road(table):
    for ka, pa, kb, pb, _, _ in pair_keys(table, "adjacent_intersection"):
        assert ka[0] == kb[0] == "X" and ka[2] == kb[2] and pa == pb
        assert abs(CROSSES.index(ka[3]) - CROSSES.index(kb[3])) == 1


def test_road_stretches_are_two_stretches_of_one_road(table):
    for ka, pa, kb, pb, _, _ in pair_keys(table, "road_stretch"):
        assert ka[0] == kb[0] == "S" and ka[2] == kb[2] and pa == pb
        assert ka[4] == kb[3] and ka[3] != kb[4]


def test_other_problem_pairs_are_one_object_at_one_time(table):
    found = groups(table)
    for ka, pa, kb, pb, a, b in pair_keys(table, "other_problem"):
        assert ka == kb and pa != pb
        assert 0 <= (span(found[b])[0].date() - span(found[a])[0].date()).days <= 60


def test_other_episode_pairs_are_one_object_and_problem_120_days_apart(table):
    found = groups(table)
    for ka, pa, kb, pb, a, b in pair_keys(table, "other_episode"):
        assert ka == kb and pa == pb
        assert span(found[b])[0] - span(found[a])[1] >= timedelta(days=hotline_judge.GAP)


def test_policy_rows_are_in_no_matter_and_name_no_object(table):
    policy = [rid for rid, role in table.role.items() if role == "policy"]
    assert all(table.matter[rid] is None and table.about[rid][0] == "" for rid in policy)
    assert len({table.about[rid][1] for rid in policy}) >= 10


def test_resubmissions_keep_person_phone_and_matter(table):
    firsts = {}
    for row in table.rows:
        rid = row["id"]
        key = (table.person[rid], table.about[rid])
        if table.role[rid] in ("matter", "single"):
            firsts.setdefault(key, row)
        elif table.role[rid] == "repeat":
            first = firsts[key]
            assert first["phone"] == row["phone"]
            assert table.matter[first["id"]] == table.matter[rid]


def test_some_resubmissions_shorten_the_name(table):
    rows = {r["id"]: r for r in table.rows}
    short = [r for rid, r in rows.items() if table.role[rid] == "repeat"
             and re.fullmatch(r".(先生|女士)", r["name"])]
    assert len(short) >= 50


def test_form_letters_are_one_text_by_several_people(table):
    texts = defaultdict(list)
    for row in table.rows:
        if table.role[row["id"]] == "form":
            texts[(table.matter[row["id"]], row["content"])].append(row)
    assert len(texts) >= 10
    for rows in texts.values():
        assert len({table.person[r["id"]] for r in rows}) == len(rows) >= 3
        assert len({r["title"] for r in rows}) == 1
    contents = Counter(content for _, content in texts)
    assert max(contents.values()) == 1


def test_each_person_has_one_phone_and_each_phone_one_person(table):
    phones = defaultdict(set)
    owners = defaultdict(set)
    for row in table.rows:
        phones[table.person[row["id"]]].add(row["phone"])
        owners[row["phone"]].add(table.person[row["id"]])
    assert all(len(p) == 1 for p in phones.values())
    assert all(len(o) == 1 for o in owners.values())


def test_names_and_phones_vary_as_writers_give_them(table):
    names = Counter(r["name"] for r in table.rows)
    masked = sum(bool(re.fullmatch(r"1\d\d\*{4}\d{4}", r["phone"])) for r in table.rows)
    assert names["匿名"] >= 200 and names[""] >= 200
    assert sum(n for name, n in names.items() if re.fullmatch(r".(先生|女士)", name)) >= 300
    assert masked >= 400


def test_no_surface_name_names_two_objects_but_district_twins(table, world):
    _, names = world
    owners = defaultdict(set)
    for key, surfaces in names.items():
        for name in surfaces:
            owners[flat(name)].add(key)
    twins = {frozenset((subject(table, a)[0], subject(table, b)[0]))
             for a, b, kind in table.hard if kind == "two_districts"}
    shared = [frozenset(keys) for keys in owners.values() if len(keys) > 1]
    assert shared
    assert all(keys in twins for keys in shared)


def test_matter_rows_name_their_object(table, world):
    _, names = world
    for row in table.rows:
        if table.matter[row["id"]] is not None:
            text = flat(row["title"] + row["content"] + row["address"])
            key = table.about[row["id"]][0]
            assert any(flat(name) in text for name in names[key]), row


def test_some_buildings_are_named_only_in_the_address(table, world):
    _, names = world
    only = 0
    for row in table.rows:
        key = table.about[row["id"]][0]
        if key.startswith("B|") and table.matter[row["id"]] is not None:
            said = flat(row["title"] + row["content"])
            only += not any(flat(n) in said for n in names[key]) and any(
                flat(n) in flat(row["address"]) for n in names[key])
    assert only >= 100


def test_two_district_rows_say_their_district(table):
    twins = {subject(table, m)[0] for a, b, kind in table.hard if kind == "two_districts"
             for m in (a, b)}
    for row in table.rows:
        key = table.about[row["id"]][0]
        if key in twins:
            assert key.split("|")[1] in row["title"] + row["content"] + row["address"], row


def test_issues_outside_matters_have_one_person_each(table):
    matter_subjects = {table.about[r["id"]] for r in table.rows if table.matter[r["id"]] is not None}
    writers = defaultdict(set)
    for row in table.rows:
        rid = row["id"]
        if table.role[rid] in ("single", "repeat") and table.matter[rid] is None:
            writers[table.about[rid]].add(table.person[rid])
    assert len(writers) >= 800
    assert all(len(w) == 1 for w in writers.values())
    assert not set(writers) & matter_subjects


def test_some_singles_are_about_an_object_of_a_matter(table):
    matter_objects = {table.about[r["id"]][0] for r in table.rows if table.matter[r["id"]] is not None}
    singles = [table.about[rid][0] for rid, role in table.role.items() if role == "single"]
    assert sum(key in matter_objects for key in singles) >= 100


def test_writers_use_at_least_five_styles(table):
    marks = {"operator": r"^(来电人|市民来电|来电反映|市民通过热线)", "web": r"^您好！我是|^您好!我是",
             "letter": r"^尊敬的领导", "dialect": r"唔该|冇|喺|嘅|咗", "app": r"^【诉求地址】",
             "terse": r"(没人管|赶紧处理|请处理|急)$"}
    for style, pattern in marks.items():
        assert sum(bool(re.search(pattern, flat(r["content"]).replace(",", "，"))) or
                   bool(re.search(pattern, r["content"])) for r in table.rows) >= 100, style


def test_typos_and_widths_vary(table):
    contents = [r["content"] for r in table.rows]
    assert sum("反应" in c or "以经" in c or "处里" in c for c in contents) >= 100
    assert sum(bool(re.search(r"[０-９]", c)) for c in contents) >= 100
    assert sum("," in c for c in contents) >= 1000


def test_typhoon_days_flood_many_roads_at_once(table):
    days = Counter()
    for matter, rows in groups(table).items():
        if table.about[rows[0]["id"]][1] in ("road_flood", "junction_flood", "tree_down"):
            days[span(rows)[0].date()] += 1
    assert max(days.values()) >= 4


def test_a_small_table_keeps_the_rules():
    small = make(800, 11)
    found = groups(small)
    assert len(small.rows) == 800
    assert sorted(Counter(k for _, _, k in small.hard)) == sorted(HARD)
    assert all(len({small.person[r["id"]] for r in rows}) >= 2 for rows in found.values())
    assert all(len({small.about[r["id"]] for r in rows}) == 1 for rows in found.values())
