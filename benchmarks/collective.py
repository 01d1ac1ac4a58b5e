"""A collective petition (集体信访) and the incremental paths: `check` of one of n rows of
one text from one submitter, and one more copy taken by the worker (`watch --once`) and by
`add`, after a batch (issue 29 item 8).

    python benchmarks/collective.py                  # 20,000 copies
    python benchmarks/collective.py --copies 2000

The table is SQLite, the store the embedded default, both in a temporary folder; the batch,
the check, the worker and the add are the library calls of `migrate` and `batch`,
`check --id 1 --mode all`, `watch --once` (row n+1 inserted; then row 5 changed and row 6
deleted, `change`) and `add --id n+2`. Documents
read are counted with a pymongo command listener (documents returned by find and getMore).
Last line:
copies=<n> batch_s=<t> check_s=<t> listed=<n> add_s=<t> watch_s=<t> change_s=<t> docs_read_check=<n>
docs_read_add=<n> docs_read_watch=<n> docs_read_change=<n> peak_rss_mb=<n>
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from pymongo import monitoring

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline import commands  # noqa: E402
from dedup_pipeline.config import default_config_text, parse_config  # noqa: E402
from dedup_pipeline.jobs.watch import WatchSettings, watch  # noqa: E402

TEXT = "小区门口的垃圾站已经半个月没有清运，臭味很大，苍蝇蚊子到处都是，住户连窗户都不敢开，请有关部门尽快处理。"
OTHER = "小区门口的垃圾站已经清运过了，但是附近的下水道又堵了，污水流到路上，请有关部门来看一看。"
ROW = ("垃圾清运", "张三", "13800000001", "某小区3号楼", "环境", TEXT, "2025-01-01")


class Documents(monitoring.CommandListener):
    """Counts the documents find and getMore return."""

    def __init__(self) -> None:
        self.read = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        pass

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        cursor = event.reply.get("cursor") if isinstance(event.reply, dict) else None
        if cursor:
            self.read += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def table(folder: Path, copies: int) -> Path:
    db = folder / "petitions.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE petition (id INTEGER PRIMARY KEY, title TEXT, name TEXT, phone TEXT, "
                     "address TEXT, category TEXT, content TEXT, created_at TEXT)")
        conn.executemany("INSERT INTO petition VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(n, *ROW) for n in range(1, copies + 1)])
    conn.close()
    return db


def insert(db: Path, row: int) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO petition VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (row, *ROW))
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20_000)
    args = parser.parse_args()
    documents = Documents()
    monitoring.register(documents)
    with tempfile.TemporaryDirectory(prefix="dedup-collective-") as scratch:
        db = table(Path(scratch), args.copies)
        data = tomllib.loads(default_config_text())
        data["source"] = {**data["source"], "url": f"sqlite:///{db}"}
        data["store"] = {**data.get("store", {}), "data_dir": str(Path(scratch) / "dedup-data")}
        config = parse_config(data, env={})
        start = time.perf_counter()
        commands.migrate(config)
        commands.batch(config)
        batch_s = time.perf_counter() - start
        before = documents.read
        start = time.perf_counter()
        found = commands.check(config, row_id=1, mode="all")
        check_s, read = time.perf_counter() - start, documents.read - before
        insert(db, args.copies + 1)
        before = documents.read
        start = time.perf_counter()
        watch(config, WatchSettings(once=True), handle_signals=False)
        watch_s, read_watch = time.perf_counter() - start, documents.read - before
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE petition SET content = ? WHERE id = 5", (OTHER,))
            conn.execute("DELETE FROM petition WHERE id = 6")
        conn.close()
        before = documents.read
        start = time.perf_counter()
        watch(config, WatchSettings(once=True), handle_signals=False)
        change_s, read_change = time.perf_counter() - start, documents.read - before
        insert(db, args.copies + 2)
        before = documents.read
        start = time.perf_counter()
        commands.add(config, [args.copies + 2])
        add_s, read_add = time.perf_counter() - start, documents.read - before
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"copies={args.copies} batch_s={batch_s:.2f} check_s={check_s:.2f} listed={len(found)} add_s={add_s:.2f} "
          f"watch_s={watch_s:.2f} change_s={change_s:.2f} docs_read_check={read} docs_read_add={read_add} "
          f"docs_read_watch={read_watch} docs_read_change={read_change} "
          f"peak_rss_mb={rss:.0f}")


if __name__ == "__main__":
    main()
