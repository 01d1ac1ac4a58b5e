"""The embedded MongoDB (SecantusDB) in a process of its own, as a real mongod runs: tests
kill it under a worker and start it again on the same port and data folder, and the
benchmarks keep its work out of the process they measure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = """
import sys
from dedup_pipeline.store.embedded import EmbeddedMongo
with EmbeddedMongo().start(sys.argv[1], port=int(sys.argv[2])) as mongo:
    print(mongo.uri, flush=True)
    sys.stdin.read()
"""


class MongoProcess:
    """`start()` serves `folder` (on a free port the first time, the same port after);
    `stop()` shuts it down cleanly, `kill()` simulates a crash; a context manager."""

    def __init__(self, folder: str | Path):
        self.folder, self.port, self.uri, self.process = Path(folder), 0, "", None

    def start(self) -> MongoProcess:
        self.process = subprocess.Popen([sys.executable, "-c", SERVER, str(self.folder), str(self.port)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.uri = self.process.stdout.readline().strip()
        if not self.uri:
            raise RuntimeError(f"the MongoDB process for {self.folder} exited with {self.process.wait()}")
        self.port = int(self.uri.rstrip("/").rsplit(":", 1)[1])
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def __enter__(self) -> MongoProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
