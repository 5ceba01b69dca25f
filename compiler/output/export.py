"""Write an export into a project folder beside the project's own files, owning only what it wrote.

DEST is a project and may hold anything. An export owns what its marker (`.skillc-export.json`)
records for its target: the skill folders it wrote (each whole), the keys it set in the project's
JSON settings files (settings.py merges them in and keeps every other key), and the folders it
made on the way. A re-export of that target takes back only those, and refuses, touching nothing,
when a path it would write or take back belongs to someone else: a skill folder no export of this
target wrote, a file added inside one, a settings key it did not set, a symlink or a file where it
needs a folder. Exports for other targets are other records of the same marker and are left alone.

Everything new is written into a staging folder first; the change is then a few renames under a
journal (journal.py), the marker's last (exportmarker.py): a failure undoes them, a crash is
undone by the next export, and the staging folder is always removed, so no failure leaves
anything behind. Before it starts, every folder the export would remove is checked to be removable.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from .. import fs
from ..dataclass import dataclass
from ..errors import OutputRefused, SkillcError
from . import journal
from .exportmarker import MARKER, Record, marker_bytes, read_marker
from .settings import Held, Setting, merge

STAGE_PREFIX = ".skillc-export.tmp-"  # a staging folder in DEST while an export is written
MAX_SETTINGS_BYTES = 16 * 1024 * 1024  # a settings file a person writes


@dataclass(frozen=True)
class File:
    """One file of an export: its path below DEST (with "/"), bytes and executable bit."""

    path: str
    data: bytes
    executable: bool = False


@dataclass(frozen=True)
class Export:
    """What one export puts into DEST: whole skill folders (every file in them is in `files`),
    and keys in settings files. `about` (what was exported) goes into the marker as it is."""

    target: str
    about: Mapping[str, Any]
    folders: tuple[str, ...]
    files: tuple[File, ...]
    settings: tuple[Setting, ...] = ()


class ExportLeftBehind(SkillcError):
    """The export is in place, but what it replaced could not all be removed."""


def write_export(dest: Path, export: Export, places: Sequence[tuple[str, Path]] = ()) -> bool:
    """Put `export` into dest; False when dest already holds it (nothing is rewritten).

    `places` are what a build reads or writes (a description and a path each): an export that
    would write into one, or hold one, is refused. Raises OutputRefused (nothing touched),
    OSError (dest as it was) or ExportLeftBehind."""
    _check_paths(export)
    _check_places(dest, export, places)
    made = _make_folder(dest)
    try:
        with _locked(dest), fs.interrupt_deferred():
            journal.recover(dest, STAGE_PREFIX)
            return _write(dest, export)
    except BaseException:
        for folder in reversed(made):  # a DEST this export made and could not fill: gone again
            _rmdir(folder)
        raise


def _write(dest: Path, export: Export) -> bool:
    records = read_marker(dest)
    before = records[export.target][0] if export.target in records else Record()
    needed = _folders_on_the_way(export)
    _check_owned(dest, export, before, needed)
    settings = _merged(dest, export, before)
    record = Record(
        folders=export.folders,
        files=tuple(sorted((f.path, f.executable, _sha(f.data)) for f in export.files)),
        settings=tuple((name, held) for name, (_, _, held) in sorted(settings.items()) if held),
        dirs=tuple(sorted(d for d in needed if d in before.dirs or not os.path.lexists(dest / d))),
    )
    marker = marker_bytes({**records, export.target: (record, export.about)})
    if _current(dest, export, before, settings, marker):
        return False
    _commit(dest, export, before, settings, marker, needed)
    return True


# --- checks before anything is written --------------------------------------------------------------


def _check_paths(export: Export) -> None:
    """Every path plain and below DEST, every file inside one of the export's folders."""
    paths = [*export.folders, *(f.path for f in export.files), *(s.file for s in export.settings)]
    unsafe = next(
        (p for p in paths if not journal.plain(p) or p == MARKER or p.startswith(STAGE_PREFIX)), None
    )
    if unsafe is not None:  # a tampered build's resource path: refused before anything is written
        raise OutputRefused(f"refusing to write {unsafe!r}: not a plain path below the export folder")
    stray = next((f.path for f in export.files if _folder_of(f.path, export.folders) is None), None)
    if stray is not None:
        raise OutputRefused(f"refusing to write {stray!r}: not inside a skill folder of the export")


