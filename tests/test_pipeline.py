"""One handle a process holds (pipeline.Pipeline): the library's calls given a Pipeline share
its source and store, opened once; given a Config, each opens its own for the call; a held
store that fails is opened afresh at the next call."""

import tomllib

import pytest

from dedup_pipeline import commands, review
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.errors import StoreError
from dedup_pipeline.pipeline import Pipeline
from dedup_pipeline.sql import source as sql_source
from dedup_pipeline.store import index


@pytest.fixture
def opened(monkeypatch):
    """Counts of the sources and stores opened from now on: {"sources": n, "stores": n}."""
    counts = {"sources": 0, "stores": 0}
    make_source, make_store = sql_source.SqlSource.__init__, index.open_store

    def counted_source(self, config):
        counts["sources"] += 1
        make_source(self, config)

    def counted_store(config):
        counts["stores"] += 1
        return make_store(config)

    monkeypatch.setattr(sql_source.SqlSource, "__init__", counted_source)
    monkeypatch.setattr(index, "open_store", counted_store)
    return counts


def calls(using, row_id):
    """What a console does over a while: the queue, a pair's history, a check, the precision."""
    review.queue(using)
    review.history(using, row_id, row_id + 1)
    commands.check(using, row_id=row_id)
    review.precision(using)


def a_paired_row(result):
    return result.result.groups[0][0]


def test_calls_on_a_pipeline_open_no_source_or_store_of_their_own(labelled_in_memory, opened):
    _, config, _ = labelled_in_memory
    with Pipeline(config) as pipe:
        row = a_paired_row(commands.batch(pipe))
        opened.update(sources=0, stores=0)  # the batch's stages read and write with sources of their own
        for _ in range(3):
            calls(pipe, row)
    assert opened == {"sources": 0, "stores": 0}


def test_calls_on_a_config_open_their_own(labelled_in_memory, opened):
    _, config, _ = labelled_in_memory
    calls(config, 1)
    assert opened["sources"] >= 4


def test_the_memory_store_lives_as_long_as_the_pipeline_holding_it(labelled_in_memory):
    _, config, _ = labelled_in_memory
    with Pipeline(config) as pipe:
        row = a_paired_row(commands.batch(pipe))
        assert commands.check(pipe, row_id=row).similar
    assert commands.check(config, row_id=row).similar == []  # a store of its own: empty


def test_a_held_embedded_store_stopped_is_started_again_by_the_next_call(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = parse_config(tomllib.loads(default_config_text()), env={})
    with Pipeline(config) as pipe:
        commands.batch(pipe, processes=1)
        before = commands.check(pipe, row_id=1)
        assert commands.store_stop(config)
        with pytest.raises(StoreError, match="run the command again"):
            commands.check(pipe, row_id=1)  # the call the stop met
        assert commands.check(pipe, row_id=1) == before
    commands.store_stop(config)


def test_a_closed_pipeline_opens_afresh_when_used_again(labelled_in_memory, opened):
    _, config, _ = labelled_in_memory
    pipe = Pipeline(config)
    review.queue(pipe)
    pipe.close()
    review.queue(pipe)
    pipe.close()
    assert opened["sources"] == 2
