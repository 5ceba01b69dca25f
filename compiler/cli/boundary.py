"""The CLI's one error boundary: every failure becomes a message and an exit code here.

Exit codes, as a compiler's: 0 success; 1 errors in the input, or a failure skillc reports
(SkillcError, a reader error on a build it was pointed at); 2 usage errors; 3 `diff` only: a side
is not a build (errors.NoBuild); 130 interrupted
(128 + SIGINT, as a shell reports it). Never a traceback, except with SKILLC_DEBUG=1 for a bug.

Nothing here imports click: a plain `skillc build` runs without it (cli/__init__.py `main`). The
click group puts the same boundary around every command it runs (group.py `Group`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from ..diagnostics import printable
from ..errors import SkillcError
from ..format.errors import ReaderError

INTERRUPTED = 130


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fail(message: str, code: int) -> NoReturn:
    """Print `skillc: error: message` (escaped: names in it are untrusted) and leave with `code`."""
    _say(printable(f"skillc: error: {message}"))
    sys.exit(code)


def said_interrupted() -> NoReturn:
    """Say so, and leave with 130 (through SystemExit: `guarded` makes it the status)."""
    _say("skillc: interrupted")
    sys.exit(INTERRUPTED)


def contained(command: Callable[[], object]) -> NoReturn:
    """Run one command: the failures it reports become their message and exit code, and what it
    returns its status."""
    try:
        rv = command()
    except SkillcError as exc:
        fail(str(exc), exc.exit_code)
    except ReaderError as exc:  # a build skillc was pointed at is not one it can read
        fail(str(exc), 1)
    sys.exit(rv if isinstance(rv, int) else 0)


def exit_now(code: int) -> NoReturn:
    """Leave with `code` at once. After a Ctrl-C, CPython may end a process that saw an interrupt by
    re-raising SIGINT during shutdown (exit status -2 instead of 130); the status is decided here."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone (a closed pipe), a stream closed
            stream.flush()
    os._exit(code)


def interrupted() -> NoReturn:
    """Say so, and leave with 130."""
    _say("skillc: interrupted")
    exit_now(INTERRUPTED)


def guarded(run: Callable[[], object]) -> None:
    """Run the command line; what escapes the command (an interrupt, a bug) ends here."""
    try:
        run()
    except KeyboardInterrupt:
        interrupted()
    except SystemExit as exc:
        if exc.code == INTERRUPTED:  # interrupted, and already said so
            exit_now(INTERRUPTED)
        raise
    except Exception as exc:  # a bug, never bad input: say so instead of a traceback
        if os.environ.get("SKILLC_DEBUG"):
            raise
        _say(
            printable(
                f"skillc: internal error: {type(exc).__name__}: {exc} (set SKILLC_DEBUG=1 for a traceback)"
            )
        )
        sys.exit(1)
