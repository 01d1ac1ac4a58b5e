"""A lease in MongoDB so that two scheduled batches never run at once. It expires when its
holder stops renewing it (killed, machine lost), so a dead run never blocks the next one;
a holder on this machine whose process is gone is replaced at once. A MongoDB that fails
is a StoreError (mongo.py); a renewal that fails is tried again at the next one."""

from __future__ import annotations

import datetime as dt
import os
import socket
import threading

from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, PyMongoError

from . import mongo
from ..errors import DedupError


class LockHeld(DedupError, RuntimeError):
    """Another live process holds the lock."""


class Lease:
    """`with Lease(db.locks, "batch"):` holds the lock, renewing it every ttl/3 seconds; its
    document's `key` is its name unless given (the batch of one table: "batch:<table>")."""

    def __init__(self, locks: Collection, name: str, ttl: float = 120.0, key: str = ""):
        self.locks, self.name, self.ttl, self.key = locks, name, ttl, key or name
        self.holder = f"{socket.gethostname()}:{os.getpid()}"
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def __enter__(self) -> "Lease":
        with mongo.errors(f"database {self.locks.database.name}", f"the {self.name} did not start; {mongo.AGAIN}"):
            self._take()
        self._renewer = threading.Thread(target=self._renew, daemon=True, name=f"lease-{self.name}")
        self._renewer.start()
        return self

    def _take(self) -> None:
        now = _now()
        try:
            # Matches only when free or expired; otherwise the upsert collides on _id.
            self.locks.find_one_and_update(
                {"_id": self.key, "expires_at": {"$lt": now}},
                {"$set": {"holder": self.holder, "since": now, "expires_at": self._expiry()}},
                upsert=True)
        except DuplicateKeyError:
            held = self.locks.find_one({"_id": self.key})
            if held is None:  # released in between: try again
                return self._take()
            if self._dead_here(held["holder"]):  # killed on this machine: no need to wait
                self.locks.delete_one({"_id": self.key, "holder": held["holder"]})
                return self._take()
            raise LockHeld(
                f"another {self.name} is running ({held['holder']}, "
                f"since {held['since']:%Y-%m-%d %H:%M:%S} UTC); "
                f"it holds the lock until {held['expires_at']:%H:%M:%S} UTC unless "
                f"it renews it. Wait for it to finish, or stop it: a killed run frees the lock "
                f"within {self.ttl:.0f} s") from None

    @staticmethod
    def _dead_here(holder: str) -> bool:
        host, _, pid = holder.rpartition(":")
        if host != socket.gethostname() or not pid.isdigit():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                self.locks.update_one({"_id": self.key, "holder": self.holder},
                                      {"$set": {"expires_at": self._expiry()}})
            except PyMongoError:
                pass  # MongoDB away for a moment: the lease lasts ttl, renewed at the next try

    def __exit__(self, kind: type | None, *exc: object) -> None:
        self._stop.set()
        if self._renewer:
            self._renewer.join()
        try:
            with mongo.errors(f"database {self.locks.database.name}",
                              f"the {self.name} lock expires within {self.ttl:.0f} s by itself"):
                self.locks.delete_one({"_id": self.key, "holder": self.holder})
        except DedupError:
            if kind is None:  # else the error that ended the holder's work is the one to report
                raise

    def _expiry(self) -> dt.datetime:
        return _now() + dt.timedelta(seconds=self.ttl)


def _now() -> dt.datetime:
    # BSON dates have millisecond precision and no time zone: naive UTC, in milliseconds.
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)
