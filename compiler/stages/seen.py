"""What a walk of discover saw: every folder it listed, with the names listed, and every path it
lstat'ed, with its mode, ctime and inode number; of a link, its target and what it leads to.

Discover walks with a `Seen`'s `listdir` and `lstat` when the build cache asks (the pipeline hands
one in): the cache records what discover saw as the walk the next build checks (incremental/
walk.py), so the walk recorded is by construction the walk discover read, whatever rules chose
what it read. A forked helper of discover's split walk sends its share back with its chunks
(`since`, `add`).
"""

from __future__ import annotations

import array
import os
import stat

FOLDER = (-3, -3)  # the ctime and inode number of what a link leads to when it is a folder
NOTHING = (-1, -1)  # ... when it leads to nothing, or to what is not there


class Seen:
    """Listings and lstats, as discover asked for them (in its order; a path may come twice when a
    split walk is done again as one: the later answer stands)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.stats: array.array[int] = array.array("q")  # each path's mode, ctime_ns and inode
        self.folders: list[str] = []  # each folder listed ...
        self.names: list[list[str]] = []  # ... and its names as on disk
        # Each link's target text and the ctime and inode of what it leads to, taken before discover
        # follows it: a folder above the file it leads to retargeted meanwhile moves them
        self.links: dict[str, tuple[str, int, int]] = {}
        self.unsure = False  # an inode number past 2**63 (overlayfs's xino): nothing can be recorded

    def listdir(self, path: str) -> list[str]:
        names = os.listdir(path)
        self.folders.append(path)
        self.names.append(names)
        return names

    def lstat(self, path: str) -> os.stat_result:
        st = os.lstat(path)
        try:
            values = array.array("q", (st.st_mode, st.st_ctime_ns, st.st_ino))
        except OverflowError:
            self.unsure, values = True, array.array("q", (st.st_mode, -1, -1))
        self.paths.append(path)
        self.stats += values
        if stat.S_ISLNK(st.st_mode):
            self.links[path] = (os.readlink(path), *_led(path))
        return st

    def mark(self) -> tuple[int, int]:
        return len(self.paths), len(self.folders)

    def since(self, mark: tuple[int, int]) -> Rows:
        """What was seen after `mark`, as plain values a pipe carries (`add` takes them)."""
        paths, folders = mark
        stats = self.stats[3 * paths :].tobytes()
        links = {path: self.links[path] for path in self.paths[paths:] if path in self.links}
        return self.paths[paths:], stats, self.folders[folders:], self.names[folders:], links, self.unsure

    def add(self, rows: Rows) -> None:
        paths, stats, folders, names, links, unsure = rows
        self.paths += paths
        self.stats.frombytes(stats)  # the same machine: the same byte order
        self.folders += folders
        self.names += names
        self.links.update(links)
        self.unsure = self.unsure or unsure


Rows = tuple[list[str], bytes, list[str], list[list[str]], dict[str, tuple[str, int, int]], bool]


def _led(path: str) -> tuple[int, int]:
    """The ctime and inode number of what a link leads to (FOLDER, NOTHING)."""
    try:
        st = os.stat(path)
    except OSError:
        return NOTHING
    return FOLDER if stat.S_ISDIR(st.st_mode) else (st.st_ctime_ns, st.st_ino)
