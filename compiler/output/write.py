"""Write stage: put Artifacts on disk atomically, under a lock.

A complete new tree is written next to the old one, then the two are swapped
with renameat2(RENAME_EXCHANGE), so at every instant the output directory is
either the old build or the new one. Object files are never rewritten: a
still-valid object is hard-linked from the previous build.

The output is replaced wholesale, so skillc replaces only a directory it wrote
itself: every build writes the marker file `.skillc-dist` into it, and an
existing, non-empty output without the marker is refused (`ownership_problem`),
as is one holding a file skillc did not write (ownership.py).
Nothing here follows a symlink planted where skillc writes: there is no lock
file (the lock is an flock on the output's parent directory), temporary trees
get fresh random names and are removed with fs.remove_tree (which unlinks a
symlink instead of following it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .. import fs
from ..errors import OutputRefused
from ..format.layout import INDEX, OBJECTS, PERSONAS, is_object
from ..format.layout import OUTPUT_MARKER as MARKER
from ..format.layout import OUTPUT_MARKER_TEXT as MARKER_TEXT
from ..model import Artifacts
from .ownership import foreign_files

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
# An output written before the marker existed: only these names, and an index skillc wrote.
_LEGACY_NAMES = frozenset({INDEX, PERSONAS, OBJECTS})
# Index heads of builds that may lack the marker (format 1 predates it; format 2 keeps the same head).
_LEGACY_HEADS = (b'{\n  "format": 1,\n  "generator": "skillc ', b'{\n  "format": 2,\n  "generator": "skillc ')


@dataclass(frozen=True)
class Comparison:
    missing: tuple[str, ...]
    changed: tuple[str, ...]
    extra: tuple[str, ...]  # files a build would not write (objects excluded)
    extra_objects: tuple[str, ...]  # objects of earlier builds, kept unless --prune

    @property
    def current(self) -> bool:
        return not (self.missing or self.changed or self.extra)


@dataclass(frozen=True)
class WriteResult:
    written: bool
    pruned: int


def compare(dist: Path, art: Artifacts, known: Mapping[str, list[int]] | None = None) -> Comparison:
    """What differs between dist and art, byte for byte.

    known: stat data of the files the last build left (the build cache's record). An object whose
    stat data is still those is taken as unchanged without reading it, as a no-op build takes every
    file: its name is its content's hash, so the bytes that build wrote are the bytes art holds.
    """
    stats = (fs.scan_tree(dist) or {}) if dist.is_dir() else {}
    present = set(stats)
    known = known or {}
    missing = tuple(p for p in art.files if p not in present)
    changed = tuple(
        p
        for p in art.files
        if p in present
        and not (p in art.objects and known.get(p) == stats[p])
        and not _same(dist / p, art.files[p], p in art.objects)
    )
    extra = sorted(present - set(art.files))
    return Comparison(
        missing,
        changed,
        tuple(p for p in extra if not is_object(p)),
        tuple(p for p in extra if is_object(p)),
    )


def _same(path: Path, data: bytes, is_object: bool) -> bool:
    """The file holds exactly data. A regular file only, never through a symlink, and never more
    than one byte past data's size is read: a committed output may hold a FIFO or a link to /dev/zero."""
    try:
        return fs.read_regular(path, len(data), follow=False) == data
    except OSError:
        return False


def ownership_problem(dist: Path) -> str | None:
    """Why skillc must not replace dist, or None: absent, empty, or marked as skillc's output."""
    try:
        st = os.lstat(dist)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be inspected: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink; skillc writes only a real directory"
    if not stat.S_ISDIR(st.st_mode):
        return "exists and is not a directory"
    try:
        names = os.listdir(dist)
    except OSError as exc:
        return f"cannot be listed: {exc.strerror}"
    if not names or _marked(dist) or _legacy_output(dist, names):
        return None
    return (
        f"exists and was not written by skillc (no {MARKER} file in it); skillc replaces its output "
        "wholesale and will not delete files it did not write: empty or remove it, or choose another output"
    )


def _marked(dist: Path) -> bool:
    try:
        return fs.read_regular(dist / MARKER, len(MARKER_TEXT), follow=False) == MARKER_TEXT
    except OSError:
        return False


def _legacy_output(dist: Path, names: list[str]) -> bool:
    """An output of a skillc from before the marker: nothing but what a build writes, and its index."""
    if not set(names) <= _LEGACY_NAMES or INDEX not in names:
        return False
    try:
        return fs.read_head(dist / INDEX, len(_LEGACY_HEADS[0]), follow=False) in _LEGACY_HEADS
    except OSError:
        return False


@contextmanager
def lock(dist: Path) -> Iterator[None]:
    """Serialise builds of the same output directory (a second build waits).

    The lock is an flock on the directory that holds the output, the one the
    swap renames in: no lock file exists, so none can be committed by
    accident, and none can be planted (a symlink, a FIFO) to make a build
    write or block elsewhere.
    """
    fd = os.open(dist.parent, os.O_RDONLY | fs.O_DIRECTORY | fs.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write(
    dist: Path, art: Artifacts, *, prune: bool = False, known: Mapping[str, list[int]] | None = None
) -> WriteResult:
    """Raises OutputRefused (nothing touched) or OSError (the old output intact).

    known: see compare."""
    dist.parent.mkdir(parents=True, exist_ok=True)
    with lock(dist), fs.interrupt_deferred():
        problem = ownership_problem(dist)  # again under the lock: the early checks are advice
        foreign = foreign_files(dist, art)
        if problem or foreign:
            raise OutputRefused(problem or f"holds {dist.name}/{foreign[0]}, which skillc did not write")
        recover(dist)
        cmp = compare(dist, art, known)
        if cmp.current and not (prune and cmp.extra_objects):
            return WriteResult(False, 0)
        tmp = dist.parent / f".{dist.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            verified = frozenset(art.objects) - set(cmp.missing) - set(cmp.changed)
            _fill(tmp, dist, art, () if prune else cmp.extra_objects, verified)
            swap(tmp, dist)
        finally:
            fs.remove_tree(tmp)
        return WriteResult(True, len(cmp.extra_objects) if prune else 0)


def _fill(tmp: Path, dist: Path, art: Artifacts, keep: tuple[str, ...], verified: frozenset[str]) -> None:
    """verified: old objects that compare read and found byte-identical (found by a walk that follows
    no symlink); only those are reused, so a damaged object, or one behind a planted link, never is."""
    os.mkdir(tmp)  # never an existing directory or a planted symlink: the name is new
    made: set[str] = set()  # directories created in tmp (strings, not Paths: 15,000 files at 10,000 skills)

    def target(rel: str) -> str:
        parent = rel.rpartition("/")[0]
        if parent and parent not in made:
            os.makedirs(os.path.join(tmp, parent), exist_ok=True)
            made.add(parent)
        return os.path.join(tmp, rel)

    for rel, data in art.files.items():
        new = target(rel)
        if rel in verified and _link(os.path.join(dist, rel), new, len(data)):
            continue
        _put(new, data)
    for rel in keep:
        _link(os.path.join(dist, rel), target(rel), None)


def _put(path: str, data: bytes) -> None:
    """One new file of the tree being filled (the tests make it fail midway)."""
    with open(path, "wb") as f:
        f.write(data)


def _link(old: str, new: str, size: int | None) -> bool:
    """Reuse an existing object file instead of writing it again: a regular file, never a symlink."""
    try:
        st = os.lstat(old)
        if not stat.S_ISREG(st.st_mode) or (size is not None and st.st_size != size):
            return False
        os.link(old, new, follow_symlinks=False)
        return True
    except OSError:
        try:
            _put(new, fs.read_regular(old, st.st_size, follow=False))
            return True
        except (OSError, UnboundLocalError):
            return False


def swap(tmp: Path, dist: Path) -> None:
    """Put the complete tree tmp at dist: one atomic exchange where the system has it (output/export.py too)."""
    if not os.path.lexists(dist):
        os.rename(tmp, dist)
        return
    if _exchange(tmp, dist):
        return
    # No atomic exchange here (not Linux): two renames, repaired by _recover.
    old = dist.parent / f".{dist.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
    os.rename(dist, old)
    os.rename(tmp, dist)
    fs.remove_tree(old)


def _exchange(a: Path, b: Path) -> bool:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc: int = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def recover(dist: Path) -> None:
    """Undo what a build killed mid-swap (two-rename fallback) or mid-write left behind."""
    olds = sorted(dist.parent.glob(f".{dist.name}.old-*"))
    real = [p for p in olds if _is_real_dir(p)]  # a planted symlink is never moved into place
    if not os.path.lexists(dist) and real:
        os.rename(real[-1], dist)
        olds.remove(real[-1])
    for leftover in [*olds, *dist.parent.glob(f".{dist.name}.tmp-*")]:
        fs.remove_tree(leftover)
