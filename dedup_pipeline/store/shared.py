"""One embedded server per data folder, shared by every process that uses it, as a MongoDB
server is: `watch`, `serve`, the nightly `batch`, `check` and `report` run at once.

The first process that needs the folder starts its server, detached (a session of its own,
so that it outlives a short command), and the others find it through `server.json` in the
folder. Starting, finding and stopping take `server.lock` (flock), so that two processes
never start two servers, and a server never stops while one is being found. Each process
using the server holds a *control* connection to it (`ServerHandle`): the server counts
them, stops once none has been open for its idle time (`[store] idle_s`; never for
`store serve`, the server as a service of its own), and compacts its files when a handle
asks. A process that ends, however it ends, closes its connection.

    with attach("dedup-data/mongo", idle_s=60) as server:
        client = pymongo.MongoClient(server.uri)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .embedded import MALLOC_ARENAS, OPEN_WAIT_S, EmbeddedMongo, EmbeddedMongoError

ADDRESS, LOCK, LOG = "server.json", "server.lock", "server.log"  # in the data folder
GREETING = "dedup-pipeline store"  # the first words a server says on a control connection
GREET_WAIT_S = 10.0  # a server greets a new handle within this (its loop never waits on its work)
TICK_S = 0.25  # how often a server looks at its signals and its idle time
PANIC = "WT_PANIC"  # WiredTiger's word for a failure it cannot go on after (a write to a full disk)
EXIT_PANIC = 70  # the exit status of a server that WiredTiger's panic ended (EX_SOFTWARE)
# A data folder's disk with less free than this is full for the server: WiredTiger's log grows
# by writes of up to a megabyte, and its files by checkpoints of many.
LOW_DISK_BYTES = 64 << 20


class StoreServerError(EmbeddedMongoError):
    """The data folder's server cannot be started, found or reached."""


@dataclass
class ServerHandle:
    """This process's use of a data folder's server: its address, and the control connection
    that keeps it running while open."""

    folder: Path
    uri: str
    port: int
    pid: int
    idle_s: float | None
    _control: socket.socket | None = None

    def compact(self) -> bool:
        """Ask the server to give the space of deleted documents back (EmbeddedMongo.compact);
        False when it did not or is gone: a store that stays larger, never a failed batch."""
        try:
            return _ask(self._control, "compact") == "True"
        except (OSError, AttributeError):
            return False

    def revive(self) -> bool:
        """Whether the server answers again, started anew on its port if it had ended (killed,
        as the out-of-memory killer would): the clients of this process, which know that port,
        reconnect by themselves. False when its port is taken by another."""
        with _locked(self.folder):
            found = _find(self.folder)
            if found is None:
                with contextlib.suppress(StoreServerError):
                    found = _start(self.folder, port=self.port, idle_s=self.idle_s)
            if found is None or found.port != self.port:
                if found is not None:
                    found.close()
                return False
        self.close()
        self._control, self.pid = found._control, found.pid
        return True

    def close(self) -> None:
        """Let go: the server may stop once no process holds it for its idle time."""
        control, self._control = self._control, None
        if control is not None:
            control.close()

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def attach(folder: str | Path, *, idle_s: float | None) -> ServerHandle:
    """A handle on the server of `folder` (created if missing), started here if none runs;
    it stops `idle_s` seconds after the last handle closes."""
    folder = Path(folder).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        return _find(folder) or _start(folder, port=0, idle_s=idle_s)


def running(folder: str | Path) -> dict | None:
    """What `server.json` says of the folder's server (uri, port, pid, idle_s), if one answers."""
    found = _answering(Path(folder))
    if found is None:
        return None
    found.close()
    return _address(Path(folder))


def stop(folder: str | Path) -> bool:
    """Ask the folder's server to stop, and wait until it has closed its files; whether one ran.
    The processes still using it fail, or, the long-running ones, start it again."""
    found = _answering(Path(folder))
    if found is None:
        return False
    with found, contextlib.suppress(OSError):
        found._control.sendall(b"stop\n")
        while found._control.recv(256):
            pass  # its handles are closed once its files are
    return True


def _answering(folder: Path) -> ServerHandle | None:
    """A handle on the folder's server if one answers; no lock taken where none ever ran."""
    if not (folder / ADDRESS).exists():
        return None
    with _locked(folder):
        return _find(folder)


