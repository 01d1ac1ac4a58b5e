"""`dedup-pipeline batch --engine spark --master local[2]` against `--engine local` on the scale
table (benchmarks/scale_data.py: real Chinese text, a fifth of the rows re-submissions), each
a first batch into an empty embedded store, as a user runs it (the CLI in a subprocess):
rows/s of the wall time (the Spark JVM's start included) and the time of each phase.

    python benchmarks/spark.py [--rows 100000 1000000] [--seed 7] [--partitions N]

The config is benchmarks/batch.py's (default scheme). The two runs must find the same
number of pairs and groups, or the benchmark fails. Last line, for each size N:
N_local_s= N_local_rows_per_s= N_spark_s= N_spark_rows_per_s= N_spark_partitions= N_pairs=
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.batch import CONFIG, count  # noqa: E402
from benchmarks.scale import phases, write_table  # noqa: E402
from benchmarks.scale_data import PetitionMaker  # noqa: E402


def run(folder: Path, *options: str) -> dict:
    """`dedup-pipeline batch` with these options in `folder` (a store of its own)."""
    folder.mkdir()
    shutil.copy(folder.parent / "dedup.toml", folder / "dedup.toml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dedup_pipeline", "batch", "--config", "dedup.toml", *options],
                          cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"the batch {' '.join(options)} failed (exit {done.returncode}):\n"
                         f"{done.stdout}{done.stderr[-3000:]}")
    partitions = re.search(r"partitions=(\d+)", done.stderr)
    return {"wall": wall, "phases": phases(done.stdout), "pairs": count(done.stdout, "similar pairs"),
            "groups": count(done.stdout, "groups"), "partitions": partitions and int(partitions.group(1))}


def bench(rows: int, seed: int, partitions: int | None, folder: Path) -> dict:
    write_table(folder / "petitions.sqlite", PetitionMaker(seed), rows)
    (folder / "dedup.toml").write_text(CONFIG.format(db=folder / "petitions.sqlite"), encoding="utf-8")
    local = run(folder / "local", "--engine", "local")
    spark = run(folder / "spark", "--engine", "spark", "--master", "local[2]",
                *(["--partitions", str(partitions)] if partitions else []))
    if (local["pairs"], local["groups"]) != (spark["pairs"], spark["groups"]):
        raise SystemExit(f"{rows:,} rows: local found {local['pairs']:,} pairs and {local['groups']:,} groups, "
                         f"spark {spark['pairs']:,} and {spark['groups']:,}")
    for name, result in (("local", local), ("spark local[2]", spark)):
        print(f"{rows:,} rows, --engine {name}: {result['wall']:.1f} s wall, {rows / result['wall']:,.0f} rows/s"
              + (f", {result['partitions']} partitions" if result["partitions"] else "") + "; "
              + ", ".join(f"{phase} {s:.1f} s" for phase, s in result["phases"].items()), flush=True)
    print(f"{rows:,} rows: {local['pairs']:,} pairs, {local['groups']:,} groups (both engines)", flush=True)
    return {"local_s": f"{local['wall']:.1f}", "local_rows_per_s": f"{rows / local['wall']:.0f}",
            "spark_s": f"{spark['wall']:.1f}", "spark_rows_per_s": f"{rows / spark['wall']:.0f}",
            "spark_partitions": spark["partitions"], "pairs": local["pairs"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--partitions", type=int, help="--partitions of the spark run (default: its own)")
    args = parser.parse_args()
    figures = {}
    for rows in args.rows:
        folder = Path(tempfile.mkdtemp(prefix="dedup-spark-"))
        try:
            figures.update({f"{rows}_{k}": v for k, v in bench(rows, args.seed, args.partitions, folder).items()})
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
