"""One lstat of each of many paths, as the check of the recorded walk takes them (walk.py): each
path's ctime and inode number. The lstats are most of a no-op build and of an edit build (30,000
paths at 10,000 skills): the map runs in C, and only the two numbers of each result are kept (a
fifth of the cost of all four values of the walk's stat data)."""

from __future__ import annotations

import array
import os
from functools import partial
from operator import attrgetter

GONE = -2  # the ctime and inode number of a path that is not there (never a recorded value)
_CTIME, _INO = attrgetter("st_ctime_ns"), attrgetter("st_ino")


def look(paths: list[str], fd: int) -> tuple[array.array[int], array.array[int]]:
    """The ctime and inode number of each path (relative to the folder `fd` is open on); GONE for a
    path that is not there. OverflowError: an inode number past 2**63 (overlayfs's xino)."""
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
