"""What the rule found, and its audit (抽检): the console lists the live batch's pairs and groups
a page at a time; a random sample of the rule's own pairs, the same until the next batch, is
queued for review; the rule's precision is estimated from that sample's decisions alone, with
its size and 95% interval. The pages over the stand-in desk (testing/console.py); the sample,
the queue and the figures on the bundled sample through the command line (`run`), and on
MariaDB."""

import re
import tomllib
from dataclasses import replace

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import (
    ConfigError,
    ReviewConfig,
    default_config_text,
    load_config,
    parse_config,
)
from dedup_pipeline.console.paging import PER_PAGE
from dedup_pipeline.core.decision import Verdict
from dedup_pipeline.sql import decisions, migrate
from dedup_pipeline.sql.decisions import Decision, Precision, wilson
from dedup_pipeline.sql.queue import Item, audit
from dedup_pipeline.store.index import open_store
from testing.console import Recorded
from testing.labelled import generate
from tests.test_binlog import create_petition
from tests.test_watch import config_of, insert


def rows_listed(page: str, what: str) -> list[str]:
    return re.findall(rf'data-{what}="([^"]+)"', page)


# ---------------------------------------------------------------- the pages of what the rule found

def test_the_found_pairs_page_lists_the_rules_pairs_with_titles_distance_and_links(signed_in, console_desk):
    page = signed_in.get("/found/pairs").text
    assert rows_listed(page, "pair") == ["1,2", "4,5", "4,6", "5,6"]
    assert console_desk.table[1]["title"] in page and "0.05" in page
    assert 'href="/pair?a=4&amp;b=5"' in page


def test_the_found_groups_page_lists_the_rules_groups_with_their_size_and_links(signed_in):
    page = signed_in.get("/found/groups").text
    assert rows_listed(page, "group") == ["1,2", "4,5,6"]
    assert 'href="/group?row=4&amp;row=5&amp;row=6"' in page and "3 行" in page


def test_the_found_pages_go_page_by_page(signed_in, console_desk):
    console_desk.found_pairs = [(n, n + 1, 0.1) for n in range(1, PER_PAGE * 2 + 11)]
    first, second, third = (signed_in.get(f"/found/pairs?page={n}").text for n in (1, 2, 3))
    assert rows_listed(first, "pair")[0] == "1,2" and len(rows_listed(first, "pair")) == PER_PAGE
    assert rows_listed(second, "pair")[0] == f"{PER_PAGE + 1},{PER_PAGE + 2}"
    assert len(rows_listed(third, "pair")) == 10 and 'rel="next"' not in third and 'rel="prev"' in third
    assert rows_listed(signed_in.get("/found/pairs?page=99").text, "pair") == rows_listed(third, "pair")
    assert rows_listed(signed_in.get("/found/pairs?page=x").text, "pair") == rows_listed(first, "pair")


def test_the_found_groups_second_page_numbers_its_groups_on_from_the_first(signed_in, console_desk):
    console_desk.found_groups = [([n, n + 1], 0.1) for n in range(1, PER_PAGE + 3)]
    page = signed_in.get("/found/groups?page=2").text
    assert re.findall(r'<td class="num">(\d+)</td>', page) == [str(PER_PAGE + 1), str(PER_PAGE + 2)]
    assert 'href="/found/groups?page=1"' in page and 'rel="next"' not in page


def test_the_found_pages_note_the_rows_they_show_for_the_access_log(signed_in, console_desk):
    signed_in.get("/found/pairs")
    assert {row for _, _, page, row in console_desk.accessed if page == "found"} == {1, 2, 4, 5, 6}


def test_the_found_pairs_page_marks_the_audits_pairs_and_the_verdicts_standing(signed_in, console_desk):
    console_desk.decided.append(Recorded("pair", [4, 5], False, "wang", None))
    page = signed_in.get("/found/pairs").text
    audited = re.search(r'<tr class="found-pair audit" data-pair="1,2">', page)
    decided = re.search(r'data-pair="4,5">.*?</tr>', page, re.DOTALL).group()
    assert audited and "抽检" in page and "不重复" in decided


def test_the_found_pages_need_a_session(client):
    for page in ("/found/pairs", "/found/groups"):
        assert client.get(page).status_code == 302


def test_every_page_links_to_what_the_rule_found(signed_in):
    assert 'href="/found/pairs"' in signed_in.get("/pair?a=1&b=2").text


# ---------------------------------------------------------------- the queue and its precision card

def test_the_audits_pairs_are_in_the_queue_as_items_of_their_own_after_the_others(signed_in, console_desk):
    console_desk.audit = [Item([5, 6], 0.05, audit=True)]
    page = signed_in.get("/").text
    keys = re.findall(r'<tr class="item ([a-z ]+)" data-key="([^"]+)"', page)
    assert keys[-1] == ("pair audit", "pair:5,6")
    assert [k for _, k in keys[:3]] == ["pair:1,2", "pair:3,4", "group:4,5,6"]
    assert re.search(r'data-key="pair:5,6">\s*<td class="num">4</td>\s*<td>抽检', page)


