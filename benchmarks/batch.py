"""End to end: `dedup-pipeline batch` over a 50,000-row SQLite table of petition-like rows
into the embedded store, as a user runs it (the CLI in a subprocess), with each phase's time.

    python benchmarks/batch.py [--rows 50000]

Rows come from the sample generator's templates (testing/make_sample.py), a tenth of
them near-duplicates of earlier ones. The batch runs twice: the first fills an empty store,
the second builds the next generation aside while the first stays live.
Last line: rows= total_s= read_fingerprint_s= allpairs_s= groups_s= index_s= store_s=
pairs= groups= rerun_total_s=
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from testing.make_sample import COLUMNS, NEAR_DUPLICATES, TEMPLATES, near_duplicate, new_petition  # noqa: E402

CONFIG = """[source]
url = "sqlite:///{db}"
table = "petition"
[fields]
title = "short"
name = "short"
phone = "short"
address = "short"
category = "short"
content = "long"
created_at = "ignore"
[scheme]
submitter = ["phone", "address"]
filed = "created_at"
"""


def petitions(count: int, seed: int = 7) -> list[list]:
    rng = random.Random(seed)
    rows = [new_petition(rng, rng.choice(TEMPLATES)) for _ in range(count - count // 10)]
    kinds = list(NEAR_DUPLICATES)
    while len(rows) < count:
        copy = near_duplicate(rng, rng.choice(rows), rng.choice(kinds))
        if copy is not None:
            rows.append(copy)
    rng.shuffle(rows)
    return [p.row(i) for i, p in enumerate(rows, 1)]


def make_table(path: Path, rows: list[list]) -> None:
    meta = sa.MetaData()
    table = sa.Table("petition", meta, sa.Column("id", sa.Integer, primary_key=True),
                     *(sa.Column(c, sa.Text) for c in COLUMNS[1:]))
    engine = sa.create_engine(f"sqlite:///{path}")
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(table.insert(), [dict(zip(COLUMNS, r)) for r in rows])
    engine.dispose()


def run_batch(folder: Path) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dedup_pipeline", "batch", "--config", "dedup.toml"],
                          cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the batch failed (exit {done.returncode}):\n{done.stdout}{done.stderr[-3000:]}")
    return time.perf_counter() - start, done.stdout


def phases(summary: str) -> dict[str, float]:
    line = next(line for line in summary.splitlines() if line.startswith("time: "))
    return {name: float(s) for name, s in re.findall(r"([\w+-]+) ([\d.]+) s", line)}


def count(summary: str, label: str) -> int:
    return int(re.search(rf"^{label}.*: ([\d,]+)", summary, re.M).group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_table(folder / "p.sqlite", petitions(args.rows))
        (folder / "dedup.toml").write_text(CONFIG.format(db=folder / "p.sqlite"), encoding="utf-8")
        total, summary = run_batch(folder)
        rerun, _ = run_batch(folder)
    print(summary.strip())
    seconds = phases(summary)
    print(f"rows={args.rows} total_s={total:.1f} read_fingerprint_s={seconds['read+fingerprint']:.1f} "
          f"allpairs_s={seconds['all-pairs']:.2f} groups_s={seconds['groups']:.2f} "
          f"index_s={seconds['index']:.1f} store_s={seconds['store']:.1f} "
          f"pairs={count(summary, 'similar pairs')} groups={count(summary, 'groups')} rerun_total_s={rerun:.1f}")


if __name__ == "__main__":
    main()
