"""The walk's manifest (`walk.json`): every directory and file the recorded stat walk saw, by where
it is, with its stat data; the quick path checks it instead of walking (`unchanged`), and a walk
after a change takes from it the listings of the directories that did not change (`listings`).

Why stat data is enough, without one `scandir`: a directory whose size, mtime, ctime and inode are
those recorded holds the entries recorded, since adding, removing or renaming an entry sets its
mtime and ctime, which cannot be set back, and a directory is recorded with stat data only when
its ctime is older than the walk's stamp (snapshot.py: a change in the stamp's clock tick would
keep the ctime). A file is compared by its own stat data, as the walk records it (an edit does not
touch its directory). A root is compared through its symlinks and by its real path, a symlink by
its target text and the stat data of the file it leads to. So when everything listed here
matches, a walk would see what the recorded one saw, and its digest is the recorded `inputs`.

JSON like every cache file; the stat data is one base64 string of little-endian int64 values,
four per path, since a list of 100,000 numbers costs more to parse than the walk saves.
"""

from __future__ import annotations

import array
import base64
import os
import sys
from dataclasses import dataclass
from typing import Any

from .snapshot import CannotVouch, Listings, Snapshot, Stat, Tops, followed

NAME = "walk.json"
NEVER = (-1, -1, -1, -1)  # the stat data of a directory whose listing cannot be vouched for
CHUNK = 4096  # paths stat'ed between two comparisons: a change stops the check early


@dataclass(frozen=True)
class Manifest:
    """The decoded manifest. `paths`: the roots, the other directories, the regular files, then
    the symlinks (`counts`: how many roots, directories with the roots, files); `stats`: four
    values per path (size, mtime_ns, ctime_ns, inode; for a symlink, those of its file or -1s)."""

    inputs: str  # the digest of the walk it describes (the record's `inputs`)
    reals: list[str]  # each root's real path
    tops: Tops  # the walked roots: (config path, where)
    paths: list[str]
    stats: list[int]
    counts: tuple[int, int, int]
    targets: list[str]  # each symlink's target text
    names: str  # every directory's names as on disk, in order, "/"-joined (no name holds a "/")
    kinds: str  # each directory's kinds (snapshot.Folder), "/"-joined: how many names are whose

    def unchanged(self) -> bool:
        """Every root, directory, file and symlink is as recorded: the walk would see what it saw."""
        roots, folders, files = self.counts
        paths, want = self.paths, self.stats
        try:
            for i, real in enumerate(self.reals):  # through symlinks, as the walk lists a root
                if os.path.realpath(paths[i]) != real or _stat(os.stat(paths[i])) != _four(want, i):
                    return False
            end = folders + files
            for start in range(roots, end, CHUNK):
                stop = min(start + CHUNK, end)
                seen: list[int] = []
                add = seen.extend
                for st in map(os.lstat, paths[start:stop]):
                    add((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
                if seen != want[4 * start : 4 * stop]:
                    return False
            for j, target in enumerate(self.targets):
                i = end + j
                if os.readlink(paths[i]) != target:
                    return False
                led = followed(paths[i])
                if (NEVER if led is None else _stat(led)) != _four(want, i):
                    return False
        except (OSError, CannotVouch):  # CannotVouch: a symlink that now leads to a directory
            return False
        return True

    def listings(self) -> Listings:
        """Each recorded directory's stat data, names and kinds, for the next walk."""
        names, kinds = self.names.split("/") if self.names else [], self.kinds.split("/")
        if len(names) != sum(map(len, kinds)):
            return {}
        found = {}
        start = 0
        for i, these in enumerate(kinds):
            found[self.paths[i]] = (_four(self.stats, i), names[start : start + len(these)], these)
            start += len(these)
        return found


def encode(snapshot: Snapshot, tops: Tops, inputs: str) -> dict[str, Any] | None:
    """The manifest of a walk, as JSON data; None when a value does not fit the format."""
    walked = snapshot.walked
    if walked is None:
        return None
    is_root = set(tops)
    roots = [f for f in walked.folders if (f[0], f[1]) in is_root]
    folders = roots + [f for f in walked.folders if (f[0], f[1]) not in is_root]
    paths = [f[1] for f in folders]
    stats: list[int] = []
    for folder in folders:
        stats += folder[2] or NEVER
    for _rel, where, _stat_data, names, kinds in folders:
        for raw, kind in zip(names, kinds, strict=True):
            if kind == "f":
                at = f"{where}/{raw}"
                paths.append(at)
                stats += _stat(walked.stats[at])
    files = len(paths) - len(folders)
    for at, _target, st in walked.links:
        paths.append(at)
        stats += st or NEVER
    try:
        packed = array.array("q", stats)
    except OverflowError:  # an inode number past 2**63 (overlayfs's xino): the walk takes over
        return None
    if sys.byteorder == "big":
        packed.byteswap()
    return {
        "inputs": inputs,
        "tops": [[f[0], f[1], snapshot.roots[f[0]]] for f in roots],
        "paths": paths,
        "stats": base64.b64encode(packed.tobytes()).decode("ascii"),
        "counts": [len(roots), len(folders), files],
        "targets": [target for _at, target, _st in walked.links],
        "names": "/".join(name for f in folders for name in f[3]),
        "kinds": "/".join(f[4] for f in folders),
    }


def decode(data: Any, inputs: str) -> Manifest | None:
    """The manifest in `data` when it describes the walk `inputs`; None otherwise."""
    try:
        if data["inputs"] != inputs:
            return None
        packed = array.array("q")
        packed.frombytes(base64.b64decode(data["stats"], validate=True))
        if sys.byteorder == "big":
            packed.byteswap()
        roots, folders, files = (int(n) for n in data["counts"])
        tops = tuple((str(rel), str(where)) for rel, where, _real in data["tops"])
        reals = [str(real) for _rel, _where, real in data["tops"]]
        targets = [str(t) for t in data["targets"]]
        paths = data["paths"]  # a path that is no string only fails to match (it is signed, too)
        names, kinds = str(data["names"]), str(data["kinds"])
    except (KeyError, TypeError, ValueError):
        return None
    count = folders + files + len(targets)
    shapes_ok = (
        0 <= roots == len(tops) <= folders <= count
        and isinstance(paths, list)
        and len(paths) == count
        and len(packed) == 4 * count
        and kinds.count("/") == folders - 1
        and all(paths[i] == where for i, (_rel, where) in enumerate(tops))
    )
    if not shapes_ok:
        return None
    return Manifest(
        inputs, reals, tops, paths, packed.tolist(), (roots, folders, files), targets, names, kinds
    )


def _four(values: list[int], i: int) -> Stat:
    return (values[4 * i], values[4 * i + 1], values[4 * i + 2], values[4 * i + 3])


def _stat(st: os.stat_result) -> Stat:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