def test_the_precision_card_gives_the_audits_size_share_and_interval(signed_in, console_desk):
    console_desk.precision = Precision(45, 50, *wilson(45, 50), 3, 7, 50)
    card = re.search(r'<div class="card wide" id="precision">.*?</div></div>', signed_in.get("/").text, re.DOTALL).group()
    low, high = wilson(45, 50)
    assert f"抽检 50 对中 45 对确为重复：精确率估计 90.0%（95% 区间 {low:.1%}–{high:.1%}）" in card
    assert "本批随机抽取 50 对供抽检，已审 50 对" in card


def test_the_precision_card_says_not_audited_yet_before_any_audit(signed_in, console_desk):
    console_desk.precision = Precision(0, 0, *wilson(0, 0), 1, 1, 50)
    page = signed_in.get("/").text
    card = re.search(r'<div class="card wide" id="precision">.*?</div></div>', page, re.DOTALL).group()
    assert "尚未抽检" in card and "%" not in card.split("</div>")[0]
    assert "100.0%" in page  # the queue's share stays its own figure


def test_the_precision_card_in_english(signed_in, console_desk):
    console_desk.precision = Precision(1, 2, *wilson(1, 2), 0, 0, 50)
    page = signed_in.get("/?lang=en").text
    assert "1 of 2 audited pairs truly duplicates: precision estimated at 50.0%" in page


# ---------------------------------------------------------------- the sample (sql/queue.audit)

PAIRS = [(a, a + 1, 0.1) for a in range(0, 2000, 2)]


def decision(a, b, verdict, proposed):
    return Decision(a, b, verdict, "王芳", None, None, "h", "h", f"act-{a}-{b}", proposed)


def test_the_sample_is_the_same_on_two_calls_and_changes_with_the_run():
    first, again = audit("run-1", PAIRS, [], {}, 50), audit("run-1", list(reversed(PAIRS)), [], {}, 50)
    other = audit("run-2", PAIRS, [], {}, 50)
    assert len(first.sample) == 50 and first.sample == again.sample
    assert set(first.sample) != set(other.sample)


def test_the_sample_is_spread_over_the_pairs_not_their_first():
    drawn = [a for a, _, _ in audit("run-1", PAIRS, [], {}, 50).sample]
    assert min(drawn) < 500 and max(drawn) > 1500


def test_the_audits_pairs_decided_leave_its_open_items_and_count_as_audited():
    sample = audit("run-1", PAIRS, [], {}, 5).sample
    (a, b, _), (c, d, _) = sample[:2]
    verdicts = {(a, b): Verdict(True, False), (c, d): Verdict(False, True)}  # the second is stale
    done = audit("run-1", PAIRS, [decision(a, b, "same", "auto"), decision(c, d, "different", "auto")], verdicts, 5)
    assert done.sample == sample and done.audited == {(a, b)}
    assert [i.rows for i in done.open] == [[x, y] for x, y, _ in sample if (x, y) != (a, b)]
    assert all(i.audit and i.kind == "pair" for i in done.open)


def test_a_pair_a_reviewer_made_is_never_drawn_as_the_rules():
    made = {(a, b) for a, b, _ in PAIRS[:500]}
    decided = [decision(a, b, "same", "possible") for a, b in made]
    drawn = audit("run-1", PAIRS, decided, {pair: Verdict(True, False) for pair in made}, 50)
    assert len(drawn.sample) == 50 and not {(a, b) for a, b, _ in drawn.sample} & made


def test_the_rules_pairs_decided_different_are_still_drawn():
    """Gone from the batch, still the rule's: without them a second batch's draw would see
    only the pairs found right."""
    rejected = [(a, a + 1) for a in range(5000, 7000, 2)]
    decided = [decision(a, b, "different", "auto") for a, b in rejected]
    drawn = audit("run-1", PAIRS, decided, {pair: Verdict(False, False) for pair in rejected}, 100)
    assert {(a, b) for a, b, _ in drawn.sample} & set(rejected) and drawn.audited <= set(rejected)


def test_the_precision_counts_the_audits_pairs_alone():
    decided = [decision(1, 2, "same", "auto"), decision(3, 4, "different", "auto"), decision(5, 6, "same", "auto")]
    figures = decisions.precision(decided, {(1, 2), (3, 4)}, 50)
    assert (figures.confirmed, figures.decided, figures.sampled) == (1, 2, 50)
    assert (figures.low, figures.high) == wilson(1, 2)
    assert decisions.precision(decided).decided == 0  # no audit, no estimate


