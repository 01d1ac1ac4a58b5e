"""Bad input, unwritable outputs and Ctrl-C: one line on stderr saying what is wrong and
what to do, the documented exit code, never a traceback."""

import os
import subprocess
import sys

import pymongo
import pymongo.collection
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dedup_pipeline import cli

from dedup_pipeline.sql import matchtable
from dedup_pipeline.cli import main
from dedup_pipeline.config import ConfigError, load_config
from dedup_pipeline.errors import DedupError, InputError, StoreError, UsageError
from dedup_pipeline.core.features import FeatureError
from dedup_pipeline.store.lock import LockHeld
from dedup_pipeline.report.exports import export
from dedup_pipeline.sql.source import SourceError

FULL_DISK = "/dev/full"  # every write fails with ENOSPC


def error_line(result):
    """The last line on stderr, after checking there is no traceback."""
    assert "Traceback" not in result.output
    return result.stderr.strip().splitlines()[-1]


def test_batch_out_in_a_missing_folder_is_refused_before_the_batch_runs(run, tmp_path):
    result = run("batch", "--out", "/nonexistent/f.csv")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "/nonexistent" in error_line(result) and "does not exist" in error_line(result)
    assert not (tmp_path / "dedup-data").exists()  # neither the source nor the store was opened


def test_batch_out_that_cannot_be_written_is_one_line_after_the_batch_results(run):
    result = run("batch", "--out", FULL_DISK)
    assert result.exit_code == 1
    assert FULL_DISK in error_line(result) and "No space left on device" in error_line(result)
    assert "results: run" in result.stdout and "fingerprints written" not in result.stdout


@pytest.mark.parametrize("option", ["--out", "--html"])
def test_report_that_cannot_be_written_is_one_line(run, option):
    run("batch")
    result = run("report", option, FULL_DISK)
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert FULL_DISK in error_line(result) and "No space left on device" in error_line(result)


