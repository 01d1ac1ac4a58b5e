"""Who may decide in the review console: `dedup_reviewer` (revision 0003) in the source
database, one row per reviewer with a scrypt hash of the password, never the password.

The hash string carries everything needed to check a password later, so that the cost can
be raised without invalidating the stored ones: `scrypt$<n>$<r>$<p>$<salt>$<hash>` (salt and
hash in unpadded base64). A check compares in constant time, and a name that does not exist
costs the same scrypt as one that does: the time of a failed login tells nothing.

A console session keeps a stamp of the hash it was signed in with and of the reviewer's
session generation (`stamp`: a hash of both, never the hash), and holds only while it
matches the reviewer's current one (`current`, one query a request). Every session of a
reviewer ends at their next request when the stamp changes: a new password (a fresh salt,
even for the same password), a sign-out (`sign_out` raises the generation), `disable`, or
removing the reviewer. Revision 0006 adds the generation, `disabled` and `sees_phones`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from ..errors import InputError, UsageError
from .source import SourceError, SqlSource

REVIEWER_TABLE = "dedup_reviewer"
# scrypt's cost: n = 2**15, r = 8 is OWASP's advice (about 32 MB and 0.1 s a hash); p = 1.
N, R, P = 2**15, 8, 1
SALT_BYTES, HASH_BYTES = 16, 32
MIN_PASSWORD = 10  # characters; a reviewer sees names, phones and addresses
MAX_NAME = 64  # the column's length
STAMP_CHARS = 32  # hex digits of a session's stamp (128 bits)
# The columns a session check reads, declared rather than reflected: one query a request.
_COLUMNS = sa.table(REVIEWER_TABLE, sa.column("name"), sa.column("password"), sa.column("generation"),
                    sa.column("disabled"), sa.column("sees_phones"))


@dataclass(frozen=True)
class Reviewer:
    name: str
    created_at: datetime | None
    sees_phones: bool = False  # shown phone numbers unmasked in the console
    disabled: bool = False  # `reviewer disable`: may not sign in until `reviewer enable`


@dataclass(frozen=True)
class Current:
    """What a console request learns of its reviewer: the stamp a session must carry, and
    whether phone numbers are shown to them unmasked."""

    stamp: str
    sees_phones: bool


def hash_password(password: str, *, n: int = N, r: int = R, p: int = P) -> str:
    """`scrypt$n$r$p$salt$hash` of the password with a fresh random salt."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, n, r, p, HASH_BYTES)
    return "$".join(["scrypt", str(n), str(r), str(p), _b64(salt), _b64(digest)])


