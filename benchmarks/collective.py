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
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

from pymongo import monitoring

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dedup_pipeline import commands  # noqa: E402
from dedup_pipeline.config import default_config_text, parse_config  # noqa: E402
from dedup_pipeline.jobs.watch import WatchSettings, watch  # noqa: E402
from testing.collective import OTHER, execute, insert, write_table  # noqa: E402
from testing.mongo_commands import Commands  # noqa: E402

def measured(documents: Commands, call: Callable[[], Any]) -> tuple[Any, float, int]:
    """What the call returns, its seconds, and the documents the store returned meanwhile."""
    before, start = documents.documents, time.perf_counter()
    out = call()
    return out, time.perf_counter() - start, documents.documents - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20_000)
    args = parser.parse_args()
    documents = Commands()
    monitoring.register(documents)
    with tempfile.TemporaryDirectory(prefix="dedup-collective-") as scratch:
        db = write_table(Path(scratch) / "petitions.sqlite", args.copies)
        data = tomllib.loads(default_config_text())
        data["source"] = {**data["source"], "url": f"sqlite:///{db}"}
        data["store"] = {**data.get("store", {}), "data_dir": str(Path(scratch) / "dedup-data")}
        config = parse_config(data, env={})
        start = time.perf_counter()
        commands.migrate(config)
        commands.batch(config)
        batch_s = time.perf_counter() - start
        once = WatchSettings(once=True)
        found, check_s, read = measured(documents, lambda: commands.check(config, row_id=1, mode="all"))
        insert(db, args.copies + 1)
        _, watch_s, read_watch = measured(documents, lambda: watch(config, once, handle_signals=False))
        execute(db, "UPDATE petition SET content = ? WHERE id = 5", OTHER)
        execute(db, "DELETE FROM petition WHERE id = 6")
        _, change_s, read_change = measured(documents, lambda: watch(config, once, handle_signals=False))
        insert(db, args.copies + 2)
        _, add_s, read_add = measured(documents, lambda: commands.add(config, [args.copies + 2]))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"copies={args.copies} batch_s={batch_s:.2f} check_s={check_s:.2f} listed={len(found)} add_s={add_s:.2f} "
          f"watch_s={watch_s:.2f} change_s={change_s:.2f} docs_read_check={read} docs_read_add={read_add} "
          f"docs_read_watch={read_watch} docs_read_change={read_change} "
          f"peak_rss_mb={rss:.0f}")


if __name__ == "__main__":
    main()
