"""A real MariaDB server for the tests and the benchmarks: Debian's `mariadb-server`, in a
temporary folder.

Each test session initialises a fresh data folder, starts `mariadbd` on a free loopback
port with its socket, pid file and log beside the data, and stops it at the end. Nothing
is shared with a system MariaDB (`--no-defaults` ignores /etc/mysql). `restart()` keeps
the folder and the port, so a test can take the server away under a client and bring it
back; `stop(kill=True)` simulates a crash.

`.ci/run` installs the package when it is missing; without it the tests fail (never skip)
with the command to run.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pymysql

from dedup_pipeline.store.embedded import free_port

INSTALL_HINT = "apt-get install -y mariadb-server (.ci/run does this)"
SBIN = "/usr/sbin:/usr/local/sbin"
START_TIMEOUT_S = 30.0


class MariaDBError(RuntimeError):
    """The test MariaDB could not be set up or started."""


class MariaDB:
    """One `mariadbd` process serving a data folder under `base` on 127.0.0.1:`port`."""

    host = "127.0.0.1"

    def __init__(self, base: str | Path, port: int | None = None, binlog: bool = False):
        self.base = Path(base)
        self.datadir = self.base / "data"
        self.port = port or free_port(self.host)
        self.binlog = binlog  # row-based binary logging, as `watch --from binlog` needs
        self.process: subprocess.Popen | None = None

    def url(self, database: str = "") -> str:
        """The SQLAlchemy URL of `database` on this server, as root without a password."""
        return f"mysql+pymysql://root@{self.host}:{self.port}/{database}?charset=utf8mb4"

    def start(self) -> MariaDB:
        """Initialise the data folder if it is new, start the server, wait until it answers."""
        if not self.datadir.exists():
            self._install_db()
        log = self.base / "mariadbd.log"
        self.process = subprocess.Popen(self._server_command(log), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                        preexec_fn=_die_with_parent)
        try:
            self._wait_until_ready(log)
        except Exception:
            self.stop(kill=True)
            raise
        return self

    def stop(self, kill: bool = False) -> None:
        """A clean shutdown (SIGTERM), or a crash with `kill=True`. Safe to call twice."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def restart(self, kill: bool = False) -> None:
        """Stop and start again on the same data folder and port."""
        self.stop(kill=kill)
        self.start()

    def execute(self, sql: str, database: str | None = None) -> None:
        """Run one administrative statement as root (e.g. CREATE DATABASE)."""
        with self._connect(database) as conn, conn.cursor() as cur:
            cur.execute(sql)

    def __enter__(self) -> MariaDB:
        return self.start() if self.process is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _install_db(self) -> None:
        command = [_binary("mariadb-install-db", "mysql_install_db"), "--no-defaults",
                   f"--datadir={self.datadir}", "--auth-root-authentication-method=normal",
                   "--skip-test-db", "--skip-name-resolve", *_as_user()]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(self.datadir, ignore_errors=True)
            raise MariaDBError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")

    def _tmpdir(self) -> Path:
        """The server's own temporary folder (made: the server runs as this user)."""
        folder = self.base / "tmp"
        folder.mkdir(exist_ok=True)
        return folder

    def _server_command(self, log: Path) -> list[str]:
        return [
            _binary("mariadbd", "mysqld"), "--no-defaults", f"--datadir={self.datadir}",
            f"--port={self.port}", f"--bind-address={self.host}", f"--socket={self.base / 'sock'}",
            f"--pid-file={self.base / 'mariadbd.pid'}", f"--log-error={log}", *_as_user(),
            # A temporary folder of its own: a server starting removes every #sql* file in its
            # tmpdir, the temporary tables of another server sharing /tmp among them.
            f"--tmpdir={self._tmpdir()}",
            "--skip-name-resolve", "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_unicode_ci",
            # Small and quick: a test server, not a production one. Commits reach the OS at
            # once (they survive a killed server), the disk once a second.
            "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
            "--innodb-flush-log-at-trx-commit=2",
            *(self._binlog_options() if self.binlog else ["--skip-log-bin"]),
        ]

    def _binlog_options(self) -> list[str]:
        """Row-based binary logging, as a production server followed by `watch --from binlog`
        has it; its files beside the data folder (`binlog.000001`...)."""
        return [f"--log-bin={self.base / 'binlog'}", "--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=1"]

    def _wait_until_ready(self, log: Path) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise MariaDBError(f"mariadbd exited with {self.process.returncode}:\n{_tail(log)}")
            try:
                self._connect().close()
                return
            except pymysql.err.OperationalError:
                if time.monotonic() > deadline:
                    raise MariaDBError(f"mariadbd does not answer on port {self.port}:\n{_tail(log)}")
                time.sleep(0.05)

    def _connect(self, database: str | None = None) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user="root", database=database,
                               connect_timeout=2, autocommit=True, charset="utf8mb4")


def _binary(*names: str) -> str:
    path = f"{os.environ.get('PATH', '')}:{SBIN}"
    for name in names:
        found = shutil.which(name, path=path)
        if found:
            return found
    raise MariaDBError(f"{names[0]} not found: {INSTALL_HINT}")


def _as_user() -> list[str]:
    # mariadbd refuses to run as root unless told to; as another user it runs as that user.
    return ["--user=root"] if os.geteuid() == 0 else []


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the test process dies, so no server is left behind."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
