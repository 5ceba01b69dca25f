"""The input snapshot: one stat walk of the sources and personas, without reading a byte.

The cache's no-op path compares two of these (see session.py for the guarantee and its limits).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import fs
from ..model import Config
from ..names.paths import ignored, nfc


@dataclass(frozen=True)
class Snapshot:
    """The inputs as one stat walk sees them, without reading a byte.

    Taken before discover reads the files, so a file that changes after its
    stat changes its stat data too (see `take_snapshot` for the clock).
    """

    head: str  # key of config, template, flags and their diagnostics (no input bytes)
    stamp: int  # file system time taken before the walk, in ns
    roots: dict[str, str]  # each walked root (config path) -> its real path
    dirs: dict[str, list[str]]  # each walked directory -> its entries, "<kind><name>", sorted
    # ... and its [mtime_ns, ctime_ns, inode]: a listing can change and change back
    # while a build runs; the directory's ctime cannot (see `take_snapshot`).
    dir_stats: dict[str, list[int]]
    files: dict[str, list[int]]  # path -> [size, mtime_ns, ctime_ns, inode] (inputs only, once recorded)
    # What this walk saw, for discover to use instead of walking again (in memory only, never recorded).
    walked: Walked | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Walked:
    """Listings and lstat results by absolute path, as the stat walk found them.

    discover walks with these instead of os.listdir and os.lstat, so a build walks its inputs once.
    Anything the stat walk did not stat as itself (a symlink, a FIFO) is asked of the system again:
    discover's checks of links and special files see the real thing.
    """

    listings: dict[str, list[str]]  # directory -> its entries' names as on disk
    stats: dict[str, os.stat_result]  # directory or regular file -> its lstat

    def listdir(self, path: str) -> list[str]:
        found = self.listings.get(path)
        return list(found) if found is not None else os.listdir(path)

    def lstat(self, path: str) -> os.stat_result:
        found = self.stats.get(path)
        return found if found is not None else os.lstat(path)


def take_snapshot(config: Config, directory: Path, head: str) -> Snapshot | None:
    """Stamp the file system's clock, then stat the inputs; None when either fails.

    The stamp comes first, then each directory's and file's stat, and only
    then does discover read. Any change after the stamp (a write, a chmod,
    an entry added to or removed from a directory) sets the ctime of the file
    or directory to the stamp or later, so one whose recorded ctime is older
    than the stamp cannot change, even while this build runs, without the
    next walk seeing another ctime. Snapshots holding a newer ctime are not
    recorded (`for_inputs`): a coarse clock gives writes within one tick the
    same time stamp.
    """
    stamp = _fs_now(directory)
    if stamp is None:
        return None
    walked = _stat_walk(config)
    if walked is None:
        return None
    roots, dirs, dir_stats, files, seen = walked
    return Snapshot(head, stamp, roots, dirs, dir_stats, files, seen)


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


def _stat_walk(
    config: Config,
) -> tuple[dict[str, str], dict[str, list[str]], dict[str, list[int]], dict[str, list[int]], Walked] | None:
    """Listings and stat data below every source and the personas directory, as discover walks them.

    One os.scandir per directory: the entry type comes with the listing, so
    only directories and files are stat'ed. None for a tree this cannot vouch
    for: a symlink to a directory (discover follows it, with loop and escape
    checks this walk does not repeat) or two names with one NFC form.
    """
    roots: dict[str, str] = {}
    dirs: dict[str, list[str]] = {}
    dir_stats: dict[str, list[int]] = {}
    files: dict[str, list[int]] = {}
    seen = Walked({}, {})
    try:
        tops = [(s, config.source_dir(i)) for i, s in enumerate(config.sources)]
        tops += [(config.personas, config.root / config.personas)] if config.personas else []
        for top, where in tops:
            roots[top] = os.path.realpath(where)
            stack = [(top, str(where))]
            while stack:
                rel, path = stack.pop()
                st = os.stat(path)  # before the listing: an entry added after it changes the ctime
                dir_stats[rel] = [st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                seen.stats[path] = st  # a real directory (a linked one ends the walk): stat is lstat
                listing: list[str] = []
                names = seen.listings[path] = []
                with os.scandir(path) as it:
                    for entry in it:
                        names.append(entry.name)
                        name = nfc(entry.name)
                        if ignored(name):
                            continue
                        kind = _kind(entry)
                        if kind is None:
                            return None
                        # A symlink is recorded with its target text: retargeting it changes the listing.
                        listing.append(
                            kind + entry.name + (f"\0{os.readlink(entry.path)}" if kind == "l" else "")
                        )
                        child = f"{rel}/{name}"
                        if kind == "d":
                            stack.append((child, entry.path))
                        elif kind == "f" or (kind == "l" and entry.is_file()):
                            if child in files:
                                return None
                            st = entry.stat()  # through a symlink: the file discover reads
                            files[child] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                            if kind == "f":  # not a link: its stat is its lstat
                                seen.stats[entry.path] = st
                dirs[rel] = sorted(listing)
    except OSError:
        return None
    return roots, dirs, dir_stats, files, seen


def _kind(entry: os.DirEntry[str]) -> str | None:
    """d(irectory), f(ile), l(ink to a file or nothing), o(ther); None for a link to a directory."""
    if entry.is_symlink():
        return None if entry.is_dir() else "l"
    if entry.is_dir(follow_symlinks=False):
        return "d"
    return "f" if entry.is_file(follow_symlinks=False) else "o"


def for_inputs(snapshot: Snapshot | None, inputs: Iterable[str]) -> Snapshot | None:
    """The snapshot cut down to these input files; None if one is missing or anything is too new to vouch for."""
    if snapshot is None or any(st[1] >= snapshot.stamp for st in snapshot.dir_stats.values()):
        return None
    files: dict[str, list[int]] = {}
    for rel in inputs:
        st = snapshot.files.get(rel)
        if st is None or st[2] >= snapshot.stamp:  # changed in the stamp's clock tick, or after it
            return None
        files[rel] = st
    return replace(snapshot, files=files)


def same_inputs(recorded: Snapshot, now: Snapshot) -> bool:
    """Same config side, same roots, same directories, and every recorded input with the same stat data."""
    return (
        recorded.head == now.head
        and recorded.roots == now.roots
        and recorded.dir_stats == now.dir_stats
        and recorded.dirs == now.dirs
        and all(now.files.get(rel) == st for rel, st in recorded.files.items())
    )


def encode_snapshot(snap: Snapshot | None) -> dict[str, Any] | None:
    # Not dataclasses.asdict: it deep-copies 30,000 lists (0.15 s at 10,000 skills).
    if snap is None:
        return None
    return {
        "head": snap.head,
        "stamp": snap.stamp,
        "roots": snap.roots,
        "dirs": snap.dirs,
        "dir_stats": snap.dir_stats,
        "files": snap.files,
    }


def decode_snapshot(data: Any) -> Snapshot | None:
    if not isinstance(data, dict):
        return None
    try:
        snap = Snapshot(
            data["head"], data["stamp"], data["roots"], data["dirs"], data["dir_stats"], data["files"]
        )
    except (KeyError, TypeError):
        return None
    shapes = (
        (snap.head, str),
        (snap.stamp, int),
        (snap.roots, dict),
        (snap.dirs, dict),
        (snap.dir_stats, dict),
        (snap.files, dict),
    )
    return snap if all(type(value) is kind for value, kind in shapes) else None