def _check_places(dest: Path, export: Export, places: Sequence[tuple[str, Path]]) -> None:
    """A build reads its sources and personas and writes its output and cache: an export into one
    would be compiled by the next build (and serve a persona's exclusive body to every other
    persona) or break it. Refused whether DEST is inside one, or an exported folder holds one."""
    real = Path(os.path.realpath(dest))
    ours = [MARKER, *export.folders, *(s.file for s in export.settings)]
    for what, where in places:
        place = Path(os.path.realpath(where))
        if _inside(real, place):
            raise OutputRefused(f"{dest} is inside {what} ({where}): {_why(what)}; export elsewhere")
        clash = next((p for p in ours if _inside(real / p, place) or _inside(place, real / p)), None)
        if clash is not None:
            raise OutputRefused(
                f"{dest / clash} would overlap {what} ({where}): {_why(what)}; export elsewhere"
            )


def _why(what: str) -> str:
    if what.startswith(("the source", "the personas")):
        return "the next build would compile what the export writes"
    return "a build writes there, and the export would break it or be lost"


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def _folders_on_the_way(export: Export) -> tuple[str, ...]:
    """The folders between DEST and what the export writes (.claude, .claude/skills), shallow first."""
    found = {
        path[:i]
        for path in (*export.folders, *(s.file for s in export.settings))
        for i, c in enumerate(path)
        if c == "/"
    }
    return tuple(sorted(found, key=lambda p: (p.count("/"), p)))


def _check_owned(dest: Path, export: Export, before: Record, needed: Sequence[str]) -> None:
    """Refuse, touching nothing, when a path the export would write or take back is not its own."""
    problems: list[str] = []
    for path in needed:
        kind = _kind(dest / path)
        if kind not in (None, "dir"):
            problems.append(f"{path} ({kind}: skillc writes into real folders only)")
    marker = _kind(dest / MARKER)
    if marker not in (None, "file"):
        problems.append(f"{MARKER} ({marker})")
    listed = {p for p, _, _ in before.files}
    for folder in sorted({*export.folders, *before.folders}):
        kind = _kind(dest / folder)
        if kind is None:
            continue
        if folder not in before.folders:
            problems.append(f"{folder}/ (no export for this target wrote it)")
        elif kind != "dir":
            problems.append(f"{folder} ({kind})")
        else:
            problems += _foreign_in(dest, folder, listed)
    for name in sorted({s.file for s in export.settings} | {n for n, _ in before.settings}):
        kind = _kind(dest / name)
        if kind not in (None, "file"):
            problems.append(f"{name} ({kind}: skillc merges its keys into a regular file only)")
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise OutputRefused(
            f"{dest}: {len(problems)} path(s) the export would write or replace are not its own: {shown}. "
            "skillc never deletes or overwrites what it did not write: move them, or export elsewhere"
        )
    _check_removable(dest, before)


def _foreign_in(dest: Path, folder: str, listed: set[str]) -> list[str]:
    """Entries of one exported folder the marker does not list (a folder no listed file is in is
    named whole; a symlink or other non-regular file is foreign even at a listed path)."""
    holding = {p[:i] for p in listed if p.startswith(folder + "/") for i, c in enumerate(p) if c == "/"}
    found, stack = [], [folder]
    while stack:
        rel = stack.pop()
        with os.scandir(dest / rel) as entries:
            for entry in entries:
                name = f"{rel}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    if name in holding:
                        stack.append(name)
                    else:
                        found.append(name + "/ (not written by the export)")
                elif name not in listed or not entry.is_file(follow_symlinks=False):
                    found.append(f"{name} (not written by the export)")
    return sorted(found)


def _check_removable(dest: Path, before: Record) -> None:
    """Every folder the last export wrote must be one this process can remove, or the export would
    be half made: checked before anything changes (a read-only folder, an immutable file)."""
    for folder in before.folders:
        if _kind(dest / folder) != "dir":
            continue
        for rel in [folder, *_subfolders(dest, folder)]:
            if not os.access(dest / rel, os.W_OK | os.X_OK):
                raise OutputRefused(
                    f"{dest / rel}: the last export's folder cannot be removed (no write permission); "
                    "nothing was changed: make it writable, or remove it yourself"
                )


def _subfolders(dest: Path, folder: str) -> Iterator[str]:
    stack = [folder]
    while stack:
        rel = stack.pop()
        with os.scandir(dest / rel) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(f"{rel}/{entry.name}")
                    yield stack[-1]


