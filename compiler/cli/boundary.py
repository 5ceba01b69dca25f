"""The CLI's one error boundary: every failure becomes a message and an exit code here.

Exit codes, as a compiler's: 0 success; 1 errors in the input, or a failure skillc reports
(SkillcError, a reader error on a build it was pointed at); 2 usage errors; 3 `diff` only: a side
is not a build (errors.NoBuild); 130 interrupted
(128 + SIGINT, as a shell reports it). Never a traceback, except with SKILLC_DEBUG=1 for a bug.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from ..diagnostics import printable
from ..errors import SkillcError
from ..format.errors import ReaderError

INTERRUPTED = 130


def fail(message: str, code: int) -> NoReturn:
    """Print `skillc: error: message` (escaped: names in it are untrusted) and leave with `code`."""
    click.echo(printable(f"skillc: error: {message}"), err=True)
    sys.exit(code)


class Group(click.Group):
    """click's group, with skillc's exit codes and its error boundary around every command."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:  # click's name for KeyboardInterrupt (and EOF at a prompt)
            click.echo("skillc: interrupted", err=True)
            sys.exit(INTERRUPTED)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
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
    click.echo("skillc: interrupted", err=True)
    exit_now(INTERRUPTED)


def guarded(cli: click.Group, argv: list[str] | None) -> None:
    """Run the command line; what escapes the group (an interrupt, a bug) ends here."""
    try:
        cli.main(args=argv, prog_name="skillc")
    except KeyboardInterrupt:
        interrupted()
    except SystemExit as exc:
        if exc.code == INTERRUPTED:  # interrupted, and already said so
            exit_now(INTERRUPTED)
        raise
    except Exception as exc:  # a bug, never bad input: say so instead of a traceback
        if os.environ.get("SKILLC_DEBUG"):
            raise
        click.echo(
            f"skillc: internal error: {type(exc).__name__}: {exc} (set SKILLC_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(1)
