"""The walk's manifest (`walk.json`): every directory and file the recorded stat walk saw, by where
it is, with its stat data; the quick path checks it instead of walking (`unchanged`), and a walk
after a change takes from it the listings of the directories that did not change (`listings`).

Why stat data is enough, without one `scandir`: a directory whose size, mtime, ctime and inode are
those recorded holds the entries recorded, since adding, removing or renaming an entry sets its
mtime and ctime, which cannot be set back, and a directory is recorded with stat data only when
its ctime is older than the walk's stamp (snapshot.py: a change in the stamp's clock tick would
keep the ctime). A file is compared by its own stat data, as the walk records it (an edit does not
touch its directory). Of the stat data, the ctime and the inode number are compared (`_look` says
why those two suffice); all four values are recorded. A root is compared through its symlinks and
by its real path, a symlink by its target text and the stat data of the file it leads to. So when everything listed here
matches, a walk would see what the recorded one saw, and its digest is the recorded `inputs`.

Signed like every cache file. The paths and the stat data are packed (NUL-ended strings and int64,
raw sections of the file: packed.py, store.py): the quick path decodes the paths and two arrays,
lstats every path once and compares; the directories' names and kinds, which only a walk after a
change needs, are strings it does not split. When only files moved
(`changes`), an edit build (edit.py) takes it from there and records the new stat data (`renewed`).
"""

from __future__ import annotations

import array
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..dataclass import dataclass, field
from . import lstats
from .packed import Raw, is_raw, pack, pack_text, pack_texts, unpack, unpack_text, unpack_texts
from .snapshot import CannotVouch, Listings, Snapshot, Stat, Tops, followed, stat_data

NAME = "walk.json"
NEVER = (-1, -1, -1, -1)  # the stat data of a directory whose listing cannot be vouched for


