"""Who gets into the console and what each request must carry.

- The session cookie is signed with a secret key kept in a file of its own under the data
  folder (mode 0600, made once), or given by DEDUP_CONSOLE_SECRET: sessions survive a
  restart, and no key is ever in the configuration.
- Every POST carries the session's CSRF token (a form field or the X-CSRF-Token header),
  compared in constant time.
- Failed logins are kept in the database (the desk's `login_*` calls, sql/access.py), so
  that the limit survives a restart. A name that failed LIMIT times cools down, for that
  name only: a minute, doubled at each further failure, at most COOL_DOWN_MAX (a success
  forgets its failures; a day forgets them too). An address is refused only past
  ADDRESS_LIMIT failures in WINDOW seconds, high enough for an office behind one proxy:
  it slows spraying many names from one address, never a colleague's right password.
- Every answer carries a strict Content-Security-Policy (the console's own script and
  style files only, nothing inline), X-Frame-Options DENY and Referrer-Policy no-referrer.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from pathlib import Path
from typing import Any, Callable

from ..sql.access import KEPT_SECONDS

ENV_SECRET = "DEDUP_CONSOLE_SECRET"
SECRET_FILE = "console-secret"
CSRF_FIELD, CSRF_HEADER = "csrf_token", "X-CSRF-Token"
LIMIT = 5  # failed logins of a name before it cools down
COOL_DOWN, COOL_DOWN_MAX = 60, 15 * 60  # the first cool-down, doubled each failure after, and its longest
NAME_MEMORY = KEPT_SECONDS  # a name's failures count as long as they are kept, unless it signs in
ADDRESS_LIMIT, WINDOW = 50, 15 * 60  # failed logins from one address in WINDOW seconds

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
    """The console's limit on failed logins, over the failures a store keeps (the desk:
    `login_failures(kind, subject, since)`, `login_failed(subjects, at)`,
    `login_forget(kind, subject)`); `clock` is seconds since the epoch."""

    def __init__(self, clock: Callable[[], float] = time.time, store: Any = None):
        self.clock, self.store = clock, store

    def wait(self, name: str, address: str | None) -> float:
        """Seconds before `name` may try again from `address` (0: now)."""
        now = self.clock()
        return max(0.0, self._name_wait(name, now), self._address_wait(address, now))

    def failed(self, name: str, address: str | None) -> None:
        self.store.login_failed([("name", name)] + ([("address", address)] if address else []), self.clock())

    def succeeded(self, name: str) -> None:
        """`name` signed in: its failures are forgotten (its address's are not)."""
        self.store.login_forget("name", name)

    def _name_wait(self, name: str, now: float) -> float:
        times = self.store.login_failures("name", name, now - NAME_MEMORY)
        if len(times) < LIMIT:
            return 0.0
        return times[-1] + cool_down(len(times)) - now

    def _address_wait(self, address: str | None, now: float) -> float:
        if not address:
            return 0.0
        times = self.store.login_failures("address", address, now - WINDOW)
        if len(times) < ADDRESS_LIMIT:
            return 0.0
        return times[len(times) - ADDRESS_LIMIT] + WINDOW - now  # until one fewer than the limit is left


def cool_down(failures: int) -> float:
    """Seconds a name waits after its last failure, once it has failed `failures` times."""
    return float(min(COOL_DOWN_MAX, COOL_DOWN * 2 ** max(0, failures - LIMIT)))
