"""The input snapshot: one stat walk of the sources and personas, without reading a byte.

The cache's no-op path compares one digest of it with the last build's (see session.py for the
guarantee and its limits); discover walks with what it saw instead of walking again. A walk given
the last recorded walk's listings (manifest.py) lists again only the directories whose stat data
changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .. import fs
from ..dataclass import dataclass, field
from ..names.paths import IGNORED_DIRS, nfc

Tops = tuple[tuple[str, str], ...]  # each walked root: (its config path, where it is on disk)
Stat = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode: what the walk compares
NO_STAT = (-1, -1, -1, -1)  # in place of a folder's stat data the walk cannot vouch for
# One walked directory: its config path, where it is, its stat data (None when it changed in the
# stamp's clock tick or after, so its listing cannot be vouched for), its entries' names as on
# disk and their kinds, one letter each: d(irectory), f(ile), l(ink), o(ther), i(gnored name).
Folder = tuple[str, str, Stat | None, list[str], str]
# A directory's listing as an earlier walk saw it, by where it is: (stat data, names, kinds).
Listings = Mapping[str, tuple[Stat, list[str], str]]


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
    # What this walk saw, for discover to use instead of walking again and for the manifest that
    # lets the next walk skip listing (in memory only, never part of the digest).
    walked: Walked | None = field(default=None, compare=False, repr=False)

    @property
    def digest(self) -> str:
        """One digest of everything the walk saw: the no-op path compares it, and nothing else.
        Keys sorted: a walk that lists again and one that reuses a recorded listing agree."""
        # here: `skillc build` starts its lstats before it imports more (quick.start)
        from ..fastjson import orjson

        data = orjson.dumps([self.roots, self.dirs, self.files], option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Walked:
    """Listings and lstat results by absolute path, as the stat walk found them.

    discover walks with these instead of os.listdir and os.lstat, so a build walks its inputs once.
    Anything the stat walk did not lstat (a symlink, a FIFO, a walked root) is asked of the
    system: discover's checks of links and special files see the real thing.
    """

    listings: dict[str, list[str]]  # directory -> its entries' names as on disk
    stats: dict[str, os.stat_result]  # regular file or directory below a root -> its lstat
    folders: list[Folder]  # every walked directory, in walk order (each root before its folders)
    links: list[tuple[str, str, Stat | None]]  # each symlink: where, its target, the file it leads to

    def listdir(self, path: str) -> list[str]:
        found = self.listings.get(path)
        return list(found) if found is not None else os.listdir(path)

    def lstat(self, path: str) -> os.stat_result:
        found = self.stats.get(path)
        return found if found is not None else os.lstat(path)


def walk_tops(
    sources: Iterable[tuple[str, Path]], personas: str | None, root: Path, knowledge: str | None = None
) -> Tops:
    """What the walk covers: every source (config path, directory), the personas directory and the
    knowledge folder."""
    tops = [(rel, str(where)) for rel, where in sources]
    tops += [(folder, str(root / folder)) for folder in (personas, knowledge) if folder]
    return tuple(tops)


def take_snapshot(
    tops: Tops,
    directory: Path,
    known: Listings | None = None,
    taken: Mapping[str, os.stat_result] | None = None,
) -> Snapshot | None:
    """Stamp the file system's clock, then stat the inputs; None when either fails.

    The stamp comes first, then each file's stat, and only then does discover
    read. Any change after the stamp (a write, a chmod) sets the ctime of the
    file to the stamp or later, so one whose recorded ctime is older than the
    stamp cannot change, even while this build runs, without the next walk
    seeing another ctime. Snapshots holding a newer ctime are not recorded
    (`recordable`): a coarse clock gives writes within one tick the same time
    stamp. A directory's listing is in the snapshot itself, and discover walks
    that very listing (`Walked`).

    `known`: the listings of the last recorded walk. A directory whose stat data is the one
    recorded there holds the entries recorded there, and is not listed again: adding, removing
    or renaming an entry sets the directory's mtime and ctime, and a directory recorded with a
    ctime as new as that walk's stamp is never taken as known (its stat data is None).
    `taken`: lstat results the manifest's check has just taken, by path, used instead of asking again.
    """
    stamp = _fs_now(directory)
    if stamp is None:
        return None
    return _stat_walk(tops, stamp, known or {}, taken or {})


def walk_stat(tops: Tops, stamp: int) -> Snapshot | None:
    """The stat walk of `tops` against a `stamp` taken earlier, before discover read (latewalk.py);
    what it vouches for, `settled` says."""
    return _stat_walk(tops, stamp, {})


def roots_now(tops: Tops) -> dict[str, list[object]] | None:
    """Each root's real path and its folder's stat data (`settled` compares both with the walk's);
    None when one cannot be resolved."""
    try:
        return {top: [_utf8(os.path.realpath(where)), *stat_data(os.stat(where))] for top, where in tops}
    except (OSError, CannotVouch):
        return None


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


class CannotVouch(ValueError):
    """A tree this walk cannot vouch for (see _stat_walk)."""


def _stat_walk(
    tops: Tops, stamp: int, known: Listings, taken: Mapping[str, os.stat_result] | None = None
) -> Snapshot | None:
    """Listings and stat data below every source and the personas directory, as discover walks them.

    One lstat per directory and per file; one os.scandir per directory not in `known` as it is
    now (the entry type comes with the listing). None for a tree this cannot vouch for: a symlink
    to a directory (discover follows it, with loop and escape checks this walk does not repeat),
    two names with one NFC form, or a name that is not UTF-8 (discover refuses it; its digest
    could not be taken).
    """
    roots: dict[str, str] = {}
    dirs: dict[str, list[str]] = {}
    files: dict[str, list[int]] = {}
    seen = Walked({}, {}, [], [])
    folder, listed, recorded = seen.folders.append, seen.listings, known.get
    try:
        for top, where in tops:
            roots[top] = _utf8(os.path.realpath(where))
            stack = [(top, where, os.stat(where))]  # a root is walked through a symlink
            while stack:
                rel, path, st = stack.pop()
                now = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
                old = recorded(path)
                names, kinds = old[1:] if old is not None and old[0] == now else _scan(path)
                folder((rel, path, now if st.st_ctime_ns < stamp else None, names, kinds))
                listed[path] = names
                dirs[rel] = _entries(rel, path, names, kinds, stack, files, seen, taken or {})
    except (OSError, CannotVouch):
        return None
    return Snapshot(stamp, roots, dirs, files, seen)


def _entries(
    rel: str,
    path: str,
    names: list[str],
    kinds: str,
    stack: list[tuple[str, str, os.stat_result]],
    files: dict[str, list[int]],
    seen: Walked,
    taken: Mapping[str, os.stat_result],
) -> list[str]:
    """One directory's listing ("<kind><name>", sorted), its files stat'ed, its folders stacked.
    The hot loop of a walk (30,000 entries at 10,000 skills): locals, files first, no calls."""
    listing: list[str] = []
    add, lstat, stats, known = listing.append, os.lstat, seen.stats, taken.get
    for raw, kind in zip(names, kinds, strict=True):
        if kind == "i":
            continue
        at = path + "/" + raw
        child = rel + "/" + (raw if raw.isascii() else nfc(raw))  # ASCII is NFC already
        if kind == "f":
            st = stats[at] = known(at) or lstat(at)
            if child in files:  # two names with one NFC form
                raise CannotVouch(child)
            files[child] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
            add("f" + raw)
        elif kind == "d":
            add("d" + raw)
            st = stats[at] = known(at) or lstat(at)
            stack.append((child, at, st))
        elif kind == "l":
            # A symlink is recorded with its target text: retargeting it changes the listing.
            target = _utf8(os.readlink(at))
            add(f"l{raw}\0{target}")
            led = followed(at)
            if led is not None:  # through the link: the file discover reads
                if child in files:
                    raise CannotVouch(child)
                files[child] = [led.st_size, led.st_mtime_ns, led.st_ctime_ns, led.st_ino]
            seen.links.append((at, target, None if led is None else stat_data(led)))
        else:
            add("o" + raw)
    listing.sort()
    return listing


def _scan(path: str) -> tuple[list[str], str]:
    """A directory's entries as on disk and their kinds (see Folder), from one os.scandir."""
    names: list[str] = []
    kinds: list[str] = []
    with os.scandir(path) as it:
        for entry in it:
            raw = entry.name
            names.append(raw)
            if not raw.isascii():
                _utf8(raw)
            if (raw if raw.isascii() else nfc(raw)) in IGNORED_DIRS:
                kinds.append("i")
            elif entry.is_dir(follow_symlinks=False):
                kinds.append("d")
            elif entry.is_file(follow_symlinks=False):
                kinds.append("f")
            else:
                kinds.append("l" if entry.is_symlink() else "o")
    return names, "".join(kinds)


def followed(path: str) -> os.stat_result | None:
    """The regular file a symlink leads to; None when it leads to nothing or to no file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise CannotVouch(path)
    return st if stat.S_ISREG(st.st_mode) else None


def stat_data(st: os.stat_result) -> Stat:
    """What the walk records of a path, and compares it by."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _utf8(text: str) -> str:
    """A name as the digest can take it: one with bytes that are not UTF-8 cannot be vouched for."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise CannotVouch(text) from None
    return text


def settled(snapshot: Snapshot, roots: Mapping[str, Sequence[object]], inputs: Iterable[str]) -> bool:
    """A walk taken after discover read (`walk_stat`) vouches for what it read: each root is the
    very folder it was when the stamp was taken (`roots_now`: its real path and its stat data, so a
    folder above it renamed over is seen), no folder or file it saw changed in the stamp's clock
    tick or after (a change sets a ctime no call sets back, so the tree is the one discover read),
    it saw no symlink (one may lead through a folder outside the roots, retargeted unseen), and
    every input is among its files (as `recordable`)."""
    walked = snapshot.walked
    if walked is None or walked.links or snapshot.roots.keys() != roots.keys():
        return False
    found = {
        rel: [snapshot.roots[rel], *(now or NO_STAT)]
        for rel, _at, now, _n, _k in walked.folders
        if rel in roots
    }
    return (
        found == {rel: list(then) for rel, then in roots.items()}
        and all(folder[2] is not None for folder in walked.folders)
        and all(st[2] < snapshot.stamp for st in snapshot.files.values())
        and recordable(snapshot, inputs)
    )


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