@dataclass(frozen=True)
class Manifest:
    """The decoded manifest. `paths`: the roots, the other directories, the regular files, then
    the symlinks (`counts`: how many roots, directories with the roots, files); past the roots,
    relative to `base` (shorter to read, and the system resolves fewer folders per lstat)."""

    inputs: str  # the digest of the walk it describes (the record's `inputs`)
    base: str  # the folder every path past the roots is relative to (the roots' common folder)
    tops: Tops  # the walked roots: (config path, where)
    reals: list[tuple[str, Stat]]  # each root's real path and stat data (through its symlinks)
    paths: list[str]
    counts: tuple[int, int, int]
    links: list[tuple[str, Stat]]  # each symlink's target text, and the file it leads to or NEVER
    folders: Raw  # each directory's stat data (int64, little-endian, packed.py): for `listings` only
    files: Raw  # each file's stat data, the same way: for `changes` only (which files an edit touched)
    names: str  # every directory's names as on disk, in order, "/"-joined (no name holds a "/")
    kinds: str  # each directory's kinds (snapshot.Folder), "/"-joined: how many names are whose
    # The lstat results `unchanged` took in this process, of the paths past the roots in order (the
    # first of them: a forked child may have taken the others, lstats.py): a walk after a change
    # takes them instead of asking again (they are as new as its stamp needs, see `taken`).
    seen: list[os.stat_result | None] = field(default_factory=list, compare=False, repr=False)
    # The places (past the roots) `changes` found gone, in order.
    gone: list[int] = field(default_factory=list, compare=False, repr=False)
    # Every path's stat data as `changes` compared it (four int64 per path), for `renewed`.
    now: array.array[int] = field(default_factory=lambda: array.array("q"), compare=False, repr=False)
    tops_now: list[Stat] = field(default_factory=list, compare=False, repr=False)  # each root's, as seen
    # `_listed`'s split of `kinds` and `names`, made once: an edit build that adds or removes a skill
    # asks for it twice (`entries`, `renewed`), 2-3 ms each at 10,000 skills.
    split: list[tuple[list[str], list[str], list[int]]] = field(
        default_factory=list, compare=False, repr=False
    )

    def unchanged(self) -> bool:
        """Every root, directory, file and symlink is as recorded: the walk would see what it saw."""
        found = self.changes()
        return found is not None and found.none

    def begin(self) -> None:
        """Start the lstats `changes` takes (lstats.begin): the quick path's early start."""
        roots, folders, files = self.counts
        stats = self._recorded()
        known = None if stats is None else lstats.Recorded(stats[2::4], stats[3::4])
        lstats.begin(self.paths[roots : folders + files], self.base, known)

    def _recorded(self) -> array.array[int] | None:
        """The recorded stat data of each path past the roots, four values a path, in order."""
        roots, _folders, files = self.counts
        folder_stats, file_stats = unpack(self.folders), unpack(self.files)
        if folder_stats is None or file_stats is None or len(file_stats) != 4 * files:
            return None
        return folder_stats[4 * roots :] + file_stats

    def changes(self, meanwhile: Callable[[], None] | None = None) -> Changes | None:
        """The directories and files whose stat data is not the recorded one, from one lstat of each
        path (kept in `seen`, as `unchanged` keeps them); None when a root or a symlink changed,
        or the recorded stat data cannot be read (a walk must then tell). `meanwhile`: as for
        lstats.look."""
        roots, folders, files = self.counts
        recorded = self._recorded()
        if recorded is None:
            return None
        try:
            del self.tops_now[:]
            for i, (real, _want) in enumerate(self.reals):  # through symlinks, as the walk lists a root
                if os.path.realpath(self.paths[i]) != real:
                    return None
                self.tops_now.append(stat_data(os.stat(self.paths[i])))
            # A root whose stat data moved (a skill added to or removed from a source) is a change
            # known before any lstat: `meanwhile` need not wait for one.
            tops = self.moved_roots()
            fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                moved = self._look(self.paths[roots : folders + files], fd, recorded, meanwhile, bool(tops))
            finally:
                os.close(fd)
            for at, (target, want) in zip(
                map(self.where, self.paths[folders + files :]), self.links, strict=True
            ):
                led = followed(at)
                if os.readlink(at) != target or (NEVER if led is None else stat_data(led)) != want:
                    return None
        except (OSError, CannotVouch, OverflowError):  # OverflowError: an inode number past 2**63
            return None  # (overlayfs's xino): a walk tells
        if not moved:
            return Changes(tops, ())
        inside, gone = folders - roots, set(self.gone)
        where = {i: self.where(self.paths[roots + i]) for i in moved}
        return Changes(
            tops + tuple(where[i] for i in moved if i < inside and i not in gone),
            tuple(where[i] for i in moved if i >= inside and i not in gone),
            tuple(where[i] for i in moved if i in gone),
        )

    def moved_roots(self) -> tuple[str, ...]:
        """The roots (as the walk names them) whose stat data, as `changes` took it, is not the
        recorded one: a source a skill was added to or removed from."""
        roots = zip(self.paths[: len(self.reals)], self.tops_now, self.reals, strict=True)
        return tuple(path for path, now, (_real, want) in roots if now != want)

    def _look(
        self,
        paths: list[str],
        fd: int,
        recorded: array.array[int],
        meanwhile: Callable[[], None] | None = None,
        known: bool = False,
    ) -> list[int]:
        """One lstat of each path (lstats.py): the places whose stat data moved, in order. Keeps the
        stat data now (`now`: the recorded, with each moved path's), the places gone (`gone`) and
        the stat results this process took (`seen`). `known`: a change is known already (`meanwhile`
        runs before any chunk)."""
        ctimes, inodes = recorded[2::4], recorded[3::4]
        looked = lstats.look(paths, fd, meanwhile, None if known else lstats.Recorded(ctimes, inodes))
        self.seen[:] = looked.taken
        # The ctime and the inode number are enough: any change to a path (its bytes, its size, its
        # mode, its entries for a folder, its times through utime) sets its ctime to the present,
        # which no call sets back and which is later than the recorded one (a path is recorded only
        # when its ctime is older than the walk's stamp, snapshot.py); a path replaced by another,
        # even with an equal ctime, has another inode. A path gone has neither (lstats.GONE).
        moved = sorted({*_differing(looked.ctimes, ctimes), *_differing(looked.inodes, inodes)})
        now = self.now
        del now[:]
        now.extend(recorded)
        del self.gone[:]
        for i in moved:  # the child's half (lstats.py) is taken again here: a few paths
            st = self.seen[i] if i < len(self.seen) else lstats.lstat_or_none(paths[i], fd)
            if st is None:
                self.gone.append(i)
            now[4 * i : 4 * i + 4] = array.array("q", NEVER if st is None else stat_data(st))
        return moved

    def renewed(
        self,
        inputs: str,
        relisted: Mapping[str, tuple[list[str], str]] | None = None,
        added: Sequence[tuple[str, Stat, tuple[list[str], str] | None]] = (),
    ) -> dict[str, Any] | None:
        """This manifest as JSON data describing the walk `inputs`: the stat data `changes` saw in
        place of the recorded, without the paths it found gone, with each folder of `relisted` (as
        the walk names it) holding the names and kinds given, and the paths `added` (where, stat
        data, a folder's names and kinds or None for a file). What an edit build records: the caller
        checks each new or changed path is older than its stamp, and gives every folder whose
        entries changed with its entries."""
        roots, folders, files = self.counts
        now = self.now
        if len(now) != 4 * (folders + files - roots):
            return None
        if len(self.tops_now) != roots:
            return None
        if not relisted and not added and not self.gone:  # the same paths: new stat data only
            inside = 4 * (folders - roots)
            head = array.array("q", [v for st in self.tops_now for v in st])
            return self._json(inputs, self.paths, self.counts, pack(head + now[:inside]), pack(now[inside:]))
        # Spliced, not rebuilt: the kept paths, stat rows, kinds and names are copied a run at a
        # time between the few places that change (a folder gone or relisted), in C.
        kinds, names, starts = self._listed()
        tops = set(self.paths[:roots])  # a root is kept as the walk names it
        new_entries: dict[int, tuple[list[str], str]] = {}
        for where, listing in (relisted or {}).items():
            at = _find(self.paths, where if where in tops else _inside(self.base, where), 0, folders)
            if at is None:
                return None
            new_entries[at] = listing
        gone = [roots + i for i in self.gone]  # in paths' places, sorted
        gone_set = set(gone)
        stats = array.array("q", [v for st in self.tops_now for v in st]) + now
        paths: list[str] = []
        folder_stats = array.array("q")
        listed: list[str] = []
        new_kinds: list[str] = []
        at = 0
        for cut in sorted({*(g for g in gone if g < folders), *new_entries}):
            paths += self.paths[at:cut]
            folder_stats += stats[4 * at : 4 * cut]
            listed += names[starts[at] : starts[cut]]
            new_kinds += kinds[at:cut]
            if cut in new_entries and cut not in gone_set:  # relisted (a folder gone is cut out)
                paths.append(self.paths[cut])
                folder_stats += stats[4 * cut : 4 * cut + 4]
                listed += new_entries[cut][0]
                new_kinds.append(new_entries[cut][1])
            at = cut + 1
        paths += self.paths[at:folders]
        folder_stats += stats[4 * at : 4 * folders]
        listed += names[starts[at] :]
        new_kinds += kinds[at:]
        file_paths: list[str] = []
        file_stats = array.array("q")
        at = folders
        for cut in [*(g for g in gone if g >= folders), folders + files]:
            file_paths += self.paths[at:cut]
            file_stats += stats[4 * at : 4 * cut]
            at = cut + 1
        for where, st, entries in added:
            if entries is None:
                file_paths.append(_inside(self.base, where))
                file_stats.extend(st)
            else:
                paths.append(_inside(self.base, where))
                folder_stats.extend(st)
                listed += entries[0]
                new_kinds.append(entries[1])
        counts = (roots, len(paths), len(file_paths))
        paths += file_paths + self.paths[folders + files :]
        return self._json(
            inputs, paths, counts, pack(folder_stats), pack(file_stats), "/".join(listed), "/".join(new_kinds)
        )

    def _json(
        self,
        inputs: str,
        paths: list[str],
        counts: tuple[int, int, int],
        folders: Raw,
        files: Raw,
        names: str | None = None,
        kinds: str | None = None,
    ) -> dict[str, Any]:
        return {
            "inputs": inputs,
            "base": self.base,
            "tops": [
                [rel, where, real, *st]
                for (rel, where), (real, _was), st in zip(self.tops, self.reals, self.tops_now, strict=True)
            ],
            "paths": pack_texts(paths),
            "counts": list(counts),
            "links": [[target, *st] for target, st in self.links],
            "folders": folders,
            "files": files,
            "names": pack_text(self.names if names is None else names),
            "kinds": pack_text(self.kinds if kinds is None else kinds),
        }

    def taken(self) -> dict[str, os.stat_result]:
        """What `unchanged` saw, by path as the walk names it. Taken before the walk's stamp, which
        is sound as the walk's own are: a change after one was taken moves its ctime, so the next
        check sees it, and a walk records nothing whose ctime is as new as its stamp."""
        roots, prefix = self.counts[0], self.base.rstrip("/") + "/"
        where = [p if p.startswith("/") else prefix + p for p in self.paths[roots : roots + len(self.seen)]]
        return {w: st for w, st in zip(where, self.seen, strict=True) if st is not None}

    def where(self, path: str) -> str:
        """A path of the manifest as the walk names it (`base` and the relative path, as text)."""
        return path if path.startswith("/") else self.base.rstrip("/") + "/" + path

    def entries(self, where: str) -> tuple[list[str], str] | None:
        """One recorded directory's names and kinds (`where` as the walk names it): an edit build asks
        for the few whose stat data moved."""
        roots, folders, _files = self.counts
        prefix = self.base.rstrip("/") + "/"
        rel = where[len(prefix) :] if where.startswith(prefix) else where
        at = _find(self.paths, where, 0, roots)  # a root is named as it is; the others past `base`
        at = _find(self.paths, rel, roots, folders) if at is None else at
        if at is None:
            return None
        kinds, names, starts = self._listed()
        return names[starts[at] : starts[at + 1]], kinds[at]

    def _listed(self) -> tuple[list[str], list[str], list[int]]:
        """Each directory's kinds, every directory's names, and where each directory's first name
        is among them (one past the last at the end): not to be changed."""
        if not self.split:
            kinds = self.kinds.split("/")
            names = self.names.split("/") if self.names else []
            self.split.append((kinds, names, list(accumulate(map(len, kinds), initial=0))))
        return self.split[0]

    def listings(self) -> Listings:
        """Each recorded directory's stat data, names and kinds, for the next walk."""
        names, kinds = self.names.split("/") if self.names else [], self.kinds.split("/")
        stats = _unpack(self.folders)
        if stats is None or len(stats) != 4 * len(kinds) or len(names) != sum(map(len, kinds)):
            return {}
        prefix = self.base.rstrip("/") + "/"  # as `where`, inline: 14,000 calls at 10,000 skills
        where = [p if p.startswith("/") else prefix + p for p in self.paths[: len(kinds)]]
        values = iter(stats)
        fours = zip(values, values, values, values, strict=False)  # four at a time, from one iterator
        ends = list(accumulate(map(len, kinds)))
        listed = [names[end - len(these) : end] for end, these in zip(ends, kinds, strict=True)]
        return dict(zip(where, zip(fours, listed, kinds, strict=True), strict=True))


