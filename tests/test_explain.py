"""`dedup-pipeline explain A B`: the verdict the batch would give, with what decided it."""

import json
import os
import re
import subprocess
import sys

import pytest
import sqlalchemy as sa

from dedup_pipeline.core.explain import explain_pair, render
from dedup_pipeline.core.schemes import scheme_of
from tests.test_incremental import sample_config, sample_rows
from testing.corpus import documents


def first_similar_pair(scheme_name, linked=False):
    """The first pair the batch finds on its own evidence (or, `linked`, through a third row)."""
    rows = sample_rows()
    scheme = scheme_of(sample_config(scheme_name))
    probes = scheme.probes(rows)
    i, j, d = scheme.pairs(probes)
    n = next(n for n, (a, b) in enumerate(zip(i.tolist(), j.tolist()))
             if (scheme.distance(probes[a], probes[b]) is None) == linked)
    return rows[int(i[n])]["id"], rows[int(j[n])]["id"], float(d[n])


def test_a_pair_the_batch_finds_is_explained_as_similar_with_its_distance(run):
    a, b, distance = first_similar_pair("shingles")
    result = run("explain", str(a), str(b), "--json")
    explained = json.loads(result.output)
    assert result.exit_code == 0 and explained["similar"] and explained["distance"] == distance
    assert {f["field"] for f in explained["fields"]} >= {"name", "content"}


def test_text_output_says_what_differs_and_who_filed_it(run):
    a, b, _ = first_similar_pair("shingles")
    text = run("explain", str(a), str(b)).output
    assert f"rows {a} and {b}: similar" in text and "submitter" in text and "fields:" in text


def test_the_aligned_evidence_of_a_copy_is_shown(run):
    a, b, _ = first_similar_pair("shingles")
    explained = json.loads(run("explain", str(a), str(b), "--json").output)
    text = run("explain", str(a), str(b)).output
    d = explained["aligned"]
    assert f"aligned: {d['slips']} single character(s) replaced, {d['numbers']} number(s) changed, " \
           f"{d['words']} word(s) replaced" in text
    assert explained["filed"]["field"] == "created_at" and explained["filed"]["a"] and explained["filed"]["b"]
    assert explained["thresholds"]["slips"] == 3 and explained["thresholds"]["numbers"] == 2
    assert explained["thresholds"]["days"] == 30


def test_a_pair_linked_through_a_third_row_is_explained_as_needing_that_link(run):
    a, b, _ = first_similar_pair("shingles", linked=True)
    explained = json.loads(run("explain", str(a), str(b), "--json").output)
    assert explained["needs_a_link"] and explained["distance"] is None
    assert "reported only if a third row" in run("explain", str(a), str(b)).output


def test_after_a_batch_a_pair_linked_through_a_third_row_is_explained_with_the_row_that_links_it(run):
    a, b, distance = first_similar_pair("shingles", linked=True)
    assert run("batch").exit_code == 0
    explained = json.loads(run("explain", str(a), str(b), "--json").output)
    assert explained["similar"] and explained["distance"] == distance and explained["linked_by"] not in (None, a, b)
    assert f"linked by row {explained['linked_by']}" in run("explain", str(a), str(b)).output


def test_a_pair_sharing_no_key_is_explained_as_needing_a_third_row_paired_with_both():
    config = sample_config("shingles")
    scheme = scheme_of(config)
    texts = documents(200, 6)[:3]
    a = {**sample_rows()[0], "content": texts[0]}
    # another person's copy with two passages added: the same as written, sharing no key
    b = {**a, "id": 2, "name": "李四", "phone": "13900000000", "address": "别处", "content": "".join(texts)}
    pa, pb = scheme.probes([a, b])
    assert not set(scheme.keys(pa)) & set(scheme.keys(pb)) and scheme.relate(pa, pb)[1]
    explained = explain_pair(config, a, b)
    assert explained["needs_a_third"] and not explained["shares_a_key"]
    text = render(explained, (1, 2))
    assert "rows 1 and 2: similar when a third row links them" in text
    assert "compare them only when a third row" in text


def test_unrelated_rows_are_explained_as_not_similar(run):
    rows = sample_rows()
    scheme = scheme_of(sample_config("shingles"))
    probes = scheme.probes(rows[:2])
    assert scheme.distance(*probes) is None  # the first two sample rows are unrelated
    explained = json.loads(run("explain", "1", "2", "--json").output)
    assert not explained["similar"] and explained["distance"] is None


