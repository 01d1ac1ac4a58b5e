"""What `dedup-pipeline status` says of the store: the live batch (when it went live, its
rows, pairs and groups, how long it took), a batch building now, the format of the store's
documents, and its size.

The size of a MongoDB server's database is its `dbStats`. SecantusDB answers `dbStats` too,
but by reading every document under the lock every client waits for: the embedded store's
size is that of its data folder instead, and that of a SecantusDB reached by URI is not
measured. pymongo stays in store/: callers get a `StoreHealth`, or a StoreError.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import mongo, results
from ..config import Config
from .index import FORMAT, VERSION, MongoStore, open_store

EMBEDDED, SERVER, MEMORY = "embedded", "mongodb", "memory"  # StoreHealth.kind


@dataclass(frozen=True)
class LiveBatch:
    """The batch whose results are live, and the rows it left out (their values not readable
    as text): how many, and the first of them as (row, column, why)."""

    run: str
    live_since: dt.datetime  # when it went live, UTC (naive, as MongoDB gives it)
    rows: int
    pairs: int
    groups: int
    seconds: float | None  # from its start to going live; None when its start is not recorded
    left_out: int = 0
    left_out_first: tuple = ()


@dataclass(frozen=True)
class StoreHealth:
    """The store: where it is, the format of its documents (`supported`: the newest this
    dedup-pipeline reads), its size in bytes and how it was measured (or why not), the live
    batch (None before the first), and since when a batch is building (None: none is)."""

    where: str
    kind: str  # EMBEDDED, SERVER or MEMORY
    format: int | None
    size: int | None
    measured: str
    live: LiveBatch | None
    building_since: dt.datetime | None
    supported: int = VERSION


def health(config: Config) -> StoreHealth:
    """The configured store's health, read through `open_store` (the embedded server found or
    started, as every command does); a StoreError when it cannot be reached."""
    with open_store(config) as store:
        if not isinstance(store, MongoStore):
            live = store.current_run()
            return StoreHealth(store.where, MEMORY, None, None,
                               "this process's memory: nothing is kept between commands", _live(live or {}), None)
        with mongo.errors(store.where):
            found = results.batches(store.db, store.table)
            stored = (store.db[FORMAT].find_one({"_id": FORMAT}) or {}).get("version")
            if config.store.mongo_uri:
                size, measured = _server_size(store.db)
            else:
                folder = Path(config.store.data_dir) / "mongo"
                size, measured = folder_size(folder), f"data folder {folder}"
        return StoreHealth(store.where, SERVER if config.store.mongo_uri else EMBEDDED, stored, size, measured,
                           _live(found), found.get("building_since") if found.get("building") else None)


def _live(pointer: dict[str, Any]) -> LiveBatch | None:
    if not pointer.get("run"):
        return None
    summary = pointer.get("summary") or {}
    went, started = pointer.get("finished_at"), pointer.get("started_at")
    seconds = (went - started).total_seconds() if went and started else None
    return LiveBatch(pointer["run"], went, summary.get("rows", 0), summary.get("pairs", 0),
                     summary.get("groups", 0), seconds, summary.get("left_out", 0),
                     tuple(tuple(row) for row in summary.get("left_out_first", ())))


def _server_size(db: Any) -> tuple[int | None, str]:
    """The database's size by dbStats (its files and indexes), unless the server is a
    SecantusDB, whose dbStats reads every document holding every client up."""
    if "secantusVersion" in db.client.admin.command("buildInfo"):
        return None, "not measured: a SecantusDB server reads every document to answer dbStats"
    stats = db.command("dbStats")
    total = stats.get("totalSize")
    if total is None:
        total = stats.get("storageSize", 0) + stats.get("indexSize", 0)
    return int(total), "dbStats"


def folder_size(folder: Path) -> int:
    """The bytes of every file under `folder` (0 when there is none)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:  # a file the server removed meanwhile
                pass
    return total
