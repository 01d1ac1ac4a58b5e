"""The dedup-pipeline command: help everywhere, fingerprints, configuration, the batch."""

import csv
import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, load_config
from dedup_pipeline.core.schemes import block_scheme, featurizer, scheme_of
from dedup_pipeline.core.shingles import ShingleScheme
from dedup_pipeline.core.simhash import fingerprint, to_hex
from dedup_pipeline.store.index import open_store

README = Path(__file__).parent.parent / "README.md"


def commands():
    return sorted(main.commands)


@pytest.mark.parametrize("name", commands())
def test_every_command_has_help_with_an_example(run, name):
    result = run(name, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.output


@pytest.mark.parametrize("name", commands())
def test_every_command_is_in_the_readme(name):
    assert f"dedup-pipeline {name}" in README.read_text(encoding="utf-8")


def test_fingerprint_of_a_text_argument_starts_with_16_hex_digits(run):
    result = run("fingerprint", "小区物业乱收费，再次反映")
    assert re.fullmatch(r"[0-9a-f]{16}", result.output.splitlines()[0])


def test_fingerprint_with_simhash_reads_stdin_and_matches_the_library(run, tmp_path):
    text = "小区物业乱收费，再次反映"
    result = run("fingerprint", "--config", simhash_config(tmp_path), input=text)
    config = load_config(simhash_config(tmp_path), env={})
    assert result.output.splitlines()[0] == to_hex(fingerprint({"content": text}, featurizer(config)))


def test_fingerprint_with_simhash_lists_the_block_keys_it_is_filed_under(run, tmp_path):
    text = "小区物业乱收费，再次反映"
    result = run("fingerprint", "--config", simhash_config(tmp_path), text)
    config = load_config(simhash_config(tmp_path), env={})
    keys = block_scheme(config).keys(fingerprint({"content": text}, featurizer(config)))
    assert result.output.splitlines()[1] == "  keys (table:key): " + " ".join(f"{t}:{k:04x}" for t, k in keys)


def test_fingerprint_explain_with_simhash_lists_features_and_weights(run, tmp_path):
    result = run("fingerprint", "--config", simhash_config(tmp_path), "--explain", "物业乱收费，物业不管")
    assert re.search(r"^\s+2\s+content\s+物业$", result.output, re.M)


def test_fingerprint_with_shingles_shows_the_sketch_and_the_keys_the_scheme_files(run):
    row = {"content": "小区物业乱收费，再次反映", "phone": "13800000000", "created_at": "2025-03-01 10:00:00"}
    scheme = scheme_of(load_config(env={}))
    [probe] = scheme.probes([row])
    result = run("fingerprint", "--csv", csv_of(run, row))
    first, shingles, keys, people, filed = result.output.splitlines()
    assert filed == "  filed: 2025-03-01 (created_at)"
    assert first == f"1\t{to_hex(scheme.fingerprint(probe))}"
    assert shingles == f"  shingles: {len(probe.shingles)} of 2 characters (numbers folded), {len(probe.verbatim)} as written"
    assert keys == f"  keys ({len(probe.keys)}): " + " ".join(f"{k:016x}" for k in scheme.keys(probe))
    assert people == f"  submitters: phone {int(probe.people[0]):016x}, address (blank)"


def test_fingerprint_explain_with_shingles_shows_the_text_compared_and_where_the_keys_come_from(run):
    result = run("fingerprint", "--explain", "--csv", csv_of(run, {"content": "物业乱收费不退还！", "phone": "138"}))
    scheme = ShingleScheme()  # a short text: every band, the short text's too, and an opening key for
    alone = scheme.bands + scheme.short_bands + 2  # each 3-character shingle of its 8 not inside its opening of 6
    assert f"  keys from the text alone (its MinHash bands; a short text's opening too): {alone}; from its " \
           "smallest shingles with each submitter's value: 4" in result.output
    assert "  text compared: '物业乱收费不退还'" in result.output
    assert re.search(r"submitters: phone [0-9a-f]{16} '138', address \(blank\)$", result.output, re.M)


def csv_of(run, row):
    """A CSV file of one row (id 1) in the folder `run` works in; returns its name."""
    with open("rows.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["id", *row])
        writer.writeheader()
        writer.writerow({"id": 1, **row})
    return "rows.csv"


def test_fingerprint_of_csv_rows_prints_each_id_and_fingerprint(run, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,name,content\n7,张三,物业乱收费\n9,,噪音扰民\n", encoding="utf-8")
    lines = [line for line in run("fingerprint", "--csv", str(path)).output.splitlines() if not line.startswith(" ")]
    assert [line.split("\t")[0] for line in lines] == ["7", "9"]
    assert lines[0].split("\t")[1] != lines[1].split("\t")[1]


def test_fingerprint_of_csv_naming_no_configured_field_is_refused(run, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["fingerprint", "--csv", str(path)])
    assert result.exit_code == 2 and "names none of the configured fields" in result.output


def test_config_prints_effective_settings_with_passwords_masked(run, monkeypatch):
    monkeypatch.setenv("DEDUP_SQL_URL", "mysql+pymysql://app:hunter22@db/p")
    result = run("config")
    settings = json.loads(result.output)
    assert settings["source"]["url"] == "mysql+pymysql://app:***@db/p"
    assert "hunter22" not in result.output


def test_a_configuration_with_old_names_works_and_says_so_in_one_line_each_on_stderr(tmp_path):
    old = tmp_path / "old.toml"
    old.write_text(default_config_text().replace('name = "shingles"', 'name = "blocks"\nedits = 2'), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "dedup_pipeline", "config", "--config", str(old)],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout)["scheme"] == {"name": "simhash", "blocks": 4, "key_blocks": 1}
    assert result.stderr.splitlines() == [
        f"{old}: [scheme] edits is now named slips; edits is still read, for now",
        f'{old}: [scheme] name = "blocks" is now named "simhash"; "blocks" is still read, for now']


def test_a_configuration_error_exits_2_with_the_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[source]\nurl = "sqlite:///x.db"\ntable = "p"\n[fields]\ncontent = "long"\n'
                   '[scheme]\nblocks = 2\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["config", "--config", str(bad)])
    assert result.exit_code == 2
    assert "blocks (2) must be greater than k (3)" in result.output


def test_batch_on_the_built_in_sample_fingerprints_every_row(run, tmp_path):
    result = run("batch", "--out", "fp.csv")
    with open(tmp_path / "fp.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    sample = Path(__file__).parent.parent / "dedup_pipeline" / "data" / "sample_petitions.csv"
    with open(sample, encoding="utf-8") as f:
        expected_ids = [r["id"] for r in csv.DictReader(f)]
    assert [r["id"] for r in rows] == expected_ids
    assert all(re.fullmatch(r"[0-9a-f]{16}", r["fingerprint"]) for r in rows)
    assert f"rows fingerprinted: {len(expected_ids):,}" in result.output


def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "dedup_pipeline", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "fingerprint" in result.stdout


def test_batch_stores_pairs_that_report_exports_as_jsonl(run, tmp_path):
    batch = run("batch")
    pairs_line = next(line for line in batch.output.splitlines() if line.startswith("similar pairs"))
    run("report", "--format", "jsonl", "--out", "pairs.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert pairs_line.endswith(f": {len(lines):,}") and len(lines) > 50
    assert all(set(p) == {"a", "b", "distance", "status"} and p["a"] < p["b"] and 0 <= p["distance"] <= 3
               and p["status"] == "auto" for p in lines), "no reviewer has decided: every pair is the rule's"


def test_report_before_any_batch_says_to_run_the_batch(run):
    result = CliRunner().invoke(main, ["report", "--out", "x.jsonl"])
    assert result.exit_code == 1 and "run `dedup-pipeline batch` first" in result.output


def test_batch_refuses_to_overlap_a_running_batch(run):
    run("batch")  # creates the store
    until = dt.datetime(2030, 1, 1)
    with open_store(load_config(env={})) as store:
        store.db.locks.insert_one({"_id": "batch:petition", "holder": "other:1", "since": until, "expires_at": until})
    result = CliRunner().invoke(main, ["batch"])
    assert result.exit_code == 1 and "another batch is running (other:1" in result.output


def simhash_config(folder):
    """The built-in configuration with the paper's SimHash scheme; returns its path."""
    path = folder / "simhash.toml"
    path.write_text(default_config_text().replace('name = "shingles"', 'name = "simhash"'), encoding="utf-8")
    return str(path)


def test_single_pass_batch_finds_the_same_pairs_as_block_classification(run, tmp_path):
    outputs, config = {}, simhash_config(tmp_path)
    for algorithm in ("blocks", "single-pass"):
        assert run("batch", "--config", config, "--algorithm", algorithm).exit_code == 0
        run("report", "--config", config, "--out", f"{algorithm}.jsonl")
        outputs[algorithm] = (tmp_path / f"{algorithm}.jsonl").read_text(encoding="utf-8")
    assert outputs["blocks"] == outputs["single-pass"] and outputs["blocks"]


def test_single_pass_batch_with_shingles_is_refused_as_a_configuration_error(run):
    result = run("batch", "--algorithm", "single-pass")
    assert result.exit_code == 2 and "SimHash fingerprints: set [scheme] name = \"simhash\"" in result.stderr
