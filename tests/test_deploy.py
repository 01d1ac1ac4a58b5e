"""`dedup-pipeline deploy systemd`: the units of one server (dedup_pipeline/deploy.py), read
back as systemd reads them, and checked by `systemd-analyze verify` where it is installed."""

import dataclasses
import os
import shlex
import shutil
import subprocess
import tomllib
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from dedup_pipeline import deploy
from dedup_pipeline.cli import main
from dedup_pipeline.config import default_config_text, parse_config
from dedup_pipeline.errors import UsageError

SERVICES = ("dedup-store.service", "dedup-watch.service", "dedup-serve.service", "dedup-batch.service")
LONG_RUNNING = ("dedup-store.service", "dedup-watch.service", "dedup-serve.service")
# The settings the units may use, by section (systemd.unit, .service, .exec, .kill, .timer):
# a misspelt key is only a warning to systemd, and the unit then runs without it.
KNOWN = {
    "Unit": {"Description", "Wants", "After"},
    "Service": {"Type", "User", "Group", "WorkingDirectory", "EnvironmentFile", "Environment", "UMask",
                "NoNewPrivileges", "SyslogIdentifier", "ExecStart", "Restart", "RestartSec",
                "RestartPreventExitStatus", "TimeoutStopSec"},
    "Timer": {"OnCalendar", "Persistent", "Unit"},
    "Install": {"WantedBy"},
}


def parse(path: Path) -> dict[str, list[tuple[str, str]]]:
    """A unit file's sections, each its (key, value) lines in order (a key may repeat, as
    Environment= does; configparser would keep one)."""
    sections: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
            continue
        key, equals, value = line.partition("=")
        assert equals, f"{path.name}: {line!r} is neither a section, a setting nor a comment"
        current.append((key, value))
    return sections


def value(path: Path, section: str, key: str) -> str:
    (found,) = [v for k, v in parse(path)[section] if k == key]
    return found


def values(path: Path, section: str, key: str) -> list[str]:
    return [v for k, v in parse(path)[section] if k == key]


def exec_start(path: Path) -> list[str]:
    """ExecStart's words as systemd reads them: quotes removed, `%%` and `$$` made single."""
    return [w.replace("%%", "%").replace("$$", "$") for w in shlex.split(value(path, "Service", "ExecStart"))]


def config(tmp_path: Path, env: dict[str, str] | None = None, **sections: dict) -> "Config":  # noqa: F821
    """The built-in configuration with `sections` replaced, as if read from a file in tmp_path."""
    data = tomllib.loads(default_config_text()) | sections
    path = tmp_path / "dedup.toml"
    path.write_text("# the test's configuration\n", encoding="utf-8")
    return dataclasses.replace(parse_config(data, env or {}), path=str(path))


def written(tmp_path: Path, cfg=None, **options) -> Path:
    """The folder deploy wrote for `cfg` (default: the built-in configuration from a file)."""
    cfg = cfg or config(tmp_path)
    out = tmp_path / "units"
    deploy.write_systemd(cfg, deploy.settings(options.pop("workdir", tmp_path / "srv"), **options), out)
    return out


def test_every_service_runs_as_its_user_in_the_folder_with_the_environment_file_and_configuration(tmp_path):
    out = written(tmp_path, workdir=tmp_path / "srv", user="petition", group="staff", env_file="/etc/dp/env")
    for name in SERVICES:
        unit = out / name
        assert value(unit, "Service", "User") == "petition"
        assert value(unit, "Service", "Group") == "staff"
        assert value(unit, "Service", "WorkingDirectory") == str(tmp_path / "srv")
        assert value(unit, "Service", "EnvironmentFile") == "/etc/dp/env"  # no '-': a missing file is an error
        assert f"DEDUP_CONFIG={tmp_path / 'dedup.toml'}" in values(unit, "Service", "Environment")


def test_a_relative_workdir_is_written_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = written(tmp_path, workdir="srv/dedup")
    directory = value(out / "dedup-watch.service", "Service", "WorkingDirectory")
    assert os.path.isabs(directory) and directory == str(tmp_path / "srv" / "dedup")


def test_the_workdir_defaults_to_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert deploy.settings().workdir == tmp_path


def test_a_configuration_file_given_relative_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = dataclasses.replace(config(tmp_path), path="dedup.toml")
    out = written(tmp_path, cfg)
    assert f"DEDUP_CONFIG={tmp_path / 'dedup.toml'}" in values(out / "dedup-batch.service", "Service", "Environment")


