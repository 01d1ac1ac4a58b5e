"""Reviewers decide: decisions kept in dedup_decision and obeyed by the batch, its re-run,
`check` and dedup_match; a decision whose rows changed is stale; group decisions; the
queue of what the rule cannot settle; export and import. A labelled table in SQLite, the
in-memory store (the servers' paths: tests/test_decisions_servers.py)."""

import sqlite3
import tomllib

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.core.decision import NOT_MEASURED
from dedup_pipeline.jobs.batch import run_batch
from dedup_pipeline.jobs.incremental import Incremental
from dedup_pipeline.sql import decisions
from dedup_pipeline.sql.source import SqlSource
from dedup_pipeline.store.index import open_store
from testing.labelled import letters, signed_letters, write_sqlite

ROWS = 600


@pytest.fixture
def table(labelled_in_memory):
    """The labelled set, with a letter three others signed and one another signed (the queue's
    items), as a migrated SQLite table; (its rows, its configuration, its path)."""
    rows, config, path = labelled_in_memory
    rows = rows + signed_letters(rows, [3, 1])
    write_sqlite(rows, path)
    commands.migrate(config)
    return rows, config, path


def batch(config, store):
    result = run_batch(config, store, processes=1)
    live = store.current_run()["run"]
    return result, {(a, b) for a, b, _ in store.read_matches(live)}, store.read_groups(live)


def dedup_match(path):
    with sqlite3.connect(path) as db:
        return {(a, b): (d, s) for a, b, d, s in db.execute("SELECT row_id, similar_id, distance, status FROM dedup_match")}


def possible_items(path):
    with sqlite3.connect(path) as db:
        items = {}
        for item, row in db.execute("SELECT item, row_id FROM dedup_possible"):
            items.setdefault(item, set()).add(row)
    return list(items.values())


def test_a_pair_decided_different_is_not_stored_again_and_no_group_joins_through_it(table):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, groups = batch(config, store)
        a, b = next((a, b) for g in groups if len(g) == 2 for a, b in [g])
        commands.decide(config, a, b, same=False, by="王芳", note="不同诉求")
        assert (a, b) not in dedup_match(path), "dedup_match follows at once"
        result, pairs, groups = batch(config, store)
        assert (a, b) not in pairs and not any(a in g and b in g for g in groups)
        assert (a, b) not in dedup_match(path) and (b, a) not in dedup_match(path)


def test_a_pair_decided_the_same_is_stored_confirmed_where_the_rule_does_not_pair_it(table):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, groups = batch(config, store)
        grouped = {r for g in groups for r in g}
        a, b = [row["id"] for row in rows if row["id"] not in grouped][:2]
        commands.decide(config, a, b, same=True, by="王芳")
        assert dedup_match(path)[a, b] == (NOT_MEASURED, "confirmed")
        _, pairs, groups = batch(config, store)
        assert (a, b) in pairs and [a, b] in groups
        assert dedup_match(path)[a, b] == (NOT_MEASURED, "confirmed") == dedup_match(path)[b, a]
        assert {s for d, s in dedup_match(path).values()} == {"auto", "confirmed"}


def test_a_decision_whose_row_changed_since_is_stale_and_the_rule_decides_the_pair_again(table):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, _ = batch(config, store)
        a, b = sorted(pairs)[0]
        commands.decide(config, a, b, same=False, by="王芳")
        with SqlSource(config) as source:
            assert decisions.verdicts(source)[a, b].stale is False
        with sqlite3.connect(path) as db:
            db.execute("UPDATE petition SET content = content || '补充' WHERE id = ?", (b,))
        with SqlSource(config) as source:
            assert decisions.verdicts(source)[a, b].stale is True
        assert [d.stale for d in commands.history(config, a, b)] == [True], "the history says so"
        _, pairs, _ = batch(config, store)
        assert (a, b) in pairs, "the rule pairs them again, as before the decision"


def test_the_last_decision_of_a_pair_stands_and_the_history_keeps_every_one(table):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, _ = batch(config, store)
        a, b = sorted(pairs)[0]
        commands.decide(config, a, b, same=False, by="王芳")
        commands.decide(config, b, a, same=True, by="李强", note="撤销")
        assert [(d.verdict, d.reviewer) for d in commands.history(config, a, b)] == [("different", "王芳"),
                                                                                   ("same", "李强")]
        _, pairs, _ = batch(config, store)
        assert (a, b) in pairs and dedup_match(path)[a, b][1] == "confirmed"