@dataclass(frozen=True)
class Changes:
    """What `Manifest.changes` found: the directories and files (as the walk names them) whose stat
    data moved. An edit in place moves a file's; adding, removing or renaming an entry moves its
    directory's, and so does an editor that saves through a new file and a rename."""

    folders: tuple[str, ...]
    files: tuple[str, ...]
    gone: tuple[str, ...] = ()  # recorded folders and files that are not there now

    @property
    def none(self) -> bool:
        return not self.folders and not self.files and not self.gone


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
                stats += stat_data(walked.stats[at])
    packed = _pack(stats[: 4 * len(folders)])
    packed_files = _pack(stats[4 * len(folders) :])
    if packed is None or packed_files is None:  # an inode number past 2**63 (overlayfs's xino)
        return None
    files = len(paths) - len(folders)
    paths += [at for at, _target, _st in walked.links]
    base = _common([where for _rel, where in tops])
    return {
        "inputs": inputs,
        "base": base,
        "tops": [[f[0], f[1], snapshot.roots[f[0]], *(f[2] or NEVER)] for f in roots],
        "paths": pack_texts(paths[: len(roots)] + _relative(paths[len(roots) :], base)),
        "counts": [len(roots), len(folders), files],
        "links": [[target, *(st or NEVER)] for _at, target, st in walked.links],
        "folders": packed,
        "files": packed_files,
        "names": pack_text("/".join(name for f in folders for name in f[3])),
        "kinds": pack_text("/".join(f[4] for f in folders)),
    }