def serve(folder: str | Path, *, port: int = 0, idle_s: float | None = None,
          announce=lambda uri: print(uri, flush=True), started: bool = False) -> None:
    """Run the folder's server in this process until SIGTERM or SIGINT, a `stop`, or (with
    `idle_s`) that long without a handle; `announce` is told its URI once it answers.
    `started`: by `_start`, which holds the lock meanwhile."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.nullcontext() if started else _locked(folder):
        found = _find(folder)
        if found is not None:
            found.close()
            raise StoreServerError(f"the store in {folder} is already served, by process {found.pid} at {found.uri}")
        mongo = _open(folder, port)
        control = socket.create_server(("127.0.0.1", 0))
        _write_address(folder, {"uri": mongo.uri, "port": mongo.port, "control": control.getsockname()[1],
                                "pid": os.getpid(), "idle_s": idle_s})
    if not started:
        _tell_systemd("READY=1")
    logging.getLogger("secantus").addHandler(_EndOnPanic())
    announce(mongo.uri)
    loop = _Loop(folder, mongo, control, idle_s)
    try:
        loop.run()
    finally:
        loop.end()


def main(argv: list[str]) -> None:
    """The detached server `_start` runs: `<folder> <port> <idle_s>`; its first line on stdout
    is its URI, or why it could not start."""
    folder, port, idle_s = Path(argv[0]), int(argv[1]), float(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the command that started it

    def announce(uri: str) -> None:
        print(uri, flush=True)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # nobody reads further: the starter has gone on
        os.close(devnull)

    try:
        serve(folder, port=port, idle_s=idle_s, announce=announce, started=True)
    except EmbeddedMongoError as e:
        print(e, flush=True)
        sys.exit(1)
    os._exit(0)  # closed cleanly; the interpreter's own exit would wait on the server's threads


class _EndOnPanic(logging.StreamHandler):
    """SecantusDB's log on stderr (`server.log`), as Python's last resort wrote it, and the
    process ended at a command that failed because WiredTiger panicked or its disk is full,
    as mongod's fassert ends it: after a panic WiredTiger answers nothing (and a failed write
    to a full disk is followed by one), and the next start recovers the files from the
    journal (the next command, a service manager, a worker's `revive`)."""

    def emit(self, record: logging.LogRecord) -> None:
        super().emit(record)
        failed = record.exc_info[1] if record.exc_info else None
        if failed is not None and (PANIC in str(failed) or getattr(failed, "errno", None) == errno.ENOSPC):
            with contextlib.suppress(OSError):
                os.write(2, f"dedup-pipeline store: {failed}; the server ends, and the next command that needs "
                            f"it starts it again\n".encode())
            os._exit(EXIT_PANIC)


def low_disk(folder: str | Path) -> int | None:
    """The bytes free on the disk of `folder` when fewer than LOW_DISK_BYTES, else None."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    return free if free < LOW_DISK_BYTES else None


class _Loop:
    """The server's control loop: handles come and go, ask to compact or stop; the server
    stops when told, signalled, or idle."""

    def __init__(self, folder: Path, mongo: EmbeddedMongo, control: socket.socket, idle_s: float | None):
        self.folder, self.mongo, self.control, self.idle_s = folder, mongo, control, idle_s
        self.selector = selectors.DefaultSelector()
        self.selector.register(control, selectors.EVENT_READ)
        self.handles: set[socket.socket] = set()
        self.idle_since = time.monotonic()
        self.stopping = False
        self._lock = None
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(signum) is not signal.SIG_IGN and threading.current_thread() is threading.main_thread():
                signal.signal(signum, self._stop)

    def run(self) -> None:
        """Serve until stopping, or idle for good (then holding the lock)."""
        while True:
            self._serve_once()
            if self.stopping or self._idle_for_good():
                break

    def end(self) -> None:
        """No new handle, no address, the files closed, then the handles: a process waiting
        for its handle to close (`stop`) finds the folder free. Another starting meanwhile
        waits for the folder (embedded.OPEN_WAIT_S); its address comes after ours went."""
        self.control.close()
        if (_address(self.folder) or {}).get("pid") == os.getpid():
            (self.folder / ADDRESS).unlink(missing_ok=True)
        try:
            self.mongo.stop()
        finally:
            for handle in self.handles:
                handle.close()
            if self._lock is not None:
                self._lock.close()

    def _serve_once(self) -> None:
        for key, _ in self.selector.select(TICK_S):
            if key.fileobj is self.control:
                self._accept()
            else:
                self._answer(key.fileobj)

    def _accept(self) -> None:
        with contextlib.suppress(BlockingIOError, InterruptedError):
            handle, _ = self.control.accept()
            handle.sendall(f"{GREETING} {os.getpid()} {self.mongo.uri}\n".encode())
            self.handles.add(handle)
            self.selector.register(handle, selectors.EVENT_READ)

    def _answer(self, handle: socket.socket) -> None:
        try:
            asked = handle.recv(64).decode(errors="replace").strip()
        except OSError:
            asked = ""
        if not asked:  # the handle closed, or its process ended
            self.selector.unregister(handle)
            self.handles.discard(handle)
            handle.close()
            if not self.handles:
                self.idle_since = time.monotonic()
        elif asked == "compact":  # on a thread: the loop goes on greeting and counting handles
            threading.Thread(target=self._compact, args=(handle,), daemon=True).start()
        elif asked == "stop":
            self.stopping = True
            with contextlib.suppress(OSError):
                handle.sendall(b"stopping\n")

    def _compact(self, handle: socket.socket) -> None:
        with contextlib.suppress(OSError):
            handle.sendall(f"{self.mongo.compact()}\n".encode())

    def _idle_for_good(self) -> bool:
        """Idle long enough, checked under the lock with every waiting connection accepted:
        a process finding the server meanwhile holds the lock, or is a handle by now."""
        if self.idle_s is None or self.handles or time.monotonic() - self.idle_since < self.idle_s:
            return False
        self._lock = _try_lock(self.folder)
        if self._lock is None:
            return False
        self.control.setblocking(False)
        for _ in range(64):
            self._accept()
        if not self.handles:
            return True
        self._lock.close()
        self._lock = None
        return False

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True


def _find(folder: Path) -> ServerHandle | None:
    """A handle on the server `server.json` names, if it answers as that folder's server."""
    address = _address(folder)
    if address is None:
        return None
    try:
        control = socket.create_connection(("127.0.0.1", address["control"]), timeout=GREET_WAIT_S)
        greeting = _line(control)
        control.settimeout(None)  # a compaction takes what it takes
    except (OSError, KeyError, TypeError):
        return None
    if greeting.split(" ")[:2] != GREETING.split(" ") or not greeting.endswith(address.get("uri", "?")):
        control.close()
        return None  # another program took the port of a server that ended
    return ServerHandle(folder, address["uri"], address["port"], address["pid"], address.get("idle_s"), control)


def _start(folder: Path, *, port: int, idle_s: float | None) -> ServerHandle:
    """Start the folder's server, detached, and hold it; called under the lock."""
    (folder / ADDRESS).unlink(missing_ok=True)
    here = str(Path(__file__).resolve().parents[2])  # the server runs this very package, installed or not
    path = os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])
    with open(folder / LOG, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(folder), str(port), "inf" if idle_s is None else str(idle_s)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True,
            env={"MALLOC_ARENA_MAX": MALLOC_ARENAS, **os.environ, "PYTHONPATH": path})
    said = process.stdout.readline().strip()
    process.stdout.close()
    threading.Thread(target=process.wait, daemon=True).start()  # reaped whenever it ends
    if not said.startswith("mongodb://"):
        process.wait()
        raise StoreServerError(said or f"the store's server ended as it started; see {folder / LOG}")
    found = _find(folder)
    if found is None:
        raise StoreServerError(f"the store's server at {said} does not answer; see {folder / LOG}")
    return found


