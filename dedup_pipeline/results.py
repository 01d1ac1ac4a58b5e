"""Batch results in MongoDB: the pairs (`matches`) and groups (`groups`) of the last
complete run, stamped with when and with which configuration they were computed.

A run writes its collections aside (`<name>__<run>`) and publishes them by renaming, so
readers keep the previous results until the new ones are whole. Publishing is recorded in
`runs` first: if the process dies half-way, the next run rolls the renames forward.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any, Iterable, Sequence

import numpy as np
from pymongo import WriteConcern
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import OperationFailure

RESULTS = ("matches", "groups")
_BATCH = 10_000


def new_run(db: Database, settings: dict[str, Any]) -> str:
    """Start a run: clear what dead runs left, record this one, return its id."""
    finish_publishing(db)
    for stale in db.runs.find({"state": "building"}):
        drop_staged(db, stale["_id"])
    db.runs.delete_many({"state": "building"})
    run = f"{_now():%Y%m%dT%H%M%S%f}-{os.getpid()}"
    db.runs.insert_one({"_id": run, "state": "building", "started_at": _now(), "settings": settings})
    return run


def staged(name: str, run: str) -> str:
    return f"{name}__{run}"


def write_matches(db: Database, run: str, ids: Sequence, i: np.ndarray, j: np.ndarray, d: np.ndarray) -> None:
    """Every pair once, as row ids: {a, b, distance} with a's row before b's."""
    target = db[staged("matches", run)]
    for start in range(0, len(i), _BATCH):
        part = slice(start, start + _BATCH)
        target.insert_many([{"a": ids[x], "b": ids[y], "distance": int(z)}
                            for x, y, z in zip(i[part].tolist(), j[part].tolist(), d[part].tolist())],
                           ordered=False)


def write_groups(db: Database, run: str, groups: Iterable[list]) -> None:
    """Groups of two or more rows, numbered from 1, largest first."""
    target = db[staged("groups", run)]
    batch = []
    for number, rows in enumerate(groups, 1):
        batch.append({"_id": number, "rows": rows, "size": len(rows)})
        if len(batch) == _BATCH:
            target.insert_many(batch)
            batch = []
    if batch:
        target.insert_many(batch)


def publish(db: Database, run: str, names: Sequence[str], summary: dict[str, Any]) -> None:
    """Make the run's staged collections the live ones, then mark it done."""
    # Staged writes made durable first, then the marker: a crash after the marker can only
    # roll forward to whole results.
    _sync(db)
    _journaled(db).update_one({"_id": run}, {"$set": {"state": "publishing", "names": list(names),
                                                      "summary": summary, "finished_at": _now()}})
    finish_publishing(db)


def finish_publishing(db: Database) -> None:
    """Roll forward any run that was recorded as publishing: rename what is still staged."""
    for run in db.runs.find({"state": "publishing"}):
        existing = set(db.list_collection_names())
        for name in run["names"]:
            source = staged(name, run["_id"])
            if source in existing:
                db[source].rename(name, dropTarget=True)
        _sync(db)
        _journaled(db).update_one({"_id": run["_id"]}, {"$set": {"state": "done"}})
        db.runs.delete_many({"state": "done", "_id": {"$ne": run["_id"]}})


def drop_staged(db: Database, run: str) -> None:
    for name in db.list_collection_names():
        if name.endswith(f"__{run}"):
            db.drop_collection(name)


def current_run(db: Database) -> dict[str, Any] | None:
    """The run whose results are live, or None before the first complete batch."""
    return db.runs.find_one({"state": "done"})


def _sync(db: Database) -> None:
    """Flush every write to disk. A MongoDB replica set journals them anyway and may refuse
    fsync to a non-admin user; the embedded SecantusDB needs it (it journals less)."""
    try:
        db.client.admin.command("fsync")
    except OperationFailure:
        pass


def _journaled(db: Database) -> Collection:
    return db.runs.with_options(write_concern=WriteConcern(w=1, j=True))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
