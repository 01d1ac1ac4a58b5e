"""The built wheel works without the checkout: it ships the Alembic scripts (the top-level
migrations/, as dedup_pipeline.migrations) and the package data, and its `dedup-pipeline`,
installed in a fresh venv, migrates and batches on the built-in default. Installed offline
from a wheelhouse with the `server` extra (docs/install.md), it batches too."""

import csv
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.servers  # real servers or processes of their own

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "README.md", "dedup_pipeline", "migrations")
JUNK = ("__pycache__", "*.pyc", ".*")
WHERE_FROM = ("import dedup_pipeline.sql.migrate as m, dedup_pipeline.migrations as p\n"
              "print(m.__file__, m.MIGRATIONS, p.__file__, sep='\\n')")


SERVER_MODULES = ("secantus", "pymysqlreplication", "rjieba")  # the [server] extra: store, binlog, tokenizer
LEFT_OUT = ("pyspark", "pytest")  # what a production server does not get
FOUND = "import importlib.util as u, sys; print(*(u.find_spec(m) is not None for m in sys.argv[1:]))"


@dataclass(frozen=True)
class Installed:
    src: Path
    wheel: Path
    venv: Path

    def run(self, cwd: Path, *args: str) -> subprocess.CompletedProcess:
        """Runs a program of the venv (`python`, `dedup-pipeline`) in `cwd`."""
        return subprocess.run([str(self.venv / "bin" / args[0]), *args[1:]], cwd=cwd, env=clean_env(),
                              capture_output=True, text=True, encoding="utf-8", timeout=300)


def clean_env() -> dict[str, str]:
    """This environment without PYTHON* variables (PYTHONPATH would put the checkout first)
    and DEDUP_* ones (the commands must use the built-in default configuration)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "DEDUP_"))}
    return env | {"PYTHONIOENCODING": "utf-8"}


def offline_env() -> dict[str, str]:
    """clean_env() without pip's settings (PIP_CONFIG_FILE=os.devnull loads no configuration
    file): this machine's find-links or extra index would be a source besides the wheelhouse."""
    return {k: v for k, v in clean_env().items() if not k.startswith("PIP_")} | {"PIP_CONFIG_FILE": os.devnull}


def dependency_dirs(venv_path: list[str], path: list[str] | None = None, root: Path = ROOT,
                    prefix: str = sys.prefix) -> list[str]:
    """Where the Python running the tests finds the wheel's dependencies: its sys.path
    folders, less those the venv has already (the standard library) and the checkout's own;
    a venv made inside the checkout (`.venv`) is the running Python's, not the checkout's."""
    def checkouts(p: str) -> bool:
        where = Path(p).resolve()
        return where.is_relative_to(root) and not where.is_relative_to(Path(prefix).resolve())

    return [p for p in (sys.path if path is None else path) if p and os.path.isdir(p) and p not in venv_path
            and not checkouts(p)]


def files(folder: Path) -> set[str]:
    """The files under `folder`, as paths relative to it."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    """The wheel built from a copy of the sources (the build writes nothing in the checkout),
    installed without its dependencies in a fresh venv with no system site-packages.

    The dependencies come from this Python's sys.path, listed in a .pth file of the
    venv: plain path lines, appended after the venv's own site-packages, so the venv's
    dedup_pipeline is found first and the .pth files in those folders (an editable
    install's finder of the checkout) are not run. No package index is needed."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns(*JUNK))
        else:
            shutil.copy2(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(tmp / "dist"), str(src)],
                   check=True, env=clean_env())
    (wheel,) = (tmp / "dist").glob("dedup_pipeline-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
                   check=True, env=clean_env())
    venv_path = subprocess.run([str(python), "-c", "import sys; print(*sys.path, sep='\\n')"], cwd=tmp,
                               check=True, capture_output=True, text=True, env=clean_env()).stdout.splitlines()
    purelib = next(p for p in venv_path
                   if p.endswith("site-packages") and Path(p).resolve().is_relative_to(venv.resolve()))
    Path(purelib, "_test_dependencies.pth").write_text("\n".join(dependency_dirs(venv_path)) + "\n",
                                                       encoding="utf-8")
    return Installed(src, wheel, venv)


