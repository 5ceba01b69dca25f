"""The recorded walk (`walk.json`): what discover's walk saw (stages/seen.py), every path it
lstat'ed with its mode, ctime and inode number and every folder it listed with the names listed,
and each walked root with its real path. The next build checks it by one lstat of each path
(`Walk.check`) instead of walking, and an edit build asks discover again only below what moved.

Why stat data is enough: a folder whose ctime and inode are those recorded holds the names
recorded, since adding, removing or renaming an entry sets its ctime, which no call sets back; a
file edited in place has another ctime; a path replaced by another has another inode. So when every
path checks out, discover would see what it saw. A walk is recorded only when it can vouch for what
discover read (`recorded`): every path it saw older than a file-system stamp taken before discover
read (a change after the stamp has a ctime as new as the stamp), each root the very folder it was
at the stamp (its real path and stat data: a folder above it renamed over is seen), no link to a
folder (discover follows one, with checks this walk does not repeat), and every name UTF-8. A link
to a file is recorded with its target text and the file it leads to, as they were before discover
followed it (stages/seen.py): older than the stamp too.

Signed like every cache file; the paths (relative to the roots' common folder, shorter to read and
to lstat) and the names are packed strings, the stat data int64 (packed.py).
"""

from __future__ import annotations

import array
import bisect
import contextlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .. import fs
from ..dataclass import dataclass
from ..names.paths import run_below
from . import lstats
from .packed import pack, pack_texts, unpack, unpack_texts

if TYPE_CHECKING:
    from ..stages.seen import Seen

NAME = "walk.json"
Tops = tuple[tuple[str, str], ...]  # each walked root: (its config path, where it is on disk)
Root = tuple[str, int, int]  # a root's real path, ctime and inode number (through its links)
Link = tuple[str, int, int]  # a link's target text, and the ctime and inode of the file it leads to
Stat = tuple[int, int, int]  # mode, ctime, inode
UNLISTED = "/"  # the names of a path no walk listed (no name holds a "/"; "" is an empty folder)
# What a link leads to when it is a folder, or nothing: as stages/seen.py spells them (a no-op
# build imports no stage)
FOLDER, NOTHING = (-3, -3), (-1, -1)


class CannotVouch(ValueError):
    """A tree whose walk cannot be recorded (the module's docstring)."""


@dataclass(frozen=True)
class Walk:
    """The decoded walk: `paths` sorted, relative to `base` (the roots' common folder), each with
    its stat data (`stats`, three values a path) and its names when it is a folder discover listed
    (`names`, "/"-joined; UNLISTED otherwise); each root with its real path and stat data, and its
    names; each link among `paths`, in order."""

    id: str  # what head.json names it by
    base: str
    tops: Tops
    roots: list[Root]
    root_names: list[str]
    paths: list[str]
    stats: array.array[int]
    names: list[str]
    links: list[Link]

    def where(self, rel: str) -> str:
        return _joined(self.base, rel)

    def inside(self, where: str) -> str:
        """A path on disk as the walk keeps it (below `base`)."""
        return where[len(_prefix(self.base)) :] if where != self.base else ""

    def listing(self, where: str) -> list[str] | None:
        """The names a folder held, as the walk listed them (None: it listed no such folder)."""
        for i, (_label, top) in enumerate(self.tops):
            if top == where:
                return _split(self.root_names[i])
        rel = self.inside(where)
        at = bisect.bisect_left(self.paths, rel)
        return _split(self.names[at]) if at < len(self.paths) and self.paths[at] == rel else None

    def check(self) -> Changes | None:
        """What moved since the walk: one lstat of each path, and each root by its real path and
        stat data. None when a root is another folder, or the check fails (a walk must then tell)."""
        moved_roots, newest = [], 0
        try:
            for i, (_label, where) in enumerate(self.tops):
                st = os.stat(where)
                real, ctime, ino = self.roots[i]
                if os.path.realpath(where) != real:
                    return None
                if (st.st_ctime_ns, st.st_ino) != (ctime, ino):
                    moved_roots.append(i)
                    newest = max(newest, st.st_ctime_ns)
            fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                ctimes, inodes = lstats.look(self.paths, fd)
            finally:
                os.close(fd)
            moved = sorted({*_differing(ctimes, self.stats[1::3]), *_differing(inodes, self.stats[2::3])})
            moved = sorted({*moved, *self._links_moved(set(moved))})
        except (OSError, OverflowError, CannotVouch):  # OverflowError: an inode number past 2**63
            return None
        now = {at: (ctimes[at], inodes[at]) for at in moved if ctimes[at] != lstats.GONE}
        newest = max([newest, *(ctime for ctime, _ino in now.values())])
        return Changes(moved, now, moved_roots, newest)

    def _links_moved(self, moved: set[int]) -> list[int]:
        """The links (not moved themselves) whose target text or file moved."""
        if not self.links:
            return []
        found = []
        places = [at for at in range(len(self.paths)) if stat.S_ISLNK(self.stats[3 * at])]
        for at, link in zip(places, self.links, strict=True):
            if at not in moved and _link(self.where(self.paths[at])) != link:
                found.append(at)
        return found


