"""The one family of errors the library raises for what a user can fix (configuration,
the source database, MongoDB, input): each carries the exit code the CLI ends with, and
the CLI turns it into one line (cli.with_config). Pure: no I/O, no driver imports."""

from __future__ import annotations

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports a SIGINT


class DedupError(Exception):
    """An error the user can fix; the message says what is wrong and what to do."""

    exit_code = EXIT_ERROR


class StoreError(DedupError, RuntimeError):
    """MongoDB cannot be reached or refused a write, or holds no results yet; the message
    names the server."""


class InputError(DedupError):
    """Input or output a user can fix: a row id the table has not, a file that cannot be
    read or written."""


class UsageError(DedupError):
    """Options that do not go together, or input that names nothing configured."""

    exit_code = EXIT_CONFIG
