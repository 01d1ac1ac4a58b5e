"""The documentation cannot rot: the command reference is the CLI's own --help, the
configuration reference has every key of config/example.toml with its default, links lead
somewhere, the README stays short, and the examples marked `test` run (testing/docs.py)."""

import inspect
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import MISSING, fields

import pytest

from dedup_pipeline import commands, review
from dedup_pipeline.config import _SECTIONS, parse_config
from dedup_pipeline.store import shared
from testing import docs

ROOT = docs.ROOT
README = ROOT / "README.md"
CONFIG_PAGE = ROOT / "docs" / "reference" / "config.md"
EXAMPLE = ROOT / "config" / "example.toml"
DATED = (ROOT / "docs" / "performance.md", ROOT / "CHANGELOG.md")  # the pages where a date belongs
README_LINES = 250


def test_the_cli_reference_is_the_clis_own_help():
    assert docs.CLI_PAGE.read_text(encoding="utf-8") == docs.cli_reference(), \
        "docs/reference/cli.md differs from the CLI's --help: run `python -m testing.docs`"


def reference_rows() -> dict[tuple[str, str], list[str]]:
    """{(section, key): its cells} of the configuration reference's key tables."""
    rows, section = {}, None
    for line in CONFIG_PAGE.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^## `\[(\w+)\]`", line)
        if heading:
            section = heading.group(1)
        row = re.match(r"^\| `(\w+)` \|(.*)\|$", line)
        if section and row:
            rows[section, row.group(1)] = [cell.strip() for cell in row.group(2).split("|")]
    return rows


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def test_every_key_of_the_example_configuration_is_in_the_reference_with_its_default():
    example, rows = tomllib.loads(EXAMPLE.read_text(encoding="utf-8")), reference_rows()
    listed = {(section, key) for section, keys in example.items() if section != "fields" for key in keys}
    listed |= {("fields", key) for key in ("role", "weight", "encoding")}  # [fields] column = {...}
    assert sorted(listed - set(rows)) == []
    for name, cls in _SECTIONS.items():
        for f in fields(cls):
            if (name, f.name) in rows:  # type, default, meaning
                default = "(required)" if f.default is MISSING else f"`{toml_value(f.default)}`"
                assert rows[name, f.name][1] == default, (name, f.name)


def test_the_readme_stays_short_and_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    first, second = [b.text for b in docs.blocks(README) if b.language == "sh"][:2]
    assert "python3 -m venv .venv" in first and "pip install -e '.[all]' && dedup-pipeline batch" in first
    assert second.strip() == "python -m pytest"


def test_every_library_call_is_in_the_api_page():
    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    for module, prefix in ((commands, "commands"), (review, "review")):
        public = [name for name, f in vars(module).items() if inspect.isfunction(f)
                  and f.__module__ == module.__name__ and not name.startswith("_")]
        assert public and [name for name in public if f"{prefix}.{name}(" not in page] == []


@pytest.mark.parametrize("page", docs.pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_a_heading_there(page):
    broken = []
    for target in docs.links(page):
        path, _, fragment = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(target)
        elif fragment and where.suffix == ".md" and fragment not in docs.anchors(where):
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("page", docs.pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dated_measurement_outside_the_performance_page_and_the_changelog(page):
    if page not in DATED:
        assert re.findall(r"\b20\d\d-\d\d-\d\d\b", docs.prose(page)) == []


@pytest.mark.parametrize("block", docs.tested("toml"), ids=str)
def test_a_configuration_example_is_valid(block):
    parse_config(tomllib.loads(block.text), env={})


def pages_with_examples() -> list:
    return [page for page in docs.pages() if page.exists() and docs.examples(page)]


@pytest.mark.servers  # runs the CLI in processes of its own, and the embedded store's server
@pytest.mark.parametrize("page", pages_with_examples(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_marked_examples_run_on_the_sample(page, tmp_path):
    """A page's `sh test` blocks, in order, in one empty folder with no configuration in the
    environment: the built-in sample, as a reader who follows the page runs them."""
    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir()
    work.mkdir()
    program = bin_dir / "dedup-pipeline"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dedup_pipeline "$@"\n', encoding="utf-8")
    program.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    env |= {"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "PYTHONIOENCODING": "utf-8",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))}
    try:
        for block, output in docs.examples(page):
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=work, env=env,
                                  capture_output=True, text=True, encoding="utf-8", timeout=120)
            assert done.returncode == 0, f"{block}:\n{block.text}\n{done.stdout}{done.stderr}"
            if output is not None:
                assert docs.masked(done.stdout) == docs.masked(output.text), f"{output}: not what {block} prints"
    finally:
        shared.stop(work / "dedup-data" / "mongo")
