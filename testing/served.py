"""The real console over a project of its own, for the browser tests: the bundled sample in
SQLite in a folder, its configuration, the CLI run as a process, and `serve --port 0`."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from dedup_pipeline.config import Config, default_config_text, parse_config
from dedup_pipeline.sql.source import SqlSource

ROOT = Path(__file__).resolve().parent.parent


def environment() -> dict[str, str]:
    """This environment, the checkout first on the path, no DEDUP_* setting."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    return env | {"PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}


def cli(folder: Path, *args: str, stdin: str | None = None) -> str:
    """`dedup-pipeline ARGS --config folder/dedup.toml` in a process; its output, once it succeeded."""
    done = subprocess.run([sys.executable, "-m", "dedup_pipeline", *args, "--config", str(folder / "dedup.toml")],
                          cwd=folder, env=environment(), input=stdin, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def sample_project(folder: Path) -> Config:
    """The built-in configuration with the sample in folder/sample.sqlite (made) and the store
    in folder/data, written to folder/dedup.toml."""
    text = default_config_text().replace("sqlite:///dedup-data/sample.sqlite", f"sqlite:///{folder / 'sample.sqlite'}")
    text += f'\n[store]\ndata_dir = "{folder / "data"}"\n'
    (folder / "dedup.toml").write_text(text, encoding="utf-8")
    config = parse_config(tomllib.loads(text), env={}, path=str(folder / "dedup.toml"))
    SqlSource(config).close()  # makes the sample database
    return config


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """The URL of `dedup-pipeline serve --port 0` over the folder's project, once it listens."""
    server = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "serve", "--port", "0", "--config",
                               str(folder / "dedup.toml")], cwd=folder, env=environment(),
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = server.stderr.readline()  # "review console on http://127.0.0.1:PORT/ ...", once it listens
        assert "review console on" in line, line + server.stderr.read()
        yield line.split(" on ")[1].split()[0]
    finally:
        server.terminate()
        server.wait(timeout=30)
