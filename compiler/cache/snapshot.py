"""The input snapshot: one stat walk of the sources and personas, without reading a byte.

The cache's no-op path compares one digest of it with the last build's (see session.py for the
guarantee and its limits); discover walks with what it saw instead of walking again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .. import fs
from ..names.paths import IGNORED_DIRS, nfc

Tops = tuple[tuple[str, str], ...]  # each walked root: (its config path, where it is on disk)


@dataclass(frozen=True)
class Snapshot:
    """The inputs as one stat walk sees them, without reading a byte.

    Taken before discover reads the files, so a file that changes after its
    stat changes its stat data too (see `take_snapshot` for the clock).
    """

    stamp: int  # file system time taken before the walk, in ns
    roots: dict[str, str]  # each walked root (config path) -> its real path
    dirs: dict[str, list[str]]  # each walked directory -> its entries, "<kind><name>", sorted
    files: dict[str, list[int]]  # every walked file -> [size, mtime_ns, ctime_ns, inode]
    # What this walk saw, for discover to use instead of walking again (in memory only, never recorded).
    walked: Walked | None = field(default=None, compare=False, repr=False)

    @property
    def digest(self) -> str:
        """One digest of everything the walk saw: the no-op path compares it, and nothing else."""
        data = orjson.dumps([self.roots, self.dirs, self.files])
        return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Walked:
    """Listings and lstat results by absolute path, as the stat walk found them.

    discover walks with these instead of os.listdir and os.lstat, so a build walks its inputs once.
    Anything the stat walk did not stat as itself (a symlink, a FIFO, a walked root) is asked of
    the system: discover's checks of links and special files see the real thing. A directory's
    lstat comes from its directory entry on first use, so a no-op build never asks for it.
    """

    listings: dict[str, list[str]]  # directory -> its entries' names as on disk
    stats: dict[str, os.stat_result]  # regular file -> its lstat
    entries: dict[str, os.DirEntry[str]]  # directory below a root -> its entry

    def listdir(self, path: str) -> list[str]:
        found = self.listings.get(path)
        return list(found) if found is not None else os.listdir(path)

    def lstat(self, path: str) -> os.stat_result:
        found = self.stats.get(path)
        if found is not None:
            return found
        entry = self.entries.get(path)
        if entry is None:
            return os.lstat(path)
        found = self.stats[path] = entry.stat(follow_symlinks=False)  # discover asks again and again
        return found


def walk_tops(sources: Iterable[tuple[str, Path]], personas: str | None, root: Path) -> Tops:
    """What the walk covers: every source (config path, directory) and the personas directory."""
    tops = [(rel, str(where)) for rel, where in sources]
    return (*tops, (personas, str(root / personas))) if personas else tuple(tops)


def take_snapshot(tops: Tops, directory: Path) -> Snapshot | None:
    """Stamp the file system's clock, then stat the inputs; None when either fails.

    The stamp comes first, then each file's stat, and only then does discover
    read. Any change after the stamp (a write, a chmod) sets the ctime of the
    file to the stamp or later, so one whose recorded ctime is older than the
    stamp cannot change, even while this build runs, without the next walk
    seeing another ctime. Snapshots holding a newer ctime are not recorded
    (`recordable`): a coarse clock gives writes within one tick the same time
    stamp. A directory's listing is in the snapshot itself, and discover walks
    that very listing (`Walked`), so a directory needs no stat of its own.
    """
    stamp = _fs_now(directory)
    if stamp is None:
        return None
    return _stat_walk(tops, stamp)


def _fs_now(directory: Path) -> int | None:
    """The ctime of a new file: file time stamps come from a coarser clock than time.time_ns(),
    which can be ahead of the stamp of a later write."""
    path = directory / f".stamp.{os.getpid()}"
    try:
        fs.ensure_dir(directory, ignore_all=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a killed build: only a new file has a ctime of now
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            return os.fstat(fd).st_ctime_ns
        finally:
            os.close(fd)
            os.unlink(path)
    except OSError:
        return None


def _stat_walk(tops: Tops, stamp: int) -> Snapshot | None:
    """Listings and stat data below every source and the personas directory, as discover walks them.

    One os.scandir per directory: the entry type comes with the listing, so
    only files are stat'ed. None for a tree this cannot vouch for: a symlink
    to a directory (discover follows it, with loop and escape checks this walk
    does not repeat) or two names with one NFC form.
    """
    roots: dict[str, str] = {}
    dirs: dict[str, list[str]] = {}
    files: dict[str, list[int]] = {}
    seen = Walked({}, {}, {})
    try:
        for top, where in tops:
            roots[top] = os.path.realpath(where)
            stack = [(top, where)]
            while stack:
                rel, path = stack.pop()
                listing: list[str] = []
                names = seen.listings[path] = []
                with os.scandir(path) as it:
                    for entry in it:
                        raw = entry.name
                        names.append(raw)
                        name = raw if raw.isascii() else nfc(raw)  # ASCII is NFC already
                        if name in IGNORED_DIRS:
                            continue
                        child = f"{rel}/{name}"
                        # The entry's type comes with the listing: no system call but for a link.
                        if entry.is_dir(follow_symlinks=False):
                            listing.append("d" + raw)
                            stack.append((child, entry.path))
                            seen.entries[entry.path] = entry
                            continue
                        kind = "f" if entry.is_file(follow_symlinks=False) else _kind(entry)
                        if kind is None:
                            return None
                        # A symlink is recorded with its target text: retargeting it changes the listing.
                        listing.append(kind + raw + (f"\0{os.readlink(entry.path)}" if kind == "l" else ""))
                        if kind == "f" or (kind == "l" and entry.is_file()):
                            if child in files:
                                return None
                            st = entry.stat()  # through a symlink: the file discover reads
                            files[child] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                            if kind == "f":  # not a link: its stat is its lstat
                                seen.stats[entry.path] = st
                listing.sort()
                dirs[rel] = listing
    except OSError:
        return None
    return Snapshot(stamp, roots, dirs, files, seen)


def _kind(entry: os.DirEntry[str]) -> str | None:
    """d(irectory), f(ile), l(ink to a file or nothing), o(ther); None for a link to a directory."""
    if entry.is_symlink():
        return None if entry.is_dir() else "l"
    if entry.is_dir(follow_symlinks=False):
        return "d"
    return "f" if entry.is_file(follow_symlinks=False) else "o"


def recordable(snapshot: Snapshot | None, inputs: Iterable[str]) -> bool:
    """The snapshot can vouch for these input files: each was walked, and none changed in the
    stamp's clock tick or after it."""
    if snapshot is None:
        return False
    for rel in inputs:
        st = snapshot.files.get(rel)
        if st is None or st[2] >= snapshot.stamp:
            return False
    return True
