"""One lstat of each of many paths (the check of the recorded walk, walk.py): each one's ctime
and inode number.

They are most of a no-op build and of an edit build (27,000 paths at 10,000 skills: 120-140 ms of
one core). So `skillc build` has a forked child (aside.py) take them from its very start (`begin`,
quick.start) while this process imports the command line and the stages and reads what an edit
build reads first; `look` takes the child's answer when it was begun for the same paths below the
same folder. Anything that goes wrong in the child costs only the head start.
"""

from __future__ import annotations

import array
import os
from functools import partial
from operator import attrgetter

from .aside import Aside, aside

SPLIT_AT = 8192  # fewer paths take less time than a fork's round trip saves
GONE = -2  # the ctime and inode number of a path that is not there (never a recorded value)
_CTIME, _INO = attrgetter("st_ctime_ns"), attrgetter("st_ino")
Looked = tuple["array.array[int]", "array.array[int]"]  # each path's ctime, and its inode number


_begun: list[tuple[Aside, list[str], tuple[int, int]]] = []  # `begin`'s child, paths and folder


def begin(paths: list[str], base: str) -> None:
    """The lstats of `paths` (relative to `base`) begun in a forked child, where that pays."""
    discard()
    if len(paths) < SPLIT_AT:
        return
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        child = aside(lambda: b"".join(values.tobytes() for values in _look(paths, fd)))
    finally:
        os.close(fd)
    if child is not None:
        _begun.append((child, paths, (st.st_dev, st.st_ino)))


def running() -> bool:
    """Whether a child `begin` started is still taking the lstats."""
    return bool(_begun) and _begun[-1][0].running()


def discard() -> None:
    """End a child `begin` started that no `look` took (its answer is not wanted)."""
    while _begun:
        _begun.pop()[0].end()


def look(paths: list[str], fd: int) -> Looked:
    """The ctime and inode number of each path (relative to the folder `fd` is open on): the answer
    of the child `begin` started for these very paths below this very folder, else taken here.
    GONE for a path that is not there. OverflowError: an inode number past 2**63 (overlayfs's
    xino), which the caller cannot record either."""
    if _begun:
        child, begun, where = _begun.pop()
        st = os.fstat(fd)
        said = child.join() if begun == paths and where == (st.st_dev, st.st_ino) else None
        child.end()
        if said is not None and len(said) == 16 * len(paths):
            found = array.array("q")
            found.frombytes(said)  # the same machine, the same byte order
            return found[: len(paths)], found[len(paths) :]
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
