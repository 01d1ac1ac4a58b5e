"""What became of matters' ids (dedup_matter_event, revision 0008): a matter keeps the id of its
smallest row, so later rows join it under its id; where two matters become one, one splits in
two, or an id changes, the batch, a night and `watch` record it (sql.matters.history)."""

import pytest

from dedup_pipeline import commands
from dedup_pipeline.jobs import matters
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.sql import matters as stored
from dedup_pipeline.sql.matters import Event, history
from testing import hotline
from testing.labelled import write_sqlite
from tests.test_matters import configured


def test_rows_joining_or_leaving_a_matter_are_no_event():
    assert history({1: 1, 2: 1, 3: None}, {1: 1, 2: 1, 3: 1, 4: 1}) == []
    assert history({1: 1, 2: 1, 3: 1}, {1: 1, 2: 1}) == []


def test_a_matter_taking_the_rows_of_another_merged_it():
    assert history({1: 1, 2: 1, 5: 5, 6: 5}, {1: 1, 2: 1, 5: 1, 6: 1}) == [Event("merged", 1, 5, 2)]


def test_a_matter_whose_rows_went_to_two_split():
    assert history({1: 1, 2: 1, 5: 1, 6: 1}, {1: 1, 2: 1, 5: 5, 6: 5}) == [Event("split", 5, 1, 2)]


def test_a_matter_whose_rows_all_went_to_a_new_id_was_renamed():
    assert history({1: 1, 2: 1, 3: 1}, {2: 2, 3: 2}) == [Event("renamed", 2, 1, 2)]


@pytest.fixture
def one_object(tmp_path):
    """A migrated SQLite table and marks of one object and problem (read from a hotline row):
    rows 1, 2 on day 0 and rows 3, 4 forty days later, each by another person; two matters."""
    table = hotline.make(400, seed=3)
    path = write_sqlite(table.rows[:1], tmp_path / "petition.sqlite")
    config = configured(f"sqlite:///{path}", tmp_path / "data")
    commands.migrate(config)
    columns = matters.columns_of(config)
    model = next(m for r in table.rows if (m := matters.mark(r, columns, "id")) is not None)
    at = lambda day, person: model._replace(day=model.day + day, person=person)
    return config, {1: at(0, "a"), 2: at(0, "b"), 3: at(40, "c"), 4: at(40, "d")}, at


def events_of(pipe):
    with pipe.source.engine.connect() as conn:
        e = matters.tables_of(pipe.config, conn).event
        return [(r.kind, r.matter_id, r.other_id, r.rows) for r in conn.execute(e.select().order_by(e.c.id))]


def follow(pipe, marks, absent=()):
    with pipe.source.engine.begin() as conn:
        matters.follow_marks(conn, matters.tables_of(pipe.config, conn), pipe.config, marks, list(absent))


def test_watch_records_two_matters_a_row_between_them_merged_and_their_split_when_it_goes(one_object):
    config, marks, at = one_object
    with Pipeline(config) as pipe:
        follow(pipe, marks)
        assert {m.matter for m in stored.matters(pipe.source)} == {1, 3} and events_of(pipe) == []
        follow(pipe, {5: at(20, "e")})
        assert {m.matter for m in stored.matters(pipe.source)} == {1}
        follow(pipe, {}, absent=[5])
        assert {m.matter for m in stored.matters(pipe.source)} == {1, 3}
        assert events_of(pipe) == [("merged", 1, 3, 2), ("split", 3, 1, 2)]


def test_the_batch_records_what_became_of_the_ids_it_found_before(one_object):
    config, marks, at = one_object
    with Pipeline(config) as pipe:
        matters.settle_all(config, pipe.source, marks)
        bridged = {**marks, 5: at(20, "e")}
        matters.settle_all(config, pipe.source, bridged)
        matters.settle_all(config, pipe.source, {n: m for n, m in bridged.items() if n != 1})
        assert events_of(pipe) == [("merged", 1, 3, 2), ("renamed", 2, 1, 4)]
        assert [(e.kind, e.other) for _, e in stored.events(pipe.source, "2")] == [("renamed", 1)]
