"""build, validate and check: compile the project; write it, or only report, or compare."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import diagnostics as dg
from .. import pipeline
from ..diagnostics import printable
from ..diagnostics.codes import Code
from ..errors import UsageError
from ..format.layout import INDEX, is_object
from . import building
from .building import Run, Settings
from .invocation import emit, find_config, options, quiet, say
from .shared import COLOR, CONFIG, FORMAT, IGNORE, SKIP, STATISTICS, STRICT, VERBOSE, reporting

if TYPE_CHECKING:  # the write stage and the edit builds: not on a no-op build
    from ..incremental import Kept, Rebuilt
    from ..output.write import Comparison

WATCH = click.option(
    "--watch",
    is_flag=True,
    help="Run again whenever an input changes, until Ctrl-C (notifications with skillc[watch]).",
)


@click.command()
@CONFIG
@STRICT
@click.option("--prune", is_flag=True, help="Remove objects no longer referenced by the index.")
@click.option("-q", "--quiet", is_flag=True, help="Print errors only.")
@click.option(
    "--no-cache", is_flag=True, help="Neither read nor write the incremental cache (.skillc-cache/)."
)
@SKIP
@VERBOSE
@FORMAT
@IGNORE
@COLOR
@STATISTICS
@WATCH
@click.option(
    "-o",
    "--output",
    "output",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="With SOURCE: the output directory (no config: every setting its default).",
)
@click.argument("source", required=False, type=click.Path(file_okay=False, path_type=Path))
def build(
    config_path: Path | None,
    strict: bool | None,
    prune: bool,
    quiet: bool,
    no_cache: bool,
    skip_invalid: bool | None,
    verbose: bool,
    fmt: str,
    ignore: tuple[str, ...],
    watch: bool,
    output: Path | None,
    source: Path | None,
) -> int:
    """Compile the sources into the output directory, atomically.

    With SOURCE and -o OUTPUT, build that folder of skills into OUTPUT without a config (a tier of
    a stack, such as a user's own skills: docs/reader.md)."""
    settings = (strict, skip_invalid, verbose, ignore)
    if source is not None or output is not None:
        if source is None or output is None:
            raise UsageError("a folder of skills and -o OUTPUT go together: skillc build SOURCE -o OUTPUT")
        if config_path is not None or watch:
            raise UsageError("skillc build SOURCE -o OUTPUT takes no --config and no --watch")
        run = Run(source / "(none)", settings, prune, quiet, True, fmt, folders=(source, output))
        return building.build(run)[0]
    config_path = find_config(config_path)
    if watch:
        from . import watch as watching

        return watching.loop(_Watched(Run(config_path, settings, prune, quiet, no_cache, fmt)), config_path)
    return building.build(Run(config_path, settings, prune, quiet, no_cache, fmt))[0]


class _Watched:
    """`build --watch`'s runs: a whole build, then for each change an edit build (incremental/edit.py)
    from the last build, kept in memory (as the cache recorded it after a whole build); a whole
    build again for a change it does not take."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.last: Kept | None = None

    def __call__(self, changed: list[Path] | None) -> int:
        run = self.run
        quiet, fmt = run.quiet, run.fmt
        if self.last is not None and changed:
            started = time.perf_counter()
            last, self.last = self.last, None  # a run that fails midway leaves nothing behind
            done = _rebuilt(last, changed)
            if done is not None:
                emit(done.diagnostics, quiet, fmt)
                if not quiet:
                    building.done(fmt, done.output_rel, done.summary, done.written, started)
                self.last = done.kept
                return 0
        code, _result, written = building.build(run)
        if written is not None and not run.prune and not run.no_cache:  # --prune: every run is whole
            from ..incremental import kept

            self.last = kept(run.config_path)
        return code


def _rebuilt(last: Kept, changed: list[Path]) -> Rebuilt | None:
    from ..incremental import rebuild

    try:
        return rebuild(last, changed)
    except Exception as exc:  # a bug of skillc's: said, and the whole build still runs
        click.echo(
            printable(
                f"skillc: internal error in the edit build, building in full (please report it): {exc!r}"
            ),
            err=True,
        )
        return None


@click.command()
@reporting
def validate(
    config_path: Path | None,
    strict: bool | None,
    skip_invalid: bool | None,
    verbose: bool,
    fmt: str,
    ignore: tuple[str, ...],
) -> int:
    """Run every check and write nothing."""
    result = pipeline.compile_project(
        find_config(config_path), options(strict, skip_invalid, verbose, ignore)
    )
    diagnostics = result.diagnostics
    if isinstance(result, pipeline.Compiled) and result.artifacts is not None:
        # What the build would write, held to the format's schemas (a failure here is a skillc bug).
        from ..output.verify import artifact_errors  # validate only: a build never needs it

        where = f"{result.config.output}/{INDEX}"
        diagnostics += tuple(
            dg.error(where, Code.SCHEMA_BUG, f"the build would break its schema: {problem}")
            for problem in artifact_errors(result.artifacts.files)[:20]
        )
    emit(diagnostics, fmt=fmt)
    ok = result.ok and not dg.has_errors(diagnostics)
    if ok and isinstance(result, pipeline.Compiled) and result.summary and not quiet():
        warnings = len(diagnostics)  # no errors: every one left is a warning
        say(
            fmt,
            f"skillc: valid: {result.summary.skills} skills{building.left_out(result.summary)}, "
            f"{result.summary.personas} personas, {warnings} warning(s)",
        )
    return 0 if ok else 1


_MAX_FILES = 10  # files named one by one when no source explains a difference


def _stale(result: pipeline.Compiled, cmp: Comparison) -> list[dg.Diagnostic]:
    """One diagnostic per source file whose change made the output stale; the output's files are
    named only when no source explains them (a hand-edited or damaged output), and at most ten."""
    out = result.config.output
    differ = (*cmp.missing, *cmp.changed)
    stray = [dg.error(f"{out}/{p}", Code.STALE, "not written by a build: stray file") for p in cmp.extra]
    if not differ or result.artifacts is None:
        return stray
    from ..review.stale import stale_sources  # check only: a build need not import review

    sources = stale_sources(result.config, result.output, result.artifacts)
    if sources:
        return [dg.error(s.path, Code.STALE, f"{s.why}: {out}/ is stale") for s in sources] + stray
    named = [
        dg.error(
            f"{out}/{p}",
            Code.STALE,
            "missing: a build would write it"
            if p in cmp.missing
            else "differs from what a build would write",
        )
        for p in differ[:_MAX_FILES]
    ]
    if len(differ) > _MAX_FILES:
        named.append(dg.error(out, Code.STALE, f"and {len(differ) - _MAX_FILES} more file(s) differ"))
    return named + stray


def _repair(cmp: Comparison) -> str:
    """The build that repairs the output: an object changed in place keeps its name and its folder's
    stat data, which is all the cache's no-op and edit paths look at (docs/cache.md), so only a
    build without the cache rewrites it."""
    return "skillc build --no-cache" if any(map(is_object, cmp.changed)) else "skillc build"


@click.command()
@reporting
@WATCH
def check(
    config_path: Path | None,
    strict: bool | None,
    skip_invalid: bool | None,
    verbose: bool,
    fmt: str,
    ignore: tuple[str, ...],
    watch: bool,
) -> int:
    """CI: fail if the output directory is stale or invalid. Writes nothing."""
    found = find_config(config_path)
    settings = (strict, skip_invalid, verbose, ignore)
    if watch:
        from . import watch as watching

        return watching.loop(lambda _changed: _check(found, settings, fmt), found)
    return _check(found, settings, fmt)


def _check(config_path: Path, settings: Settings, fmt: str) -> int:
    result, cmp = pipeline.check(config_path, options(*settings))
    if cmp is None or isinstance(result, pipeline.ConfigFailed) or result.artifacts is None:
        emit(result.diagnostics, quiet=True, fmt=fmt)
        say(fmt, "skillc: check failed: the sources do not compile")
        return 1
    out = result.config.output
    # The output is compared byte for byte with what a build would write, and a build's own output
    # matches the index schema (the tests hold every build to it), so a current output is a valid one.
    stale = _stale(result, cmp)
    emit((*result.diagnostics, *stale), quiet=True, fmt=fmt)
    if stale:
        files = len(cmp.missing) + len(cmp.changed) + len(cmp.extra)
        foreign = " (move out the files a build did not write: it refuses them)" if cmp.extra else ""
        say(
            fmt,
            f"skillc: {out}/ is stale ({files} file(s) differ); run `{_repair(cmp)}` and commit it{foreign}",
        )
        return 1
    if cmp.extra_objects:
        say(
            fmt,
            f"skillc: note: {len(cmp.extra_objects)} unreferenced object(s) from earlier builds; "
            "`skillc build --prune` removes them",
        )
    say(fmt, f"skillc: {out}/ is current (build {result.artifacts.build_hash[:12]})")
    return 0
