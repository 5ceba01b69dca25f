"""The options the commands share, as click options (what they note is read in invocation.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..diagnostics import formats as report
from . import invocation

CONFIG_HELP = (
    "Path of skillc.yaml, or of a pyproject.toml with [tool.skillc] (default: found in this directory "
    "or the nearest parent up to the repository root; skillc.yaml first)."
)
CONFIG = click.option(
    "--config", "config_path", default=None, type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP
)


# A built output read in place of the project's (catalog, export, audit: their help says what for).
def dist_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--dist",
        "dist_path",
        default=None,
        type=click.Path(file_okay=False, path_type=Path),
        help=f"{what} this build directory instead of the project's output.",
    )


FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(report.FORMATS),
    default="text",
    show_default=True,
    help="Diagnostics as text (stderr) or json lines, GitHub annotations, SARIF 2.1.0 (stdout).",
)
IGNORE = click.option(
    "--ignore",
    "ignore",
    multiple=True,
    metavar="CODE",
    help="Do not report this spec-conformance code (repeatable; `skillc codes` marks them); --strict then promotes what is left.",
)
STRICT = click.option(
    "--strict/--no-strict", default=None, help="Treat warnings as errors (default: the config's `strict`)."
)
SKIP = click.option(
    "--skip-invalid/--no-skip-invalid",
    default=None,
    help="Leave out skills with errors (reported as warnings) instead of failing (default: the config's `skip_invalid`).",
)
VERBOSE = click.option(
    "-v", "--verbose", is_flag=True, help="Name every skill a budget left out or shortened."
)

# Options every reporting command shares without taking them as parameters: a callback notes them
# in the click context's meta (shared by the group and its command), where emit and options read
# them (invocation.py).


def _noted(key: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def note(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if value:  # a flag not given, or --color not given, leaves what the group noted
            ctx.meta[key] = value
        return value

    return note


QUIET = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    expose_value=False,
    callback=_noted(invocation.QUIET),
    help="Print errors only.",
)
VERBOSE_NOTED = click.option(
    "-v",
    "--verbose",
    is_flag=True,
    expose_value=False,
    callback=_noted(invocation.VERBOSE),
    help="Name every skill a budget left out or shortened.",
)
COLOR = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default=None,
    expose_value=False,
    callback=_noted(invocation.COLOR),
    help="Colour diagnostics: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it), always, never.",
)
STATISTICS = click.option(
    "--statistics",
    is_flag=True,
    expose_value=False,
    callback=_noted(invocation.STATISTICS),
    help="Print how many diagnostics of each code there are instead of each one (text or json).",
)


def reporting(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a command that compiles and reports (validate, check): config, strictness,
    --skip-invalid, -v, --format, --ignore, -q, --color and --statistics."""
    for option in reversed((CONFIG, STRICT, SKIP, VERBOSE, FORMAT, IGNORE, QUIET, COLOR, STATISTICS)):
        command = option(command)
    return command
