"""The objects already in an output that hold what their names say, checked by a helper process
while the build goes on: what a build without the cache's record would otherwise read back.

A build without the cache (`--no-cache`, or a cache that has no record of the output) compares
every object it makes with the one on disk by reading it back (write.compare): at 10,000 skills,
15,000 files and about 12% of the build, on one core while the other is idle. An object is named
by the sha256 of its bytes, so whether a file on disk holds what its name says needs nothing of
the build: a helper checks every object in the output, by hashing it, from the start of the build,
and hands back the stat data of those that hold their name's bytes. The write stage then takes an
object whose stat data is still those as unchanged without reading it, as it takes an object the
cache recorded (`compare`'s `known`). An object edited, truncated or replaced after the helper read
it has other stat data (the write moved its ctime), so it is read and compared as before.

The helper is a new interpreter (`python -I -S` running this file), not a fork: a fork would share
the build's pages, and each page the build then writes would be copied while the helper lives. It
runs at the lowest priority, so that it takes a core only when the build leaves one idle (the
split discover takes both). It writes fixed-size records into an unnamed file; the build stops it
when it needs the answer (`Survey.known`), and what it has not reached is compared as before, so
a slow or missing helper costs nothing but the saving. Standard library only: the helper does not
import skillc.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import stat
import struct
import sys
from collections.abc import Iterator, Mapping

# One record an object: its sha256, then [size, mtime_ns, ctime_ns, inode, mode] (fs.output_stat).
_RECORD = struct.Struct("=32sqqqQq")
_BATCH = 256  # records a write
_HEX = frozenset("0123456789abcdef")
_OPEN = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
_FOLDER = _OPEN | getattr(os, "O_DIRECTORY", 0)
OBJECTS = "objects"  # format.layout.OBJECTS (this file imports nothing of skillc)


class Survey:
    """A running helper, from the build's side."""

    def __init__(self, pid: int, out: int) -> None:
        self._pid, self._out = pid, out

    def known(self, wait: bool = False) -> Found:
        """The objects found to hold their names' bytes, with their stat data. The helper is stopped
        first, and what it had not reached is not in it; `wait`: let it finish instead (the tests,
        to know what it finds)."""
        if wait and self._pid:
            os.waitpid(self._pid, 0)
            self._pid = 0
        self.end()
        try:
            data = os.pread(self._out, os.fstat(self._out).st_size, 0)
        finally:
            os.close(self._out)
            self._out = -1
        return Found(data)

    def end(self) -> None:
        """Stop the helper and reap it, if it still runs (a build that fails or is interrupted)."""
        from ..reap import stop  # here: this file also runs as a script, importing nothing of skillc

        stop(self._pid)
        self._pid = 0


