"""What the library's calls share (commands.py, review.py): a row of the configured table by
the id a person wrote, and an output file refused before any work or its failed write said
in one line."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, Iterator

from .errors import InputError

if TYPE_CHECKING:
    from .sql.source import SqlSource


def source_row(source: SqlSource, row_id: Any) -> dict[str, Any]:
    """A row of the configured table by its id, as written on a command line or as a value."""
    row = source.row_by_written_id(str(row_id))
    if row is None:
        config = source.config
        raise InputError(f"no row with {config.source.id_column} = {row_id} in {config.source.table!r}")
    return row


def source_id(source: SqlSource, row_id: Any) -> Any:
    """The id of a row of the configured table as the table has it, from one written or given."""
    return source_row(source, row_id)[source.config.source.id_column]


def check_writable(path: str | None, option: str) -> None:
    """Refuse an output file that cannot be created, before any work is done."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path}: the folder {folder} does not exist; create it or write elsewhere")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise InputError(f"{option} {path}: no permission to write there; choose another path")


@contextlib.contextmanager
def writing(path: str, what: str, after: str = "") -> Iterator[None]:
    """A failed write of `path` (a full disk, a folder gone) as one line."""
    try:
        yield
    except OSError as e:
        raise InputError(f"cannot write {what} to {path}: {e.strerror or e}" + (f"; {after}" if after else "")) from None
