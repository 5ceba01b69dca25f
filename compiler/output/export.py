"""Write an export (targets/export.py's files) into its folder atomically, and only a folder of ours.

Like a build's output (write.py), the folder is replaced as a whole: a complete new tree is written
beside it and swapped in under the same lock, so a failure or a crash leaves the previous export
as it was. The marker file an export writes (`.skillc-export.json`) lists every file it wrote;
before replacing the folder, every entry in it must be one of those (or the marker), else the
export is refused and nothing is touched. So a file a user added inside an exported folder, a
symlink, or a non-empty folder that no export wrote is never deleted: the export refuses instead.
Editing an exported file is undone by the next export, as editing dist/ is by the next build.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import fs
from ..dataclass import dataclass
from ..errors import OutputRefused
from .write import lock, recover, swap

MARKER = ".skillc-export.json"  # every file an export wrote, with its digest: what makes a folder ours
MAX_MARKER_BYTES = 64 * 1024 * 1024  # a marker lists paths and digests: far below this at 10,000 skills


@dataclass(frozen=True)
class File:
    """One file of an export: its path below the export folder (with "/"), bytes and executable bit."""

    path: str
    data: bytes
    executable: bool = False


def marked(files: Sequence[File], about: Mapping[str, Any]) -> tuple[File, ...]:
    """The files sorted by path, then the marker: `about` (what was exported) and every file's digest.
    No time or machine detail in it, so an export is the same bytes wherever it is made."""
    ordered = sorted(files, key=lambda f: f.path)
    listing = {
        f.path: {"executable": f.executable, "sha256": hashlib.sha256(f.data).hexdigest()} for f in ordered
    }
    doc = json.dumps({**about, "files": listing}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return (*ordered, File(MARKER, doc.encode()))


def write_export(dest: Path, files: Sequence[File]) -> bool:
    """Replace dest by exactly `files` (with their marker, see `marked`); False when it already
    holds them (nothing is rewritten).

    Raises OutputRefused (nothing touched) or OSError (the previous export intact)."""
    unsafe = next((f.path for f in files if not _plain(f.path)), None)
    if unsafe is not None:  # a tampered build's resource path: refused before anything is written
        raise OutputRefused(f"{dest}: refusing to write {unsafe!r}: not a plain path below the folder")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with lock(dest), fs.interrupt_deferred():
        problem = ownership_problem(dest)
        if problem:
            raise OutputRefused(f"{dest}: {problem}")
        recover(dest)
        if _current(dest, files):
            return False
        tmp = dest.parent / f".{dest.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.mkdir(tmp)  # a fresh name: never an existing folder or a planted symlink
            for file in files:
                _put(tmp, file)
            swap(tmp, dest)
        finally:
            fs.remove_tree(tmp)
    return True


def ownership_problem(dest: Path) -> str | None:
    """Why dest must not be replaced, or None: absent, empty, or holding only what an export wrote."""
    try:
        st = os.lstat(dest)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink; skillc exports only into a real directory"
    if not stat.S_ISDIR(st.st_mode):
        return "exists and is not a directory"
    foreign = foreign_entries(dest)
    if not foreign:
        return None
    shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
    return (
        f"holds {len(foreign)} file(s) or folder(s) that skillc did not export ({shown}); skillc never "
        f"deletes or overwrites them: move them out, or export into an empty folder"
    )


def foreign_entries(dest: Path) -> list[str]:
    """Entries below dest (sorted, folders with a trailing /) that the marker does not list.

    A folder no listed file is in is reported whole; a symlink or other non-regular file is
    foreign even at a listed path (it is not what an export writes)."""
    ours = written(dest)
    folders = {path[:i] for path in ours for i, c in enumerate(path) if c == "/"}
    found: list[str] = []
    stack = [("", str(dest))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                name = rel + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if name in folders:
                        stack.append((name + "/", entry.path))
                    else:
                        found.append(name + "/")
                elif name not in ours or not entry.is_file(follow_symlinks=False):
                    found.append(name)
    return sorted(found)


def written(dest: Path) -> set[str]:
    """The files the last export into dest wrote, with its marker; empty when there is no valid marker."""
    try:
        doc = json.loads(fs.read_regular(dest / MARKER, MAX_MARKER_BYTES, follow=False))
    except (OSError, ValueError):
        return set()
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, dict) or not all(isinstance(p, str) for p in files):
        return set()
    return {*files, MARKER}


def _current(dest: Path, files: Sequence[File]) -> bool:
    """dest holds exactly these files, byte for byte, with the same executable bits."""
    present = fs.scan_tree(dest) if dest.is_dir() else None
    if present is None or set(present) != {f.path for f in files}:
        return False
    for file in files:
        executable = bool(present[file.path][4] & stat.S_IXUSR)
        try:
            data = fs.read_regular(dest / file.path, len(file.data), follow=False)
        except OSError:
            return False
        if data != file.data or executable != file.executable:
            return False
    return True


def _plain(path: str) -> bool:
    """A relative path of named parts only: no "", ".", "..", backslash, NUL or drive letter."""
    parts = path.split("/")
    return not (
        path.startswith("/")
        or "\\" in path
        or "\x00" in path
        or any(p in ("", ".", "..") for p in parts)
        or (len(path) > 1 and path[1] == ":")
    )


def _put(root: Path, file: File) -> None:
    """One file of the new tree; modes fixed (0755 or 0644) so exports are alike on every machine."""
    path = root.joinpath(*file.path.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(file.data)
    os.chmod(path, 0o755 if file.executable else 0o644)
