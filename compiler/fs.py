"""File system primitives for hostile trees: regular files only, bounded reads, no recursion.

Every file skillc reads (sources, personas, config, template, the committed
output it compares against, its cache and key) goes through `read_regular`:
opening a FIFO must not block, a device or a symlink to `/dev/zero` must not
be read to the end, and a file that grows while it is read must not exhaust
memory. Every tree skillc deletes goes through `remove_tree`, which never
follows a symlink and never recurses (shutil.rmtree recurses on Python 3.11,
so a deep tree raised RecursionError).
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# One implementation, shared with the reader (skillc.format.files is stdlib only).
from .format.files import O_CLOEXEC as O_CLOEXEC
from .format.files import O_DIRECTORY as O_DIRECTORY
from .format.files import O_NOFOLLOW as O_NOFOLLOW
from .format.files import O_NONBLOCK as O_NONBLOCK
from .format.files import NotRegular as NotRegular
from .format.files import Replaced as Replaced
from .format.files import TooLarge as TooLarge
from .format.files import kind as kind
from .format.files import read_regular as read_regular


def read_head(path: str | os.PathLike[str], size: int, *, follow: bool = True) -> bytes:
    """The first `size` bytes of a regular file (fewer when it is shorter); NotRegular or OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | O_NONBLOCK | O_CLOEXEC | (0 if follow else O_NOFOLLOW))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(0, f"is {kind(st.st_mode)}, not a regular file", os.fspath(path))
        return os.read(fd, size)
    finally:
        os.close(fd)


def remove_tree(path: str | os.PathLike[str]) -> bool:
    """Delete path and everything below it without following symlinks; True when it is gone.

    Iterative and relative to one directory descriptor at a time, so neither
    the depth of the tree nor the length of its paths matter. A symlink (also
    one planted where a directory was expected) is unlinked, never followed.
    """
    where = os.fspath(path)
    try:
        st = os.lstat(where)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(where)
            return True
        _remove_dir(where)
        return True
    except OSError:
        return not os.path.lexists(where)


def _open_dir(name: str, dir_fd: int | None) -> int:
    return os.open(name, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, dir_fd=dir_fd)


def _remove_dir(where: str) -> None:
    parent = os.open(os.path.dirname(os.path.abspath(where)), os.O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    names = [os.path.basename(os.path.abspath(where))]
    try:
        fd = _open_dir(names[0], parent)
    finally:
        os.close(parent)
    while True:
        child = _empty_or_first_subdir(fd)
        if child is not None:
            try:
                sub = _open_dir(child, fd)
            finally:
                os.close(fd)
            fd = sub
            names.append(child)
            continue
        # Empty: climb to the parent (through "..", so no path is ever built) and remove it there.
        up = os.open("..", os.O_RDONLY | O_DIRECTORY | O_CLOEXEC, dir_fd=fd)
        os.close(fd)
        try:
            os.rmdir(names.pop(), dir_fd=up)
        except OSError:
            os.close(up)
            raise
        if not names:
            os.close(up)
            return
        fd = up


def _empty_or_first_subdir(fd: int) -> str | None:
    """Unlink every non-directory in the directory fd; the name of a subdirectory, if any is left."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            os.unlink(entry.name, dir_fd=fd)
    return None


def ensure_dir(path: str | os.PathLike[str], *, ignore_all: bool = False) -> None:
    """Make a real directory (not through a symlink planted at its name); raise OSError otherwise.

    ignore_all: also keep a `.gitignore` holding `*` in it (as pytest and ruff do
    for their caches), so that a first `git add -A` never commits build state.
    """
    where = os.fspath(path)
    with contextlib.suppress(FileExistsError):
        os.mkdir(where, 0o777)
    st = os.lstat(where)
    if not stat.S_ISDIR(st.st_mode):
        raise NotRegular(
            0, f"is {kind(st.st_mode)}, not a directory; skillc will not write through it", where
        )
    if ignore_all:
        try:
            fd = os.open(
                os.path.join(where, ".gitignore"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW, 0o644
            )
        except FileExistsError:
            return
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"# written by skillc: build state, never committed\n*\n")


def output_stat(st: os.stat_result) -> list[int]:
    """What the build record keeps of an output file, and compares it by: size, mtime_ns, ctime_ns,
    inode, mode (see scan_tree)."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode]


def stat_stands(path: str | Path, want: list[int]) -> bool:
    """The file at `path` still has the stat data recorded as `want` (output_stat, of an lstat);
    False when it cannot be stat'ed."""
    try:
        return output_stat(os.lstat(path)) == want
    except OSError:
        return False


def scan_tree(dist: Path) -> dict[str, list[int]] | None:
    """path -> [size, mtime_ns, ctime_ns, inode, mode] of every file below dist; None if it cannot be walked.

    ctime and inode too: an object edited in place with its mtime set back keeps
    size and mtime, but the write moved its ctime (utime cannot set that back).
    """
    try:
        return {rel: output_stat(entry.stat(follow_symlinks=False)) for rel, entry in _files(dist)}
    except OSError:
        return None


def list_tree(dist: Path) -> list[str] | None:
    """The path of every file below dist (relative, unsorted); None if it cannot be walked. What
    scan_tree finds, without a stat of each file: the folders' entries tell what is a folder."""
    try:
        return [rel for rel, _entry in _files(dist)]
    except OSError:
        return None


def _files(dist: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry below dist that is no folder, by its path relative to dist; raises OSError."""
    stack = [("", str(dist))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((f"{rel}{entry.name}/", entry.path))
                else:
                    yield f"{rel}{entry.name}", entry


@contextmanager
def interrupt_deferred() -> Iterator[None]:
    """Ctrl-C while the output is being written and swapped takes effect once that is done:
    the caller sees KeyboardInterrupt with the complete old or new output in place, no debris.
    A SIGINT that was ignored (a background job's) stays ignored, and one a handler of the
    caller's takes goes to that handler, once the block is done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if not caught or previous == signal.SIG_IGN:
        return
    if callable(previous):
        previous(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt
    else:  # SIG_DFL (or a handler not set from Python): what it would have done, now
        os.kill(os.getpid(), signal.SIGINT)
