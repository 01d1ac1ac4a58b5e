"""The commands as a library (dedup_pipeline.commands): each does its whole command on a
Config and returns what it did, with no command line in between."""

import csv
import json
from pathlib import Path

import pytest

from dedup_pipeline import commands
from dedup_pipeline.config import load_config
from dedup_pipeline.errors import InputError, UsageError

SAMPLE = Path(__file__).parent.parent / "dedup_pipeline" / "data" / "sample_petitions.csv"


def sample_ids():
    with open(SAMPLE, encoding="utf-8") as f:
        return [row["id"] for row in csv.DictReader(f)]


@pytest.fixture
def default(tmp_path, monkeypatch):
    """The built-in configuration in an empty folder: the bundled sample in SQLite (no store)."""
    monkeypatch.chdir(tmp_path)
    return load_config(env={})


@pytest.fixture(scope="module")
def batched(tmp_path_factory):
    """The built-in configuration after `commands.batch(config, out="fingerprints.csv")`,
    in the folder it ran in: (config, its result)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("batched"))
        config = load_config(env={})
        yield config, commands.batch(config, out="fingerprints.csv")


@pytest.mark.servers
def test_batch_on_the_embedded_default_files_every_row_and_writes_its_fingerprints(batched):
    config, batch = batched
    assert batch.result.rows == len(sample_ids()) and batch.fingerprints == "fingerprints.csv"
    with open("fingerprints.csv", encoding="utf-8") as f:
        assert [row["id"] for row in csv.DictReader(f)] == sample_ids()


@pytest.mark.servers
def test_report_exports_the_pairs_the_batch_returned(batched):
    config, batch = batched
    report = commands.report(config, out="pairs.jsonl")
    pairs = [json.loads(line) for line in Path("pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert report.lines == len(pairs) == len(batch.result.pairs[0]) > 0 and report.html is None


@pytest.mark.servers
def test_a_batch_whose_fingerprints_cannot_be_written_raises_carrying_the_stored_batch(batched):
    config, _ = batched
    with pytest.raises(InputError, match="the batch's results are stored all the same") as raised:
        commands.batch(config, out="/dev/full")
    assert raised.value.done.result.rows == len(sample_ids()) and raised.value.done.fingerprints is None


@pytest.mark.servers
def test_adding_a_stored_row_by_id_reports_what_check_reports_for_it(batched):
    config, batch = batched
    row = batch.result.ids[batch.result.pairs[0][0]]  # the pairs are positions in ids
    checked = commands.check(config, row_id=row).similar
    assert checked and row not in [match.row for match in checked]
    assert commands.add(config, [row]).similar == {row: checked}


def test_batch_refuses_out_on_spark_before_reading_anything(default, tmp_path):
    with pytest.raises(UsageError, match="--out"):
        commands.batch(default, engine="spark", out="fingerprints.csv")
    assert not (tmp_path / "dedup-data").exists()


def test_fingerprint_labels_csv_rows_by_id_and_files_them_as_the_same_text(default, tmp_path):
    (tmp_path / "rows.csv").write_text("id,content\n7,小区物业乱收费\n9,噪音扰民\n", encoding="utf-8")
    rows = list(commands.fingerprint(default, csv_path="rows.csv"))
    [text] = commands.fingerprint(default, text="小区物业乱收费")
    assert [row.label for row in rows] == ["7", "9"] and text.label is None
    assert rows[0].entry == text.entry != rows[1].entry


def test_explain_gives_the_ids_as_the_table_has_them(default):
    explanation = commands.explain(default, "1", 2)
    assert explanation.ids == (1, 2) and explanation.reasons["scheme"] == "shingles"


def test_a_row_id_the_table_has_not_is_an_input_error_naming_the_table(default):
    with pytest.raises(InputError, match="no row with id = 999999 in 'petition'"):
        commands.explain(default, 1, 999999)


def test_configuration_counts_the_rows_only_when_asked_to_check(default):
    assert commands.configuration(default).rows is None
    shown = commands.configuration(default, check=True)
    assert shown.rows == len(sample_ids()) and shown.settings["config_file"] == default.path


def test_migrate_with_sql_returns_the_sql_and_applies_nothing(default, tmp_path):
    migration = commands.migrate(default, sql=True)
    assert "CREATE TRIGGER" in migration.sql and migration.indexes is None
    assert not (tmp_path / "dedup-data" / "mongo").exists()


def test_report_with_no_output_is_a_usage_error(default):
    with pytest.raises(UsageError, match="give --out FILE"):
        commands.report(default)
