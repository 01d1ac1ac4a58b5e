"""Personal data on the console's pages: every row a page shows passes through `shown`, which
masks what the signed-in reviewer may not see and notes the rows' ids for the access log
(written once the request has been answered, app.py's after_request).

The columns masked are `[console] masked_columns` (glob patterns of column names, any case;
by default those that look like phones'), unless the reviewer was added with `reviewer add
--sees-phones` (`g.sees_phones`, set for each request from the database). A masked phone keeps
its first three and last four characters, 138****0000. Only what is shown is masked: the rows
the desk reads are the real ones (the pair and group pages say which fields agree from them,
then show them masked), but a search leaves the masked columns out (`masked_columns`), so that
it cannot tell which numbers exist.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterable, Sequence
from typing import Any

from flask import current_app, g

MASK = "****"


def shown(rows: Sequence[dict[str, Any]], page: str) -> list[dict[str, Any]]:
    """The rows as this request may show them (copies, the masked columns masked unless the
    reviewer sees phones), their ids noted as seen on `page` (pair, group, search, queue, found, matter)."""
    desk = current_app.extensions["dedup"].desk
    g.setdefault("viewed", []).extend((page, row[desk.columns.id]) for row in rows)
    if g.get("sees_phones"):
        return [dict(row) for row in rows]
    masked = set(masked_columns({key for row in rows for key in row}))
    return [{key: mask(value) if key in masked else value for key, value in row.items()} for row in rows]


def masked_columns(columns: Iterable[str]) -> list[str]:
    """The columns of these this request masks (none for a reviewer who sees phones, never
    the id): what a search leaves out for this reviewer."""
    if g.get("sees_phones"):
        return []
    desk = current_app.extensions["dedup"].desk
    patterns, id_column = tuple(desk.config.console.masked_columns), desk.columns.id
    return [c for c in columns if c != id_column and _masked(patterns, c)]


def mask(value: Any) -> Any:
    """A phone as a reviewer without the role sees it: 138****0000 (11 characters or more),
    ****5678 (8 to 10), **** (fewer); nothing stays nothing."""
    if value is None:
        return None
    text = value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)
    text = text.strip()
    if not text:
        return text
    if len(text) >= 11:
        return text[:3] + MASK + text[-4:]
    return MASK + text[-4:] if len(text) >= 8 else MASK


@functools.lru_cache(maxsize=1024)
def _masked(patterns: tuple[str, ...], column: str) -> bool:
    """Whether a column of this name is masked: it matches one of the patterns, in any case."""
    name = str(column).casefold()
    return any(fnmatch.fnmatchcase(name, pattern.casefold()) for pattern in patterns)


def viewed() -> list[tuple[str, Any]]:
    """The rows (page, id) this request showed, each once, in the order first shown."""
    return list(dict.fromkeys(g.get("viewed", [])))
