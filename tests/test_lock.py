"""The batch lease: one batch at a time, and a dead holder never blocks the next."""

import datetime as dt
import threading
import time

import pymongo
import pytest
from pymongo.errors import AutoReconnect

from dedup_pipeline.errors import StoreError
from dedup_pipeline.store.lock import Lease, LockHeld


def test_a_second_holder_is_refused_while_the_first_holds_the_lock(mongo_db):
    with Lease(mongo_db.locks, "batch"):
        with pytest.raises(LockHeld, match="another batch is running"):
            with Lease(mongo_db.locks, "batch"):
                pass


def test_the_lock_is_free_again_after_its_holder_finishes(mongo_db):
    with Lease(mongo_db.locks, "batch"):
        pass
    with Lease(mongo_db.locks, "batch"):
        assert mongo_db.locks.count_documents({}) == 1


def test_an_expired_lock_of_a_dead_holder_is_taken_over(mongo_db):
    past = dt.datetime(2020, 1, 1)
    mongo_db.locks.insert_one({"_id": "batch", "holder": "dead:1", "since": past, "expires_at": past})
    with Lease(mongo_db.locks, "batch") as lease:
        assert mongo_db.locks.find_one({"_id": "batch"})["holder"] == lease.holder


def test_the_holder_renews_the_lock_while_it_runs(mongo_db):
    with Lease(mongo_db.locks, "batch", ttl=0.6):
        first = mongo_db.locks.find_one({"_id": "batch"})["expires_at"]
        time.sleep(1.3)
        assert mongo_db.locks.find_one({"_id": "batch"})["expires_at"] > first


def test_a_lock_left_by_a_killed_process_on_this_machine_is_taken_at_once(mongo_db):
    import socket
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    until = dt.datetime(2030, 1, 1)
    mongo_db.locks.insert_one({"_id": "batch", "holder": f"{socket.gethostname()}:{gone}",
                               "since": until, "expires_at": until})
    with Lease(mongo_db.locks, "batch") as lease:
        assert mongo_db.locks.find_one({"_id": "batch"})["holder"] == lease.holder


def test_an_unreachable_mongodb_is_a_store_error_not_a_pymongo_traceback():
    client = pymongo.MongoClient("mongodb://127.0.0.1:1", serverSelectionTimeoutMS=200)
    with pytest.raises(StoreError) as refused:
        with Lease(client.dedup.locks, "batch"):
            pass
    assert "MongoDB at database dedup" in str(refused.value) and "the batch did not start" in str(refused.value)
    client.close()


def test_a_failed_renewal_is_tried_again_without_a_traceback_from_its_thread(mongo_db, monkeypatch):
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    lease = Lease(mongo_db.locks, "batch", ttl=0.15)
    with lease:
        monkeypatch.setattr(lease.locks, "update_one", _unreachable, raising=False)
        time.sleep(0.2)
        monkeypatch.undo()
    assert failures == [] and mongo_db.locks.find_one({"_id": "batch"}) is None


def _unreachable(*args, **kwargs):
    raise AutoReconnect("connection closed")
