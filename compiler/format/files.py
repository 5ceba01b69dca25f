"""Reading hostile trees: regular files only, bounded, never blocking.

One implementation for the compiler (sources, config, templates, its cache, the output it compares
with) and the reader (every dist/ file): opening a FIFO must not block, a device or a symlink to
`/dev/zero` must not be read to the end, and a file that grows while it is read must not exhaust
memory. Standard library only.
"""

from __future__ import annotations

import os
import stat

O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class NotRegular(OSError):
    """The path names something other than a regular file (FIFO, device, directory, socket)."""


class TooLarge(OSError):
    """The file holds more than the caller's cap."""


class Replaced(OSError):
    """The file opened is not the one the caller listed (another inode): it was swapped in between."""


def kind(mode: int) -> str:
    """A reader's word for a file type, for diagnostics."""
    for test, word in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symlink"),
    ):
        if test(mode):
            return word
    return "not a regular file"


def read_regular(
    path: str | os.PathLike[str],
    cap: int,
    *,
    follow: bool = True,
    identity: tuple[int, int] | None = None,
    seen: list[os.stat_result] | None = None,
) -> bytes:
    """The bytes of a regular file of at most `cap` bytes.

    Raises NotRegular, TooLarge (with the size seen) or another OSError. With
    follow=False a symlink at the last component is refused (ELOOP) instead
    of followed. O_NONBLOCK: opening a FIFO returns at once instead of
    waiting for a writer; the fstat then refuses it. identity: the (st_dev,
    st_ino) a walk saw at path; the open file must be that one (Replaced
    otherwise), so a file swapped after the walk is never read. seen: gets
    the fstat of the file read (the reader's identity of an index).
    """
    flags = os.O_RDONLY | O_NONBLOCK | O_CLOEXEC | (0 if follow else O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if seen is not None:
            seen.append(st)
        if identity is not None and (st.st_dev, st.st_ino) != identity:
            raise Replaced(0, "was replaced after it was listed", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(0, f"is {kind(st.st_mode)}, not a regular file", os.fspath(path))
        if st.st_size > cap:
            raise TooLarge(0, f"is {st.st_size} bytes; the cap is {cap}", os.fspath(path))
        chunks: list[bytes] = []
        left = cap + 1  # one byte more than allowed tells a file that grew past the cap
        # The size fstat gave and a byte more, in one read: a file of megabytes (a cache file) is
        # then one buffer, not chunks joined into a second one (half its reading time).
        want = min(left, st.st_size + 1)
        while left > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            short = len(chunk) < want
            want = min(left, 1 << 20)  # a file that grew after the fstat: the rest a chunk at a time
            if short and cap + 1 - left == st.st_size:
                # Short, and the size fstat gave: the end, without the empty read that says so (one
                # system call of five per file; 15,000 files in a 10,000-skill build). A file that
                # grew after the fstat is read as it was then, as if read a moment earlier.
                break
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > cap:
        raise TooLarge(0, f"exceeds the cap of {cap} bytes", os.fspath(path))
    return data