def test_the_built_in_configuration_sets_no_dedup_config(tmp_path):
    out = written(tmp_path, parse_config(tomllib.loads(default_config_text()), {}))
    assert not [v for v in values(out / "dedup-watch.service", "Service", "Environment") if "DEDUP_CONFIG" in v]


def test_every_setting_is_one_systemd_knows_in_its_section(tmp_path):
    out = written(tmp_path)
    for unit in [*SERVICES, "dedup-batch.timer"]:
        for section, lines in parse(out / unit).items():
            assert {k for k, _ in lines} - KNOWN[section] == set(), f"{unit} [{section}]"


def test_systemd_accepts_the_units(tmp_path):
    out = written(tmp_path)
    files = sorted(str(p) for p in out.iterdir() if p.suffix in (".service", ".timer"))
    assert len(files) == 5
    if shutil.which("systemd-analyze") is None:  # the parse tests above hold; say what was not checked
        warnings.warn("systemd-analyze is not installed: the units were checked by this file's parser only")
        assert all(parse(Path(f)) for f in files)
        return
    result = subprocess.run(["systemd-analyze", "verify", *files], capture_output=True, text=True, timeout=60, check=False)
    assert (result.returncode, result.stderr) == (0, "")


def test_a_path_with_a_space_a_percent_and_a_dollar_reaches_systemd_as_written(tmp_path):
    folder = tmp_path / "odd 100%$HOME"
    folder.mkdir()
    program = folder / "dedup-pipeline"
    shutil.copy2(shutil.which("true"), program)
    cfg = config(tmp_path)
    out = tmp_path / "units"
    s = dataclasses.replace(deploy.settings(folder), program=(str(program),))
    deploy.write_systemd(cfg, s, out)
    unit = out / "dedup-watch.service"
    assert exec_start(unit) == [str(program), "watch"]
    assert value(unit, "Service", "WorkingDirectory").replace("%%", "%") == str(folder)
    if shutil.which("systemd-analyze"):  # it finds the program only if the quoting is right
        result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False)
        assert (result.returncode, result.stderr) == (0, "")


def test_the_program_of_every_exec_start_exists_and_is_executable(tmp_path):
    out = written(tmp_path)
    for name in SERVICES:
        program = exec_start(out / name)[0]
        assert os.path.isabs(program) and os.path.isfile(program) and os.access(program, os.X_OK), program


def test_the_program_runs_this_installation(tmp_path):
    program = deploy.installed_program()
    result = subprocess.run([*program, "--version"], capture_output=True, text=True, timeout=120, check=False,
                            env={k: v for k, v in os.environ.items() if not k.startswith("PYTHON")})
    assert result.returncode == 0 and "dedup-pipeline" in result.stdout


def test_the_embedded_store_has_its_unit_and_the_other_jobs_want_it(tmp_path):
    out = written(tmp_path)
    assert exec_start(out / "dedup-store.service")[1:] == ["store", "serve"]
    for name in SERVICES[1:]:
        assert "dedup-store.service" in value(out / name, "Unit", "Wants").split()
        assert "dedup-store.service" in value(out / name, "Unit", "After").split()


def test_a_mongo_uri_leaves_out_the_store_unit_and_the_wish_for_it(tmp_path):
    out = written(tmp_path, config(tmp_path, store={"mongo_uri": "mongodb://mongo.example:27017/"}))
    assert not (out / "dedup-store.service").exists()
    for name in SERVICES[1:]:
        assert "dedup-store" not in (out / name).read_text(encoding="utf-8")


def test_a_mongo_uri_from_the_environment_leaves_out_the_store_unit(tmp_path):
    out = written(tmp_path, config(tmp_path, env={"DEDUP_MONGO_URI": "mongodb://mongo.example:27017/"}))
    assert not (out / "dedup-store.service").exists()


def test_writing_again_for_a_mongo_uri_removes_the_store_unit_written_before(tmp_path):
    written(tmp_path)
    out = written(tmp_path, config(tmp_path, store={"mongo_uri": "mongodb://mongo.example:27017/"}))
    assert sorted(p.name for p in out.iterdir() if p.suffix == ".service") == sorted(SERVICES[1:])


def test_a_binlog_configuration_watches_from_the_binlog(tmp_path):
    out = written(tmp_path, config(tmp_path, watch={"changes": "binlog"}))
    assert exec_start(out / "dedup-watch.service")[1:] == ["watch", "--from", "binlog"]


