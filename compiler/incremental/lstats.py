"""One lstat of each of many paths, as the check of the recorded walk takes them (walk.py): each
path's ctime and inode number.

They are most of a no-op build and of an edit build (27,000 paths at 10,000 skills: 120-140 ms of
one core, the map in C and the stat results made in Python). So `skillc build` has a forked child
take them from its very start (`begin`, from the command line alone, quick.start), while this
process imports the command line and the stages and reads what an edit build reads first; `look`
takes the child's answer when it was begun for the same paths below the same folder, and ends the
child otherwise. A fork is made only where it is safe and can pay (aside.forkable: Linux, a
second core, this process's only thread) and for SPLIT_AT paths or more. Anything that goes wrong
in the child (an inode number past 2**63, a crash) costs only the head start: this process then
takes the lstats itself.
"""

from __future__ import annotations

import array
import os
import select
from functools import partial
from operator import attrgetter

from ..forking import fork, released
from ..reap import Helper
from .aside import forkable

SPLIT_AT = 8192  # fewer paths take less time than a fork's round trip saves
GONE = -2  # the ctime and inode number of a path that is not there (never a recorded value)
_CTIME, _INO = attrgetter("st_ctime_ns"), attrgetter("st_ino")
Looked = tuple["array.array[int]", "array.array[int]"]  # each path's ctime, and its inode number


class _Child(Helper):
    """A child taking the lstats of `paths` below the folder `where` (its device and inode)."""

    def __init__(self, pid: int, out: int, paths: list[str], where: tuple[int, int]) -> None:
        super().__init__(pid, out)
        self.paths, self.where = paths, where

    def running(self) -> bool:
        """Whether the child is still taking the lstats (it writes its answer once it is done)."""
        return self._out >= 0 and not select.select([self._out], [], [], 0)[0]

    def answer(self) -> Looked | None:
        """The child's numbers, once it is done; None when it failed."""
        try:
            with open(self._out, "rb", closefd=False) as pipe:
                said = pipe.read()
            os.waitpid(self._pid, 0)
            self._pid = 0
        finally:
            self.end()
        if len(said) != 16 * len(self.paths):
            return None
        found = array.array("q")
        found.frombytes(said)  # the same machine, the same byte order
        return found[: len(self.paths)], found[len(self.paths) :]


_begun: list[_Child] = []  # at most one: `begin`'s, until `look` takes it or `discard` ends it


def begin(paths: list[str], base: str) -> None:
    """The lstats of `paths` (relative to `base`) begun in a forked child, where that pays."""
    discard()
    if len(paths) < SPLIT_AT or not forkable():
        return
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        read, write = os.pipe()
        try:
            pid = fork()
        except OSError:  # no process to spare (a limit): `look` takes them here
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: the lstats, their numbers into the pipe, then out
            try:
                released()
                os.close(read)
                ctimes, inodes = _look(paths, fd)
                with open(write, "wb") as pipe:
                    pipe.write(ctimes.tobytes() + inodes.tobytes())
            finally:
                os._exit(0)
    finally:
        os.close(fd)
    os.close(write)
    _begun.append(_Child(pid, read, paths, (st.st_dev, st.st_ino)))
    released(discard)  # a Ctrl-C that came during the fork is raised here, once the child is stopped


def running() -> bool:
    """Whether a child `begin` started is still taking the lstats."""
    return bool(_begun) and _begun[-1].running()


def discard() -> None:
    """End a child `begin` started that no `look` took (its answer is not wanted)."""
    while _begun:
        _begun.pop().end()


def look(paths: list[str], fd: int) -> Looked:
    """The ctime and inode number of each path (relative to the folder `fd` is open on): the answer
    of the child `begin` started for these very paths below this very folder, else taken here.
    GONE for a path that is not there. OverflowError: an inode number past 2**63 (overlayfs's
    xino), which the caller cannot record either."""
    if _begun:
        child = _begun.pop()
        st = os.fstat(fd)
        if child.paths == paths and child.where == (st.st_dev, st.st_ino):
            found = child.answer()
            if found is not None:
                return found
        child.end()
    return _look(paths, fd)


def _look(paths: list[str], fd: int) -> Looked:
    taken = lstat_each(paths, fd)
    if None in taken:
        return (
            array.array("q", [GONE if st is None else st.st_ctime_ns for st in taken]),
            array.array("q", [GONE if st is None else st.st_ino for st in taken]),
        )
    return array.array("q", map(_CTIME, taken)), array.array("q", map(_INO, taken))


def lstat_each(paths: list[str], fd: int) -> list[os.stat_result | None]:
    """lstat of each path (relative to `fd`); None for one that is not there (a folder or file
    removed). The map runs in C, and a path that is not there only stops it for that path."""
    found: list[os.stat_result | None] = []
    each = map(partial(os.lstat, dir_fd=fd), paths)
    while True:
        try:
            found.extend(each)  # in C; what came before a path that is not there stays in `found`
        except (FileNotFoundError, NotADirectoryError):
            found.append(None)  # that path: `each` goes on with the next
            continue
        return found
