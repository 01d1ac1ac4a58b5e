"""Every benchmark runs as a user runs it (`python benchmarks/X.py`, from the checkout) at a
small size and ends in its figures: a last line of key=value pairs, each value a number. A
benchmark that nothing runs rots unseen (issue 29: allpairs.py crashed for weeks)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"

# Each benchmark's command (after `python`) at a small size: seconds each on this machine.
SMALL = {
    "allpairs.py": ["benchmarks/allpairs.py", "--sizes", "20000", "--no-peers", "--sample", "32"],
    "batch.py": ["benchmarks/batch.py", "--rows", "300"],
    "collective.py": ["benchmarks/collective.py", "--copies", "200"],
    "review_queue.py": ["benchmarks/review_queue.py", "--rows", "600", "--seeds", "5"],
    "copies.py": ["benchmarks/copies.py", "--rows", "400", "--copies", "40", "--repeat", "1"],
    "fingerprint.py": ["benchmarks/fingerprint.py", "--rows", "200"],
    "incremental.py": ["benchmarks/incremental.py", "--rows", "300", "--checks", "40"],
    "key_blocks.py": ["benchmarks/key_blocks.py", "--rows", "1000"],
    "quality": ["-m", "benchmarks.quality", "--rows", "300", "--methods", "ours: default,exact shingle Jaccard"],
    "report.py": ["benchmarks/report.py", "--rows", "2000", "--groups", "200"],
    "scale.py": ["benchmarks/scale.py", "--rows", "500", "--peer-rows", "500"],
    "embedded_store.py": ["benchmarks/embedded_store.py", "--docs", "2000", "--changed", "200"],
    "scale.py --nights": ["benchmarks/scale.py", "--rows", "500", "--nights", "2", "--skip-peer"],
    "sketch.py": ["benchmarks/sketch.py", "--rows", "3000", "--repeat", "1"],
    "matters.py": ["benchmarks/matters.py", "--rows", "1500"],
    "scale.py --table news": ["benchmarks/scale.py", "--rows", "500", "--nights", "1", "--skip-peer", "--table", "news"],
    "scale.py --matters": ["benchmarks/scale.py", "--rows", "500", "--nights", "1", "--skip-peer", "--matters"],
}
# These need more than the fast tier gives: a MariaDB of their own, or Spark's JVM (30 s to start).
IN_THE_SERVERS_TIER = {
    "spark.py": ["benchmarks/spark.py", "--rows", "500"],
    "watch.py": ["benchmarks/watch.py", "--rate", "20", "--seconds", "2", "--base", "100", "--backlog", "100"],
    "watch.py --matters": ["benchmarks/watch.py", "--matters", "--rate", "20", "--seconds", "2", "--base", "100",
                           "--backlog", "100"],
    "watch.py --from binlog": ["benchmarks/watch.py", "--from", "binlog", "--rate", "20", "--seconds", "2", "--base",
                               "100", "--backlog", "100", "--big-update", "50"],
}
RUNS = [*(pytest.param(command, id=name) for name, command in SMALL.items()),
        *(pytest.param(command, id=name, marks=pytest.mark.servers) for name, command in IN_THE_SERVERS_TIER.items())]


def benchmarks() -> set[str]:
    """The runnable benchmarks: each script with a main, and each package run with -m."""
    scripts = {p.name for p in BENCHMARKS.glob("*.py") if 'if __name__ == "__main__":' in p.read_text("utf-8")}
    return scripts | {p.parent.name for p in BENCHMARKS.glob("*/__main__.py")}


def figures(line: str) -> dict[str, float]:
    """A last line's key=value pairs, each value a number (true and false: 1 and 0);
    ValueError when it is not that."""
    pairs = [item.split("=", 1) for item in line.split()]
    if not pairs or any(len(pair) != 2 or not pair[0] for pair in pairs):
        raise ValueError(f"not key=value pairs: {line!r}")
    return {key: float({"true": 1, "false": 0}.get(value, value)) for key, value in pairs}


def test_every_benchmark_has_a_small_run_here():
    assert benchmarks() == {name.split()[0] for name in [*SMALL, *IN_THE_SERVERS_TIER]}


@pytest.mark.parametrize("command", RUNS)
def test_the_benchmark_runs_at_a_small_size_and_ends_in_figures(command):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, f"exit {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    measured = figures(lines[-1])
    assert measured and measured.get("pairs_equal", 1) == 1  # a re-run's pairs are a clean batch's
