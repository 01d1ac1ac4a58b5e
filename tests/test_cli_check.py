"""`dedup-pipeline check` and `add`: exit codes, output, the embedded store kept across runs,
a MongoDB URI, an unreachable MongoDB, rows left half-filed."""

import json
import tomllib

import pytest

from dedup_pipeline.store.embedded import free_port
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.core.schemes import scheme_of
from tests.test_cli import simhash_config
from tests.test_incremental import sample_rows


@pytest.fixture(scope="module")
def neighbours():
    """Each sample row id -> {id of a similar row: distance}, as the batch finds them with
    the built-in default scheme."""
    rows = sample_rows()
    scheme = scheme_of(parse_config(tomllib.loads(default_config_text()), env={}))
    i, j, d = scheme.pairs(scheme.probes(rows))
    found = {row["id"]: {} for row in rows}
    for a, b, distance in zip(i.tolist(), j.tolist(), d.tolist()):
        found[rows[a]["id"]][rows[b]["id"]] = found[rows[b]["id"]][rows[a]["id"]] = distance
    return found


@pytest.fixture
def in_mongo_uri(monkeypatch, mongo_uri, mongo_client):
    """DEDUP_MONGO_URI set to the test server; its `dedup` database dropped before and after."""
    monkeypatch.setenv("DEDUP_MONGO_URI", mongo_uri)
    mongo_client.drop_database("dedup")
    yield mongo_client.dedup
    mongo_client.drop_database("dedup")


def with_neighbours(neighbours, count=1):
    return [row for row, near in sorted(neighbours.items()) if near][:count]


@pytest.mark.parametrize("name", ["check", "add"])
def test_help_gives_the_exit_codes_and_an_example(run, name):
    result = run(name, "--help")
    assert "0 " in result.output and "3 similar rows found" in result.output
    assert "Example: dedup-pipeline " + name in result.output


def test_check_of_a_row_lists_every_similar_stored_row_nearest_first_and_exits_3(run, neighbours):
    assert run("add", "--all").exit_code == 0
    [row] = with_neighbours(neighbours)
    result = run("check", "--id", str(row))
    assert result.exit_code == 3
    lines = [line.split("\t") for line in result.output.splitlines()]
    assert {int(r): float(d) for r, d in lines} == neighbours[row]
    assert [float(d) for _, d in lines] == sorted(neighbours[row].values())


def test_check_json_in_exists_mode_gives_one_similar_row(run, neighbours):
    run("add", "--all")
    [row] = with_neighbours(neighbours)
    result = run("check", "--id", str(row), "--mode", "exists", "--json")
    [hit] = json.loads(result.output)["similar"]
    assert neighbours[row][hit["id"]] == hit["distance"]


def test_check_json_lists_the_rows_the_rule_cannot_settle_as_possible_never_as_similar(run):
    rows = sample_rows()
    scheme = scheme_of(parse_config(tomllib.loads(default_config_text()), env={}))
    i, j, d = scheme.decide(scheme.probes(rows)).possible
    row, other, distance = rows[int(i[0])]["id"], rows[int(j[0])]["id"], float(d[0])
    run("add", "--all")
    found = json.loads(run("check", "--id", str(row), "--json").output)
    assert {"id": other, "distance": distance} in found["possible"]
    assert other not in [hit["id"] for hit in found["similar"]]


def test_check_of_a_text_like_no_stored_row_exits_0(run):
    run("add", "--all")
    result = run("check", "--text", "这是一段与任何信访都不相似的文字，关于天文望远镜的维护", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {"mode": "all", "similar": [], "possible": [], "matter": None}


def test_add_by_id_reports_rows_added_in_earlier_runs(run, neighbours):
    [second] = with_neighbours(neighbours)
    first = min(neighbours[second])
    assert run("add", "--id", str(first)).exit_code == 0
    result = run("add", "--id", str(second))
    assert result.exit_code == 3
    assert result.output == f"{second}\t{first}\t{neighbours[second][first]}\n"


def test_check_and_add_use_the_mongodb_of_dedup_mongo_uri(run, in_mongo_uri, neighbours):
    assert run("add", "--all").exit_code == 0
    assert in_mongo_uri.rows.count_documents({}) == len(neighbours)
    [row] = with_neighbours(neighbours)
    assert run("check", "--id", str(row)).exit_code == 3


def test_unreachable_mongodb_exits_1_naming_the_host_password_masked(run, monkeypatch):
    port = free_port()
    monkeypatch.setenv("DEDUP_MONGO_URI", f"mongodb://app:hunter22@127.0.0.1:{port}/")
    result = run("check", "--text", "小区物业乱收费")
    assert result.exit_code == 1
    assert f"cannot reach MongoDB at mongodb://app:***@127.0.0.1:{port}/" in result.output
    assert "hunter22" not in result.output and "Traceback" not in result.output


def test_check_of_an_unknown_id_exits_1(run):
    result = run("check", "--id", "999999")
    assert result.exit_code == 1 and "no row with id = 999999" in result.output


@pytest.mark.parametrize("args", [[], ["--id", "1", "--text", "x"]])
def test_check_needs_an_id_or_a_text(run, args):
    result = run("check", *args)
    assert result.exit_code == 2 and "give --id N or --text TEXT" in result.output


@pytest.mark.parametrize("command", [["check", "--text", "小区物业乱收费"], ["add", "--id", "1"], ["add", "--all"]])
def test_check_and_add_with_other_scheme_settings_than_the_batch_refuse_saying_to_run_it(run, tmp_path, command):
    assert run("batch").exit_code == 0  # the built-in default: shingles
    result = run(*command, "--config", simhash_config(tmp_path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    # the settings text keeps the name stores were built with before "simhash" (SchemeConfig.stored)
    assert "other scheme settings (name='shingles' there, 'blocks' here)" in result.stderr
    assert "run `dedup-pipeline batch` with this configuration first" in result.stderr