@dataclass(frozen=True)
class Changes:
    """What `Walk.check` found: the places of the paths that moved (or are gone), the ctime and
    inode of each that is still there, the roots that moved, the newest ctime of them all."""

    moved: list[int]
    now: Mapping[int, tuple[int, int]]
    roots: list[int]
    newest: int

    @property
    def none(self) -> bool:
        return not self.moved and not self.roots


def stamp_now(directory: Path) -> int | None:
    """A file-system time stamp: the ctime of a new file in `directory` (file time stamps come from a
    coarser clock than time.time_ns(), which can be ahead of the stamp of a later write)."""
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


def roots_now(tops: Tops) -> list[Root] | None:
    """Each root's real path, ctime and inode number (through its links); None when one cannot be
    told."""
    try:
        found = []
        for _label, where in tops:
            st = os.stat(where)
            found.append((_utf8(os.path.realpath(where)), st.st_ctime_ns, st.st_ino))
        return found
    except (OSError, CannotVouch):
        return None


def recorded(seen: Seen, tops: Tops, roots: list[Root], stamp: int, more: Iterable[str] = ()) -> Walk | None:
    """The walk of what discover saw (`seen`), when it vouches for what discover read (the module's
    docstring): `roots` as they were when `stamp` was taken, before discover read. `more`: files
    discover read without a lstat (the ignore files), lstat'ed now."""
    if seen.unsure or roots_now(tops) != roots:
        return None
    base = _common([where for _label, where in tops])
    try:
        found = _found(seen, base, None)
        for where in more:
            st = os.lstat(where)
            found[_below(base, where)] = (st.st_mode, st.st_ctime_ns, st.st_ino)
        listed = _listed(seen, base, None)
        tops_listed = [listed.pop(_below(base, where), UNLISTED) for _label, where in tops]
        paths = sorted(found)
        names = [listed.get(rel, UNLISTED) for rel in paths]
        stats = array.array("q", [value for rel in paths for value in found[rel]])
        walk = Walk(os.urandom(16).hex(), base, tops, roots, tops_listed, paths, stats, names, [])
        return _vouched(walk, stamp, {_below(base, where): link for where, link in seen.links.items()})
    except (OSError, CannotVouch, OverflowError):
        return None


