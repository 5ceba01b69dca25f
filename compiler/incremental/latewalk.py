"""The stat walk of a build the cache has no record for, taken by a helper process while the
build's back end runs, instead of before discover on the build's own core.

A build with a record walks first: the walk's digest may prove the inputs unchanged and replay the
build without reading them (session.py). A build without one (the first in a project, the first
after an upgrade of skillc) can replay nothing, and walks only to record the walk for the next
build: 9% of such a build at 10,000 skills, while the back end (validate, resolve, catalogs, the
artifacts) leaves the second core idle. So such a build takes a file-system stamp before discover
reads, discovers as a build without the cache does, and hands the walk to a helper once discover
is done. The walk vouches for what discover read only when nothing it saw changed since the stamp
(any change after it sets a ctime at the stamp or later, which no call sets back), its roots are
the very folders they were at the stamp, and it saw no symlink (snapshot.settled): then it saw the
tree discover read. Otherwise nothing is recorded of the walk, and the next build walks before it
reads, as after any change. A helper not done when the build is done is stopped, not waited for
(at the lowest priority, it gets no core on a busy machine): the build walks itself then.

The helper is a new interpreter, not a fork (a fork would share the build's pages, copied as the
build writes them: output/survey.py), running at the lowest priority. It loads skillc from the
very folder this build runs from, so both run the same code. It reads its request (the roots,
the stamp, the inputs discover read) from an unnamed file and writes the walk's digest, whether it
vouches, and the manifest (manifest.encode) into another, framed as a signed cache file's payload
is (store.py), never pickled. A helper that cannot start, fails or answers nonsense costs only the
saving: the build then walks itself (`LateWalk.result` returns None).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..fastjson import orjson
from ..reap import Helper
from .snapshot import Tops, settled, walk_stat
from .store import frame, unframe

# Fewer inputs walk in less time than a new interpreter takes to start (60-80 ms) and the helper
# may not be done when the back end is: the build walks them itself, when it records them (`walk`).
SPAWN_AT = 8192
_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the skillc package this build runs
# The helper's start: skillc loaded from the parent's package folder (an editable install, a
# PYTHONPATH entry and a wheel alike), then `_main`.
_BOOT = (
    "import importlib.util as u, sys\n"
    "s = u.spec_from_file_location('skillc', sys.argv[1] + '/__init__.py', "
    "submodule_search_locations=[sys.argv[1]])\n"
    "m = u.module_from_spec(s); sys.modules['skillc'] = m; s.loader.exec_module(m)\n"
    "from skillc.incremental.latewalk import _main\n"
    "sys.exit(_main())\n"
)


@dataclass(frozen=True)
class Walk:
    """What the helper's walk found: its digest (the record's `inputs`), whether it vouches for the
    inputs the build read (`settled`), and the walk's manifest when it does (walk.json's data)."""

    digest: str
    vouched: bool
    manifest: dict[str, Any] | None


class LateWalk(Helper):
    """A running helper, from the build's side."""

    def result(self, wait: bool = False) -> Walk | None:
        """The helper's answer; None when it failed, or has not finished: it runs on a core the
        build leaves idle, and on a busy machine gets none (the build walks faster itself then).
        `wait`: let it finish instead (the tests, to know what it finds)."""
        try:
            pid, status = os.waitpid(self._pid, 0 if wait else os.WNOHANG)
            if pid == 0:  # still running: stopped below
                return None
            self._pid = 0  # reaped: its number may be another process's from now on
            if status != 0:
                return None
            data = unframe(memoryview(os.pread(self._out, os.fstat(self._out).st_size, 0)))
        except OSError:
            return None
        finally:
            self.end()
        return _answer(data)


def start(tops: Tops, stamp: int, roots: dict[str, list[object]], inputs: Sequence[str]) -> LateWalk | None:
    """The helper started on `tops` (`roots`: each root's real path and stat data at the stamp);
    None where it cannot pay (fewer than SPAWN_AT inputs, one core) or cannot run (a frozen
    interpreter, no unnamed file, a spawn that fails)."""
    if (
        len(inputs) < SPAWN_AT
        or (os.cpu_count() or 1) < 2
        or getattr(sys, "frozen", False)
        or not hasattr(os, "posix_spawn")
        or not hasattr(os, "memfd_create")
    ):
        return None
    request = orjson.dumps({"tops": tops, "stamp": stamp, "roots": roots, "inputs": inputs})
    try:
        ask = os.memfd_create("skillc-walk-request", os.MFD_CLOEXEC)
    except OSError:
        return None
    try:
        out = os.memfd_create("skillc-walk", os.MFD_CLOEXEC)
    except OSError:
        os.close(ask)
        return None
    try:
        _write_all(ask, request)
        os.lseek(ask, 0, os.SEEK_SET)
        pid = os.posix_spawn(
            sys.executable,
            # -P: nothing imported from the working folder (a checkout's own `orjson.py`)
            [sys.executable, "-P", "-c", _BOOT, _PACKAGE],
            dict(os.environ),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, ask, 0),
                (os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except OSError:
        os.close(out)
        return None
    finally:
        os.close(ask)
    return LateWalk(pid, out)


def walk(tops: Tops, stamp: int, roots: dict[str, list[object]], inputs: Iterable[str]) -> Walk | None:
    """The walk, its digest and whether it vouches for `inputs`, taken here (the helper's work, and
    the build's own when no helper answers); None when the tree cannot be walked or vouched for."""
    from .manifest import encode  # here: the helper needs it, and a build that walks itself

    snapshot = walk_stat(tops, stamp)
    if snapshot is None:
        return None
    vouched, digest = settled(snapshot, roots, inputs), snapshot.digest
    return Walk(digest, vouched, encode(snapshot, tops, digest) if vouched else None)


def _answer(data: Any) -> Walk | None:
    """The helper's framed answer as a Walk; None for anything else."""
    if not isinstance(data, dict):
        return None
    digest, vouched = data.pop("$digest", None), data.pop("$vouched", None)
    if type(digest) is not str or type(vouched) is not bool:
        return None
    return Walk(digest, vouched, data if vouched and data else None)  # none: encode could not


def _main() -> int:
    """The helper: the request on stdin, the answer on stdout (both unnamed files)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle: it stops this
    with contextlib.suppress(OSError):
        os.nice(19)  # a core the build leaves idle, never one it uses
    request = orjson.loads(sys.stdin.buffer.read())
    tops = tuple((str(rel), str(where)) for rel, where in request["tops"])
    found = walk(tops, int(request["stamp"]), dict(request["roots"]), request["inputs"])
    if found is None:
        return 1
    answer: dict[str, Any] = {"$digest": found.digest, "$vouched": found.vouched}
    if found.manifest is not None:
        answer.update(found.manifest)
    for part in frame(answer):
        _write_all(1, part)
    return 0


def _write_all(fd: int, data: bytes | bytearray | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
