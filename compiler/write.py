"""Write stage: put Artifacts on disk atomically, under a lock.

A complete new tree is written next to the old one, then the two are swapped
with renameat2(RENAME_EXCHANGE), so at every instant the output directory is
either the old build or the new one. Object files are never rewritten: a
still-valid object is hard-linked from the previous build.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .model import Artifacts

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@dataclass(frozen=True)
class Comparison:
    missing: tuple[str, ...]
    changed: tuple[str, ...]
    extra: tuple[str, ...]          # files a build would not write (objects excluded)
    extra_objects: tuple[str, ...]  # objects of earlier builds, kept unless --prune

    @property
    def current(self) -> bool:
        return not (self.missing or self.changed or self.extra)


@dataclass(frozen=True)
class WriteResult:
    written: bool
    pruned: int


def scan(dist: Path) -> dict[str, list[int]] | None:
    """path -> [size, mtime_ns] of every file below dist; None if it cannot be walked."""
    found: dict[str, list[int]] = {}
    stack = [("", str(dist))]
    try:
        while stack:
            rel, path = stack.pop()
            with os.scandir(path) as it:
                for entry in it:
                    name = f"{rel}{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((name + "/", entry.path))
                    else:
                        st = entry.stat(follow_symlinks=False)
                        found[name] = [st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    return found


def existing_files(dist: Path) -> tuple[str, ...]:
    """Every file below dist, sorted; () when there is no readable dist."""
    return tuple(sorted(scan(dist) or ())) if dist.is_dir() else ()




def compare(dist: Path, art: Artifacts) -> Comparison:
    present = set(existing_files(dist))
    missing = tuple(p for p in art.files if p not in present)
    changed = tuple(p for p in art.files if p in present and not _same(dist / p, art.files[p], p in art.objects))
    extra = sorted(present - set(art.files))
    return Comparison(
        missing, changed,
        tuple(p for p in extra if not p.startswith("objects/")),
        tuple(p for p in extra if p.startswith("objects/")),
    )


def _same(path: Path, data: bytes, is_object: bool) -> bool:
    try:
        if is_object and path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


@contextmanager
def lock(dist: Path) -> Iterator[None]:
    """Serialise builds of the same output directory (a second build waits)."""
    dist.parent.mkdir(parents=True, exist_ok=True)
    with open(dist.parent / f".{dist.name}.lock", "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def write(dist: Path, art: Artifacts, *, prune: bool = False) -> WriteResult:
    with lock(dist):
        _recover(dist)
        cmp = compare(dist, art)
        if cmp.current and not (prune and cmp.extra_objects):
            return WriteResult(False, 0)
        tmp = dist.parent / f".{dist.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _fill(tmp, dist, art, () if prune else cmp.extra_objects, frozenset(cmp.changed))
            _swap(tmp, dist)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return WriteResult(True, len(cmp.extra_objects) if prune else 0)


def _fill(tmp: Path, dist: Path, art: Artifacts, keep: tuple[str, ...], damaged: frozenset[str]) -> None:
    """damaged: old files whose bytes differ from what they should be; never reused."""
    tmp.mkdir(parents=True)
    for rel, data in art.files.items():
        target = tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        old = dist / rel
        if rel in art.objects and rel not in damaged and _link(old, target, len(data)):
            continue
        target.write_bytes(data)
    for rel in keep:
        target = tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        _link(dist / rel, target, None)


def _link(old: Path, new: Path, size: int | None) -> bool:
    """Reuse an existing object file instead of writing it again."""
    try:
        if size is not None and old.stat().st_size != size:
            return False
        os.link(old, new)
        return True
    except OSError:
        try:
            shutil.copyfile(old, new)
            return True
        except OSError:
            return False


def _swap(tmp: Path, dist: Path) -> None:
    if not dist.exists():
        os.rename(tmp, dist)
        return
    if _exchange(tmp, dist):
        return
    # No atomic exchange here (not Linux): two renames, repaired by _recover.
    old = dist.parent / f".{dist.name}.old-{os.getpid()}"
    os.rename(dist, old)
    os.rename(tmp, dist)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


def _recover(dist: Path) -> None:
    """Undo what a build killed mid-swap (two-rename fallback) or mid-write left behind."""
    olds = sorted(dist.parent.glob(f".{dist.name}.old-*"))
    if not dist.exists() and olds:
        os.rename(olds[-1], dist)
        olds = olds[:-1]
    for leftover in [*olds, *dist.parent.glob(f".{dist.name}.tmp-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