def decode(data: Any, inputs: str) -> Manifest | None:
    """The manifest in `data` when it describes the walk `inputs`; None otherwise."""
    try:
        if data["inputs"] != inputs:
            return None
        base = str(data["base"])
        roots, folders, files = (int(n) for n in data["counts"])
        tops = tuple((str(rel), str(where)) for rel, where, *_ in data["tops"])
        reals = [(str(real), _four(stat, 0)) for _rel, _where, real, *stat in data["tops"]]
        links = [(str(target), _four(stat, 0)) for target, *stat in data["links"]]
        paths = unpack_texts(data["paths"])
        folder_stats, file_stats = data["folders"], data["files"]
        names, kinds = unpack_text(data["names"]), unpack_text(data["kinds"])
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if paths is None or names is None or kinds is None:
        return None
    count = folders + files + len(links)
    shapes_ok = (
        0 <= roots == len(tops) <= folders <= count
        and len(paths) == count
        and kinds.count("/") == folders - 1
        and is_raw(folder_stats)
        and is_raw(file_stats)
        and len(file_stats) == 32 * files  # four int64 per file
        and all(paths[i] == where for i, (_rel, where) in enumerate(tops))
        and os.path.isabs(base)
    )
    if not shapes_ok:
        return None
    return Manifest(
        inputs,
        base,
        tops,
        reals,
        paths,
        (roots, folders, files),
        links,
        folder_stats,
        file_stats,
        names,
        kinds,
    )


