"""One `skillc build`, without click: what the `build` command runs (build.py), and a plain
`skillc build`, which `main` runs without importing click at all (cli/__init__.py)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .. import diagnostics as dg
from .. import pipeline
from ..dataclass import dataclass
from ..diagnostics import Diagnostic
from ..diagnostics import formats as report
from ..diagnostics.codes import Code
from ..errors import OutputRefused
from ..incremental import Report, Summary
from . import invocation
from .boundary import said_interrupted
from .invocation import as_recorded, emit, options, say

FAILED = "skillc: build failed; the output directory was left untouched"

Settings = tuple[bool | None, bool | None, bool, tuple[str, ...]]  # strict, skip_invalid, verbose, ignore
DEFAULTS: Settings = (None, None, False, ())  # the command's own defaults (build.py)


@dataclass(frozen=True)
class Run:
    """What one `skillc build` was asked for."""

    config_path: Path
    settings: Settings
    prune: bool = False
    quiet: bool = False
    no_cache: bool = False
    fmt: str = "text"
    folders: tuple[Path, Path] | None = None  # `skillc build SOURCE -o OUTPUT`: no config file


def plain(named: str | None) -> int:
    """`skillc build`, or `skillc build --config named`, with every other option at its default:
    what `build` does for that command line, without click."""
    try:
        with invocation.plain_run():
            return build(Run(invocation.find_config(None if named is None else Path(named)), DEFAULTS))[0]
    except KeyboardInterrupt:
        print(file=sys.stderr)  # as click does for a command it runs: the blank line ends the ^C echo
        said_interrupted()


def build(run: Run) -> tuple[int, pipeline.Compilation | None, pipeline.Written | None]:
    """The exit status, what the build did and what it wrote (None: nothing, for its errors)."""
    config_path, quiet, fmt = run.config_path, run.quiet, run.fmt
    started = time.perf_counter()
    progress = report.progress_for(fmt, quiet)
    opts = options(*run.settings, progress)
    given = None
    if run.folders is not None:
        from ..project.config import for_folders

        given = for_folders(*run.folders, opts)
        invocation.note_root(given.root)
        config_path = given.root / given.config_rel
    try:
        result, written = pipeline.build(
            config_path, opts, prune=run.prune, cache=not run.no_cache, given=given
        )
    except OSError as exc:  # disk full, read-only output, permissions: the old output is intact
        # Relative to the config's directory, like every other diagnostic path.
        where = os.path.relpath(exc.filename, config_path.resolve().parent) if exc.filename else "."
        problem = f"cannot write the output directory: {exc.strerror or exc}"
        return _failed(fmt, dg.error(where, Code.CANNOT_WRITE, problem)), None, None
    except OutputRefused as exc:  # taken over between the early check and the lock
        return _failed(fmt, dg.error(".", Code.OUTPUT_NOT_OURS, f"output directory {exc}")), None, None
    finally:
        progress.done()
    if isinstance(result, pipeline.Replayed) and fmt == "text" and not result.report.errors and as_recorded():
        _emit_recorded(result.report, quiet)  # the recorded text: nothing is decoded
    else:
        emit(result.diagnostics, quiet, fmt)
    if written is None:
        say(fmt, FAILED)
        return 1, result, None
    if not quiet and not isinstance(result, pipeline.ConfigFailed):  # written: a build ran or was replayed
        counts = result.summary  # also set when the cache replayed the build
        assert counts is not None
        done(fmt, result.output_rel, counts, written, started)
    return 0, result, written


def done(fmt: str, output_rel: str, counts: Summary, written: pipeline.Written, started: float) -> None:
    state = "written" if written.written else "already up to date"
    pruned = f", {written.pruned} object(s) pruned" if written.pruned else ""
    say(
        fmt,
        f"skillc: {output_rel}/ {state}: {counts.skills} skills{left_out(counts)}, "
        f"{counts.personas} personas, {counts.objects} objects{pruned} "
        f"({time.perf_counter() - started:.2f}s)",
    )


def left_out(counts: Summary) -> str:
    """The skills found and not built, beside those built: never silent (SKC314 and the others say which)."""
    return f" ({counts.left_out} left out)" if counts.left_out else ""


def _emit_recorded(recorded: Report, quiet: bool) -> None:
    """What emit prints (text, no colour) for a recorded build without errors: nothing is decoded."""
    if quiet or not recorded.warnings:
        return
    sys.stderr.write(recorded.text + f"skillc: 0 error(s), {recorded.warnings} warning(s)\n")
    sys.stderr.flush()


def _failed(fmt: str, problem: Diagnostic) -> int:
    emit((problem,), fmt=fmt)
    say(fmt, FAILED)
    return 1
