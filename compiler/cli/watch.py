"""`build --watch` and `check --watch`: run the command again whenever an input changes.

What is watched follows the config, read again after every run: every file the last run read or
looked for on the config's side (the config, `pyproject.toml` beside it, the template and each file
it includes, imports or extends, the ignore files above the walked roots, up to the repository's
top: project/config.py `side_files`), the sources and the personas folder. The output directory,
`.skillc-cache/` and `.git/` are never watched, so a build's own writes cannot trigger the next one.

File-system notifications come from `watchfiles` (the optional extra `skillc[watch]`; it has a
compiled part, hence optional), for the sources, the personas folder and the project's folder.
A watched file outside them (an ignore file above the project, in a monorepo) is not worth a
recursive watch of the whole repository: it is stat-ed each time the notifier times out (every
_READY_MS). Without watchfiles, or with SKILLC_WATCH_POLL=1 (network file systems, containers
where inotify does not reach), the inputs are polled: a stat walk every half second.
Either way a burst of saves (an editor writing a temporary file, then renaming it) gives one run:
the run starts once the inputs have been quiet for DEBOUNCE_MS.

Bad input mid-edit is a run that reports errors, never the end of the watch: each run is a whole
command under its own error boundary. Ctrl-C ends the watch through the CLI's boundary (exit 130);
the write stage is atomic, so an interrupted build leaves the previous output in place.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..dataclass import dataclass
from ..diagnostics import printable
from ..errors import SkillcError
from ..format.errors import ReaderError

if TYPE_CHECKING:
    from ..model import Config

DEBOUNCE_MS = 30  # quiet time before a run: editors save in bursts of a few events, within milliseconds
POLL_SECONDS = 0.5
_READY_MS = 200  # the notifier's first timeout: it is watching by then
_MAX_WAIT_MS = 2000  # a run starts after this long even if the inputs never go quiet
_SKIPPED_DIRS = frozenset({".git", ".skillc-cache"})


@dataclass(frozen=True)
class Plan:
    """What to watch: folders walked whole, single files, and folders never entered."""

    folders: tuple[Path, ...]
    files: tuple[Path, ...]
    excluded: tuple[Path, ...]

    def wants(self, path: Path) -> bool:
        """Whether a changed path is an input: inside a watched folder or a watched file, and in no
        excluded folder (the output) nor a skipped one (.git, the cache)."""
        if any(part in _SKIPPED_DIRS for part in path.parts):
            return False
        if any(path == ex or ex in path.parents for ex in self.excluded):
            return False
        return path in self.files or any(path == f or f in path.parents for f in self.folders)


def plan_for(config_path: Path) -> Plan:
    """The inputs the config names; just the config file when it cannot be read (mid-edit)."""
    from ..project import config as config_mod  # the watch pays for it once per run, not per poll

    config_file = config_path.resolve()
    try:
        config, _ = config_mod.load(config_file)
    except SkillcError:
        config = None
    if config is None:
        return Plan((), (config_file,), ())
    folders = [config.source_dir(i).resolve() for i in range(len(config.sources))]
    if config.personas:
        folders.append((config.root / config.personas).resolve())
    if config.knowledge:
        folders.append((config.root / config.knowledge).resolve())
    files = (config_file, *_config_side(config))
    return Plan(
        tuple(sorted(set(folders))), tuple(dict.fromkeys(files)), ((config.root / config.output).resolve(),)
    )


def _config_side(config: Config) -> list[Path]:
    """What a build reads or looks for besides its inputs, as the cache's quick path watches it:
    the template with what it includes, and the ignore files above the walked roots (not `.git`,
    which the watch never looks into)."""
    from ..project.config import side_files
    from ..stages.template import load_template

    template, _ = load_template(config)  # None when broken: the template alone, until it loads
    listed = side_files(config, template.source if template is not None else b"")
    return [Path(p).resolve() for p in listed if Path(p).name != ".git"]


def loop(run: Callable[[list[Path] | None], int], config_path: Path) -> int:
    """Run, then run again after every change, until Ctrl-C (KeyboardInterrupt reaches the boundary).
    `run` is given the paths that changed (None the first time; empty when they are not known)."""
    changed: list[Path] | None = None
    notifier = _Notifier(config_path)
    while True:
        _guarded(run, changed)
        plan = plan_for(config_path)
        changed = notifier.next_change(plan) if notifier.available() else _polled(plan)
        click.echo(f"\nskillc: {_describe(changed)}; running again", err=True)


def _ready() -> None:
    """Said once the watch is in place, so a change made after this line is never missed."""
    click.echo("skillc: watching for changes (Ctrl-C to stop)", err=True)


def _guarded(run: Callable[[list[Path] | None], int], changed: list[Path] | None) -> None:
    """One run under the same rules as the CLI's boundary, except that the watch goes on."""
    try:
        run(changed)
    except SystemExit:  # a command that leaves through sys.exit still only ends this run
        pass
    except (SkillcError, ReaderError) as exc:
        click.echo(printable(f"skillc: error: {exc}"), err=True)
    except click.ClickException as exc:
        exc.show()


def _describe(changed: list[Path]) -> str:
    if not changed:
        return "inputs changed"
    first = os.path.relpath(changed[0])
    more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
    return f"{first}{more} changed"


