"""The program, `dedup-pipeline` or `python -m dedup_pipeline`: the command line is loaded
inside a guard, so that a Ctrl-C while Python loads it ends as one line and exit 130, as
it does once a command runs."""

import os
import sys

from .errors import EXIT_INTERRUPTED


def run() -> None:
    """Load the command line and run it."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        os.write(2, b"Error: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    main()


if __name__ == "__main__":
    run()
