"""What a walk of discover saw: every folder it listed, with the names listed, and every path it
lstat'ed, with its mode, ctime and inode number.

Discover walks with a `Seen`'s `listdir` and `lstat` when the build cache asks (the pipeline hands
one in): the cache records what discover saw as the walk the next build checks (incremental/
walk.py), so the walk recorded is by construction the walk discover read, whatever rules chose
what it read. A forked helper of discover's split walk sends its share back with its chunks
(`since`, `add`).
"""

from __future__ import annotations

import array
import os


class Seen:
    """Listings and lstats, as discover asked for them (in its order; a path may come twice when a
    split walk is done again as one: the later answer stands)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.stats: array.array[int] = array.array("q")  # each path's mode, ctime_ns and inode
        self.folders: list[str] = []  # each folder listed ...
        self.names: list[list[str]] = []  # ... and its names as on disk
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
        return st

    def mark(self) -> tuple[int, int]:
        return len(self.paths), len(self.folders)

    def since(self, mark: tuple[int, int]) -> tuple[list[str], bytes, list[str], list[list[str]], bool]:
        """What was seen after `mark`, as plain values a pipe carries (`add` takes them)."""
        paths, folders = mark
        stats = self.stats[3 * paths :].tobytes()
        return self.paths[paths:], stats, self.folders[folders:], self.names[folders:], self.unsure

    def add(self, rows: tuple[list[str], bytes, list[str], list[list[str]], bool]) -> None:
        paths, stats, folders, names, unsure = rows
        self.paths += paths
        self.stats.frombytes(stats)  # the same machine: the same byte order
        self.folders += folders
        self.names += names
        self.unsure = self.unsure or unsure
