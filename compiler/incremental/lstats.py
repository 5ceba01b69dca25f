"""One lstat of each of many paths, as the quick path's check of the recorded walk takes them
(manifest.py `changes`): each path's ctime and inode number, and the stat results themselves.

The lstats are most of a no-op build and of an edit build (30,000 paths at 10,000 skills, about
90 ms). With a second core, a forked child takes a share and sends back the two numbers of each
path while this process takes the rest, as git preloads its index with parallel lstats. The paths
go in chunks: this process takes them from the first on and the child from the last back, each
claiming the next as it is free (a byte of one pipe), so whichever has the core does the work (the
child, faulting in the pages it writes, ran 15-30 ms behind an even half), and this process's
results stay the first paths'. Once a change is known (a chunk of this process's that differs from
the record, or the child's word through a third pipe, with the moved path's place), this process
does the caller's `meanwhile` (an edit build's first reads, and the build itself on a guess) and
the child takes more of the chunks. Threads would not do it in Python: each lstat takes the
interpreter's lock back to build its result, and two threads spend more time passing the lock
than the second core saves. A fork is made only where it is safe and
pays: Linux, a process with one thread (a fork copies no other thread, and any lock one held would
stay held in the child), at least SPLIT_AT paths. Anything that goes wrong in the child (an inode
number past 2**63, a crash) costs only the split: this process then takes the child's share
itself. `skillc build` forks that child before it even imports the command line and the stages
(`begin`, from quick.start); `look` joins it when it asks for the same paths below the same folder,
and ends it otherwise.
"""

from __future__ import annotations

import array
import os
import sys
from collections.abc import Callable
from functools import partial
from operator import attrgetter

from ..dataclass import dataclass
from ..forking import fork, released
from ..reap import stop

SPLIT_AT = 8192  # fewer paths take less time than a fork's round trip saves (bench/RESULTS.md)
CHUNK = 1024  # paths a claim: about 3 ms of lstats, what the last to finish may wait for the other
_MAX_CLAIMS = 4096  # one byte each in the claims pipe, written before the fork: well within its buffer
GONE = -2  # the ctime and inode number of a path that is not there (never a recorded value)
_SAID = 9  # what the child writes once it finds a change: "!" and the path's place, 8 bytes
_CTIME, _INO = attrgetter("st_ctime_ns"), attrgetter("st_ino")


@dataclass(frozen=True)
class Looked:
    """What one lstat of each path found: `taken`, this process's stat results of the first
    len(taken) paths (None for one not there); `ctimes` and `inodes` of every path (GONE)."""

    taken: list[os.stat_result | None]
    ctimes: array.array[int]
    inodes: array.array[int]


@dataclass(frozen=True)
class Recorded:
    """The recorded ctime and inode number of each path: what tells a change as the lstats come."""

    ctimes: array.array[int]
    inodes: array.array[int]

    def differ(self, start: int, ctimes: array.array[int], inodes: array.array[int]) -> bool:
        """Whether the numbers of the paths from `start` on are not the recorded ones."""
        end = start + len(ctimes)
        return ctimes != self.ctimes[start:end] or inodes != self.inodes[start:end]

    def first_moved(self, start: int, ctimes: array.array[int], inodes: array.array[int]) -> int | None:
        """The first path from `start` on whose numbers are not the recorded ones (its place among
        all the paths), or None."""
        if not self.differ(start, ctimes, inodes):  # in C: most chunks hold no change
            return None
        for i in range(len(ctimes)):
            if ctimes[i] != self.ctimes[start + i] or inodes[i] != self.inodes[start + i]:
                return start + i
        return None


def look(
    paths: list[str],
    fd: int,
    meanwhile: Callable[[int | None], None] | None = None,
    recorded: Recorded | None = None,
) -> Looked:
    """lstat of each path (relative to the directory `fd`). OverflowError: an inode number that
    does not fit in 64 bits (overlayfs's xino), which the caller cannot record either. A child that
    `begin` started for these very paths below this very folder is joined instead of a new one.
    `meanwhile`: work this process does while a child takes lstats (the child then takes more of
    them), once either process has found a path whose numbers are not `recorded` (without
    `recorded`, a change known already: before any chunk), given the place of the first path found
    moved (None without `recorded`); never without a child, nor when no change is found by the time
    this process has no chunk left to take. (The quick path reads ahead for an edit build so, and
    makes it on the guess that the path found is the one change: a no-op does not pay for it.)"""
    split = _take(paths, fd)
    if split is None and _splits(paths):
        split = _fork(paths, fd, recorded)
    if split is None:
        taken = lstat_each(paths, fd)
        return Looked(taken, *_keys(taken))
    return _join(split, paths, fd, meanwhile, recorded)


