"""Who tried to get into the console and what it showed them, kept in the source database
(revision 0006) so that both outlive a restart of `serve` and hold for every process serving it.

- `dedup_login_failure`: one row per failed sign-in for the name tried and one for the client's
  address, with the time (UTC, from the console's clock); `console.guard.LoginLimit` reads them.
  Rows older than a day are deleted as new ones come.
- `dedup_access`: the access log that the Personal Information Protection Law expects of access
  to personal data: one row per row of the table a page showed a reviewer (when, who, which
  page, the row's id, the client's address), of the configured table (`source_table`).
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import sqlalchemy as sa

from .scoped import mine, tagged
from .source import SourceError, SqlSource

FAILURE_TABLE, ACCESS_TABLE = "dedup_login_failure", "dedup_access"
KEPT_SECONDS = 24 * 3600  # failed sign-ins older than this count no more, and are deleted
SUBJECT_CHARS = 64  # dedup_login_failure.subject
_FAILURES = sa.table(FAILURE_TABLE, sa.column("id"), sa.column("kind"), sa.column("subject"),
                     sa.column("failed_at", sa.DateTime))
EXPORTED = ("viewed_at", "reviewer", "page", "row_id", "address", "source_table")


@dataclass(frozen=True)
class Access:
    """One row of the table shown to a reviewer."""

    viewed_at: dt.datetime | None
    reviewer: str
    page: str
    row_id: Any
    address: str | None
    source_table: str


# ---------------------------------------------------------------- failed sign-ins

def failures(source: SqlSource, kind: str, subject: str, since: float) -> list[float]:
    """When `subject` (a name, or an address: `kind`) failed to sign in since `since`, as
    seconds since the epoch, oldest first."""
    with source.errors("read the failed sign-ins beside"), source.engine.connect() as conn:
        rows = conn.execute(sa.select(_FAILURES.c.failed_at)
                            .where(_FAILURES.c.kind == kind, _FAILURES.c.subject == subject[:SUBJECT_CHARS],
                                   _FAILURES.c.failed_at >= _utc(since))
                            .order_by(_FAILURES.c.failed_at))
        return [_seconds(r.failed_at) for r in rows]


def failed(source: SqlSource, subjects: Iterable[tuple[str, str]], at: float) -> None:
    """Record a failed sign-in at `at` for each (kind, subject); forget those older than a day."""
    when = _utc(at)
    with source.errors("record a failed sign-in beside"), source.engine.begin() as conn:
        conn.execute(_FAILURES.delete().where(_FAILURES.c.failed_at < _utc(at - KEPT_SECONDS)))
        conn.execute(_FAILURES.insert(), [{"kind": kind, "subject": subject[:SUBJECT_CHARS], "failed_at": when}
                                          for kind, subject in subjects])


def forget(source: SqlSource, kind: str, subject: str) -> None:
    """Forget `subject`'s failed sign-ins (a name that signed in)."""
    with source.errors("forget failed sign-ins beside"), source.engine.begin() as conn:
        conn.execute(_FAILURES.delete().where(_FAILURES.c.kind == kind,
                                              _FAILURES.c.subject == subject[:SUBJECT_CHARS]))


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).replace(tzinfo=None)


def _seconds(moment: dt.datetime) -> float:
    return moment.replace(tzinfo=dt.UTC).timestamp()


# ---------------------------------------------------------------- the access log

def log(source: SqlSource, reviewer: str, address: str | None, viewed: Sequence[tuple[str, Any]],
        table: sa.Table | None = None) -> int:
    """Note that `reviewer`, from `address`, was shown these rows: (page, row id) each;
    `table`: dedup_access as `reflect` gave it (the console keeps it: one INSERT a page)."""
    if not viewed:
        return 0
    with source.errors("write the access log beside"), source.engine.begin() as conn:
        table = table if table is not None else reflect(conn)
        conn.execute(table.insert(), [{"reviewer": reviewer, "page": page, "row_id": row_id, "address": address,
                                       **tagged(table, source.config.source.table)} for page, row_id in viewed])
    return len(viewed)


def read(source: SqlSource, since: dt.datetime | None = None) -> list[Access]:
    """The configured table's access log, oldest first, from `since` on (server time, as
    `viewed_at` is written)."""
    with source.errors("read the access log beside"), source.engine.connect() as conn:
        table = reflect(conn)
        query = sa.select(table).where(mine(table, source.config.source.table)).order_by(table.c.id)
        if since is not None:
            query = query.where(table.c.viewed_at >= since)
        return [Access(r.viewed_at, r.reviewer, r.page, r.row_id, r.address, r.source_table)
                for r in conn.execute(query)]


def export(accesses: Iterable[Access], out: TextIO) -> int:
    """Write the accesses as CSV (a header, then one line each, times to the microsecond);
    returns how many."""
    writer = csv.writer(out)
    writer.writerow(EXPORTED)
    n = 0
    for a in accesses:
        writer.writerow([a.viewed_at.isoformat(sep=" ") if a.viewed_at else "", a.reviewer, a.page, a.row_id,
                         a.address or "", a.source_table])
        n += 1
    return n


def reflect(conn: sa.Connection) -> sa.Table:
    """dedup_access, or a SourceError saying to run `migrate`."""
    if not sa.inspect(conn).has_table(ACCESS_TABLE):
        raise SourceError(f"the source database has no {ACCESS_TABLE} table: run `dedup-pipeline migrate` "
                          f"(or apply `dedup-pipeline migrate --sql`) first")
    return sa.Table(ACCESS_TABLE, sa.MetaData(), autoload_with=conn)