def start(dist: str) -> Survey | None:
    """The helper started on `dist`'s objects; None where it cannot pay or cannot run (one core, no
    objects folder, no unnamed file, a spawn that fails)."""
    if (os.cpu_count() or 1) < 2 or not hasattr(os, "posix_spawn") or not hasattr(os, "memfd_create"):
        return None
    try:
        if not stat.S_ISDIR(os.lstat(os.path.join(dist, OBJECTS)).st_mode):
            return None
        out = os.memfd_create("skillc-survey", os.MFD_CLOEXEC)
    except OSError:
        return None
    try:
        pid = os.posix_spawn(
            sys.executable,
            [sys.executable, "-I", "-S", os.path.abspath(__file__), dist],
            dict(os.environ),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except OSError:
        os.close(out)
        return None
    return Survey(pid, out)


class Found(Mapping[str, list[int]]):
    """The helper's records as `compare`'s `known`: an object's path in the output -> its stat data
    (fs.output_stat). Kept as the records' bytes, in digest order: at 100,000 skills a dict of them
    was 60 MB more at the build's peak, which is its write stage. A record cut short (the helper
    stopped in the middle of a write) is left out. Looked up in path order (compare goes through
    the build's files sorted, and an object's path sorts as its digest), each lookup goes on from
    the last; one asked out of order is found by a binary search."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)[: len(data) - len(data) % _RECORD.size]
        self._count = len(self._data) // _RECORD.size
        self._at = 0  # where the last lookup ended

    def __getitem__(self, rel: str) -> list[int]:
        digest = _digest(rel)
        at = self._find(digest) if digest is not None else None
        if at is None:
            raise KeyError(rel)
        return list(_RECORD.unpack_from(self._data, at * _RECORD.size)[1:])

    def __iter__(self) -> Iterator[str]:
        for i in range(self._count):
            name = self._key(i).hex()
            yield f"{OBJECTS}/{name[:2]}/{name}"

    def __len__(self) -> int:
        return self._count

    def _key(self, i: int) -> bytes:
        return bytes(self._data[i * _RECORD.size : i * _RECORD.size + 32])

    def _find(self, digest: bytes) -> int | None:
        at = self._at
        if at > 0 and self._key(at - 1) >= digest:  # asked out of order: it may lie behind
            at = self._search(digest)
        while at < self._count and self._key(at) < digest:
            at += 1
        self._at = at
        return at if at < self._count and self._key(at) == digest else None

    def _search(self, digest: bytes) -> int:
        low, high = 0, self._count
        while low < high:
            mid = (low + high) // 2
            if self._key(mid) < digest:
                low = mid + 1
            else:
                high = mid
        return low


def _digest(rel: str) -> bytes | None:
    """The digest an object's path names; None for a path that is no object's."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != OBJECTS or len(parts[2]) != 64 or not _HEX.issuperset(parts[2]):
        return None
    return bytes.fromhex(parts[2]) if parts[2].startswith(parts[1]) else None


def survey(dist: str, out: int) -> None:
    """Each object of `dist` that holds its name's bytes, as a record written to `out`."""
    batch = bytearray()
    try:
        top = os.open(os.path.join(dist, OBJECTS), _FOLDER)
    except OSError:
        return
    try:
        for folder in sorted(os.listdir(top)):
            if len(folder) == 2 and _HEX.issuperset(folder):
                batch += _folder(top, folder)
                if len(batch) >= _BATCH * _RECORD.size:
                    _write_all(out, batch)
                    batch.clear()
    finally:
        os.close(top)
    _write_all(out, batch)


def _folder(top: int, folder: str) -> bytes:
    try:
        fd = os.open(folder, _FOLDER, dir_fd=top)
    except OSError:
        return b""
    found = bytearray()
    try:
        for name in sorted(os.listdir(fd)):  # the records in digest order (Found)
            if len(name) == 64 and name.startswith(folder) and _HEX.issuperset(name):
                numbers = _holds(fd, name)
                if numbers is not None:
                    found += _RECORD.pack(bytes.fromhex(name), *numbers)
    finally:
        os.close(fd)
    return bytes(found)


def _holds(folder: int, name: str) -> tuple[int, int, int, int, int] | None:
    """The file's stat data, taken after it was read, if its bytes hash to `name`."""
    try:
        fd = os.open(name, _OPEN, dir_fd=folder)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = _read(fd, st.st_size)
        after = os.fstat(fd)  # a write while it was read moved the ctime: compare sees the change
        if data is None or after.st_size != len(data) or hashlib.sha256(data).hexdigest() != name:
            return None
        return after.st_size, after.st_mtime_ns, after.st_ctime_ns, after.st_ino, after.st_mode
    except OSError:
        return None
    finally:
        os.close(fd)


def _read(fd: int, size: int) -> bytes | None:
    """The file's `size` bytes; None when it holds more or fewer."""
    chunks, left = [], size + 1  # a byte more tells a file that grew
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data if len(data) == size else None


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle: it stops this
    with contextlib.suppress(OSError):
        os.nice(19)  # a core the build leaves idle, never one it uses
    survey(argv[1], 1)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
