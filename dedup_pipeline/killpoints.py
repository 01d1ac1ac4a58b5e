"""Named points between the writes of the worker and the batch, where a test has this
process killed (SIGKILL, as a crash or `kill -9` would) to try each window a kill can fall
in, deterministically rather than after a delay: `DEDUP_KILL_AT=apply.filed` kills it the
first time that point is reached, `DEDUP_KILL_AT=apply.filed:3` the third time, and
`DEDUP_KILL_AT=batch.results@SIGTERM` sends it that signal instead (as an operator's
`kill` or Ctrl-C would). Unset, a point costs a comparison. A test hook, not
configuration: production never sets it."""

from __future__ import annotations

import os
import signal

ENV = "DEDUP_KILL_AT"


def _armed() -> tuple[str, int, signal.Signals]:
    point, _, sig = os.environ.get(ENV, "").partition("@")
    name, _, nth = point.partition(":")
    return name, int(nth or 1), signal.Signals[sig or "SIGKILL"]


_AT, _NTH, _SIGNAL = _armed()
_reached = 0


def reached(name: str) -> None:
    """Kill this process here if a test asked for it (ENV)."""
    global _reached
    if name == _AT:
        _reached += 1
        if _reached == _NTH:
            os.kill(os.getpid(), _SIGNAL)
