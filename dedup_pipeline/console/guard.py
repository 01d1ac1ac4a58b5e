"""Who gets into the console and what each request must carry.

- The session cookie is signed with a secret key kept in a file of its own under the data
  folder (mode 0600, made once), or given by DEDUP_CONSOLE_SECRET: sessions survive a
  restart, and no key is ever in the configuration.
- Every POST carries the session's CSRF token (a form field or the X-CSRF-Token header),
  compared in constant time.
- Failed logins are counted per name and per client address; LIMIT of them in WINDOW
  seconds refuse both with 429 until the oldest falls out of the window.
- Every answer carries a strict Content-Security-Policy (the console's own script and
  style files only, nothing inline), X-Frame-Options DENY and Referrer-Policy no-referrer.
"""

from __future__ import annotations

import collections
import hmac
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

ENV_SECRET = "DEDUP_CONSOLE_SECRET"
SECRET_FILE = "console-secret"
CSRF_FIELD, CSRF_HEADER = "csrf_token", "X-CSRF-Token"
LIMIT, WINDOW = 5, 15 * 60  # failed logins per name and per address, in seconds

HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",  # pages hold names, phones and addresses: no copy on disk
}


def secret_key(data_dir: str | os.PathLike, env: dict[str, str] | None = None) -> bytes:
    """DEDUP_CONSOLE_SECRET if set, else the key in `<data_dir>/console-secret`, made once
    (32 random bytes, hex) readable by its owner only."""
    env = os.environ if env is None else env
    if env.get(ENV_SECRET):
        return env[ENV_SECRET].encode("utf-8")
    path = Path(data_dir) / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    return path.read_bytes().strip()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same_token(given: str | None, expected: str | None) -> bool:
    """Whether a request's CSRF token is the session's, in constant time."""
    if not given or not expected:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class LoginLimit:
    """Failed logins per key (a name, an address) in a sliding window; thread-safe."""

    def __init__(self, limit: int = LIMIT, window: float = WINDOW, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self._lock = threading.Lock()

    def blocked(self, keys: Iterable[str]) -> bool:
        with self._lock:
            return any(len(self._recent(key)) >= self.limit for key in keys)

    def failed(self, keys: Iterable[str]) -> None:
        with self._lock:
            for key in keys:
                self._recent(key).append(self.clock())

    def forget(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def _recent(self, key: str) -> collections.deque:
        times = self._failures[key]
        while times and self.clock() - times[0] >= self.window:
            times.popleft()
        return times
