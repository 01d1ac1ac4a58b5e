"""The embedded MongoDB (SecantusDB) in a process of its own, as a real mongod runs: tests
kill it under a worker and start it again on the same port and data folder, and the
benchmarks keep its work out of the process they measure. It is the data folder's shared
server (store/shared.py), held by this process and never stopped for idling."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from dedup_pipeline.store import shared


class MongoProcess:
    """The server of one folder: `start()` serves it (on a free port the first time, the same
    port after); `kill()` simulates a crash; `stop()` ends it cleanly."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.handle: shared.ServerHandle | None = None

    @property
    def uri(self) -> str:
        return self.handle.uri

    @property
    def port(self) -> int:
        return self.handle.port

    @property
    def pid(self) -> int:
        return self.handle.pid

    def start(self) -> MongoProcess:
        if self.handle is None:
            self.handle = shared.attach(self.folder, idle_s=None)
        elif not self.handle.revive():
            raise RuntimeError(f"cannot serve {self.folder} on port {self.port} again")
        return self

    def kill(self) -> None:
        """End the server at once, as a crash would, and wait until it is gone."""
        os.kill(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{self.pid}").exists() and _state(self.pid) != "Z" and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        shared.stop(self.folder)
        if self.handle is not None:
            self.handle.close()

    def __enter__(self) -> MongoProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _state(pid: int) -> str:
    """A process's state letter; "X" once it is gone (reaped while its stat was read: ESRCH)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return "X"
