"""What the commands share: their common options, finding the config, and printing diagnostics."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from .. import init as init_mod
from ..diagnostics import Diagnostic
from ..diagnostics import formats as report
from ..errors import UsageError
from ..options import Options, Progress, silent

CONFIG_HELP = (
    "Path of skillc.yaml, or of a pyproject.toml with [tool.skillc] (default: found in this directory "
    "or the nearest parent up to the repository root; skillc.yaml first)."
)
CONFIG = click.option(
    "--config", "config_path", default=None, type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP
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
    help="Do not report this warning code (repeatable); --strict then promotes what is left.",
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


def options(
    strict: bool | None = None,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
    progress: Progress = silent,
) -> Options:
    return Options(strict, skip_invalid, verbose, ignore, progress)


def find_config(config_path: Path | None) -> Path:
    """The config named after the subcommand, else before it, else the nearest skillc.yaml upwards."""
    named = config_path or click.get_current_context().find_root().obj
    if named is not None:
        return Path(named)
    found = init_mod.find_config(Path.cwd())
    if found is None:
        raise UsageError(
            "no skillc.yaml, and no pyproject.toml with [tool.skillc], in this directory or its parents "
            "(up to the repository root); "
            "run `skillc init` to create one, or pass --config"
        )
    return found


def emit(diags: Iterable[Diagnostic], quiet: bool = False, fmt: str = "text") -> None:
    report.emit(tuple(diags), fmt, quiet=quiet)


def say(fmt: str, message: str) -> None:
    """A summary line for people: on stderr, and only with text output (machine formats stay clean)."""
    if fmt == "text":
        click.echo(message, err=True)