# ---------------------------------------------------------------- the setting

def config_with(audit_pairs):
    data = tomllib.loads(default_config_text())
    data["review"] = {"audit_pairs": audit_pairs}
    return parse_config(data, env={})


def test_the_audits_size_is_a_setting_of_fifty_by_default():
    assert load_config().review.audit_pairs == 50
    assert config_with(7).review.audit_pairs == 7


def test_an_audit_size_out_of_range_is_refused():
    with pytest.raises(ConfigError, match="audit_pairs"):
        config_with(-1)


# ---------------------------------------------------------------- on the bundled sample, through the CLI

def batched(run) -> object:
    assert run("migrate").exit_code == 0
    assert run("batch").exit_code == 0
    return load_config()


def test_on_the_sample_the_audits_pairs_are_queued_after_the_items_the_rule_cannot_settle(run):
    config = batched(run)
    items = commands.queue(config)
    audited = [item for item in items if item.audit]
    assert len(audited) == 50 and items[-50:] == audited and all(item.kind == "pair" for item in audited)
    _, pairs = commands.live_pairs(config)
    assert {tuple(item.rows) for item in audited} <= {(a, b) for a, b, _ in pairs}


def test_on_the_sample_the_draw_holds_across_processes_and_a_new_batch_draws_anew(run):
    config = batched(run)
    first = commands.audit(config).sample
    assert commands.audit(load_config()).sample == first
    assert run("batch").exit_code == 0
    assert set(commands.audit(config).sample) != set(first)


def test_on_the_sample_the_precision_comes_from_the_audits_decisions_alone(run):
    config = batched(run)
    assert commands.precision(config)[:2] == (0, 0) and commands.precision(config).sampled == 50
    drawn = [(a, b) for a, b, _ in commands.audit(config).sample]
    _, pairs = commands.live_pairs(config)
    other = next((a, b) for a, b, _ in pairs if (a, b) not in drawn)
    commands.decide(config, *other, same=True, by="王芳")  # one of the rule's pairs, not drawn
    assert commands.precision(config)[:2] == (0, 0)
    commands.decide(config, *drawn[0], same=True, by="王芳")
    commands.decide(config, *drawn[1], same=True, by="王芳")
    commands.decide(config, *drawn[2], same=False, by="王芳")
    figures = commands.precision(config)
    assert (figures.confirmed, figures.decided) == (2, 3) and (figures.low, figures.high) == wilson(2, 3)
    assert drawn[0] not in [tuple(i.rows) for i in commands.queue(config)]


def test_on_the_sample_a_group_decided_as_one_gives_no_precision_without_an_audited_pair(run):
    config = batched(run)
    drawn = {r for a, b, _ in commands.audit(config).sample for r in (a, b)}
    members = next(rows for rows, _ in commands.found(config).groups if len(rows) >= 3 and not set(rows) & drawn)
    commands.decide_group(config, members, same=True, by="王芳")
    assert commands.precision(config)[:2] == (0, 0)


def test_on_the_sample_the_found_pairs_and_groups_are_the_batchs(run):
    config = batched(run)
    found = commands.found(config)
    with open_store(config) as store:
        summary = store.current_run()["summary"]
    assert (len(found.pairs), len(found.groups)) == (summary["pairs"], summary["groups"])
    assert len(found.audit) == 50 and found.audit <= {(a, b) for a, b, _ in found.pairs}


def test_on_the_sample_the_report_gives_the_audits_precision(run, tmp_path):
    config = batched(run)
    drawn = [(a, b) for a, b, _ in commands.audit(config).sample]
    commands.decide(config, *drawn[0], same=True, by="王芳")
    out = tmp_path / "report.html"
    assert run("report", "--html", str(out)).exit_code == 0
    low, high = wilson(1, 1)
    assert f"抽检 1 对中 1 对确为重复：精确率估计 100.0%（95% 区间 {low:.1%}–{high:.1%}）" in out.read_text("utf-8")


# ---------------------------------------------------------------- on MariaDB

def test_on_mariadb_the_audit_is_queued_and_measured(mysql_url, mongo_uri, mongo_db):
    engine = create_petition(mysql_url)
    config = replace(config_of(mysql_url, mongo_uri, mongo_db.name), review=ReviewConfig(audit_pairs=10))
    migrate.upgrade(config)
    insert(engine, generate(300, seed=5).rows)
    engine.dispose()
    commands.batch(config, processes=1)
    assert len([item for item in commands.queue(config) if item.audit]) == 10
    (a, b, _), *_ = commands.audit(config).sample
    commands.decide(config, a, b, same=False, by="王芳")
    figures = commands.precision(config)
    assert (figures.confirmed, figures.decided, figures.sampled) == (0, 1, 10)
    assert [a, b] not in [item.rows for item in commands.queue(config)]