def test_fingerprint_csv_that_is_not_utf8_names_the_file_and_line(run, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes("id,content\n1,物业乱收费\n".encode() + "2,噪音扰民\n".encode("gbk"))
    result = run("fingerprint", "--csv", str(path))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"{path}, line 3" in error_line(result) and "UTF-8" in error_line(result)


def test_fingerprint_csv_with_a_field_over_131072_characters_is_fingerprinted(run, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,content\n1," + "物业乱收费" * 30_000 + "\n", encoding="utf-8")
    result = run("fingerprint", "--csv", str(path))
    assert result.exit_code == 0 and result.stdout.startswith("1\t") and result.stderr == ""


def test_fingerprint_csv_with_a_carriage_return_inside_a_field_names_the_file_and_line(run, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes("id,content\n1,物业乱收费\n2,噪音\r扰民\n".encode())  # a lone carriage return
    result = run("fingerprint", "--csv", str(path))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"{path}, line 3: not valid CSV" in error_line(result)


def test_an_invalid_mongodb_database_name_is_a_configuration_error(run, tmp_path):
    (tmp_path / "dedup.toml").write_text('[source]\nurl = "sqlite:///p.db"\ntable = "petition"\nsample = true\n'
                                         '[fields]\ncontent = "long"\n[store]\ndatabase = "a.b$c d/e"\n',
                                         encoding="utf-8")
    result = run("batch", "--config", "dedup.toml")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "[store] database 'a.b$c d/e' is not a MongoDB database name" in error_line(result)
    assert not (tmp_path / "dedup-data").exists()


def test_an_unknown_mongodb_uri_option_is_one_line_and_exit_2(run, monkeypatch):
    monkeypatch.setenv("DEDUP_MONGO_URI", "mongodb://127.0.0.1:1/?badoption=1")
    result = run("check", "--text", "小区物业乱收费")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "Unknown option: badoption" in error_line(result) and "Warning" not in result.stderr


def test_an_sqlite_url_to_a_missing_file_is_one_line_and_exit_2(run, tmp_path, monkeypatch):
    monkeypatch.setenv("DEDUP_SQL_URL", "sqlite:///typo.db")
    result = run("config", "--check")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"the SQLite database file {tmp_path}/typo.db does not exist" in error_line(result)
    assert not (tmp_path / "typo.db").exists()


def test_a_row_whose_bytes_cannot_be_read_is_left_out_named_with_its_column_and_setting(run, tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, content TEXT)"))
        conn.execute(sa.text("INSERT INTO petition VALUES (1, '物业', '小区物业乱收费'), "
                             "(7, '噪音', X'D0A1C7F8')"))  # GBK bytes as a BLOB in a TEXT column
    engine.dispose()
    (tmp_path / "dedup.toml").write_text('[source]\nurl = "sqlite:///p.db"\ntable = "petition"\n[fields]\n'
                                         'title = "short"\ncontent = "long"\n[batch]\nprocesses = 1\n',
                                         encoding="utf-8")
    result = run("batch", "--config", "dedup.toml")
    assert result.exit_code == 0 and "rows fingerprinted: 1 " in result.stdout
    assert "row 7, column content: bytes that are not valid utf-8" in result.stdout
    assert "[fields] encoding" in result.stdout


def test_a_row_whose_bytes_cannot_be_read_is_left_out_and_named_by_a_re_run_too(run, tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, content TEXT)"))
        conn.execute(sa.text("INSERT INTO petition VALUES (1, '物业', '小区物业乱收费')"))
    (tmp_path / "dedup.toml").write_text('[source]\nurl = "sqlite:///p.db"\ntable = "petition"\n[fields]\n'
                                         'title = "short"\ncontent = "long"\n[batch]\nprocesses = 1\n',
                                         encoding="utf-8")
    assert run("batch", "--config", "dedup.toml").exit_code == 0
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO petition VALUES (7, '噪音', X'D0A1C7F8')"))
    engine.dispose()
    result = run("batch", "--config", "dedup.toml")
    assert result.exit_code == 0 and "rows read: 1;" in result.stdout
    assert "row 7, column content: bytes that are not valid utf-8" in result.stdout


def test_ctrl_c_during_a_command_is_one_line_and_exit_130(run, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "load_config", interrupted)
    result = CliRunner().invoke(main, ["check", "--text", "物业乱收费"])
    assert result.exit_code == 130 and result.stderr == "Error: interrupted\n"


# As Ctrl-C in the last second of a command: the signal arrives while Python runs its exit
# handlers (pymongo's joins its threads then), after the command's work is done.
CTRL_C_AT_EXIT = """
import atexit, os, signal, sys
atexit.register(lambda: os.kill(os.getpid(), signal.SIGINT))
from dedup_pipeline.cli import main
sys.argv = ["dedup-pipeline", *sys.argv[1:]]
main()
"""


def ctrl_c_at_exit(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    return subprocess.run([sys.executable, "-c", CTRL_C_AT_EXIT, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_ctrl_c_while_check_exits_is_one_line_and_exit_130(tmp_path):
    done = ctrl_c_at_exit("check", "--text", "小区物业乱收费", cwd=tmp_path)
    assert "Traceback" not in done.stderr and done.returncode == 130
    assert done.stderr.splitlines()[-1] == "Error: interrupted"


def test_ctrl_c_while_migrate_exits_is_one_line_and_exit_130(tmp_path, mysql_url):
    (tmp_path / "dedup.toml").write_text(f'[source]\nurl = "{mysql_url}"\ntable = "petition"\n'
                                         f'[fields]\ncontent = "long"\n', encoding="utf-8")
    engine = sa.create_engine(mysql_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE petition (id INTEGER PRIMARY KEY, content TEXT)"))
    engine.dispose()
    done = ctrl_c_at_exit("migrate", "--config", "dedup.toml", cwd=tmp_path)
    assert "Traceback" not in done.stderr and done.returncode == 130
    assert "are up to date" in done.stdout and done.stderr.splitlines()[-1] == "Error: interrupted"


# As Ctrl-C in the first tenth of a second of a command: the signal arrives while Python loads
# one of the program's modules (argv[1]), before any command runs.
CTRL_C_AT_START = """
import importlib.abc, os, runpy, signal, sys

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == loading:
            os.kill(os.getpid(), signal.SIGINT)

loading = sys.argv.pop(1)
sys.meta_path.insert(0, CtrlC())
sys.argv = ["dedup-pipeline", *sys.argv[1:]]
runpy.run_module("dedup_pipeline", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("loading", ["dedup_pipeline.cli", "dedup_pipeline.config"])
def test_ctrl_c_while_fingerprint_starts_is_one_line_and_exit_130(tmp_path, loading):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    done = subprocess.run([sys.executable, "-c", CTRL_C_AT_START, loading, "fingerprint", "小区物业乱收费"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and done.stderr == "Error: interrupted\n" and done.stdout == ""


def fails_on(monkeypatch, method, collection_prefix):
    """pymongo's `method` of the collections named `collection_prefix...` fails as a server
    that went away does."""
    real = getattr(pymongo.collection.Collection, method)

    def failing(self, *args, **kwargs):
        if self.name.startswith(collection_prefix):
            raise pymongo.errors.AutoReconnect("connection closed")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pymongo.collection.Collection, method, failing)


def test_mongodb_failing_while_report_reads_the_results_is_one_line_and_exit_1(run, monkeypatch):
    run("batch")
    fails_on(monkeypatch, "find", "matches__")
    result = run("report", "--out", "pairs.jsonl")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "MongoDB at database dedup: connection closed" in error_line(result)


def test_mongodb_failing_while_batch_takes_its_lock_is_one_line_and_exit_1(run, monkeypatch):
    fails_on(monkeypatch, "find_one_and_update", "locks")
    result = run("batch")
    assert result.exit_code == 1
    assert "connection closed; the batch did not start" in error_line(result)


def test_the_source_database_failing_while_batch_writes_dedup_match_is_one_line_and_exit_1(run, monkeypatch):
    assert run("migrate").exit_code == 0

    def lost(*args):
        raise sa.exc.OperationalError("INSERT INTO dedup_match", {}, Exception("Lost connection"))

    monkeypatch.setattr(matchtable, "upsert", lost)
    result = run("batch")
    assert result.exit_code == 1
    assert "cannot write the batch's pairs to dedup_match for 'petition'" in error_line(result)
    assert "Lost connection" in error_line(result)


def test_every_library_error_is_a_dedup_error_carrying_its_exit_code():
    classes = (ConfigError, SourceError, StoreError, LockHeld, FeatureError, InputError, UsageError)
    assert [(cls.__name__, cls.exit_code) for cls in classes if issubclass(cls, DedupError)] == [
        ("ConfigError", 2), ("SourceError", 1), ("StoreError", 1), ("LockHeld", 1), ("FeatureError", 1),
        ("InputError", 1), ("UsageError", 2)]


def test_a_report_before_any_batch_is_a_store_error_for_a_library_caller(run):
    with pytest.raises(StoreError, match="run `dedup-pipeline batch` first"):
        export(load_config(env={}), "pairs.jsonl", "jsonl", False)