def renewed(
    walk: Walk,
    changes: Changes,
    below: list[str],
    seen: Seen,
    relisted: Mapping[str, tuple[Stat, list[str]]],
    stamp: int,
) -> Walk | None:
    """`walk` after an edit build: each path that moved with the stat data `changes` found; each
    folder of `relisted` (where on disk) with its stat data and names now (stat'ed after `stamp`,
    then listed); and below each folder of `below` (where on disk, none below another) what
    discover saw there now (`seen`: discover_under's walks) in place of what the walk held. None
    when anything new is as new as `stamp`, or cannot be recorded."""
    stats, names = array.array("q", walk.stats), list(walk.names)
    for at, (ctime, ino) in changes.now.items():
        stats[3 * at + 1], stats[3 * at + 2] = ctime, ino
    roots, root_names = list(walk.roots), list(walk.root_names)
    try:
        for where, (stat_data, listing) in relisted.items():
            joined = "/".join(map(_utf8, listing))
            top = [i for i, (_label, w) in enumerate(walk.tops) if w == where]
            if top:  # stat'ed through its links, as `roots_now` does
                roots[top[0]] = (roots[top[0]][0], stat_data[1], stat_data[2])
                root_names[top[0]] = joined
                continue
            rel = walk.inside(where)
            at = bisect.bisect_left(walk.paths, rel)
            if at < len(walk.paths) and walk.paths[at] == rel:
                stats[3 * at : 3 * at + 3] = array.array("q", stat_data)
                names[at] = joined
        cuts = sorted(walk.inside(where) for where in below)
        inside = lambda rel: any(rel == cut or rel.startswith(cut + "/") for cut in cuts)  # noqa: E731
        found, listed = _found(seen, walk.base, inside), _listed(seen, walk.base, inside)
    except (CannotVouch, OverflowError):
        return None
    if seen.unsure:
        return None
    # The paths of each cut replaced by those seen there: the cut itself, then those below it (a
    # run of the sorted paths; a sibling "cut-x" sorts between the two)
    spans: list[tuple[int, int, list[str]]] = []
    for cut in cuts:
        at = bisect.bisect_left(walk.paths, cut)
        here = at + (at < len(walk.paths) and walk.paths[at] == cut)
        start, end = run_below(walk.paths, cut)
        mine = sorted(rel for rel in found if rel == cut or rel.startswith(cut + "/"))
        spans += [
            (at, here, mine[:1] if mine[:1] == [cut] else []),
            (start, end, [r for r in mine if r != cut]),
        ]
    paths: list[str] = []
    new_stats, new_names = array.array("q"), []
    kept = 0
    for start, end, put in sorted(spans, key=lambda span: span[:2]):
        paths += walk.paths[kept:start]
        new_stats += stats[3 * kept : 3 * start]
        new_names += names[kept:start]
        paths += put
        for rel in put:
            new_stats.extend(found[rel])
            new_names.append(listed.get(rel, UNLISTED))
        kept = end
    paths += walk.paths[kept:]
    new_stats += stats[3 * kept :]
    new_names += names[kept:]
    made = Walk(
        os.urandom(16).hex(), walk.base, walk.tops, roots, root_names, paths, new_stats, new_names, []
    )
    links: dict[str, Link] = {}
    if walk.links:
        places = [at for at in range(len(walk.paths)) if stat.S_ISLNK(walk.stats[3 * at])]
        links.update((walk.paths[at], link) for at, link in zip(places, walk.links, strict=True))
    links.update((walk.inside(where), link) for where, link in seen.links.items())
    try:
        return _vouched(made, stamp, links)
    except CannotVouch:
        return None


def _found(seen: Seen, base: str, take: Callable[[str], bool] | None) -> dict[str, Stat]:
    """What `seen` lstat'ed below `base` (by its path below it) that `take` takes (all: None); a
    path seen twice has the later answer."""
    found: dict[str, Stat] = {}
    values = seen.stats
    for i, where in enumerate(seen.paths):
        rel = _below(base, where)
        if take is None or take(rel):
            found[rel] = (values[3 * i], values[3 * i + 1], values[3 * i + 2])
    return found


def _listed(seen: Seen, base: str, take: Callable[[str], bool] | None) -> dict[str, str]:
    """The folders `seen` listed below `base` that `take` takes, with their names "/"-joined."""
    found: dict[str, str] = {}
    for where, listing in zip(seen.folders, seen.names, strict=True):
        rel = _below(base, where)
        if take is None or take(rel):
            found[rel] = "/".join(map(_utf8, listing))
    return found


