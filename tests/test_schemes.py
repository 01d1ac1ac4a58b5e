"""Batch and incremental give the same answers, with either scheme, on the labelled quality
set (testing/labelled.py): rows added one by one, each checked against those before it,
find exactly the pairs the batch finds (pairs a row links through itself included), on a
real MongoDB-protocol server."""

import tomllib

import pytest

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.store.index import MongoStore
from testing.labelled import generate


def config_with(scheme):
    data = tomllib.loads(default_config_text())
    data["scheme"] = {**data.get("scheme", {}), "name": scheme}
    return parse_config(data, env={})


@pytest.mark.parametrize("name", ["shingles", "simhash"])
def test_rows_added_one_by_one_find_exactly_the_pairs_of_the_batch(name, mongo_db):
    rows = generate(1200, seed=11).rows[700:]  # 500 rows, a pair a third row links among them
    config = config_with(name)
    scheme = scheme_of(config)
    probes = scheme.probes(rows)
    i, j, d = scheme.pairs(probes)
    batch = {(rows[a]["id"], rows[b]["id"]): distance for a, b, distance in zip(i.tolist(), j.tolist(), d.tolist())}

    index = Incremental(MongoStore(mongo_db), config)
    incremental = {}
    for row in rows:  # in id order, as they would arrive
        probe = index.add(row["id"], row)
        for (a, b), distance in index.decide({row["id"]: probe}).pairs.items():
            incremental[min(a, b), max(a, b)] = distance
    assert len(batch) > 50
    linked = [(a, b) for a, b in zip(i.tolist(), j.tolist()) if scheme.distance(probes[a], probes[b]) is None]
    assert incremental == batch and (linked or name == "simhash")
