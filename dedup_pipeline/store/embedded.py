"""Embedded MongoDB: a SecantusDB server running in this process (`EmbeddedMongo`); shared.py
runs it in a process of its own that every command using its data folder shares.

SecantusDB (PyPI ``SecantusDB``, import name ``secantus``) is a MongoDB
wire-protocol server on WiredTiger. It is the default document store when no
``DEDUP_MONGO_URI`` is given, and the real server the integration tests talk to
through pymongo over TCP. It listens on loopback only and keeps its data in a
folder, so a later start on the same folder sees the same data.

    with EmbeddedMongo().start("dedup-data/mongo") as mongo:
        client = pymongo.MongoClient(mongo.uri)

The server runs standalone (no replica-set advertisement), like a plain
``mongod``. Known differences from MongoDB that callers must respect:

- ``{"_id": {"$in": ids}}`` costs time proportional to len(ids) squared
  (each document found is compared with every id, in Python); ``secantus_patches._patch_in``
  answers lists of integers and strings by a set instead, which makes it
  linear, but a find still pays about 0.5 ms: ask for about 100 at a time.
- ``$or`` is planned as a collection scan.
- Transactions are accepted although a standalone ``mongod`` rejects them:
  do not rely on them.
- Writes acknowledged in the last instant before a crash (SIGKILL) can be
  lost, as with ``mongod``'s default ``j: false``; ``stop()`` makes all
  writes durable.
- An index on a field of ``ELEMENT_KEYED`` holds its arrays' elements, not each
  whole array as well: a query that compares such a field with an array scans
  the collection (``secantus_patches._patch_lookups``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pymongo
from pymongo.errors import PyMongoError

from . import secantus_patches

OPEN_WAIT_S = 5.0  # a folder in use is waited for this long: the server of a process just killed is ending
CACHE_SIZE = "256M"  # WiredTiger's cache: what the server holds in memory, whatever the data size
# glibc's heaps in the server, shared by its threads: with one a thread, a batch at a million rows
# left it 490-590 MB at its peak, with two 360 MB
MALLOC_ARENAS = "2"
# A file smaller than this is not compacted: it gives back at most this much, and each pass
# costs 10 ms (a checkpoint of its own), of 23 files mostly tiny.
COMPACT_MIN_BYTES = 1 << 20
INSTALL_HINT = "pip install --pre secantusdb (or set DEDUP_MONGO_URI to use an existing MongoDB)"


class EmbeddedMongoError(RuntimeError):
    """The embedded MongoDB could not be started."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (another process may take it)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class EmbeddedMongo:
    """A SecantusDB server in a background thread; a context manager that stops it."""

    def __init__(self) -> None:
        self._server = None
        self._folder = Path()

    @property
    def host(self) -> str:
        return self._address()[0]

    @property
    def port(self) -> int:
        return self._address()[1]

    @property
    def uri(self) -> str:
        host, port = self._address()
        return f"mongodb://{f'[{host}]' if ':' in host else host}:{port}/"

    def start(self, data_dir: str | Path, host: str = "127.0.0.1", port: int = 0) -> EmbeddedMongo:
        """Serve the data in ``data_dir`` (created if missing) on ``host:port``.

        ``port=0`` lets the system pick a free port. Returns once the server
        answers a ``ping``.
        """
        if self._server is not None:
            raise EmbeddedMongoError(f"already running at {self.uri}")
        _check_loopback(host)
        server = _open_server(Path(data_dir), host, port)
        try:
            server.start()
        except OSError as exc:
            server.stop()
            raise EmbeddedMongoError(f"cannot listen on {host}:{port}: {exc}") from exc
        self._server, self._folder = server, Path(data_dir)
        try:
            _wait_for_ping(self.uri)
        except Exception:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop serving and close the data files cleanly. Safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return
        # stop() closes the listening socket, but on Linux close() does not
        # wake the thread blocked in accept(), so stop() would wait out a 2 s
        # join; shutdown() does wake it.
        with contextlib.suppress(OSError, AttributeError):
            server._socket.shutdown(socket.SHUT_RDWR)
        server.stop()

    def compact(self) -> bool:
        """Give the space of deleted documents back to the file system: WiredTiger keeps it
        in its files, and SecantusDB files each collection in one of 16 shared files, so a
        dropped generation's space waits there for a collection that may never come. Whether
        it was done (SecantusDB's internals, which this reaches into, may change)."""
        try:
            storage = self._server.storage
            storage.checkpoint()  # pages freed since the last checkpoint are not free yet
            session = storage._conn.open_session()
            try:
                for name in sorted(os.listdir(self._folder)):
                    if (name.startswith("secantus_") and name.endswith(".wt")
                            and os.path.getsize(self._folder / name) >= COMPACT_MIN_BYTES):
                        session.compact(f"table:{name[:-3]}", None)
            finally:
                session.close()
            storage.checkpoint()
        except Exception:  # noqa: BLE001 — a store that stays larger, never a failed batch
            return False
        return True

    def __enter__(self) -> EmbeddedMongo:
        if self._server is None:
            raise EmbeddedMongoError("call start(data_dir) before entering the context")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _address(self) -> tuple[str, int]:
        if self._server is None:
            raise EmbeddedMongoError("the embedded MongoDB is not running")
        return self._server.address


def _check_loopback(host: str) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise EmbeddedMongoError(
            "the embedded MongoDB listens on a loopback IP address only"
            f" (such as 127.0.0.1), not {host!r}"
        )


def _open_server(data_dir: Path, host: str, port: int):
    try:
        from secantus import SecantusDBServer
    except ImportError as exc:
        raise EmbeddedMongoError(f"SecantusDB is not installed: {INSTALL_HINT}") from exc
    try:
        secantus_patches.apply()
    except secantus_patches.VersionError as exc:
        raise EmbeddedMongoError(str(exc)) from None
    try:
        with _stderr_held():
            return SecantusDBServer(
                host,
                port,
                str(data_dir),
                replica_set_name=None,  # standalone, like a plain mongod; no oplog writes
                enable_test_commands=False,
                durable=True,  # ignore SECANTUS_TEST_FAST_STORAGE: data must survive a restart
                cache_size=CACHE_SIZE,
            )
    except Exception as exc:  # WiredTiger raises its own error type
        raise EmbeddedMongoError(
            f"cannot open the MongoDB data folder {data_dir}: {exc}"
            " (is another server using it?)"
        ) from exc


@contextlib.contextmanager
def _stderr_held() -> Iterator[None]:
    """What is written on stderr (fd 2: WiredTiger writes there itself) held back meanwhile:
    written out if the block succeeds, dropped if it fails, for then the caller's one-line
    error says it (a folder in use gave two [ERROR] lines before it)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to hold
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        held.seek(0)
        with open(2, "wb", closefd=False) as stderr:
            stderr.write(held.read())


def _wait_for_ping(uri: str, timeout_s: float = 10.0) -> None:
    timeout_ms = int(timeout_s * 1000)
    client = pymongo.MongoClient(
        uri, directConnection=True, serverSelectionTimeoutMS=timeout_ms, connectTimeoutMS=timeout_ms
    )
    try:
        client.admin.command("ping")
    except PyMongoError as exc:
        raise EmbeddedMongoError(f"the embedded MongoDB at {uri} does not answer: {exc}") from exc
    finally:
        client.close()
