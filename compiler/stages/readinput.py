"""One input file read as discover reads it: a regular file, never through a link, the very file
the walk listed (its device and inode), within a size cap; what goes wrong is a diagnostic.

Its own module so that a build that reads a few files again (an edit build, the watch's delta)
does not import the walk.
"""

from __future__ import annotations

import errno
from typing import NamedTuple

from .. import diagnostics as dg
from .. import fs
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import InputFile


class Entry(NamedTuple):
    """One file a walk found. A named tuple, not a dataclass: a 10,000-skill tree makes 15,000, and
    a frozen dataclass's __init__ (a setattr per field) costs three times as much."""

    rel: str  # POSIX path relative to the walked root
    abs: str  # where it is read: a followed symlink's real target, never the link
    executable: bool = False
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) the walk saw: the read must open that file


def read_input(
    entry: Entry, rel: str, cap: int, diags: list[Diagnostic], setting: str = ""
) -> InputFile | None:
    """setting: the config key that sets `cap`, named in the message when there is one.

    Checked again on the open file: the walk's lstat is older than this read. No symlink is
    followed (the walk resolved and checked each one), and the file opened must be the one the walk
    saw, so a file swapped for a link or another file in between is refused, not read.
    """
    try:
        data = fs.read_regular(entry.abs, cap, follow=False, identity=entry.identity)
    except OSError as exc:
        diags.append(_unread(exc, rel, cap, setting))
        return None
    return InputFile(rel, data, entry.executable)


def _unread(exc: OSError, rel: str, cap: int, setting: str) -> Diagnostic:
    if isinstance(exc, fs.TooLarge):
        limit = f"; {setting} is {cap}" if setting else ""
        return dg.error(rel, Code.TOO_LARGE, f"file {exc.strerror}{limit}")
    if isinstance(exc, fs.Replaced) or exc.errno == errno.ELOOP:  # ELOOP: O_NOFOLLOW met a new link
        return dg.error(
            rel, Code.UNREADABLE, "replaced (by a symlink or another file) after it was listed; not read"
        )
    return dg.error(rel, Code.UNREADABLE, f"cannot read: {exc.strerror or exc}")
