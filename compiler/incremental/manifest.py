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

An edit build does not write walk.json again: it writes walk-edits.json, the manifest after it as
ropes over walk.json's sections (ranges of them, and what changed: `Renewal.journal`), which the
next build reads with walk.json (`decode_edited`); past EDITS_LIMIT it writes walk.json whole.
"""

from __future__ import annotations

import array
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from ..dataclass import dataclass, field, replace
from . import lstats
from .packed import Raw, is_raw, pack, pack_text, pack_texts, unpack, unpack_text, unpack_texts
from .rope import Rope, Splicer
from .snapshot import CannotVouch, Listings, Snapshot, Stat, Tops, followed, stat_data

if TYPE_CHECKING:
    from .rope import T

NAME = "walk.json"
EDITS = "walk-edits.json"  # what edit builds changed since walk.json (`Renewal.journal`)
# A journal is kept while its parts and literal items are no more than this many bytes (about a third
# of walk.json at 10,000 skills); past it, walk.json is written whole again.
EDITS_LIMIT = 1 << 20
_ROPES = ("paths", "folders", "files", "names", "kinds")
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
    # The whole manifest this one was made from by edit builds (walk.json, with walk-edits.json
    # applied), with this one's ropes over it; None when this one is that whole manifest.
    origin: Origin | None = field(default=None, compare=False, repr=False)

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

    def _recorded(self, roots_too: bool = False) -> array.array[int] | None:
        """The recorded stat data of each path past the roots (of every path, `roots_too`), four
        values a path, in order."""
        roots, _folders, files = self.counts
        folder_stats, file_stats = unpack(self.folders), unpack(self.files)
        if folder_stats is None or file_stats is None or len(file_stats) != 4 * files:
            return None
        return (folder_stats if roots_too else folder_stats[4 * roots :]) + file_stats

    def changes(self, meanwhile: Callable[[Changes], None] | None = None) -> Changes | None:
        """The directories and files whose stat data is not the recorded one, from one lstat of each
        path (kept in `seen`, as `unchanged` keeps them); None when a root or a symlink changed,
        or the recorded stat data cannot be read (a walk must then tell). `meanwhile`: as for
        lstats.look, given the first change found as a guess at all of them (the roots that moved,
        else the path found: `_guess`)."""
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
            guessed = None
            if meanwhile is not None:
                told = meanwhile

                def guessed(at: int | None) -> None:
                    told(Changes(tops, ()) if at is None else self._guess(at))

            fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                moved = self._look(self.paths[roots : folders + files], fd, recorded, guessed, bool(tops))
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
        newest = max((now[2] for _path, now in self._moved_tops()), default=0)
        if not moved:
            return Changes(tops, (), newest=newest)
        inside, gone = folders - roots, set(self.gone)
        where = {i: self.where(self.paths[roots + i]) for i in moved}
        return Changes(
            tops + tuple(where[i] for i in moved if i < inside and i not in gone),
            tuple(where[i] for i in moved if i >= inside and i not in gone),
            tuple(where[i] for i in moved if i in gone),
            max([newest, *(self.now[4 * i + 2] for i in moved if i not in gone)]),
        )

    def _guess(self, at: int) -> Changes:
        """The path `at` (its place past the roots) as the one change, with the folder or the files
        saved with it: a body or a description edited is the likeliest reason a path moved, and an
        editor that saves through a new file and a rename moves the file's folder too. So a file
        found moved brings its folder, and a folder its files, when a lstat of each finds it moved
        from the record (what else moved, the lstats tell)."""
        roots, folders, files = self.counts
        inside, rel = folders - roots, self.paths[roots + at]
        if at < inside:  # a folder: the files in it (its recorded entries)
            listed = self.entries(self.where(rel))
            names = [name for name, kind in zip(*listed, strict=True) if kind == "f"] if listed else []
            near = [_find(self.paths, f"{rel}/{name}", folders, folders + files) for name in names]
        else:  # a file: its folder
            near = [_find(self.paths, rel.rpartition("/")[0], roots, folders)]
        moved = {at}
        moved.update(i - roots for i in near if i is not None and self._moved_now(i))
        where = {i: self.where(self.paths[roots + i]) for i in sorted(moved)}
        inner = tuple(w for i, w in where.items() if i < inside)
        return Changes(inner, tuple(w for i, w in where.items() if i >= inside))

    def _moved_now(self, place: int) -> bool:
        """Whether the path at `place` (among all the paths) has moved from the record, by one lstat
        (its ctime and inode number, as `changes` compares them). The two recorded values are read
        from their section, not all of it unpacked (8 MB at 100,000 skills)."""
        folders = self.counts[1]
        raw, at = (self.folders, place) if place < folders else (self.files, place - folders)
        recorded = unpack(raw[32 * at : 32 * at + 32])  # its four values
        try:
            st = os.lstat(self.where(self.paths[place]))
        except OSError:
            return True
        return recorded is None or (st.st_ctime_ns, st.st_ino) != (recorded[2], recorded[3])

    def moved_roots(self) -> tuple[str, ...]:
        """The roots (as the walk names them) whose stat data, as `changes` took it, is not the
        recorded one: a source a skill was added to or removed from."""
        return tuple(path for path, _now in self._moved_tops())

    def _moved_tops(self) -> list[tuple[str, Stat]]:
        """Each root whose stat data moved, with its stat data as `changes` took it."""
        roots = zip(self.paths[: len(self.reals)], self.tops_now, self.reals, strict=True)
        return [(path, now) for path, now, (_real, want) in roots if now != want]

    def _look(
        self,
        paths: list[str],
        fd: int,
        recorded: array.array[int],
        meanwhile: Callable[[int | None], None] | None = None,
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
    ) -> Renewal | None:
        """This manifest as it describes the walk `inputs`: the stat data `changes` saw in place of
        the recorded, without the paths it found gone, with each folder of `relisted` (as the walk
        names it) holding the names and kinds given, and the paths `added` (where, stat data, a
        folder's names and kinds or None for a file). What an edit build records: the caller checks
        each new or changed path is older than its stamp, and gives every folder whose entries
        changed with its entries. Made as ropes over the whole manifest it started from (`origin`):
        ranges of what it keeps, and what changed, which the record keeps as a journal
        (`Renewal.journal`) or whole (`Renewal.whole`)."""
        roots, folders, files = self.counts
        if len(self.now) != 4 * (folders + files - roots) or len(self.tops_now) != roots:
            return None
        origin = self.origin or Origin.of(self)
        recorded = self._recorded(roots_too=True)
        entries = self._places(relisted or {})
        if origin is None or recorded is None or entries is None:
            return None
        stats = array.array("q", [v for st in self.tops_now for v in st]) + self.now
        new = _Splicers(origin.ropes)
        rows = partial(_rows, new, stats, recorded, folders)
        gone = {roots + i for i in self.gone}  # in paths' places
        if not entries and not added and not gone:  # the same paths: new stat data only
            new.paths.take(0, len(self.paths))
            rows(0, folders + files)
            new.names.take(0, self._ends[0])
            new.kinds.take(0, self._ends[1])
            return Renewal(self, inputs, self.counts, origin, new.done())
        # Spliced, not rebuilt: the kept paths, stat rows, kinds and names are ranges of the current
        # ones between the few places that change (a folder gone or relisted), in C.
        new_folders = self._spliced_folders(new, rows, gone, entries, added)
        new_files = self._spliced_files(new, rows, gone, added)
        new.paths.take(folders + files, len(self.paths))  # the symlinks
        return Renewal(self, inputs, (roots, new_folders, new_files), origin, new.done())

    @property
    def _ends(self) -> tuple[int, int]:
        """Where the names and the kinds end, as characters of their "/"-ended ropes (the splicers'
        units): the joined strings and one "/" each (none for no names at all)."""
        return (len(self.names) + 1 if self.names else 0), len(self.kinds) + 1

    def _places(
        self, relisted: Mapping[str, tuple[list[str], str]]
    ) -> dict[int, tuple[list[str], str]] | None:
        """The folders relisted (as the walk names them) by their places among the paths; None when
        one is not a recorded folder."""
        tops = set(self.paths[: self.counts[0]])  # a root is kept as the walk names it
        entries: dict[int, tuple[list[str], str]] = {}
        for where, names_kinds in relisted.items():
            at = _find(self.paths, where if where in tops else _inside(self.base, where), 0, self.counts[1])
            if at is None:
                return None
            entries[at] = names_kinds
        return entries

    def _spliced_folders(
        self,
        new: _Splicers,
        rows: Callable[[int, int], None],
        gone: set[int],
        entries: dict[int, tuple[list[str], str]],
        added: Sequence[tuple[str, Stat, tuple[list[str], str] | None]],
    ) -> int:
        """The folders' paths, stat rows, names and kinds: those kept, each relisted one with its
        new entries, none of those gone, then the folders `added`. How many folders there are now."""
        folders = self.counts[1]
        kinds, names, starts = self._listed()
        name_at = _Offsets(names)  # a name's place as a character of "/"-ended names
        kind_at = _Offsets(kinds)
        at = 0
        for cut in sorted({*(g for g in gone if g < folders), *entries}):
            new.paths.take(at, cut)
            rows(at, cut)
            new.names.take(name_at(starts[at]), name_at(starts[cut]))
            new.kinds.take(kind_at(at), kind_at(cut))
            if cut in entries and cut not in gone:  # relisted (a folder gone is cut out)
                new.paths.take(cut, cut + 1)
                rows(cut, cut + 1)
                start, end = starts[cut], starts[cut + 1]
                _relisted(new, (names[start:end], kinds[cut]), entries[cut], name_at(start), kind_at(cut))
            at = cut + 1
        new.paths.take(at, folders)
        rows(at, folders)
        new.names.take(name_at(starts[at]), self._ends[0])
        new.kinds.take(kind_at(at), self._ends[1])
        listed = [(where, st, listing) for where, st, listing in added if listing is not None]
        for where, st, (names_now, kinds_now) in listed:
            new.paths.add([_inside(self.base, where)])
            new.folders.add(array.array("q", st))
            new.names.add("".join(name + "/" for name in names_now))
            new.kinds.add(kinds_now + "/")
        return folders - len([g for g in gone if g < folders]) + len(listed)

    def _spliced_files(
        self,
        new: _Splicers,
        rows: Callable[[int, int], None],
        gone: set[int],
        added: Sequence[tuple[str, Stat, tuple[list[str], str] | None]],
    ) -> int:
        """The files' paths and stat rows: those kept, none of those gone, then the files `added`.
        How many files there are now."""
        _roots, folders, files = self.counts
        at = folders
        for cut in [*sorted(g for g in gone if g >= folders), folders + files]:
            new.paths.take(at, cut)
            rows(at, cut)
            at = cut + 1
        filed = [(where, st) for where, st, listing in added if listing is None]
        for where, st in filed:
            new.paths.add([_inside(self.base, where)])
            new.files.add(array.array("q", st))
        return files - len([g for g in gone if g >= folders]) + len(filed)

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
    # The latest ctime among the folders and files moved, as `changes` found them: a guess at the
    # changes made before it (edit._Guessed) stands only when they are all older than it
    newest: int = 0

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
        head = _head(data)
        paths = unpack_texts(data["paths"])
        folder_stats, file_stats = data["folders"], data["files"]
        names, kinds = unpack_text(data["names"]), unpack_text(data["kinds"])
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if paths is None or names is None or kinds is None:
        return None
    return _checked(inputs, head, paths, folder_stats, file_stats, names, kinds)


def decode_edited(data: Any, edits: Any, inputs: str) -> Manifest | None:
    """The manifest of the walk `inputs` made by edit builds: walk.json's (`data`) with the journal
    of walk-edits.json (`edits`) applied, when that journal is of that walk.json; None otherwise.
    What it costs before the lstats start: slices of walk.json's sections joined, in C."""
    try:
        if edits["inputs"] != inputs:
            return None
        whole = decode(data, edits["from"])
        origin = None if whole is None else Origin.of(whole)
        if origin is None:
            return None
        head = _head(edits)
        whole_ropes = origin.ropes  # each as long as its section of walk.json
        paths = _rope(edits, "paths", unpack_texts(edits["paths_pool"]), len(whole_ropes.paths))
        folders = _rope(edits, "folders", unpack(edits["folders_pool"]), len(whole_ropes.folders))
        files = _rope(edits, "files", unpack(edits["files_pool"]), len(whole_ropes.files))
        names = _rope(edits, "names", unpack_text(edits["names_pool"]), len(whole_ropes.names))
        kinds = _rope(edits, "kinds", unpack_text(edits["kinds_pool"]), len(whole_ropes.kinds))
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if paths is None or folders is None or files is None or names is None or kinds is None:
        return None
    made = Ropes(paths, folders, files, names, kinds)
    names_ended, kinds_ended = made.names.made(origin.names), made.kinds.made(origin.kinds)
    if (names_ended and not names_ended.endswith("/")) or not kinds_ended.endswith("/"):
        return None
    return _checked(
        inputs,
        head,
        made.paths.made(origin.paths),
        made.folders.made_packed(origin.folders),
        made.files.made_packed(origin.files),
        names_ended[:-1],
        kinds_ended[:-1],
        replace(origin, ropes=made),
    )


def _rope(edits: dict[str, Any], name: str, pool: T | None, base_length: int) -> Rope[T] | None:
    return None if pool is None else Rope.decode(edits[f"{name}_parts"], pool, base_length)


def _head(
    data: Any,
) -> tuple[str, tuple[int, int, int], Tops, list[tuple[str, Stat]], list[tuple[str, Stat]]]:
    """The common folder, the counts, the roots, their real paths and the symlinks, as JSON holds them."""
    base = str(data["base"])
    roots, folders, files = (int(n) for n in data["counts"])
    tops = tuple((str(rel), str(where)) for rel, where, *_ in data["tops"])
    reals = [(str(real), _four(stat, 0)) for _rel, _where, real, *stat in data["tops"]]
    links = [(str(target), _four(stat, 0)) for target, *stat in data["links"]]
    return base, (roots, folders, files), tops, reals, links


def _checked(
    inputs: str,
    head: tuple[str, tuple[int, int, int], Tops, list[tuple[str, Stat]], list[tuple[str, Stat]]],
    paths: list[str],
    folder_stats: Any,
    file_stats: Any,
    names: str,
    kinds: str,
    origin: Origin | None = None,
) -> Manifest | None:
    """The manifest, when its parts agree with each other."""
    base, (roots, folders, files), tops, reals, links = head
    count = folders + files + len(links)
    shapes_ok = (
        0 <= roots == len(tops) <= folders <= count
        and len(paths) == count
        and kinds.count("/") == folders - 1
        and is_raw(folder_stats)
        and is_raw(file_stats)
        and memoryview(folder_stats).nbytes == 32 * folders  # four int64 per folder
        and memoryview(file_stats).nbytes == 32 * files  # and per file
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
        origin=origin,
    )


@dataclass(frozen=True)
class Ropes:
    """A manifest's sections as ropes over those of the whole manifest it was made from: its paths,
    its folders' and files' stat data (int64 values), its names and kinds (characters, each name
    and each folder's kinds ended by "/")."""

    paths: Rope[list[str]]
    folders: Rope[array.array[int]]
    files: Rope[array.array[int]]
    names: Rope[str]
    kinds: Rope[str]

    def __iter__(self) -> Iterator[Rope[Any]]:
        return iter((self.paths, self.folders, self.files, self.names, self.kinds))


@dataclass(frozen=True)
class Origin:
    """The whole manifest a manifest was made from (its digest and sections: the stat data packed,
    names and kinds "/"-ended), and that manifest's ropes over it."""

    inputs: str
    paths: list[str]
    folders: Raw
    files: Raw
    names: str
    kinds: str
    ropes: Ropes

    @staticmethod
    def of(manifest: Manifest) -> Origin | None:
        """A whole manifest as its own origin."""
        folders, files = manifest.folders, manifest.files
        sizes = memoryview(folders).nbytes, memoryview(files).nbytes
        if sizes[0] % 8 or sizes[1] % 8:
            return None
        names = manifest.names + "/" if manifest.names else ""
        kinds = manifest.kinds + "/"
        ropes = Ropes(
            Rope.whole(len(manifest.paths), []),
            Rope.whole(sizes[0] // 8, array.array("q")),
            Rope.whole(sizes[1] // 8, array.array("q")),
            Rope.whole(len(names), ""),
            Rope.whole(len(kinds), ""),
        )
        return Origin(manifest.inputs, manifest.paths, folders, files, names, kinds, ropes)


class _Splicers:
    """The next ropes of each section (rope.Splicer)."""

    def __init__(self, ropes: Ropes) -> None:
        self.paths, self.folders, self.files = (
            Splicer(ropes.paths),
            Splicer(ropes.folders),
            Splicer(ropes.files),
        )
        self.names, self.kinds = Splicer(ropes.names), Splicer(ropes.kinds)

    def done(self) -> Ropes:
        return Ropes(
            self.paths.done(), self.folders.done(), self.files.done(), self.names.done(), self.kinds.done()
        )


def _rows(
    new: _Splicers, stats: array.array[int], recorded: array.array[int], folders: int, start: int, end: int
) -> None:
    """The stat data of the paths start to end (folders first, then files, four values a path):
    the recorded rows as ranges, those `stats` changed as literal rows."""
    if start < folders < end:
        _rows(new, stats, recorded, folders, start, folders)
        _rows(new, stats, recorded, folders, folders, end)
        return
    splicer, shift = (new.folders, 0) if end <= folders else (new.files, folders)
    changed = sorted(
        {at // 4 for at in _differing(stats[4 * start : 4 * end], recorded[4 * start : 4 * end])}
    )
    at = start
    for row in (start + i for i in changed):
        splicer.take(4 * (at - shift), 4 * (row - shift))
        splicer.add(stats[4 * row : 4 * row + 4])
        at = row + 1
    splicer.take(4 * (at - shift), 4 * (end - shift))


def _relisted(
    new: _Splicers,
    was: tuple[list[str], str],
    now: tuple[list[str], str],
    name_at: int,
    kind_at: int,
) -> None:
    """A folder's names and kinds listed again (`was` and `now`; the folder's first name and its
    kinds begin at `name_at` and `kind_at` of the "/"-ended names and kinds): the names both
    listings begin and end with as ranges, the others as literal items. A skill added to a source of
    5,000 keeps the journal a few names long, where the whole listing was 100 KB a build."""
    (old_names, old_kinds), (new_names, new_kinds) = was, now
    head = min(_alike(old_names, new_names), _alike(old_kinds, new_kinds))
    room = min(len(old_names), len(new_names)) - head
    was_back, now_back = old_names[::-1][:room], new_names[::-1][:room]
    tail = min(_alike(was_back, now_back), _alike(old_kinds[::-1][:room], new_kinds[::-1][:room]))
    head_chars = sum(map(len, old_names[:head])) + head
    tail_chars = sum(map(len, old_names[len(old_names) - tail :])) + tail
    end_chars = sum(map(len, old_names)) + len(old_names)
    new.names.take(name_at, name_at + head_chars)
    new.names.add("".join(name + "/" for name in new_names[head : len(new_names) - tail]))
    new.names.take(name_at + end_chars - tail_chars, name_at + end_chars)
    new.kinds.take(kind_at, kind_at + head)
    new.kinds.add(new_kinds[head : len(new_kinds) - tail])
    new.kinds.take(kind_at + len(old_kinds) - tail, kind_at + len(old_kinds) + 1)  # and its "/"


def _alike(one: Sequence[Any], other: Sequence[Any]) -> int:
    """How many items the two begin with alike: a binary search of slices, each compared in C (a
    loop over the items of a source folder of 5,000 skills took 1 ms)."""
    low, high = 0, min(len(one), len(other))
    while low < high:
        middle = (low + high + 1) // 2
        if one[:middle] == other[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class _Offsets:
    """Where each item begins in the items "/"-ended and joined, asked in order: each answer sums
    the lengths since the last (asked from the first each time, a delete's dozen took 3 ms)."""

    def __init__(self, items: list[str]) -> None:
        self.items, self.item, self.offset = items, 0, 0

    def __call__(self, i: int) -> int:
        if i < self.item:
            self.item, self.offset = 0, 0
        self.offset += sum(map(len, self.items[self.item : i])) + i - self.item
        self.item = i
        return self.offset


@dataclass(frozen=True)
class Renewal:
    """A manifest renewed by an edit build (`Manifest.renewed`): kept whole (`whole`, walk.json) or
    as a journal over the whole manifest it came from (`journal`, walk-edits.json)."""

    manifest: Manifest  # the one renewed: its folder, roots and symlinks
    inputs: str
    counts: tuple[int, int, int]
    origin: Origin
    ropes: Ropes

    def whole(self) -> dict[str, Any]:
        """walk.json's data."""
        origin, ropes = self.origin, self.ropes
        return {
            **self._head(),
            "paths": pack_texts(ropes.paths.made(origin.paths)),
            "folders": ropes.folders.made_packed(origin.folders),
            "files": ropes.files.made_packed(origin.files),
            "names": pack_text(ropes.names.made(origin.names)[:-1]),
            "kinds": pack_text(ropes.kinds.made(origin.kinds)[:-1]),
        }

    def journal(self) -> dict[str, Any] | None:
        """walk-edits.json's data: the ropes, with the digest of the walk.json they are over; None
        past EDITS_LIMIT."""
        ropes = self.ropes
        raw: dict[str, bytes] = {}
        for name, rope in zip(_ROPES, ropes, strict=True):
            raw[f"{name}_parts"] = rope.encode()
        raw["paths_pool"] = pack_texts(ropes.paths.pool)
        raw["folders_pool"], raw["files_pool"] = pack(ropes.folders.pool), pack(ropes.files.pool)
        raw["names_pool"], raw["kinds_pool"] = pack_text(ropes.names.pool), pack_text(ropes.kinds.pool)
        if sum(map(len, raw.values())) > EDITS_LIMIT:
            return None
        return {**self._head(), "from": self.origin.inputs, **raw}

    def _head(self) -> dict[str, Any]:
        manifest = self.manifest
        return {
            "inputs": self.inputs,
            "base": manifest.base,
            "tops": [
                [rel, where, real, *st]
                for (rel, where), (real, _was), st in zip(
                    manifest.tops, manifest.reals, manifest.tops_now, strict=True
                )
            ],
            "counts": list(self.counts),
            "links": [[target, *st] for target, st in manifest.links],
        }


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