@dataclass(frozen=True)
class _Split:
    """A forked child taking chunks from the last back: its pid, the claims pipe's read end, the
    pipe its numbers come back by, the chunk size."""

    pid: int
    claims: int
    results: int
    size: int
    found: int  # a pipe's read end (not blocking): "!" once the child has found a change


@dataclass(frozen=True)
class _Early:
    """A split `begin` started before the build asked: for which paths, below which folder (its
    device and inode number), and the folder's descriptor the child took."""

    split: _Split
    paths: list[str]
    folder: tuple[int, int]
    fd: int


_early: list[_Early] = []  # at most one: `begin`'s, until `look` joins it or `discard` ends it


def begin(paths: list[str], base: str, recorded: Recorded | None = None) -> None:
    """Start the lstats of `paths` (relative to `base`) in a forked child now, while this process
    goes on importing and checking: `look` joins it when asked for the same paths below the same
    folder, and `discard` ends it otherwise. Nothing is started where `look` would not fork."""
    discard()
    if not _splits(paths):
        return
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    st = os.fstat(fd)
    split = _fork(paths, fd, recorded)
    if split is None:
        os.close(fd)
        return
    _early.append(_Early(split, paths, (st.st_dev, st.st_ino), fd))


def discard() -> None:
    """End a child `begin` started that no `look` joined (its work is not needed)."""
    while _early:
        early = _early.pop()
        _end(early.split)
        os.close(early.fd)


def _take(paths: list[str], fd: int) -> _Split | None:
    """`begin`'s split, when it lstats these paths below the folder `fd` is open on."""
    if not _early:
        return None
    early = _early[-1]
    st = os.fstat(fd)
    if early.folder != (st.st_dev, st.st_ino) or early.paths != paths:
        discard()
        return None
    _early.pop()
    os.close(early.fd)  # the child has its own
    return early.split