def test_a_rerun_obeys_a_decision_made_since_the_last_batch(table):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, _ = batch(config, store)
        a, b = sorted(pairs)[len(pairs) // 2]
        commands.decide(config, a, b, same=False, by="王芳")
        result, again, _ = batch(config, store)
        assert result.rerun and again == pairs - {(a, b)}


def test_a_check_obeys_the_decisions_about_the_row_checked(table):
    rows, config, path = table
    by_id = {row["id"]: row for row in rows}
    with open_store(config) as store:
        _, pairs, groups = batch(config, store)
        a, b = sorted(pairs)[0]
        grouped = {r for g in groups for r in g}
        c = next(row["id"] for row in rows if row["id"] not in grouped)
        commands.decide(config, a, b, same=False, by="王芳")
        commands.decide(config, a, c, same=True, by="王芳")
        with SqlSource(config) as source:
            index = Incremental(store, config)
            index.verdicts = decisions.reader(source)
            found = [m.row for m in index.check(by_id[a], exclude=a)]
        assert b not in found and c in found


def test_two_copies_of_one_text_decided_different_are_no_pair_to_the_batch_nor_to_check(table):
    rows, config, path = table
    by_id = {row["id"]: row for row in rows}
    with open_store(config) as store:
        later = max(by_id) + 1
        copy = {**by_id[rows[0]["id"]], "id": later, "name": "另一人", "phone": "13000000000", "address": "别处"}
        write_sqlite(rows + [copy], path)
        batch(config, store)
        first = rows[0]["id"]
        commands.decide(config, first, later, same=False, by="王芳")
        _, pairs, _ = batch(config, store)
        with SqlSource(config) as source:
            index = Incremental(store, config)
            index.verdicts = decisions.reader(source)
            found = [m.row for m in index.check(copy, exclude=later)]
        assert (first, later) not in pairs and first not in found


def test_rows_decided_one_petition_are_one_group(table):
    rows, config, path = table
    with open_store(config) as store:
        _, _, groups = batch(config, store)
        grouped = {r for g in groups for r in g}
        alone = [row["id"] for row in rows if row["id"] not in grouped][:4]
        made = commands.decide_group(config, alone, same=True, by="王芳", note="集体信访")
        assert len(made) == 3 and len({d.act for d in made}) == 1
        _, _, groups = batch(config, store)
        assert sorted(alone) in groups


def test_a_row_decided_not_of_a_group_leaves_it(table):
    rows, config, path = table
    with open_store(config) as store:
        _, _, groups = batch(config, store)
        group = next(g for g in groups if len(g) == 3)
        row, rest = group[0], group[1:]
        commands.decide_group(config, rest, same=False, by="王芳", row=row)
        _, _, groups = batch(config, store)
        assert not any(row in g for g in groups) and any(set(rest) <= set(g) for g in groups)


def test_the_queue_holds_letters_others_signed_and_no_item_is_duplicates_in_dedup_match(table):
    rows, config, path = table
    with open_store(config) as store:
        result, pairs, _ = batch(config, store)
    items = possible_items(path)
    signed = rows[-4:]  # three signed the first letter, one the second
    first, second = letters(rows)[:2]
    assert result.queue == 2 and sorted(items, key=min) == [{first["id"], *(r["id"] for r in signed[:3])},
                                                           {second["id"], signed[3]["id"]}]
    held = dedup_match(path)
    alone = [[a for a in item if not any((a, b) in held or (b, a) in held for b in item)] for item in items]
    assert all(alone), "no item is rows dedup_match already holds as duplicates"
    first = commands.queue(config)[0]
    assert first.rows and set(first.rows) in items


def test_a_pair_decided_leaves_the_queue(table):
    rows, config, path = table
    with open_store(config) as store:
        batch(config, store)
    pair = next(item for item in commands.queue(config) if item.kind == "pair")
    commands.decide(config, *pair.rows, same=False, by="王芳")
    assert pair.rows not in [item.rows for item in commands.queue(config)]
    figures = commands.precision(config)
    assert (figures.queue_same, figures.queue_decided) == (0, 1)


def test_a_group_of_the_queue_decided_as_one_petition_counts_as_one_item_decided(table):
    rows, config, path = table
    with open_store(config) as store:
        batch(config, store)
    group = next(item for item in commands.queue(config) if item.kind == "group")
    commands.decide_group(config, group.rows, same=True, by="王芳")
    figures = commands.precision(config)
    assert (figures.queue_same, figures.queue_decided) == (1, 1)


def test_the_rules_precision_is_not_read_from_its_pairs_decided_outside_the_audit(table):
    """Only the audit's pairs measure it (tests/test_console_audit.py); this store keeps no
    batch for another call to draw one from."""
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, _ = batch(config, store)
    first, second, third = sorted(pairs)[:3]
    commands.decide(config, *first, same=True, by="王芳")
    commands.decide(config, *second, same=True, by="王芳")
    commands.decide(config, *third, same=False, by="王芳")
    figures = commands.precision(config)
    assert (figures.confirmed, figures.decided, figures.sampled) == (0, 0, 0)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_decisions_exported_and_imported_into_another_database_are_obeyed_there(table, tmp_path, fmt):
    rows, config, path = table
    with open_store(config) as store:
        _, pairs, _ = batch(config, store)
        a, b = sorted(pairs)[0]
        commands.decide(config, a, b, same=False, by="王芳", note='含 "引号", 逗号')
        out = tmp_path / f"decisions.{fmt}"
        assert commands.decisions_export(config, str(out), fmt) == 1
    copy = tmp_path / "copy.sqlite"
    write_sqlite(rows, copy)
    data = tomllib.loads(default_config_text())
    data.update(source={"url": f"sqlite:///{copy}", "table": "petition"},
                store={"kind": "memory", "data_dir": str(tmp_path / "other")}, batch={"chunk_size": 100, "processes": 1})
    other = parse_config(data, env={})
    commands.migrate(other)
    assert commands.decisions_import(other, str(out)) == 1
    [made] = commands.history(other, a, b)
    assert (made.verdict, made.reviewer, made.note) == ("different", "王芳", '含 "引号", 逗号')
    with open_store(other) as store:
        _, pairs, _ = batch(other, store)
        assert (a, b) not in pairs


def test_a_decision_about_a_row_the_table_has_not_is_refused_and_nothing_is_kept(table):
    rows, config, path = table
    with pytest.raises(Exception, match="no row with id = 999999|no row with id 999999|999999"):
        commands.decide(config, rows[0]["id"], 999999, same=True, by="王芳")
    with SqlSource(config) as source:
        assert decisions.every(source) == []
