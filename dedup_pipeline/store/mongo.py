"""What every module that speaks MongoDB shares (store.py, results.py, lock.py): pymongo's
errors turned into `StoreError`, one line naming the server, password masked."""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from pymongo.collection import Collection
from pymongo.errors import PyMongoError
from pymongo.uri_parser import split_options

from ..masking import mask_url
from ..errors import StoreError

AGAIN = "run the command again once MongoDB answers"
OUT_OF_DISK_SPACE = 14031  # MongoDB's error code for a write refused on a full disk
NO_SPACE = "No space left on device"  # ENOSPC as WiredTiger (and the system) words it
F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def errors(where: str, advice: str = AGAIN) -> Iterator[None]:
    """A pymongo error inside as a StoreError: where, why, and what to do."""
    try:
        yield
    except PyMongoError as e:
        if disk_full(e):
            raise StoreError(f"MongoDB at {where}: its disk is full ({reason(e)}); free space on the disk of its "
                             f"data folder, then run the command again") from None
        raise StoreError(f"MongoDB at {where}: {reason(e)}; {advice}") from None


def disk_full(error: PyMongoError) -> bool:
    """Whether the server refused for a full disk: MongoDB's OutOfDiskSpace, or ENOSPC in its message."""
    return getattr(error, "code", None) == OUT_OF_DISK_SPACE or NO_SPACE.lower() in str(error).lower()


def reason(error: Exception) -> str:
    """pymongo's message without its topology dump and timeouts, password masked."""
    text = str(error).split(", Timeout:")[0]
    return mask_url(re.sub(r" \(configured timeouts:[^)]*\)", "", text))


def uri_options_problem(uri: str) -> str | None:
    """What pymongo refuses among a MongoDB URI's options (an unknown option, a value of the
    wrong kind), password masked; None when it takes them all. A client would only warn, with
    its file paths, and go on without them. Read without DNS (mongodb+srv:// too)."""
    options = uri.rpartition("@")[2].partition("?")[2]
    if not options:
        return None
    try:
        split_options(options, validate=True, warn=False)
    except (PyMongoError, ValueError) as e:
        problem = reason(e).replace(" Refer to docstring.", "")
        return _named(problem, options) if problem.startswith("Unknown option") else problem
    return None


def _named(problem: str, options: str) -> str:
    """pymongo's "Unknown option." with the option's name (pymongo 4.20 names none)."""
    for option in re.split("[&;]", options):
        name = option.partition("=")[0]
        try:
            split_options(option, validate=True, warn=False)
        except (PyMongoError, ValueError):
            return problem if name in problem else problem.replace("Unknown option", f"Unknown option: {name}", 1)
    return problem


def guarded(function: F) -> F:
    """`function(db_or_collection, ...)` with its pymongo errors as StoreError naming the database."""

    @functools.wraps(function)
    def wrapped(target: Any, *args: Any, **kwargs: Any) -> Any:
        db = target.database if isinstance(target, Collection) else target
        with errors(f"database {db.name}"):
            return function(target, *args, **kwargs)

    return wrapped  # type: ignore[return-value]
