"""A Spark batch settles pairs with the core's own `decision.settle` (issue 51): on random
small tables of labelled rows (testing/heldback.py and testing/labelled.py: re-submissions,
other people's copies, links through a third row, form letters), with copies, re-submissions
and form letters signed by others added, Spark and the local batch store the same pairs,
groups and review queue. Few examples: Spark is slow (one session for the module)."""

import tomllib
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.core.pairs import groups
from dedup_pipeline.core.schemes import scheme_of
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.jobs.spark import run_spark_batch
from dedup_pipeline.sql import migrate, queue
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.store import results
from dedup_pipeline.store.index import MongoStore
from testing import heldback, labelled

POOL = 300  # rows of each labelled set the tables are drawn from
LABELLED = 100_000  # the labelled set's ids are moved past the held-back set's


def config_for(path, mongo_uri: str = "", database: str = "dedup"):
    """The default configuration over an SQLite petition table."""
    data = tomllib.loads(default_config_text())
    data["source"] = {"url": f"sqlite:///{path}", "table": "petition"}
    data["store"] = {"mongo_uri": mongo_uri, "database": database}
    data["batch"] = {"chunk_size": 50, "processes": 1}
    return parse_config(data, env={})


class Families(NamedTuple):
    """The pool's rows in families: the rows the local decision links to each other, by a
    pair or a possible pair, those of two or more rows first; and which families hold a
    possible pair, and a pair linked through a third row."""

    rows: list[list[dict]]
    possible: list[int]
    linked: list[int]


@pytest.fixture(scope="module")
def families():
    """The pool's Families."""
    rows = [dict(r) for r in heldback.generate(POOL, seed=50).rows] + [
        {**r, "id": r["id"] + LABELLED} for r in labelled.generate(POOL, seed=11).rows]
    scheme = scheme_of(config_for(":memory:"))
    decided = scheme.decide(scheme.probes(rows))
    (i, j, _), (pi, pj, _) = decided.similar.linked(), decided.possible
    label = groups(len(rows), np.concatenate([i, pi]), np.concatenate([j, pj]))
    order = sorted(set(label.tolist()), key=lambda at: -int((label == at).sum()))
    number = {at: n for n, at in enumerate(order)}
    via = decided.pairs[0][decided.via >= 0]
    return Families([[rows[m] for m in np.flatnonzero(label == at).tolist()] for at in order],
                    sorted({number[at] for at in label[pi].tolist()}), sorted({number[at] for at in label[via].tolist()}))


@st.composite
def tables(draw, families: Families):
    """A table of some families (one with a possible pair, one with a pair linked through a
    third row among them), with copies, re-submissions and signed form letters of their rows added."""
    linked = sum(len(f) > 1 for f in families.rows)
    picked = draw(st.sets(st.integers(0, linked - 1), min_size=1, max_size=6))
    picked |= {draw(st.sampled_from(families.possible)), draw(st.sampled_from(families.linked))}
    alone = draw(st.sets(st.integers(linked, len(families.rows) - 1), max_size=6))
    rows = [dict(row) for n in sorted(picked | alone) for row in families.rows[n]]
    people = [(row["name"], row["phone"], row["address"]) for row in rows]
    for kind, at, who in draw(st.lists(st.tuples(st.sampled_from(["copy", "again", "signed"]),
                                                 st.integers(0, len(rows) - 1), st.integers(0, len(people) - 1)),
                                       max_size=6)):
        rows.append(added(kind, rows[at], people[who], max(r["id"] for r in rows) + 1))
    return sorted(rows, key=lambda row: row["id"])


def added(kind: str, row: dict, person: tuple, new_id: int) -> dict:
    """A new row made of `row`: its text copied by `person`, filed again by its submitter,
    or signed by `person` as a form letter."""
    name, phone, address = person
    if kind == "again":
        return {**row, "id": new_id, "content": "再次反映：" + (row["content"] or "")}
    theirs = {"id": new_id, "name": name, "phone": phone, "address": address}
    if kind == "copy":
        return {**row, **theirs}
    return {**row, **theirs, "content": f"{row['content'] or ''}反映人：{name}，联系电话：{phone}。"}


def batched(engine: str, rows: list[dict], folder, mongo_client, mongo_uri) -> tuple:
    """(pairs, groups, queue items) a batch of `engine` stores for these rows."""
    path = labelled.write_sqlite(rows, folder / f"{engine}.sqlite")
    config = config_for(path, mongo_uri, f"test_settles_{engine}")
    migrate.upgrade(config)
    mongo_client.drop_database(config.store.database)
    store = MongoStore(mongo_client[config.store.database], table="petition")
    if engine == "local":
        run_batch(config, store, processes=1)
    else:
        run_spark_batch(config, store, partitions=3)
    db = store.db
    run = results.pointer(db, "petition")["run"]
    with SqlSource(config) as source:
        items = sorted((item.rows, item.distance) for item in queue.read(source))
    found = results.read_matches(db, run), results.read_groups(db, run), items
    mongo_client.drop_database(config.store.database)
    return found


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_spark_stores_the_pairs_groups_and_queue_of_the_local_batch(data, spark, families, mongo_client, mongo_uri,
                                                                    tmp_path_factory):
    rows = data.draw(tables(families))
    folder = tmp_path_factory.mktemp("settles")
    local = batched("local", rows, folder, mongo_client, mongo_uri)
    assert batched("spark", rows, folder, mongo_client, mongo_uri) == local


def test_the_tables_drawn_hold_possible_pairs_and_pairs_linked_through_a_third_row(families):
    """Every table drawn holds a family with a possible pair and one with a pair linked
    through a third row (the local decision's, over the whole pool)."""
    assert families.possible and families.linked and len(families.rows[0]) > 2
