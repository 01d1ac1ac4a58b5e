"""Identical rows (集体信访): the batch over a table in which `--copies` rows carry one text,
filed by as many people, against the same table without them (issue 20: within 1.2×).

Both tables are benchmarks/scale.py's generated table of `--rows` rows; in the second,
every (rows / copies)-th row's content is replaced by one text (names and phones stay each
row's own), so the two differ in those rows' text only. Both are migrated (dedup_match is
written). Each batch runs through the CLI on the embedded default, under
benchmarks/counting.py, on a fresh store, `--repeat` times, the two tables taking turns;
the fastest run of each is compared (the machine may be busy with other work).

    python benchmarks/copies.py                      # 100,000 rows, 5,000 copies
    python benchmarks/copies.py --rows 20000 --copies 2000

Last line: rows=<n> copies=<n> plain_s=<t> copies_s=<t> ratio=<r> pairs_plain=<n> pairs_copies=<n>
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.batch import CONFIG  # noqa: E402
from benchmarks.scale import report_batch, run_batch, write_table  # noqa: E402
from benchmarks.scale_data import PetitionMaker  # noqa: E402


def table(folder: Path, rows: int, seed: int, copies: int) -> Path:
    """Make the table in `folder` (with `copies` rows of one text, if any), migrated."""
    folder.mkdir()
    db = folder / "petitions.sqlite"
    maker = PetitionMaker(seed)
    write_table(db, maker, rows)
    if copies:
        text = maker.texts.take(1)[0]
        step = rows // copies
        with sqlite3.connect(db) as conn:
            conn.executemany("UPDATE petition SET content = ? WHERE id = ?",
                             [(text, 1 + n * step) for n in range(copies)])
        conn.close()
    (folder / "dedup.toml").write_text(CONFIG.format(db=db), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "dedup_pipeline", "migrate", "--config", "dedup.toml"], cwd=folder,
                   check=True, capture_output=True)
    return folder


def fastest(folder: Path, runs: list[dict]) -> dict:
    """Run the batch on a fresh store; the fastest of this and the earlier `runs`."""
    shutil.rmtree(folder / "dedup-data", ignore_errors=True)
    runs.append(run_batch(folder))
    return min(runs, key=lambda r: r["wall"])


def pairs_of(summary: str) -> int:
    return int(re.search(r"^similar pairs .*: ([\d,]+)$", summary, re.M).group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--copies", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dedup-copies-") as scratch:
        tables = [table(Path(scratch) / name, args.rows, args.seed, n) for name, n in
                  (("plain", 0), ("copies", args.copies))]
        runs: tuple[list, list] = ([], [])
        for _ in range(args.repeat):
            plain, copied = (fastest(folder, done) for folder, done in zip(tables, runs))
        print("batch times (s): no copies " + ", ".join(f"{r['wall']:.1f}" for r in runs[0])
              + f"; {args.copies:,} copies " + ", ".join(f"{r['wall']:.1f}" for r in runs[1]))
        report_batch("batch, no copies (fastest)", plain, args.rows)
        report_batch(f"batch, {args.copies:,} rows of one text (fastest)", copied, args.rows)
        print("\n".join(line for line in copied["stdout"].splitlines() if line.startswith("copies:")))
    print(f"rows={args.rows} copies={args.copies} plain_s={plain['wall']:.1f} copies_s={copied['wall']:.1f} "
          f"ratio={copied['wall'] / plain['wall']:.2f} pairs_plain={pairs_of(plain['stdout'])} "
          f"pairs_copies={pairs_of(copied['stdout'])}")


if __name__ == "__main__":
    main()
