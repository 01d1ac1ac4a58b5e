"""The truth of the seventh labelled hotline table (testing/hotline_verdict.py), checked on its rows."""

import re
import unicodedata
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from itertools import pairwise

import pytest

from testing import hotline_verdict as hv

COLUMNS = {
    "id",
    "title",
    "name",
    "phone",
    "address",
    "category",
    "content",
    "created_at",
}


@pytest.fixture(scope="module")
def table():
    """The default table and its objects."""
    return hv.build(8000, 7)


def when(row):
    """A row's created_at as a datetime."""
    return datetime.strptime(row["created_at"], "%Y-%m-%d %H:%M:%S")


def groups(h):
    """Rows of each matter."""
    out = defaultdict(list)
    for row in h.rows:
        if h.matter[row["id"]]:
            out[h.matter[row["id"]]].append(row)
    return out


def span(rows):
    """First and last created_at of some rows."""
    times = [when(r) for r in rows]
    return min(times), max(times)


def stated():
    """The figures the module docstring states."""
    return {
        k: int(v) for k, v in re.findall(r"^- (\w+): (\d+)$", hv.__doc__, re.MULTILINE)
    }


def norm(text):
    """NFKC text, as full-width digits and brackets fold to half-width."""
    return unicodedata.normalize("NFKC", text)


def test_same_seed_gives_same_table():
    """One seed, one table."""
    assert hv.make(1200, 3) == hv.make(1200, 3)


def test_other_seed_gives_other_table():
    """Another seed, other rows."""
    a, b = hv.make(1200, 3), hv.make(1200, 4)
    assert [r["content"] for r in a.rows] != [r["content"] for r in b.rows]


def test_columns_ids_and_order(table):
    """Exactly the eight columns, ids 1..n in created_at order."""
    h, _ = table
    assert all(set(r) == COLUMNS for r in h.rows)
    assert [r["id"] for r in h.rows] == list(range(1, len(h.rows) + 1))
    assert [when(r) for r in h.rows] == sorted(when(r) for r in h.rows)
    assert all(isinstance(r[c], str) for r in h.rows for c in COLUMNS - {"id"})
    assert (
        set(h.matter)
        == set(h.person)
        == set(h.role)
        == set(h.about)
        == {r["id"] for r in h.rows}
    )


def test_proportions(table):
    """About 8,000 rows over ~18 months, 650-750 matters, ~250 with >= 5 people, ~600 policy rows."""
    f = hv.figures(*table)
    assert f["rows"] == 8000
    assert 500 <= f["days"] <= 560
    assert 650 <= f["matters"] <= 750
    assert 220 <= f["matters_5plus"] <= 280
    assert f["matters_20plus"] >= 20 and f["largest_matter"] <= 60
    assert 500 <= f["policy_rows"] <= 700
    assert f["single_rows"] > 800 and f["repeat_rows"] > 300 and f["form_letters"] > 10


def test_every_matter_has_two_people(table):
    """A matter is written by at least two different people."""
    h, _ = table
    for name, rows in groups(h).items():
        assert len({h.person[r["id"]] for r in rows}) >= 2, name


def test_matter_rows_share_object_problem_and_episode(table):
    """All rows of a matter are about one object and problem, within 60 days."""
    h, _ = table
    for name, rows in groups(h).items():
        assert len({h.about[r["id"]] for r in rows}) == 1, name
        first, last = span(rows)
        assert last - first <= timedelta(days=60), name


def test_matters_of_one_object_and_problem_are_120_days_apart(table):
    """Two matters of one object and problem are separate episodes >= 120 days apart."""
    h, _ = table
    by_about = defaultdict(list)
    for rows in groups(h).values():
        by_about[h.about[rows[0]["id"]]].append(span(rows))
    for about, spans in by_about.items():
        spans.sort()
        for (_, end), (start, _) in pairwise(spans):
            assert start - end >= timedelta(days=120), about


def test_issue_outside_matters_is_one_persons(table):
    """Outside matters an object+problem is one person's, far from any matter on it."""
    h, _ = table
    matter_spans = defaultdict(list)
    for rows in groups(h).values():
        matter_spans[h.about[rows[0]["id"]]].append(span(rows))
    who = defaultdict(set)
    for r in h.rows:
        rid = r["id"]
        if h.matter[rid] is None and h.role[rid] != "policy":
            who[h.about[rid]].add(h.person[rid])
            for first, last in matter_spans.get(h.about[rid], []):
                assert when(r) < first - timedelta(days=120) or when(
                    r
                ) > last + timedelta(days=120), rid
    assert all(len(people) == 1 for people in who.values())


def test_hard_negative_counts_are_the_docstrings(table):
    """Each kind of hard-negative pair is present in the number the docstring says."""
    h, _ = table
    counts = Counter(kind for _, _, kind in h.hard)
    doc = stated()
    assert set(counts) == set(hv.HARD_KINDS)
    for kind in hv.HARD_KINDS:
        assert counts[kind] == doc["hard_" + kind] > 0, kind