def test_a_triggers_configuration_watches_the_outbox(tmp_path):
    out = written(tmp_path)
    assert exec_start(out / "dedup-watch.service")[1:] == ["watch"]


def test_the_console_listens_on_loopback_behind_the_proxy_on_serves_default_port(tmp_path):
    out = written(tmp_path)
    default = next(p.default for p in main.commands["serve"].params if p.name == "port")
    assert exec_start(out / "dedup-serve.service")[1:] == [
        "serve", "--behind-proxy", "--host", "127.0.0.1", "--port", str(default)]


def test_the_batch_is_a_oneshot_started_nightly_by_its_timer(tmp_path):
    out = written(tmp_path)
    assert value(out / "dedup-batch.service", "Service", "Type") == "oneshot"
    assert exec_start(out / "dedup-batch.service")[1:] == ["batch"]
    assert value(out / "dedup-batch.timer", "Timer", "OnCalendar") == "*-*-* 02:30:00"
    assert value(out / "dedup-batch.timer", "Timer", "Persistent") == "true"
    assert value(out / "dedup-batch.timer", "Install", "WantedBy") == "timers.target"


def test_the_long_running_jobs_restart_on_failure_but_not_on_a_configuration_error(tmp_path):
    out = written(tmp_path)
    for name in LONG_RUNNING:
        assert value(out / name, "Service", "Restart") == "on-failure"
        assert value(out / name, "Service", "RestartPreventExitStatus") == "2"
        assert value(out / name, "Install", "WantedBy") == "multi-user.target"
    assert values(out / "dedup-batch.service", "Service", "Restart") == []


def test_every_service_says_its_logs_go_to_the_journal(tmp_path):
    out = written(tmp_path)
    for name in SERVICES:
        text = (out / name).read_text(encoding="utf-8")
        assert "StandardOutput=journal is the default" in text
        assert values(out / name, "Service", "StandardOutput") == []  # the default, not set


def test_env_example_lists_the_secrets_empty_and_leaves_dedup_config_to_the_units(tmp_path):
    lines = (written(tmp_path) / "env.example").read_text(encoding="utf-8").splitlines()
    settings = [line for line in lines if line and not line.startswith("#")]
    assert settings == ["DEDUP_SQL_URL=", "DEDUP_MONGO_URI=", "DEDUP_CONSOLE_SECRET="]


def test_the_readme_says_how_to_install_them(tmp_path):
    text = (written(tmp_path) / "README.txt").read_text(encoding="utf-8")
    assert ("cp dedup-store.service dedup-watch.service dedup-serve.service dedup-batch.service dedup-batch.timer "
            "/etc/systemd/system/") in text
    assert "systemctl daemon-reload" in text
    assert "systemctl enable --now dedup-store dedup-watch dedup-serve dedup-batch.timer" in text


def test_a_memory_store_is_refused(tmp_path):
    with pytest.raises(UsageError, match="memory"):
        written(tmp_path, config(tmp_path, store={"kind": "memory"}))


@pytest.mark.parametrize("option", [{"user": "de dup"}, {"group": "x\nExecStartPre=/bin/sh"}, {"env_file": "env"},
                                    {"workdir": "/srv/a\nb"}])
def test_a_value_that_would_break_a_unit_file_is_refused(tmp_path, option):
    with pytest.raises(UsageError):
        written(tmp_path, **option)


def test_the_command_writes_the_files_and_exits_2_on_a_memory_store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("DEDUP_CONFIG", "DEDUP_SQL_URL", "DEDUP_MONGO_URI"):
        monkeypatch.delenv(var, raising=False)
    runner = CliRunner()
    ok = runner.invoke(main, ["deploy", "systemd", "--out", "units", "--workdir", "/srv/dedup"])
    assert ok.exit_code == 0, ok.output
    assert sorted(p.name for p in (tmp_path / "units").iterdir()) == sorted(
        [*SERVICES, "dedup-batch.timer", "env.example", "README.txt"])
    (tmp_path / "memory.toml").write_text(default_config_text() + '\n[store]\nkind = "memory"\n', encoding="utf-8")
    refused = runner.invoke(main, ["deploy", "systemd", "--config", "memory.toml", "--out", "other"])
    assert refused.exit_code == 2 and "kind = \"memory\"" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not (tmp_path / "other").exists()
