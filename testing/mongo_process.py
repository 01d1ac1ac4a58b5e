"""The embedded MongoDB (SecantusDB) in a process of its own, as a real mongod runs: tests
kill it under a worker and start it again on the same port and data folder, and the
benchmarks keep its work out of the process they measure."""

from __future__ import annotations

from pathlib import Path

from dedup_pipeline.store.embedded import EmbeddedProcess


class MongoProcess(EmbeddedProcess):
    """An EmbeddedProcess of one folder: `start()` serves it (on a free port the first time,
    the same port after); `kill()` simulates a crash."""

    def __init__(self, folder: str | Path):
        super().__init__()
        self.folder = Path(folder)

    def start(self) -> MongoProcess:  # type: ignore[override]
        super().start(self.folder, self.port)
        return self
