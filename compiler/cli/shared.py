"""What the commands share: their common options, finding the config, and printing diagnostics."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from ..diagnostics import Diagnostic, relative, statistics
from ..diagnostics import formats as report
from ..errors import UsageError
from ..options import Options, Progress, silent

_ROOT = "skillc.project_root"  # key of the project root in the click context's meta
_CWD = "skillc.start_directory"  # key of the working directory find_config saw
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
# in the click context's meta (shared by the group and its command), where emit and options read them.
_QUIET, _VERBOSE, _COLOR, _STATISTICS = "skillc.quiet", "skillc.verbose", "skillc.color", "skillc.statistics"


def _noted(key: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def note(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if value:  # a flag not given, or --color not given, leaves what the group noted
            ctx.meta[key] = value
        return value

    return note


QUIET = click.option(
    "-q", "--quiet", is_flag=True, expose_value=False, callback=_noted(_QUIET), help="Print errors only."
)
VERBOSE_NOTED = click.option(
    "-v",
    "--verbose",
    is_flag=True,
    expose_value=False,
    callback=_noted(_VERBOSE),
    help="Name every skill a budget left out or shortened.",
)
COLOR = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default=None,
    expose_value=False,
    callback=_noted(_COLOR),
    help="Colour diagnostics: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it), always, never.",
)
STATISTICS = click.option(
    "--statistics",
    is_flag=True,
    expose_value=False,
    callback=_noted(_STATISTICS),
    help="Print how many diagnostics of each code there are instead of each one (text or json).",
)


def _meta(key: str) -> Any:
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(key) if ctx is not None else None


def quiet() -> bool:
    return bool(_meta(_QUIET))


def colour_when() -> str:
    return str(_meta(_COLOR) or "auto")


def options(
    strict: bool | None = None,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
    progress: Progress = silent,
) -> Options:
    return Options(strict, skip_invalid, verbose or bool(_meta(_VERBOSE)), ignore, progress)


def working_directory() -> Path:
    """The current directory, or a UsageError when it was removed (a build run from inside the
    output replaced it: the shell still stands in the old one)."""
    try:
        return Path(os.getcwd())
    except FileNotFoundError:
        raise UsageError(
            "the current directory no longer exists (a build replaces its output directory, and the "
            "shell still stands in the old one); cd into the project again, or pass an absolute --config"
        ) from None


def start_directory() -> Path:
    """The working directory as find_config saw it, before any build: a build run from inside its
    output removes the directory the process stands in, and paths are still shown from there."""
    ctx = click.get_current_context(silent=True)
    cwd = ctx.meta.get(_CWD) if ctx is not None else None
    if isinstance(cwd, Path):
        return cwd
    try:
        return working_directory()
    except UsageError:  # an absolute --config from a removed directory: shown from the project root
        return project_root() or Path("/")


def find_config(config_path: Path | None) -> Path:
    """The config named after the subcommand, else before it, else the nearest config upwards.

    Its folder, the project root, is noted in the command's context: `emit` shows paths from the
    working directory, which it needs for that."""
    named = config_path or click.get_current_context().find_root().obj
    if named is not None and Path(named).is_absolute():
        found: Path | None = Path(named)
    else:
        # Absolute now: a build swaps its output, and a build run from inside the output leaves the
        # process in a removed directory, where a relative path no longer names anything.
        cwd = working_directory()
        click.get_current_context().meta[_CWD] = cwd
        if named is not None:
            found = cwd / named
        else:
            from ..project.init import find_config as nearest  # not when --config names it

            found = nearest(cwd)
    if found is None:
        raise UsageError(
            "no skillc.yaml, and no pyproject.toml with [tool.skillc], in this directory or its parents "
            "(up to the repository root); "
            "run `skillc init` to create one, or pass --config"
        )
    click.get_current_context().meta[_ROOT] = found.resolve().parent
    return found


def project_root() -> Path | None:
    """The project root `find_config` noted for this command, if it ran."""
    ctx = click.get_current_context(silent=True)
    root = ctx.meta.get(_ROOT) if ctx is not None else None
    return root if isinstance(root, Path) else None


def at_root() -> bool:
    """Paths are shown as recorded: the command runs in the project root (or has none)."""
    root = project_root()
    return root is None or root == start_directory().resolve()


def as_recorded() -> bool:
    """Whether the build cache's recorded text is what emit would print: paths from the project
    root, no --statistics, no colour."""
    return at_root() and not _meta(_STATISTICS) and not report.use_colour(sys.stderr, colour_when())


def emit(diags: Iterable[Diagnostic], quiet: bool = False, fmt: str = "text") -> None:
    """Diagnostics out, with paths from the working directory (SARIF: from the project root);
    with --statistics, their counts per code instead."""
    root = project_root()
    found = tuple(diags)
    if _meta(_STATISTICS):
        if fmt not in statistics.FORMATS:
            raise UsageError(f"--statistics works with --format text or json, not {fmt}")
        statistics.emit(found, fmt)
        return
    quiet = quiet or bool(_meta(_QUIET))
    if root is None:
        report.emit(found, fmt, quiet=quiet, colour=colour_when())
    elif fmt == "sarif":
        report.emit(found, fmt, quiet=quiet, root_uri=relative.root_uri(root))
    else:
        report.emit(relative.rebase(found, root, start_directory()), fmt, quiet=quiet, colour=colour_when())


def say(fmt: str, message: str) -> None:
    """A summary line for people: on stderr, and only with text output (machine formats stay clean)."""
    if fmt == "text" and not quiet():  # -q: diagnostics only
        click.echo(message, err=True)


def reporting(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a command that compiles and reports (validate, check): config, strictness,
    --skip-invalid, -v, --format, --ignore, -q, --color and --statistics."""
    for option in reversed((CONFIG, STRICT, SKIP, VERBOSE, FORMAT, IGNORE, QUIET, COLOR, STATISTICS)):
        command = option(command)
    return command