def _common(wheres: list[str]) -> str:
    """The roots' deepest common folder, by their text (os.path.commonpath drops "." and "//")."""
    if not wheres:
        return "/"
    parts = [where.split("/") for where in wheres]
    keep = 0
    for names in zip(*parts, strict=False):
        if len(set(names)) > 1:
            break
        keep += 1
    return "/".join(parts[0][:keep]) or "/"


def _relative(paths: list[str], base: str) -> list[str]:
    """Each path below `base` without it; any other stays absolute (os.lstat then ignores dir_fd)."""
    prefix = base if base.endswith("/") else base + "/"
    cut = len(prefix)
    return [at[cut:] if at.startswith(prefix) and len(at) > cut else at for at in paths]


def _pack(values: list[int]) -> bytes | None:
    try:
        return pack(array.array("q", values))
    except OverflowError:
        return None


def _inside(base: str, where: str) -> str:
    """A path as the walk names it, as the manifest keeps it (below `base`, relative to it)."""
    prefix = base if base.endswith("/") else base + "/"
    return where[len(prefix) :] if where.startswith(prefix) and len(where) > len(prefix) else where


def _find(paths: list[str], path: str, start: int, end: int) -> int | None:
    try:
        return paths.index(path, start, end)
    except ValueError:
        return None


def _differing(now: array.array[int], recorded: array.array[int], step: int = 4096) -> Iterator[int]:
    """The places whose values differ, a slice at a time (the slices compare in C)."""
    for start in range(0, len(now), step):
        end = start + step
        if now[start:end] != recorded[start:end]:
            yield from (at for at in range(start, min(end, len(now))) if now[at] != recorded[at])


def _unpack(data: Raw) -> list[int] | None:
    packed = unpack(data)
    return None if packed is None else packed.tolist()


def _four(values: Sequence[int], i: int) -> Stat:
    return (values[4 * i], values[4 * i + 1], values[4 * i + 2], values[4 * i + 3])
