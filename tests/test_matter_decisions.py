"""What reviewers decide of matters (review.matter_decide; dedup_matter_decision, revision
0008): a row taken out of its matter (apart) or put back, two matters put together or
separated again. Each holds at once, and every later path obeys it as it does pair decisions:
the batch, a night, and rows taken one at a time give the same matters."""

import random

import pytest

from dedup_pipeline import commands, review
from dedup_pipeline.config import default_config_text
from dedup_pipeline.errors import InputError
from dedup_pipeline.jobs import matters
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.sql import matters as stored
from testing import hotline
from testing.labelled import write_sqlite
from tests.test_matters import configured, expected, follow_one, held


@pytest.fixture(scope="module")
def table():
    return hotline.make(400, seed=3)


@pytest.fixture
def batched(table, tmp_path):
    """The table in SQLite, migrated and batched with the matters on: its configuration."""
    path = write_sqlite(table.rows, tmp_path / "petition.sqlite")
    config = configured(f"sqlite:///{path}", tmp_path / "data")
    commands.migrate(config)
    commands.batch(config)
    return config


def listed(config):
    """The matters as staff see them, the largest first."""
    with Pipeline(config) as pipe:
        return stored.matters(pipe.source)


def matters_now(config):
    with Pipeline(config) as pipe:
        return held(pipe)


def test_a_row_taken_apart_is_in_no_matter_at_once_and_after_the_next_batch(batched):
    biggest = listed(batched)[0]
    row = biggest.rows[-1]
    assert review.matter_decide(batched, "apart", row, by="wang") is None
    assert row not in matters_now(batched)
    commands.batch(batched)
    assert row not in matters_now(batched) and biggest.rows[0] in matters_now(batched)


def test_a_row_put_back_is_in_its_matter_again(batched, table):
    before = matters_now(batched)
    row = max(before, key=lambda r: list(before.values()).count(before[r]))
    review.matter_decide(batched, "apart", row, by="wang")
    assert review.matter_decide(batched, "back", row, by="li") == before[row]
    assert matters_now(batched) == before == expected(batched, table.rows)


def two_matters(config):
    first, second = listed(config)[:2]
    return first, second


def test_two_matters_put_together_are_one_under_the_smaller_id_and_stay_one(batched):
    first, second = two_matters(batched)
    low = min(first.matter, second.matter)
    assert review.matter_decide(batched, "together", first.rows[0], second.rows[-1], by="wang") == low
    now = matters_now(batched)
    assert {now[r] for r in (*first.rows, *second.rows)} == {low}
    commands.batch(batched)
    assert matters_now(batched) == now


def test_separated_again_they_are_the_two_matters_the_rule_finds(batched, table):
    first, second = two_matters(batched)
    review.matter_decide(batched, "together", first.rows[0], second.rows[0], by="wang")
    review.matter_decide(batched, "separate", second.rows[0], first.rows[0], by="wang")
    assert matters_now(batched) == expected(batched, table.rows)


def test_rows_taken_one_at_a_time_obey_the_decisions_as_the_batch_does(batched, table):
    first, second = two_matters(batched)
    third = listed(batched)[2]
    review.matter_decide(batched, "together", first.rows[0], second.rows[0], by="wang")
    review.matter_decide(batched, "apart", third.rows[-1], by="wang")
    commands.batch(batched)
    by_batch = matters_now(batched)
    rows = list(table.rows)
    random.Random(7).shuffle(rows)
    with Pipeline(batched) as pipe:
        follow_one(pipe, absent=[r["id"] for r in rows])
        assert held(pipe) == {}
        for row in rows:
            follow_one(pipe, present=[row])
        assert held(pipe) == by_batch


@pytest.mark.parametrize("verdict, row, other, said", [
    ("apart", "single", None, "is in no matter"),
    ("back", "first", None, "was not taken out of a matter"),
    ("together", "first", "first", "are not in two matters"),
    ("together", "first", None, "is about two matters"),
    ("separate", "first", "second", "were not put together by a reviewer"),
    ("merge", "first", None, "unknown decision 'merge'"),
])
def test_a_decision_that_cannot_be_made_is_refused_in_one_line_and_changes_nothing(batched, table, verdict, row,
                                                                                      other, said):
    first, second = two_matters(batched)
    names = {"first": first.rows[0], "second": second.rows[0],
             "single": next(r["id"] for r in table.rows if r["id"] not in matters_now(batched))}
    before = matters_now(batched)
    with pytest.raises(InputError, match=said):
        review.matter_decide(batched, verdict, names[row], names.get(other), by="wang")
    assert matters_now(batched) == before


def test_the_cli_records_a_decision_and_says_where_the_row_is(batched, tmp_path):
    from click.testing import CliRunner

    from dedup_pipeline.cli import main

    first, second = two_matters(batched)
    path = batched.source.url.removeprefix("sqlite:///")
    toml = tmp_path / "dedup.toml"
    text = default_config_text().replace('url = "sqlite:///dedup-data/sample.sqlite"', f'url = "sqlite:///{path}"')
    toml.write_text(text + '\n[matters]\nfind = true\n[store]\nkind = "memory"\n', encoding="utf-8")
    done = CliRunner().invoke(main, ["matter", "together", str(first.rows[0]), str(second.rows[0]), "--by", "王芳",
                                     "--config", str(toml)])
    assert done.exit_code == 0, done.output
    assert f"row {first.rows[0]}: in matter {min(first.matter, second.matter)}" in done.output