def _fork(paths: list[str], fd: int, recorded: Recorded | None) -> _Split | None:
    """A child taking chunks of `paths` from the last back; None when no process could be made."""
    size = max(CHUNK, -(-len(paths) // _MAX_CLAIMS))
    chunks = -(-len(paths) // size)
    claims, results, found = os.pipe(), os.pipe(), os.pipe()
    os.write(claims[1], bytes(chunks))  # one byte a chunk, read to its end: no chunk left
    os.close(claims[1])
    try:
        pid = fork()
    except OSError:  # no process to spare (a limit): one process takes them all
        for end in (claims[0], *results, *found):
            os.close(end)
        return None
    if pid == 0:  # the child: chunks from the last back, their numbers into the pipe, then out
        try:
            released()
            os.close(results[0])
            os.close(found[0])
            _theirs(paths, fd, size, chunks, claims[0], results[1], recorded, found[1])
        finally:
            os._exit(0)
    os.close(results[1])
    os.close(found[1])
    os.set_blocking(found[0], False)
    split = _Split(pid, claims[0], results[0], size, found[0])
    # A Ctrl-C that came during the fork is raised here, once the child is stopped
    released(partial(_end, split))
    return split


def _end(split: _Split) -> None:
    """Stop the child and close this process's ends of its pipes."""
    stop(split.pid)
    for end in (split.claims, split.results, split.found):
        os.close(end)


def _join(
    split: _Split,
    paths: list[str],
    fd: int,
    meanwhile: Callable[[int | None], None] | None,
    recorded: Recorded | None,
) -> Looked:
    """This process's chunks from the first on, as long as any is left, with `meanwhile` run once
    a change is known (`look`), given the place of the path found moved (None: known before any
    chunk), then the child's numbers."""
    size = split.size
    pipe = open(split.results, "rb")  # noqa: SIM115 - closed below, before the wait
    try:
        taken: list[os.stat_result | None] = []
        ctimes, inodes = array.array("q"), array.array("q")
        if meanwhile is not None and recorded is None:
            meanwhile(None)
            meanwhile = None
        while os.read(split.claims, 1):
            start = len(taken)
            chunk = lstat_each(paths[start : start + size], fd)
            taken.extend(chunk)
            mine = _keys(chunk)
            ctimes += mine[0]
            inodes += mine[1]
            if meanwhile is not None and recorded is not None:
                moved = recorded.first_moved(start, *mine)
                moved = _signalled(split.found) if moved is None else moved
                if moved is not None:
                    meanwhile(moved)
                    meanwhile = None
        sent = pipe.read()
    finally:
        os.close(split.claims)
        os.close(split.found)
        pipe.close()  # first: a child still writing (this process interrupted) gets an error, not a full pipe
        os.waitpid(split.pid, 0)
    rest = len(paths) - len(taken)
    if len(sent) != 16 * rest:  # the child failed: what it took is taken here
        more = _keys(lstat_each(paths[len(taken) :], fd))
        return Looked(taken, ctimes + more[0], inodes + more[1])
    theirs = array.array("q")
    theirs.frombytes(sent)  # the same machine, the same byte order
    return Looked(taken, ctimes + theirs[:rest], inodes + theirs[rest:])


def _signalled(found: int) -> int | None:
    """The place of the path the child has said it found moved; None when it has said nothing yet,
    or is done without a change (the pipe's end). It says so in one write, "!" and the place: a
    write of less than PIPE_BUF bytes comes out whole."""
    try:
        said = os.read(found, _SAID)
    except BlockingIOError:
        return None
    return int.from_bytes(said[1:], "little") if len(said) == _SAID and said[:1] == b"!" else None


def _theirs(
    paths: list[str],
    fd: int,
    size: int,
    chunks: int,
    claims: int,
    out: int,
    recorded: Recorded | None,
    found: int,
) -> None:
    """The child's share: a chunk from the last back for each claim it wins, then the ctimes and
    inode numbers of all it took, in path order (its chunks are the last ones: a run to the end).
    The first chunk it finds a change in, it says so through `found`, with the first moved path's
    place."""
    done: list[tuple[array.array[int], array.array[int]]] = []
    told = recorded is None
    while os.read(claims, 1):
        k = chunks - 1 - len(done)
        done.append(_keys(lstat_each(paths[k * size : (k + 1) * size], fd)))
        moved = None if told or recorded is None else recorded.first_moved(k * size, *done[-1])
        if moved is not None:
            os.write(found, b"!" + moved.to_bytes(_SAID - 1, "little"))
            told = True
    done.reverse()
    ctimes, inodes = array.array("q"), array.array("q")
    for c, i in done:
        ctimes += c
        inodes += i
    with open(out, "wb") as pipe:
        pipe.write(ctimes.tobytes() + inodes.tobytes())


def lstat_each(paths: list[str], fd: int) -> list[os.stat_result | None]:
    """lstat of each path (relative to `fd`); None for one that is not there (a folder or file
    removed). The map runs in C, and a path that is not there only stops it for that path."""
    found: list[os.stat_result | None] = []
    each = map(partial(os.lstat, dir_fd=fd), paths)
    while True:
        try:
            found.extend(each)  # in C; what came before a path that is not there stays in `found`
        except (FileNotFoundError, NotADirectoryError):
            found.append(None)  # that path: `each` goes on with the next
            continue
        return found


def lstat_or_none(path: str, fd: int) -> os.stat_result | None:
    try:
        return os.lstat(path, dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _keys(taken: list[os.stat_result | None]) -> tuple[array.array[int], array.array[int]]:
    """The ctimes and inode numbers, two maps in C (a fifth of the cost of all four values)."""
    if None in taken:
        return (
            array.array("q", [GONE if st is None else st.st_ctime_ns for st in taken]),
            array.array("q", [GONE if st is None else st.st_ino for st in taken]),
        )
    return array.array("q", map(_CTIME, taken)), array.array("q", map(_INO, taken))


def _splits(paths: list[str]) -> bool:
    """Whether a child takes a share of these paths' lstats."""
    return len(paths) >= SPLIT_AT and forkable()


def forkable() -> bool:
    """Whether forking is safe and can pay: Linux, two cores, and this process's only thread."""
    if not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False
