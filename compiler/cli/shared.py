"""What the commands share: their common options, finding the config, and printing diagnostics."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from .. import init as init_mod
from ..diagnostics import Diagnostic, relative
from ..diagnostics import formats as report
from ..errors import UsageError
from ..options import Options, Progress, silent

_ROOT = "skillc.project_root"  # key of the project root in the click context's meta
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
    """The config named after the subcommand, else before it, else the nearest config upwards.

    Its folder, the project root, is noted in the command's context: `emit` shows paths from the
    working directory, which it needs for that."""
    named = config_path or click.get_current_context().find_root().obj
    found = Path(named) if named is not None else init_mod.find_config(Path.cwd())
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
    return root is None or root == Path.cwd().resolve()


def emit(diags: Iterable[Diagnostic], quiet: bool = False, fmt: str = "text") -> None:
    """Diagnostics out, with paths from the working directory (SARIF: from the project root)."""
    root = project_root()
    found = tuple(diags)
    if root is None:
        report.emit(found, fmt, quiet=quiet)
    elif fmt == "sarif":
        report.emit(found, fmt, quiet=quiet, root_uri=relative.root_uri(root))
    else:
        report.emit(relative.rebase(found, root, Path.cwd()), fmt, quiet=quiet)


def say(fmt: str, message: str) -> None:
    """A summary line for people: on stderr, and only with text output (machine formats stay clean)."""
    if fmt == "text":
        click.echo(message, err=True)