def verify(password: str, stored: str | None) -> bool:
    """Whether `password` is the one `stored` was made of, compared in constant time; a
    missing or unreadable hash costs a scrypt all the same, and is False."""
    try:
        kind, n, r, p, salt, digest = (stored or "").split("$")
        if kind != "scrypt":
            raise ValueError(kind)
        n, r, p, salt, digest = int(n), int(r), int(p), _unb64(salt), _unb64(digest)
    except ValueError:
        _scrypt(password, b"\0" * SALT_BYTES, N, R, P, HASH_BYTES)  # the time of a real check
        return False
    return hmac.compare_digest(_scrypt(password, salt, n, r, p, len(digest)), digest)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=length,
                          maxmem=128 * r * n * 2 + 1024 * 1024)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def check_new(name: str, password: str) -> str:
    """The name as stored (stripped), or a UsageError saying what is wrong with name or password."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise UsageError(f"a reviewer's name is 1 to {MAX_NAME} characters, not {len(name)}")
    if len(password) < MIN_PASSWORD:
        raise UsageError(f"the password is {len(password)} characters; give at least {MIN_PASSWORD}")
    return name


def add(source: SqlSource, name: str, password: str, *, replace: bool = False,
        sees_phones: bool = False) -> Reviewer:
    """Let `name` decide in the console with this password (`sees_phones`: shown phone
    numbers unmasked); with `replace`, a reviewer of that name gets the new password and
    role, which ends every session of theirs (else an InputError: the name is taken)."""
    name = check_new(name, password)
    hashed = hash_password(password)
    with source.errors("add a reviewer beside"), source.engine.begin() as conn:
        table = _reflect(conn)
        taken = conn.execute(sa.select(table.c.name).where(table.c.name == name)).first() is not None
        if taken and not replace:
            raise InputError(f"reviewer {name!r} exists; `reviewer add --replace {name}` gives a new password")
        if taken:
            conn.execute(table.update().where(table.c.name == name)
                         .values(password=hashed, sees_phones=sees_phones, generation=table.c.generation + 1))
        else:
            conn.execute(table.insert().values(name=name, password=hashed, sees_phones=sees_phones))
        return _one(conn, table, name)


def every(source: SqlSource) -> list[Reviewer]:
    """Every reviewer, by name."""
    with source.errors("read the reviewers beside"), source.engine.connect() as conn:
        table = _reflect(conn)
        return [_reviewer(r) for r in conn.execute(sa.select(table).order_by(table.c.name))]


def set_disabled(source: SqlSource, name: str, disabled: bool) -> Reviewer:
    """`reviewer disable` (every session of `name` ends, and no sign-in until enabled) or
    `reviewer enable`; a UsageError when there is no such reviewer."""
    with source.errors("change a reviewer beside"), source.engine.begin() as conn:
        table = _reflect(conn)
        ended = {"generation": table.c.generation + 1} if disabled else {}
        if conn.execute(table.update().where(table.c.name == name.strip())
                        .values(disabled=disabled, **ended)).rowcount == 0:
            raise UsageError(f"no reviewer {name.strip()!r}: `dedup-pipeline reviewer list` names them")
        return _one(conn, table, name.strip())


def sign_out(source: SqlSource, name: str) -> None:
    """End every console session of `name` (a new session generation): a sign-out signs out
    every copy of the cookie, on every computer."""
    with source.errors("sign a reviewer out beside"), source.engine.begin() as conn:
        conn.execute(_COLUMNS.update().where(_COLUMNS.c.name == name)
                     .values(generation=_COLUMNS.c.generation + 1))


def remove(source: SqlSource, name: str) -> Reviewer:
    """Take `name` out of dedup_reviewer, so that their sessions end at their next request;
    their decisions stay (dedup_decision keeps the name as text). A UsageError when there is
    no such reviewer."""
    name = name.strip()
    with source.errors("remove a reviewer beside"), source.engine.begin() as conn:
        table = _reflect(conn)
        row = conn.execute(sa.select(table.c.name, table.c.created_at).where(table.c.name == name)).first()
        if row is None:
            raise UsageError(f"no reviewer {name!r}: `dedup-pipeline reviewer list` names them")
        conn.execute(table.delete().where(table.c.name == row.name))
    return Reviewer(row.name, row.created_at)


def authenticate(source: SqlSource, name: str, password: str) -> bool:
    """Whether `name` is a reviewer and this is their password (the same time either way)."""
    return sign_in(source, name, password) is not None


def sign_in(source: SqlSource, name: str, password: str) -> str | None:
    """The stamp of `name`'s current password and session generation when this is their
    password and they are not disabled, else None (the same time either way): what a new
    console session keeps."""
    with source.errors("read the reviewers beside"), source.engine.connect() as conn:
        _reflect(conn)
        row = conn.execute(sa.select(_COLUMNS).where(_COLUMNS.c.name == name.strip())).first()
    right = verify(password, row.password if row else None)
    return stamp(row.password, row.generation) if right and not row.disabled else None


def current(source: SqlSource, name: str) -> Current | None:
    """What a session of `name` must carry now and may see, None when there is no such
    reviewer or they are disabled: one indexed SELECT and no reflection, as the console
    asks it on every request."""
    with source.errors("read the reviewers beside"), source.engine.connect() as conn:
        row = conn.execute(sa.select(_COLUMNS).where(_COLUMNS.c.name == name)).first()
    if row is None or row.disabled:
        return None
    return Current(stamp(row.password, row.generation), bool(row.sees_phones))


def current_stamp(source: SqlSource, name: str) -> str | None:
    """The stamp a session of `name` must carry now (`current`), None when none holds."""
    found = current(source, name)
    return found.stamp if found else None


def stamp(stored: str, generation: int = 0) -> str:
    """A short fingerprint of a stored hash and a session generation, for a session to keep:
    it changes with every new password (each has a fresh salt) and every new generation,
    and gives nothing of the hash away."""
    seed = b"dedup console session\0" + stored.encode("utf-8") + b"\0" + str(generation).encode("ascii")
    return hashlib.sha256(seed).hexdigest()[:STAMP_CHARS]


def _one(conn: sa.Connection, table: sa.Table, name: str) -> Reviewer:
    return _reviewer(conn.execute(sa.select(table).where(table.c.name == name)).one())


def _reviewer(row: sa.Row) -> Reviewer:
    return Reviewer(row.name, row.created_at, bool(row.sees_phones), bool(row.disabled))


def _reflect(conn: sa.Connection) -> sa.Table:
    """dedup_reviewer as revision 0006 left it, or a SourceError saying to run `migrate`."""
    table = (sa.Table(REVIEWER_TABLE, sa.MetaData(), autoload_with=conn)
             if sa.inspect(conn).has_table(REVIEWER_TABLE) else None)
    if table is None or "generation" not in table.c:
        raise SourceError(f"the source database has no {REVIEWER_TABLE} table of this version: run "
                          f"`dedup-pipeline migrate` (or apply `dedup-pipeline migrate --sql`) first")
    return table