class _Notifier:
    """File-system notifications (watchfiles), one watcher kept from run to run: what changes while a
    run builds waits in the watcher for the next wait, so no change falls between two runs, and a
    run is followed by neither a new watcher over every folder nor a stat walk of every input. A
    new one is made only when the config names other folders."""

    def __init__(self, config_path: Path) -> None:
        self.config_path = config_path
        self.plan: Plan | None = None
        self.roots: tuple[str, ...] = ()
        self.batches: Generator[set[tuple[Any, str]], None, None] | None = None
        # The watched files below no root, stat-ed at each timeout; their state as the last run
        # began, so a change made while it ran is the next run's
        self.outside: dict[Path, _State] = {}

    @staticmethod
    def available() -> bool:
        if os.environ.get("SKILLC_WATCH_POLL"):
            return False
        try:
            import watchfiles  # noqa: F401  (optional: the skillc[watch] extra)
        except ImportError:
            return False
        return True

    def next_change(self, plan: Plan) -> list[Path]:
        """Block until an input changes and the burst is over; the changed paths, sorted."""
        self.plan = plan  # the filter reads the latest plan
        roots = self._roots(plan)
        outside = [
            f for f in plan.files if not any(Path(r) == f.parent or Path(r) in f.parents for r in roots)
        ]
        self.outside = {f: self.outside[f] if f in self.outside else _state(f) for f in outside}
        if self.batches is None or roots != self.roots:
            changed = self._start(plan, roots)
        else:
            _ready()
            changed = self._wait()
        self.outside = {f: _state(f) for f in self.outside}  # as the run that follows begins
        return changed

    def _roots(self, plan: Plan) -> tuple[str, ...]:
        # The config's folder is watched too: an editor replaces the config by a rename, which a watch
        # on the file itself would lose; `plan.wants` keeps only the inputs.
        roots = {str(p) for p in plan.folders if p.exists()} | {str(self.config_path.resolve().parent)}
        return tuple(sorted(roots))

    def _moved_outside(self) -> list[Path]:
        return sorted(f for f, was in self.outside.items() if _state(f) != was)

    def _start(self, plan: Plan, roots: tuple[str, ...]) -> list[Path]:
        """A new watcher. It says nothing when it is in place; its first timeout is the sign. What
        changed between the snapshot and then is found by comparing snapshots, so no edit falls in
        the gap."""
        import watchfiles

        if self.batches is not None:
            self.batches.close()  # its watcher stops
        before = _snapshot(plan)
        self.roots = roots
        self.batches = watchfiles.watch(
            *roots,
            watch_filter=lambda _change, path: self.plan is not None and self.plan.wants(Path(path)),
            debounce=_MAX_WAIT_MS,
            step=DEBOUNCE_MS,
            rust_timeout=_READY_MS,
            yield_on_timeout=True,
        )
        batch = next(self.batches, None)
        if batch is None:  # the generator ends only when stopped: treat it as a change and run again
            self.batches = None
            return []
        changed = _paths(batch) | set(_difference(before, _snapshot(plan)))
        if changed:
            return sorted(changed)
        _ready()  # the watcher was in place before the snapshot: nothing is missed from here on
        return self._wait()

    def _wait(self) -> list[Path]:
        assert self.batches is not None
        for batch in self.batches:
            if batch:
                return sorted(_paths(batch))
            moved = self._moved_outside()  # an empty batch is the notifier's timeout
            if moved:
                return moved
        self.batches = None
        return []


def _paths(batch: set[tuple[Any, str]]) -> set[Path]:
    return {Path(path) for _change, path in batch}


def _polled(plan: Plan) -> list[Path]:
    before = _snapshot(plan)
    _ready()
    while True:
        time.sleep(POLL_SECONDS)
        now = _snapshot(plan)
        if now != before:
            break
    deadline = time.monotonic() + _MAX_WAIT_MS / 1000
    while time.monotonic() < deadline:  # wait for the burst to end
        time.sleep(DEBOUNCE_MS / 1000)
        settled = _snapshot(plan)
        if settled == now:
            break
        now = settled
    return _difference(before, now)


def _difference(
    before: dict[Path, tuple[int, int, int, int]], now: dict[Path, tuple[int, int, int, int]]
) -> list[Path]:
    return sorted(p for p in set(before) | set(now) if before.get(p) != now.get(p))


def _snapshot(plan: Plan) -> dict[Path, tuple[int, int, int, int]]:
    """Stat data of every watched file: size, mtime, ctime and inode, as the build cache compares."""
    found: dict[Path, tuple[int, int, int, int]] = {}
    for path in plan.files:
        _stat_into(found, path)
    for folder in plan.folders:
        for path in _files_below(folder, plan):
            _stat_into(found, path)
    return found


_State = tuple[int, int, int, int] | None  # a file's stat data, None when it is not there


def _state(path: Path) -> _State:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _stat_into(found: dict[Path, tuple[int, int, int, int]], path: Path) -> None:
    state = _state(path)
    if state is not None:
        found[path] = state


def _files_below(folder: Path, plan: Plan) -> Iterator[Path]:
    """Every file below folder, symlinked folders not entered (no loops), the excluded ones skipped."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if entry.name not in _SKIPPED_DIRS and path not in plan.excluded:
                yield from _files_below(path, plan)
        elif not entry.is_symlink() or _is_file(path):
            yield path


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False