def _vouched(walk: Walk, stamp: int, links: Mapping[str, Link]) -> Walk | None:
    """`walk` with its links (`links`: by path, what each led to when discover met it: every path of
    the walk that is a link has one), when every path and what each link leads to is older than
    `stamp`; raises CannotVouch for a link to a folder or a name that is not UTF-8."""
    if not "".join(walk.paths).isascii():  # nearly every tree: one test in C
        for rel in walk.paths:
            _utf8(rel)
    if walk.stats and max(walk.stats[1::3]) >= stamp:
        return None
    if links:
        found = [links.get(rel) for at, rel in enumerate(walk.paths) if stat.S_ISLNK(walk.stats[3 * at])]
        led = [link for link in found if link is not None]
        if len(led) != len(found):
            return None  # a link no walk followed: not what discover saw
        if any((ctime, ino) == FOLDER for _target, ctime, ino in led):
            raise CannotVouch("a link to a folder")
        if any(ctime >= stamp for _target, ctime, _ino in led):
            return None
        walk.links[:] = led
    return walk


def _link(where: str) -> Link:
    """A link's target text and what it leads to, now (as stages/seen.py takes them)."""
    try:
        led = os.stat(where)
    except OSError:
        return (os.readlink(where), *NOTHING)
    return (os.readlink(where), *(FOLDER if stat.S_ISDIR(led.st_mode) else (led.st_ctime_ns, led.st_ino)))


def encode(walk: Walk) -> dict[str, object]:
    tops = [[label, where, *root] for (label, where), root in zip(walk.tops, walk.roots, strict=True)]
    return {
        "id": walk.id,
        "base": walk.base,
        "tops": tops,
        "root_names": walk.root_names,
        "paths": pack_texts(walk.paths),
        "stats": pack(walk.stats),
        "names": pack_texts(walk.names),
        "links": [list(link) for link in walk.links],
    }


def decode(data: object, walk_id: str) -> Walk | None:
    """The walk in `data` when it is the walk `walk_id`; None otherwise."""
    try:
        if not isinstance(data, dict) or data["id"] != walk_id:
            return None
        tops = tuple((str(label), str(where)) for label, where, *_root in data["tops"])
        roots = [(str(real), int(ctime), int(ino)) for _l, _w, real, ctime, ino in data["tops"]]
        root_names = [str(names) for names in data["root_names"]]
        paths, stats, names = unpack_texts(data["paths"]), unpack(data["stats"]), unpack_texts(data["names"])
        links = [(str(target), int(ctime), int(ino)) for target, ctime, ino in data["links"]]
        base = str(data["base"])
    except (KeyError, TypeError, ValueError):
        return None
    if paths is None or stats is None or names is None or not os.path.isabs(base):
        return None
    if len(stats) != 3 * len(paths) or len(names) != len(paths) or len(root_names) != len(tops):
        return None
    if links and sum(stat.S_ISLNK(mode) for mode in stats[0::3]) != len(links):
        return None  # (a tree without links, nearly every one, pays no pass over its modes)
    return Walk(walk_id, base, tops, roots, root_names, paths, stats, names, links)


def _common(wheres: list[str]) -> str:
    """The roots' deepest common folder, by their text (os.path.commonpath drops "." and "//")."""
    parts = [where.split("/") for where in wheres]
    keep = 0
    for names in zip(*parts, strict=False):
        if len(set(names)) > 1:
            break
        keep += 1
    return "/".join(parts[0][:keep]) or "/" if parts else "/"


def _prefix(base: str) -> str:
    return base if base.endswith("/") else base + "/"


def _joined(base: str, rel: str) -> str:
    return _prefix(base) + rel if rel else base


def _below(base: str, where: str) -> str:
    return where[len(_prefix(base)) :] if where != base else ""


def _split(names: str) -> list[str] | None:
    return None if names == UNLISTED else names.split("/") if names else []


def _utf8(text: str) -> str:
    """A name as a cache file can hold it: one with bytes that are not UTF-8 cannot be vouched for."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise CannotVouch(text) from None
    return text


def _differing(now: array.array[int], recorded: array.array[int], step: int = 4096) -> list[int]:
    """The places whose values differ, a slice at a time (the slices compare in C)."""
    found: list[int] = []
    for start in range(0, len(now), step):
        end = start + step
        if now[start:end] != recorded[start:end]:
            found += (at for at in range(start, min(end, len(now))) if now[at] != recorded[at])
    return found