def test_an_unknown_row_exits_1(run):
    result = run("explain", "1", "999999")
    assert result.exit_code == 1 and "no row with id = 999999" in result.output


@pytest.fixture(scope="module")
def long_texts_explained(tmp_path_factory):
    """`explain` (text output, in a process of its own) of two rows of about 1 MB of text each,
    the second an edit of the first: the CLI's output, or a failure after 20 s."""
    folder = tmp_path_factory.mktemp("long")
    text = "".join(row["content"] or "" for row in sample_rows())
    first = (text * 3)[:350_000]  # about 1 MB in UTF-8
    second = "再次反映" + first[:100_000] + "新增的一句话。" + first[100_000:300_000] + first[300_010:]
    url = f"sqlite:///{folder / 'p.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, content TEXT)"))
        conn.execute(sa.text("INSERT INTO petition VALUES (1, :a), (2, :b)"), {"a": first, "b": second})
    engine.dispose()
    (folder / "dedup.toml").write_text(f'[source]\nurl = "{url}"\ntable = "petition"\n[fields]\n'
                                       f'content = "long"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    try:
        return subprocess.run([sys.executable, "-m", "dedup_pipeline", "explain", "1", "2", "--config",
                               "dedup.toml"], cwd=folder, env=env, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("explain of two 1 MB texts took more than 20 s")


def test_long_texts_are_explained_with_the_diff_of_a_bounded_window(long_texts_explained):
    assert long_texts_explained.returncode == 0, long_texts_explained.stderr
    assert re.search(r"texts longer than [\d,]+ characters: differences shown for the first [\d,]+",
                     long_texts_explained.stdout)


def test_long_texts_are_printed_cut_short(long_texts_explained):
    assert "rows 1 and 2: similar" in long_texts_explained.stdout
    assert len(long_texts_explained.stdout) < 20_000


@pytest.fixture
def negative_ids(tmp_path, monkeypatch):
    """DEDUP_CONFIG names a petition table in SQLite whose two rows have the ids -1 and -2."""
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, content TEXT)"))
        conn.execute(sa.text("INSERT INTO petition VALUES (-1, '小区物业乱收费，请求查处'), "
                             "(-2, '再次反映：小区物业乱收费，请求查处')"))
    engine.dispose()
    (tmp_path / "dedup.toml").write_text(f'[source]\nurl = "{url}"\ntable = "petition"\n[fields]\n'
                                         f'content = "long"\n', encoding="utf-8")
    monkeypatch.setenv("DEDUP_CONFIG", str(tmp_path / "dedup.toml"))


def test_negative_ids_are_arguments_without_a_double_dash(run, negative_ids):
    result = run("explain", "-1", "-2", "--json")
    assert result.exit_code == 0 and (json.loads(result.output)["a"], json.loads(result.output)["b"]) == (-1, -2)


def test_an_unknown_option_of_explain_is_still_refused(run, negative_ids):
    result = run("explain", "-1", "-2", "--jsn")
    assert result.exit_code == 2 and "No such option '--jsn'" in result.output


def test_a_pair_a_reviewer_decided_is_explained_with_the_decision_which_has_the_last_word(run):
    a, b, _ = first_similar_pair("shingles")
    assert run("migrate").exit_code == 0 and run("batch").exit_code == 0
    assert run("decide", str(a), str(b), "--different", "--by", "王芳").exit_code == 0
    explained = json.loads(run("explain", str(a), str(b), "--json").output)
    assert explained["similar"] is False and explained["rule_similar"] is True
    assert explained["decided"]["same"] is False and explained["decided"]["by"] == "王芳"
    text = run("explain", str(a), str(b)).output
    assert f"rows {a} and {b}: not similar" in text
    assert "a reviewer decided different by 王芳" in text and "(the rule alone: similar)" in text


def test_a_pair_nobody_decided_is_explained_by_the_rule_alone(run):
    a, b, _ = first_similar_pair("shingles")
    explained = json.loads(run("explain", str(a), str(b), "--json").output)
    assert explained["decided"] is None and explained["similar"] is explained["rule_similar"] is True