def _open(folder: Path, port: int) -> EmbeddedMongo:
    """The server of the folder, waiting a moment for one killed just before to let go of it."""
    deadline = time.monotonic() + OPEN_WAIT_S
    while True:
        try:
            return EmbeddedMongo().start(folder, port=port)
        except EmbeddedMongoError as exc:
            if "busy" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _tell_systemd(state: str) -> None:
    """sd_notify(3): tell the service manager that started this process (a unit of
    Type=notify) how it is; nothing where none listens (no NOTIFY_SOCKET)."""
    where = os.environ.get("NOTIFY_SOCKET", "")
    if not where:
        return
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
        notify.connect("\0" + where[1:] if where.startswith("@") else where)
        notify.sendall(state.encode())


def _ask(control: socket.socket | None, what: str) -> str:
    control.sendall(f"{what}\n".encode())
    return _line(control)


def _line(control: socket.socket) -> str:
    """One line the server says (its answers are short), '' if it closed."""
    said = b""
    while not said.endswith(b"\n"):
        part = control.recv(256)
        if not part:
            break
        said += part
    return said.decode(errors="replace").strip()


def _address(folder: Path) -> dict | None:
    try:
        return json.loads((folder / ADDRESS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_address(folder: Path, address: dict) -> None:
    written = folder / f".{ADDRESS}.{os.getpid()}"
    written.write_text(json.dumps(address), encoding="utf-8")
    os.replace(written, folder / ADDRESS)


def _lock_file(folder: Path):
    return open(folder / LOCK, "a+b")


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    with _lock_file(folder) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _try_lock(folder: Path):
    """The lock file, locked, if no one else holds it; else None."""
    lock = _lock_file(folder)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        return None
    return lock


if __name__ == "__main__":
    main(sys.argv[1:])