def test_hard_negatives_are_really_different(table):
    """Each hard pair is two real matters that differ in the way its kind says."""
    h, objects = table
    g = groups(h)
    for a, b, kind in h.hard:
        (oa, pa), (ob, pb) = h.about[g[a][0]["id"]], h.about[g[b][0]["id"]]
        x, y = objects[oa], objects[ob]
        (sa, ea), (sb, eb) = span(g[a]), span(g[b])
        overlap = sa <= eb + timedelta(days=31) and sb <= ea + timedelta(days=31)
        if kind == "other_episode":
            assert (
                oa == ob
                and pa == pb
                and (sb - ea >= timedelta(days=120) or sa - eb >= timedelta(days=120))
            )
            continue
        if kind == "other_problem":
            assert oa == ob and pa != pb and abs(sa - sb) <= timedelta(days=7)
            continue
        assert oa != ob and pa == pb and overlap, (a, b, kind)
        if kind == "sibling_building":
            assert (
                x.kind == y.kind == "building"
                and x.parent == y.parent
                and x.number != y.number
            )
            assert abs(sa - sb) <= timedelta(days=7)
        elif kind == "similar_company":
            assert x.kind == y.kind == "company" and not set(x.names) & set(y.names)
            assert SequenceMatcher(None, x.names[2], y.names[2]).ratio() >= 0.5
        elif kind == "two_districts":
            assert (
                x.kind == y.kind
                and x.district != y.district
                and set(x.names) & set(y.names)
            )
        elif kind == "adjacent_intersection":
            assert (
                x.kind == y.kind == "intersection"
                and len(set(x.roads) & set(y.roads)) == 1
            )
        elif kind == "road_stretch":
            assert x.kind == y.kind == "stretch" and x.roads[0] == y.roads[0]
            assert set(x.roads[1:]) != set(y.roads[1:]) and set(x.roads[1:]) & set(
                y.roads[1:]
            )


def test_policy_rows_are_in_no_matter(table):
    """Policy questions belong to no matter and name no object."""
    h, _ = table
    for rid, role in h.role.items():
        if role == "policy":
            assert h.matter[rid] is None and h.about[rid][0] == ""
        if h.matter[rid] is None:
            assert role in ("single", "repeat", "policy")
        else:
            assert role in ("matter", "form", "repeat")


def test_resubmissions_keep_the_persons_phone(table):
    """A re-submission follows an earlier row of its person on the same thing, same phone."""
    h, _ = table
    seen = {}
    for r in h.rows:
        rid = r["id"]
        key = (h.person[rid], h.matter[rid], h.about[rid])
        if h.role[rid] == "repeat":
            assert key in seen and seen[key] == r["phone"], rid
        seen.setdefault(key, r["phone"])


def test_phones_are_one_per_person(table):
    """Each person shows one phone and no two people share one."""
    h, _ = table
    phones = defaultdict(set)
    owners = defaultdict(set)
    for r in h.rows:
        phones[h.person[r["id"]]].add(r["phone"])
        owners[r["phone"]].add(h.person[r["id"]])
    assert all(len(v) == 1 for v in phones.values())
    assert all(len(v) == 1 for v in owners.values())


def test_form_letters_are_one_text_by_several_people(table):
    """A form letter is one text signed by several people of one matter, found in no other."""
    h, _ = table
    form = defaultdict(list)
    for r in h.rows:
        if h.role[r["id"]] == "form":
            form[r["content"]].append(r["id"])
    assert form
    for ids in form.values():
        assert len({h.person[i] for i in ids}) >= 2
        assert len({h.matter[i] for i in ids}) == 1
    for r in h.rows:
        if r["content"] in form:
            assert h.matter[r["id"]] == h.matter[form[r["content"]][0]], r["id"]


def test_no_surface_name_names_two_objects_but_twins(table):
    """A surface name names one object, except the deliberate one-name-two-districts twins."""
    h, objects = table
    g = groups(h)
    twins = {
        frozenset((h.about[g[a][0]["id"]][0], h.about[g[b][0]["id"]][0]))
        for a, b, kind in h.hard
        if kind == "two_districts"
    }
    named = defaultdict(set)
    for obj in objects.values():
        for name in obj.names:
            named[norm(name)].add(obj.key)
    shared = {name: keys for name, keys in named.items() if len(keys) > 1}
    assert shared
    assert all(frozenset(keys) in twins for keys in shared.values())


def test_rows_name_their_object(table):
    """Each row about an object names it in its title, content or address."""
    h, objects = table
    for r in h.rows:
        key = h.about[r["id"]][0]
        if not key:
            continue
        obj = objects[key]
        text = norm(r["title"] + r["content"] + r["address"])
        if obj.kind == "building":
            comp = objects[obj.parent]
            n = obj.number
            assert any(norm(c) in text for c in comp.names), r["id"]
            assert re.search(
                rf"(?<!\d){n}(号楼|栋|#楼|幢|-)|{hv.cn(n)}(号楼|栋)", text
            ), r["id"]
        else:
            assert any(norm(x) in text for x in obj.names), r["id"]


def test_docstring_figures_are_measured(table):
    """The module docstring's figures are those of make(8000, 7)."""
    assert stated() == hv.figures(*table)