def _kind(path: Path) -> str | None:
    """None when absent; "dir", "file", else what it is (a symlink, a FIFO...)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return fs.kind(mode)


# --- settings ---------------------------------------------------------------------------------------


def _merged(
    dest: Path, export: Export, before: Record
) -> dict[str, tuple[bytes | None, bytes | None, Held | None]]:
    """Per settings file: its bytes now, its bytes after the export (None: absent), what the
    export then holds in it."""
    out = {}
    for name in sorted({s.file for s in export.settings} | {n for n, _ in before.settings}):
        current = _read_settings(dest, name)
        edits = [s for s in export.settings if s.file == name]
        out[name] = (current, *merge(name, current, before.held(name), edits))
    return out


def _read_settings(dest: Path, name: str) -> bytes | None:
    try:
        return fs.read_regular(dest / name, MAX_SETTINGS_BYTES, follow=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputRefused(
            f"{dest / name}: {exc.strerror or exc}: skillc cannot merge its keys into it"
        ) from None


# --- writing ----------------------------------------------------------------------------------------


def _current(
    dest: Path,
    export: Export,
    before: Record,
    settings: Mapping[str, tuple[bytes | None, bytes | None, Held | None]],
    marker: bytes,
) -> bool:
    """dest already holds exactly this export: files, bits, settings and marker."""
    if set(before.folders) != set(export.folders) or any(now != new for now, new, _ in settings.values()):
        return False
    try:
        if fs.read_regular(dest / MARKER, len(marker) + 1, follow=False) != marker:
            return False
    except OSError:
        return False
    recorded = {p: (x, h) for p, x, h in before.files}
    for file in export.files:  # the folders hold only listed files (_check_owned), so these suffice
        if recorded.get(file.path) != (file.executable, _sha(file.data)):
            return False
        try:
            st = os.lstat(dest / file.path)
            data = fs.read_regular(dest / file.path, len(file.data) + 1, follow=False)
        except OSError:
            return False
        if data != file.data or bool(st.st_mode & stat.S_IXUSR) != file.executable:
            return False
    return len(recorded) == len(export.files)


def _commit(
    dest: Path,
    export: Export,
    before: Record,
    settings: Mapping[str, tuple[bytes | None, bytes | None, Held | None]],
    marker: bytes,
    needed: Sequence[str],
) -> None:
    name = f"{STAGE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    with journal.staging(dest, name) as stage:
        steps = journal.Journal(dest, stage, f"{name}/marker")
        for sub in ("new", "old", "settings", "keep"):
            os.mkdir(stage / sub)
        for path in needed:
            if not os.path.lexists(dest / path):
                steps.mkdir(path)
        for i, folder in enumerate(before.folders):
            if os.path.lexists(dest / folder):
                steps.rename(folder, f"{name}/old/{i}")
        for i, folder in enumerate(export.folders):
            _fill(stage / "new" / str(i), folder, export.files)
            steps.rename(f"{name}/new/{i}", folder)
        for i, (file, (now, new, _)) in enumerate(sorted(settings.items())):
            if now == new:
                continue
            if now is not None:
                steps.link(file, f"{name}/keep/{i}")
            if new is None:
                steps.rename(file, f"{name}/settings/{i}")
            else:
                _put(stage / "settings" / str(i), new, False)
                steps.rename(f"{name}/settings/{i}", file)
        for path in sorted(set(before.dirs) - set(needed), key=lambda p: (-p.count("/"), p)):
            steps.rmdir(path)
        if os.path.lexists(dest / MARKER):
            steps.link(MARKER, f"{name}/keep/marker")
        _put(stage / "marker", marker, False)
        steps.rename(f"{name}/marker", MARKER)
        steps.run()
    if os.path.lexists(dest / name):
        raise ExportLeftBehind(
            f"the export is written, but {dest / name} (what it replaced) could not be removed: remove it"
        )


def _fill(root: Path, folder: str, files: Sequence[File]) -> None:
    """One skill folder of the new export, complete, in the staging folder."""
    os.mkdir(root)
    for file in files:
        if file.path.startswith(folder + "/"):
            path = root.joinpath(*file.path[len(folder) + 1 :].split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            _put(path, file.data, file.executable)


def _put(path: Path, data: bytes, executable: bool) -> None:
    """One new file; modes fixed (0755 or 0644) so exports are alike on every machine."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(path, 0o755 if executable else 0o644)


def _folder_of(path: str, folders: Sequence[str]) -> str | None:
    return next((f for f in folders if path.startswith(f + "/")), None)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _make_folder(dest: Path) -> list[Path]:
    """dest as a real folder (made, with missing parents, when absent); the folders made."""
    kind = _kind(dest)
    if kind == "dir":
        return []
    if kind is not None:
        what = f"{kind}, not a folder" + (
            "; skillc exports only into a real folder" if kind == "a symlink" else ""
        )
        raise OutputRefused(f"{dest} is {what}")
    missing = [*reversed([p for p in dest.parents if not os.path.lexists(p)]), dest]
    for folder in missing:
        os.mkdir(folder)
    return missing


def _rmdir(folder: Path) -> None:
    with suppress(OSError):  # no longer empty: someone else's now
        os.rmdir(folder)


@contextmanager
def _locked(dest: Path) -> Iterator[None]:
    """Exports into one folder take turns: an flock on dest itself (no lock file to plant)."""
    import fcntl

    fd = os.open(dest, os.O_RDONLY | fs.O_DIRECTORY | fs.O_CLOEXEC | fs.O_NOFOLLOW)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
