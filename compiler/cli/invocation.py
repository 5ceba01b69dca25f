"""What a command was run with and how it reports, without click: the notes its options leave (-q,
-v, --color, --statistics, the project root and the working directory), finding the config, and
printing diagnostics and summaries.

Under click, the notes are the click context's meta (shared.py's option callbacks write them there).
A plain `skillc build`, which runs without click (cli/__init__.py `main`), keeps its own for the
run (`plain_run`), and consults no click context, even one around it (`main` called from inside
another click command). Nothing here imports click: its context is looked for only when click is
loaded.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, relative
from ..diagnostics import formats as report
from ..errors import UsageError
from ..options import Options, Progress, silent

ROOT = "skillc.project_root"  # the project root find_config found
CWD = "skillc.start_directory"  # the working directory find_config saw
QUIET, VERBOSE, COLOR, STATISTICS = "skillc.quiet", "skillc.verbose", "skillc.color", "skillc.statistics"

_plain: dict[str, Any] | None = None  # a plain build's notes, while it runs


@contextmanager
def plain_run() -> Iterator[None]:
    """A plain build's notes, fresh for the run and gone after it."""
    global _plain
    _plain = {}
    try:
        yield
    finally:
        _plain = None


def _context() -> Any:
    """The click context of the command running, if click runs one (never in a plain build)."""
    click = sys.modules.get("click")
    return None if click is None or _plain is not None else click.get_current_context(silent=True)


def notes() -> dict[str, Any]:
    """The notes of the command running (outside any, an empty one that keeps nothing)."""
    if _plain is not None:
        return _plain
    ctx = _context()
    return ctx.meta if ctx is not None else {}


def quiet() -> bool:
    return bool(notes().get(QUIET))


def colour_when() -> str:
    return str(notes().get(COLOR) or "auto")


def options(
    strict: bool | None = None,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
    progress: Progress = silent,
) -> Options:
    return Options(strict, skip_invalid, verbose or bool(notes().get(VERBOSE)), ignore, progress)


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
    cwd = notes().get(CWD)
    if isinstance(cwd, Path):
        return cwd
    try:
        return working_directory()
    except UsageError:  # an absolute --config from a removed directory: shown from the project root
        return project_root() or Path("/")


def note_root(root: Path) -> None:
    """The project root of a build without a config file, noted as find_config notes one."""
    noted = notes()
    noted[CWD] = working_directory()
    noted[ROOT] = root


def find_config(config_path: Path | None) -> Path:
    """The config named after the subcommand, else before it (`skillc --config X build`), else the
    nearest config upwards.

    Its folder, the project root, is noted: `emit` shows paths from the working directory, which it
    needs for that."""
    ctx = _context()
    named = config_path or (ctx.find_root().obj if ctx is not None else None)
    noted = notes()
    if named is not None and Path(named).is_absolute():
        found: Path | None = Path(named)
    else:
        # Absolute now: a build swaps its output, and a build run from inside the output leaves the
        # process in a removed directory, where a relative path no longer names anything.
        cwd = working_directory()
        noted[CWD] = cwd
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
    noted[ROOT] = found.resolve().parent
    return found


def project_root() -> Path | None:
    """The project root `find_config` noted for this command, if it ran."""
    root = notes().get(ROOT)
    return root if isinstance(root, Path) else None


def at_root() -> bool:
    """Paths are shown as recorded: the command runs in the project root (or has none)."""
    root = project_root()
    return root is None or root == start_directory().resolve()


def as_recorded() -> bool:
    """Whether the build cache's recorded text is what emit would print: paths from the project
    root, no --statistics, no colour."""
    return at_root() and not notes().get(STATISTICS) and not report.use_colour(sys.stderr, colour_when())


def emit(diags: Iterable[Diagnostic], quiet: bool = False, fmt: str = "text") -> None:
    """Diagnostics out, with paths from the working directory (SARIF: from the project root);
    with --statistics, their counts per code instead."""
    root = project_root()
    found = tuple(diags)
    if notes().get(STATISTICS):
        from ..diagnostics import statistics

        if fmt not in statistics.FORMATS:
            raise UsageError(f"--statistics works with --format text or json, not {fmt}")
        statistics.emit(found, fmt)
        return
    quiet = quiet or bool(notes().get(QUIET))
    if root is None:
        report.emit(found, fmt, quiet=quiet, colour=colour_when())
    elif fmt == "sarif":
        report.emit(found, fmt, quiet=quiet, root_uri=relative.root_uri(root))
    else:
        report.emit(relative.rebase(found, root, start_directory()), fmt, quiet=quiet, colour=colour_when())


def say(fmt: str, message: str) -> None:
    """A summary line for people: on stderr, and only with text output (machine formats stay clean)."""
    if fmt == "text" and not quiet():  # -q: diagnostics only
        print(message, file=sys.stderr, flush=True)
