"""The skillc command line: a thin layer over the pipeline, the reader and review.

Each command lives in a module by what it does (build.py, explain.py, review.py, project.py);
boundary.py is the one place failures become messages and exit codes.
"""

from __future__ import annotations

import atexit
import gc
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .group import cli as cli

GC_THRESHOLD = (50_000, 20, 100)

# What keeps a `build` from using the cache's quick path, or from running at all.
_NOT_EARLY = frozenset({"--no-cache", "--watch", "-h", "--help", "--version", "-o", "--output"})


def __getattr__(name: str) -> Any:
    if name == "cli":  # the click group, imported when asked for (`main` starts a build before it)
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    # A build allocates hundreds of thousands of long-lived objects and frees
    # little; the default gen-0 threshold (700) rescans them thousands of times.
    # Measured at 10,000 skills: 7% faster, same peak memory. CLI process only (bench/ sets it too).
    gc.set_threshold(*GC_THRESHOLD)
    args = sys.argv[1:] if argv is None else argv
    try:  # a Ctrl-C while the lstats start or click and the stages are imported: 130, no traceback
        _start(args)
        named = _plain(args)
        from .boundary import contained, guarded

        if named is None:
            from .group import cli
    except KeyboardInterrupt:
        from .boundary import interrupted

        interrupted()
    try:
        if named is None:
            guarded(lambda: cli.main(args=argv, prog_name="skillc"))
        else:
            from . import building

            guarded(lambda: contained(lambda: building.plain(named[0])))
    finally:
        if "skillc.incremental.quick" in sys.modules:  # a build that never asked for what `_start` began
            sys.modules["skillc.incremental.quick"].discard()


def _plain(argv: list[str]) -> tuple[str | None] | None:
    """For `skillc build`, `skillc build --config FILE` and `skillc build --config=FILE`, the file
    named (None: none): a build with every other option at its default, which `main` runs without
    importing click (a twentieth of an edit build's time; building.plain). None for any other
    command line, which click parses: an option, a folder or nothing named by --config (click says
    why); and on Windows, where click expands `~`, variables and globs in the arguments, or when
    click's shell completion asks (its variable set)."""
    if os.name == "nt" or "_SKILLC_COMPLETE" in os.environ:
        return None
    if argv == ["build"]:
        return (None,)
    if len(argv) == 3 and argv[:2] == ["build", "--config"]:
        named = argv[2]
    elif len(argv) == 2 and argv[0] == "build" and argv[1].startswith("--config="):
        named = argv[1].partition("=")[2]
    else:
        return None
    return (named,) if named and not named.startswith("-") and _file_or_nothing(named) else None


def _file_or_nothing(named: str) -> bool:
    """Whether click's `--config` type takes this path as it is: nothing there, or something
    readable that is not a folder (else it is a usage error, said by click)."""
    try:
        found = os.stat(named)
    except OSError:
        return True
    return not stat.S_ISDIR(found.st_mode) and os.access(named, os.R_OK)


def _start(argv: list[str]) -> None:
    """For `skillc build`, the cache's lstats begun before click and the stages are imported
    (incremental/quick.py `start`): a forked child takes them while this process imports. The config
    is told from the command line without parsing it (the last `--config`, else the one `find_config`
    finds from here); the quick path takes what was begun only for the same cache and paths."""
    if "build" not in argv or not _NOT_EARLY.isdisjoint(argv):
        return
    named = None
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            named = argv[i + 1]
        elif arg.startswith("--config="):
            named = arg.partition("=")[2]
    from ..incremental import quick

    try:
        here = Path(os.getcwd())
        if named is None:
            from ..project.init import find_config

            found = find_config(here)
        else:
            found = here / named
        if found is not None:
            quick.start(found)
    except Exception:  # a guess only: the build itself says what is wrong
        quick.discard()


def run() -> None:
    """The `skillc` command (the console script and `python -m skillc`): `main`, then out without
    Python's teardown. A build leaves hundreds of thousands of objects that the interpreter would
    free one by one and modules it would take apart: 10-20 ms of an edit build's 300. The exit
    handlers still run (a process pool's joins its workers), and the streams are flushed."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):  # a message to print: Python's own exit says it
        raise SystemExit(code)
    atexit._run_exitfuncs()  # what Python's own exit runs before its teardown
    from .boundary import exit_now

    exit_now(code or 0)
