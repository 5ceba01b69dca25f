"""Write stage: put Artifacts on disk atomically, under a lock.

A rebuild writes in place. Every file a reader follows from the index is an object, named by its
content, so the new build's objects can go straight into the existing `objects/` while the old
index still points at the old ones: nothing a reader of either build reads is ever rewritten.
Each file is written under a temporary name in the output (`layout.TEMP_PREFIX`) and renamed into
place, the marker first, then the new objects, then the persona prompt copies (those of dropped
personas removed), and `_index.json` last: that rename is the commit. So at every instant a reader opening the output gets the old
build or the new one, whole; a reader holding the old build keeps it, since no object is removed
(`--prune` removes those no longer referenced, after the commit); a build killed at any point
leaves the previous build served, and the next one removes its temporary files and writes only
what is still missing. Nothing is fsynced, as before the write went in place: the guarantee is
against a stopped or killed process; after a power cut, the file system's ordering decides.

A first build (no output, or an empty directory) writes a complete new tree next to it and renames
it into place, as does a rebuild whose folders are not plain directories (a symlink planted at
`objects/`): that tree is swapped in with renameat2(RENAME_EXCHANGE), its unchanged objects
hard-linked from the old one.

The output is skillc's own, so skillc writes only into a directory it wrote itself: every build
writes the marker file `.skillc-dist` into it, and an existing, non-empty output without the marker
is refused (`ownership_problem`), as is one holding a file skillc did not write (ownership.py).
Nothing here follows a symlink planted where skillc writes: there is no lock file (the lock is an
flock on the output's parent directory), temporary files are created exclusively under fresh
random names, every folder written into is checked to be a real directory, and temporary trees are
removed with fs.remove_tree (which unlinks a symlink instead of following it).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .. import fs
from ..dataclass import dataclass
from ..errors import OutputRefused
from ..format.layout import INDEX, OBJECTS, PERSONAS, TEMP_PREFIX, is_object
from ..format.layout import OUTPUT_MARKER as MARKER
from ..format.layout import OUTPUT_MARKER_TEXT as MARKER_TEXT
from ..model import Artifacts
from .ownership import foreign_files

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
# An output written before the marker existed: only these names, and an index skillc wrote.
_LEGACY_NAMES = frozenset({INDEX, PERSONAS, OBJECTS})
# Index heads of builds that may lack the marker (format 1 predates it; formats 2 and 3 keep the
# same head).
_LEGACY_HEADS = tuple(b'{\n  "format": %d,\n  "generator": "skillc ' % n for n in (1, 2, 3))
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW | fs.O_CLOEXEC


@dataclass(frozen=True)
class Comparison:
    missing: tuple[str, ...]
    changed: tuple[str, ...]
    extra: tuple[str, ...]  # files a build would not write (objects excluded)
    extra_objects: tuple[str, ...]  # objects of earlier builds, kept unless --prune

    @property
    def current(self) -> bool:
        return not (self.missing or self.changed or self.extra)


@dataclass(frozen=True)
class WriteResult:
    written: bool
    pruned: int


def compare(
    dist: Path,
    art: Artifacts,
    known: Mapping[str, list[int]] | None = None,
    listed: Iterable[str] | None = None,
) -> Comparison:
    """What differs between dist and art, byte for byte.

    known: stat data of the files the last build left (the build cache's record, or what
    survey.py's helper saw). An object whose stat data is still those (an lstat now) is taken as
    unchanged without reading it, as a no-op build takes every file: its name is its content's hash,
    so the bytes that build wrote are the bytes art holds. Objects' bytes are asked of art one at a
    time, as they are compared (assemble makes some on demand).
    listed: fs.list_tree(dist), when the caller has just taken it. Names only: at 100,000 skills a
    scan with each file's stat data held 60 MB more at the build's peak, which is this stage.
    """
    if listed is None:
        listed = (fs.list_tree(dist) or []) if dist.is_dir() else []
    present = set(listed)
    known = known or {}
    top = str(dist)  # each object's path made as text: a Path for each of 150,000 costs more than its lstat
    missing = tuple(p for p in art.files if p not in present)
    changed = tuple(
        p
        for p in art.files
        if p in present
        and not (
            p in art.objects and (want := known.get(p)) is not None and fs.stat_stands(f"{top}/{p}", want)
        )
        and not _same(dist / p, art.files[p], p in art.objects)
    )
    extra = sorted(present - set(art.files))
    return Comparison(
        missing,
        changed,
        tuple(p for p in extra if not is_object(p)),
        tuple(p for p in extra if is_object(p)),
    )


def _same(path: Path, data: bytes, is_object: bool) -> bool:
    """The file holds exactly data. A regular file only, never through a symlink, and never more
    than one byte past data's size is read: a committed output may hold a FIFO or a link to /dev/zero."""
    try:
        return fs.read_regular(path, len(data), follow=False) == data
    except OSError:
        return False


def ownership_problem(dist: Path) -> str | None:
    """Why skillc must not replace dist, or None: absent, empty, or marked as skillc's output.

    Temporary files of a killed build (layout.TEMP_PREFIX) do not count: they are skillc's."""
    try:
        st = os.lstat(dist)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be inspected: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink; skillc writes only a real directory"
    if not stat.S_ISDIR(st.st_mode):
        return "exists and is not a directory"
    try:
        names = [n for n in os.listdir(dist) if not n.startswith(TEMP_PREFIX)]
    except OSError as exc:
        return f"cannot be listed: {exc.strerror}"
    if not names or _marked(dist) or _legacy_output(dist, names):
        return None
    return (
        f"exists and was not written by skillc (no {MARKER} file in it); skillc replaces its output "
        "wholesale and will not delete files it did not write: empty or remove it, or choose another output"
    )


def _marked(dist: Path) -> bool:
    try:
        return fs.read_regular(dist / MARKER, len(MARKER_TEXT), follow=False) == MARKER_TEXT
    except OSError:
        return False


def _legacy_output(dist: Path, names: list[str]) -> bool:
    """An output of a skillc from before the marker: nothing but what a build writes, and its index."""
    if not set(names) <= _LEGACY_NAMES or INDEX not in names:
        return False
    try:
        return fs.read_head(dist / INDEX, len(_LEGACY_HEADS[0]), follow=False) in _LEGACY_HEADS
    except OSError:
        return False


@contextmanager
def lock(dist: Path) -> Iterator[None]:
    """Serialise builds of the same output directory (a second build waits).

    The lock is an flock on the directory that holds the output, the one the
    swap renames in: no lock file exists, so none can be committed by
    accident, and none can be planted (a symlink, a FIFO) to make a build
    write or block elsewhere.
    """
    fd = os.open(dist.parent, os.O_RDONLY | fs.O_DIRECTORY | fs.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write(
    dist: Path, art: Artifacts, *, prune: bool = False, known: Mapping[str, list[int]] | None = None
) -> WriteResult:
    """Raises OutputRefused (nothing touched) or OSError (the old build still the one served).

    known: see compare."""
    dist.parent.mkdir(parents=True, exist_ok=True)
    with lock(dist), fs.interrupt_deferred():
        problem = ownership_problem(dist)  # again under the lock: the early checks are advice
        listed = (fs.list_tree(dist) or []) if not problem and _is_real_dir(dist) else []
        foreign = foreign_files(dist, art, listed)  # one walk for this and compare
        if problem or foreign:
            raise OutputRefused(problem or f"holds {dist.name}/{foreign[0]}, which skillc did not write")
        recover(dist)
        _remove_temporaries(dist)
        cmp = compare(dist, art, known, [rel for rel in listed if not rel.startswith(TEMP_PREFIX)])
        if cmp.current and not (prune and cmp.extra_objects):
            return WriteResult(False, 0)
        pruned = len(cmp.extra_objects) if prune else 0
        if _has_entries(dist):
            try:
                _update(str(dist), art, cmp, prune)
                return WriteResult(True, pruned)
            except _Blocked:
                pass  # a folder skillc writes into is not a directory: a whole new tree, swapped in
        _replace(dist, art, cmp, prune)
        return WriteResult(True, pruned)


def write_delta(dist: Path, files: Mapping[str, bytes], objects: frozenset[str], previous: bytes) -> bool:
    """An edit build's write (incremental/edit.py): the objects among `files` not yet
    in the output, then its other files, the index last, in place as `write` does. False, with
    nothing written, when the output's index is not `previous`, the one the watch wrote last (another
    build wrote since, or the output was damaged or taken over): the caller then builds in full.

    An object already there is not read again: objects are named by their content, and the full
    builds and `skillc check` compare them byte for byte."""
    with lock(dist), fs.interrupt_deferred():
        if ownership_problem(dist) or _index_bytes(dist, len(previous)) != previous:
            return False
        folders = _Folders(dist_str := str(dist))
        try:
            for rel in _commit_order(set(files), objects):
                if rel in objects and _exists(os.path.join(dist_str, rel)):
                    continue
                folders.make(rel.rpartition("/")[0])
                _place(dist_str, rel, files[rel])
        except _Blocked:
            return False  # only objects were written (the index comes last): the full build repairs
        return True


def _index_bytes(dist: Path, size: int) -> bytes | None:
    try:
        return fs.read_regular(dist / INDEX, size + 1, follow=False)
    except OSError:
        return None


def _exists(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


# --- in place: new objects beside the old ones, the index renamed over last -------------------------


class _Blocked(Exception):
    """Something other than a real directory stands where the update writes into a folder."""


def _update(dist: str, art: Artifacts, cmp: Comparison, prune: bool) -> None:
    """Write what differs into the existing output; `_index.json` last, so that a reader sees the
    old build until it is renamed, then the new one. The prompt copies of dropped personas go just
    before that, the objects no longer referenced (with `prune`) just after."""
    folders = _Folders(dist)
    order = _commit_order({*cmp.missing, *cmp.changed}, art.objects)
    for rel in order[:-1] if order[-1:] == [INDEX] else order:
        folders.make(rel.rpartition("/")[0])
        _place(dist, rel, art.files[rel])
    # Before the commit: the prompt copies of personas the new build drops are skillc's only while
    # the index on disk lists them (ownership.py). Readers never read them.
    _remove_files(dist, cmp.extra)
    if order[-1:] == [INDEX]:
        _place(dist, INDEX, art.files[INDEX])
    # After the commit: objects no index on disk names any more. A build killed here leaves some,
    # which the next `--prune` removes.
    if prune:
        _remove_files(dist, cmp.extra_objects)


def _commit_order(todo: set[str], objects: frozenset[str]) -> list[str]:
    """The marker first (an interrupted first write into a legacy output stays ours), then objects,
    then persona copies, then the index: the commit."""
    first = [MARKER] if MARKER in todo else []
    rest = sorted(todo - {MARKER, INDEX})
    last = [INDEX] if INDEX in todo else []
    return [*first, *(r for r in rest if r in objects), *(r for r in rest if r not in objects), *last]


class _Folders:
    """Folders below the output known to be real directories (created if absent), never a symlink."""

    def __init__(self, dist: str) -> None:
        self.dist = dist
        self.known: set[str] = {""}

    def make(self, rel: str) -> None:
        if rel in self.known:
            return
        self.make(rel.rpartition("/")[0])
        path = os.path.join(self.dist, rel)
        try:
            os.mkdir(path)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                raise _Blocked(rel) from None
        self.known.add(rel)


def _place(dist: str, rel: str, data: bytes) -> None:
    """One file, complete under a temporary name in the output, then renamed over `rel`."""
    tmp = os.path.join(dist, f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}")
    try:
        _put(tmp, data)
        try:
            os.rename(tmp, os.path.join(dist, rel))
        except IsADirectoryError:
            raise _Blocked(rel) from None
    except BaseException:
        _unlink(tmp)
        raise


def _put(path: str, data: bytes) -> None:
    """One new file, created (never opened through something planted there); the tests make it fail
    midway, or kill the build here. Written with os.write: a file object per file costs 15,000 of
    them a build."""
    fd = os.open(path, _CREATE, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _remove_files(dist: str, rels: Iterable[str]) -> None:
    """Unlink each (never following a link), then their folders that are left empty."""
    folders: set[str] = set()
    for rel in rels:
        _unlink(os.path.join(dist, rel))
        folders.add(rel.rpartition("/")[0])
    for folder in sorted(folders, key=len, reverse=True):
        while folder:
            try:
                os.rmdir(os.path.join(dist, folder))
            except OSError:
                break  # not empty (or already gone): its parents are not empty either
            folder = folder.rpartition("/")[0]


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        fs.remove_tree(Path(path))


def _has_entries(dist: Path) -> bool:
    """A real directory with something in it: the in-place update applies (a missing or empty output
    gets a new tree renamed into place)."""
    try:
        with os.scandir(dist) as it:
            return stat.S_ISDIR(os.lstat(dist).st_mode) and any(True for _ in it)
    except OSError:
        return False


# --- a whole new tree, swapped in ----------------------------------------------------------------


def _replace(dist: Path, art: Artifacts, cmp: Comparison, prune: bool) -> None:
    tmp = dist.parent / f".{dist.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        verified = frozenset(art.objects) - set(cmp.missing) - set(cmp.changed)
        _fill(tmp, dist, art, () if prune else cmp.extra_objects, verified)
        swap(tmp, dist)
    finally:
        fs.remove_tree(tmp)


def _fill(tmp: Path, dist: Path, art: Artifacts, keep: tuple[str, ...], verified: frozenset[str]) -> None:
    """verified: old objects that compare read and found byte-identical (found by a walk that follows
    no symlink); only those are reused, so a damaged object, or one behind a planted link, never is."""
    os.mkdir(tmp)  # never an existing directory or a planted symlink: the name is new
    made: set[str] = set()  # directories created in tmp (strings, not Paths: 15,000 files at 10,000 skills)

    def target(rel: str) -> str:
        parent = rel.rpartition("/")[0]
        if parent and parent not in made:
            os.makedirs(os.path.join(tmp, parent), exist_ok=True)
            made.add(parent)
        return os.path.join(tmp, rel)

    for rel in art.files:
        new = target(rel)
        if rel in verified and _link(os.path.join(dist, rel), new, None):
            continue
        _put(new, art.files[rel])  # one at a time: an object's bytes may be made on demand
    for rel in keep:
        _link(os.path.join(dist, rel), target(rel), None)


def _link(old: str, new: str, size: int | None) -> bool:
    """Reuse an existing object file instead of writing it again: a regular file, never a symlink."""
    try:
        st = os.lstat(old)
        if not stat.S_ISREG(st.st_mode) or (size is not None and st.st_size != size):
            return False
        os.link(old, new, follow_symlinks=False)
        return True
    except OSError:
        try:
            _put(new, fs.read_regular(old, st.st_size, follow=False))
            return True
        except (OSError, UnboundLocalError):
            return False


def swap(tmp: Path, dist: Path) -> None:
    """Put the complete tree tmp at dist: one atomic exchange where the system has it (output/export.py too)."""
    if not os.path.lexists(dist):
        os.rename(tmp, dist)
        return
    if _exchange(tmp, dist):
        return
    # No atomic exchange here (not Linux): two renames, repaired by recover.
    old = dist.parent / f".{dist.name}.old-{os.getpid()}-{os.urandom(4).hex()}"
    os.rename(dist, old)
    os.rename(tmp, dist)
    fs.remove_tree(old)


def _exchange(a: Path, b: Path) -> bool:
    import ctypes  # here: a write that swaps no tree (an edit build's) need not import it
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc: int = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def recover(dist: Path) -> None:
    """Undo what a build killed mid-swap (two-rename fallback) or mid-write left beside dist: its old
    tree is put back if dist is gone, its new tree removed (output/export.py too)."""
    olds = sorted(dist.parent.glob(f".{dist.name}.old-*"))
    real = [p for p in olds if _is_real_dir(p)]  # a planted symlink is never moved into place
    if not os.path.lexists(dist) and real:
        os.rename(real[-1], dist)
        olds.remove(real[-1])
    for leftover in [*olds, *dist.parent.glob(f".{dist.name}.tmp-*")]:
        fs.remove_tree(leftover)


def _remove_temporaries(dist: Path) -> None:
    """The temporary files a build killed mid-write left in dist (layout.TEMP_PREFIX, top level only)."""
    if not _is_real_dir(dist):
        return
    try:
        names = os.listdir(dist)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return
        raise
    for name in names:
        if name.startswith(TEMP_PREFIX):
            _unlink(os.path.join(dist, name))