def test_the_wheel_ships_every_source_file_the_migrations_and_the_package_data(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    expected = ({f"dedup_pipeline/{f}" for f in files(installed.src / "dedup_pipeline")}
                | {f"dedup_pipeline/migrations/{f}" for f in files(installed.src / "migrations")})
    assert sorted(expected - names) == []
    assert {"dedup_pipeline/migrations/env.py", "dedup_pipeline/migrations/script.py.mako",
            "dedup_pipeline/migrations/versions/0000_match.py",
            "dedup_pipeline/migrations/versions/0001_outbox_triggers.py",
            "dedup_pipeline/migrations/versions/0002_binlog_position.py",
            "dedup_pipeline/data/default.toml", "dedup_pipeline/data/sample_petitions.csv",
            "dedup_pipeline/data/stopwords-zh.txt", "dedup_pipeline/report/templates/report.html.j2",
            "dedup_pipeline/report/templates/report.css", "dedup_pipeline/report/templates/report.js"} <= names
    assert not [n for n in names if n.startswith("migrations/")]  # no top-level `migrations` package


def test_the_venv_runs_the_wheels_copy_not_the_checkout(installed, tmp_path):
    result = installed.run(tmp_path, "python", "-c", WHERE_FROM)
    assert result.returncode == 0, result.stderr
    paths = [Path(line).resolve() for line in result.stdout.splitlines()]
    assert len(paths) == 3
    assert [p for p in paths if not p.is_relative_to(installed.venv.resolve())] == []


def test_migrate_sql_from_the_installed_wheel_prints_the_outbox_match_and_triggers(installed, tmp_path):
    result = installed.run(tmp_path, "dedup-pipeline", "migrate", "--sql")
    assert result.returncode == 0, result.stderr
    assert "CREATE TABLE dedup_outbox" in result.stdout
    assert "CREATE TABLE dedup_match" in result.stdout
    assert "CREATE TRIGGER dedup_petition_insert AFTER INSERT ON petition" in result.stdout
    assert result.stdout.count("CREATE TRIGGER") == 3


def sample_rows(installed: Installed) -> int:
    """The rows of the bundled sample, which a batch on the built-in default reads."""
    with open(installed.src / "dedup_pipeline" / "data" / "sample_petitions.csv", encoding="utf-8") as f:
        return sum(1 for _ in csv.DictReader(f))


def test_batch_from_the_installed_wheel_fingerprints_the_bundled_sample(installed, tmp_path):
    result = installed.run(tmp_path, "dedup-pipeline", "batch")
    assert result.returncode == 0, result.stderr
    assert f"rows fingerprinted: {sample_rows(installed):,}" in result.stdout
    assert "similar pairs" in result.stdout and "groups:" in result.stdout
    assert (tmp_path / "dedup-data" / "sample.sqlite").is_file()


def test_an_offline_install_from_a_wheelhouse_batches_the_sample_without_spark_or_pytest(installed, tmp_path):
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    wheelhouse, venv, work = tmp_path / "wheelhouse", tmp_path / "venv", tmp_path / "work"
    # docs/install.md, on the machine with internet: the wheel and [server]'s dependencies, as wheels
    subprocess.run([*pip, "wheel", "--wheel-dir", str(wheelhouse), f"{installed.wheel}[server]"],
                   check=True, env=clean_env(), timeout=900)
    # on the server: a fresh venv, no index, nothing but the wheelhouse
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([*pip, "--python", str(venv / "bin" / "python"), "install", "--no-index", "--find-links",
                    str(wheelhouse), "dedup-pipeline[server]"], check=True, env=offline_env(), timeout=600)
    offline = Installed(installed.src, installed.wheel, venv)
    work.mkdir()
    result = offline.run(work, "dedup-pipeline", "batch")
    assert result.returncode == 0, result.stderr
    assert f"rows fingerprinted: {sample_rows(installed):,}" in result.stdout and "groups:" in result.stdout
    found = offline.run(work, "python", "-c", FOUND, *SERVER_MODULES, *LEFT_OUT)
    assert found.stdout.split() == ["True"] * len(SERVER_MODULES) + ["False"] * len(LEFT_OUT), found.stderr


def test_a_venv_inside_the_checkout_lends_its_packages_but_the_checkout_lends_none(tmp_path):
    """`python3 -m venv .venv` in the clone, as the README says one may: its site-packages
    hold the dependencies; the checkout itself must not shadow the wheel."""
    root, site = tmp_path / "clone", tmp_path / "clone" / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (root / "dedup_pipeline").mkdir()
    found = dependency_dirs([], [str(root), str(site), str(tmp_path)], root=root, prefix=str(root / ".venv"))
    assert found == [str(site), str(tmp_path)]
    assert dependency_dirs([], [str(root), str(site)], root=root, prefix=str(tmp_path / "elsewhere")) == []
