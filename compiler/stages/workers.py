"""The process pool's workers: they never outlive the build that started them; and `share`, the
pool of forked helpers that the parent works in too.

Ctrl-C in a terminal sends SIGINT to the whole process group. Workers ignore it, so none prints a
KeyboardInterrupt traceback; the parent alone handles it, stops the pool and kills its workers
(`stop`), and exits 130. A parent killed outright (`kill -9`) cannot stop anything, so every worker
watches its parent: on Linux the kernel signals it (PR_SET_PDEATHSIG), elsewhere a thread polls the
parent's pid; either way the worker exits and releases the stdout and stderr it inherited.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import reap
from ..forking import fork, released

if TYPE_CHECKING:  # a forked build never makes one: concurrent.futures is not imported for it
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
_TOKEN = 4  # bytes of a chunk number in the claims pipe
# Chunks `share` takes at most: their numbers are written to the claims pipe before any process
# reads it, so they must fit in a pipe's buffer (64 KiB on Linux, at least 16 KiB on macOS): 4 KiB.
MAX_CHUNKS = 1024

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_POLL_SECONDS = 0.5


def start(parent: int) -> None:
    """A worker's initializer. parent: the pid of the process that created the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _die_with_parent():
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="skillc-parent-watch").start()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)


def _die_with_parent() -> bool:
    """Ask the Linux kernel to SIGKILL this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_POLL_SECONDS)
    os._exit(1)


def stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued work cancelled, running workers killed, without waiting for them.

    shutdown(wait=True), what `with` does, would wait for every chunk in flight to finish."""
    processes = list(getattr(pool, "_processes", None) or {})  # pids; private, hence the fallback
    pool.shutdown(wait=False, cancel_futures=True)
    for pid in processes:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def share(
    chunks: int,
    helpers: int,
    here: Callable[[int], T],
    there: Callable[[int], Any],
    adopt: Callable[[int, Any], Any] = lambda k, result: result,
) -> tuple[dict[int, T], dict[int, Any]]:
    """Chunks 0 to chunks - 1, done by this process (`here`) and by `helpers` forked processes
    (`there`, whose results are pickled back), each taking the next chunk as it becomes free.

    Why not concurrent.futures: its parent only waits, and a thread of it unpickles the results while
    the workers run; here the parent works too (on two cores: the parent and one helper) and builds
    its own chunks' results without pickling them. Whoever has a core does the work, so a helper that
    gets none under load costs its chunk, not the build. A chunk is claimed by reading its number from
    one pipe that every process reads (`_TOKEN`-byte reads from a pipe written in full beforehand:
    each read gets one whole number).

    A helper sends each chunk's results as it finishes it, and this process takes what has arrived
    between its own chunks (`_Helper.take`): the pickling and unpickling happen while the other
    works, not all at the end, when the first to finish would wait for them (0.1 s of a 10,000-skill
    check). Where a results pipe cannot be made large enough to hold a few chunks (`_PIPE_BYTES`,
    Linux only), a helper would wait for each read: it sends everything once, at the end, instead.

    adopt(k, result): what this process makes of a helper's result for chunk k, as it arrives (the
    Skill objects of the rows a helper sent, while the helper works on).

    Returns (this process's results, the helpers' adopted), by chunk; a chunk of a helper that died is in
    neither (nor any other of that helper's: it may have died in the middle of one). Raises OSError
    when no process can be forked (then nothing ran); Ctrl-C kills the helpers.
    """
    if chunks > MAX_CHUNKS:
        raise ValueError(f"{chunks} chunks; share takes at most {MAX_CHUNKS}")
    claims_r, claims_w = os.pipe()
    try:
        _write_all(claims_w, b"".join(k.to_bytes(_TOKEN, "little") for k in range(chunks)))
    finally:
        os.close(claims_w)  # read to its end, the pipe says: no chunk left
    crew: list[_Helper] = []
    try:
        for _ in range(helpers):
            crew.append(_fork(claims_r, there, crew, adopt))

        def between() -> None:
            for helper in crew:
                helper.take()

        mine = _claim(claims_r, here, between)
        theirs: dict[int, Any] = {}
        while crew:
            theirs.update(crew[0].finish())  # it closes the read end, whatever happens
            crew.pop(0)
    except BaseException:  # Ctrl-C above all: the helpers die now, their work unwanted
        for helper in crew:
            helper.kill()
        raise
    finally:
        os.close(claims_r)
    return mine, theirs


def _claim(claims: int, do: Callable[[int], T], between: Callable[[], None] = lambda: None) -> dict[int, T]:
    done: dict[int, T] = {}
    while token := os.read(claims, _TOKEN):
        k = int.from_bytes(token, "little")
        done[k] = do(k)
        between()
    return done


_FRAME = 8  # bytes of a frame's length: a streaming helper sends each chunk as (length, pickle)
_PIPE_BYTES = 1 << 20  # a results pipe holds a few chunks' results: F_SETPIPE_SZ's unprivileged limit
_F_SETPIPE_SZ = 1031  # <linux/fcntl.h>; fcntl.F_SETPIPE_SZ from Python 3.10, on Linux only


class _Helper:
    """One forked helper, from this process's side: what it has sent so far, read as it arrives."""

    def __init__(self, pid: int, fd: int, streams: bool, adopt: Callable[[int, Any], Any]) -> None:
        self.pid, self.fd, self.streams, self.adopt = pid, fd, streams, adopt
        self.pending = bytearray()  # bytes read that do not yet make a whole frame
        self.done: dict[int, Any] = {}

    def take(self) -> None:
        """Whatever whole chunks have arrived, without waiting (the read end does not block)."""
        if not self.streams:
            return
        while True:
            try:
                data = os.read(self.fd, _PIPE_BYTES)
            except BlockingIOError:
                break
            if not data:
                break
            self.pending += data
        self._frames()

    def finish(self) -> dict[int, Any]:
        """Everything it sent, once it has ended; its results only if it ended well. Reaps it."""
        fd, self.fd = self.fd, -1
        with os.fdopen(fd, "rb") as pipe:
            os.set_blocking(fd, True)
            self.pending += pipe.read()
        _, status = os.waitpid(self.pid, 0)
        if status != 0:
            return {}
        if not self.streams:
            done: dict[int, Any] = pickle.loads(self.pending) if self.pending else {}
            return {k: self.adopt(k, result) for k, result in done.items()}
        self._frames()
        return self.done if not self.pending else {}

    def _frames(self) -> None:
        at = 0
        while len(self.pending) - at >= _FRAME:
            size = int.from_bytes(self.pending[at : at + _FRAME], "little")
            if len(self.pending) - at - _FRAME < size:
                break
            k, result = pickle.loads(self.pending[at + _FRAME : at + _FRAME + size])
            self.done[k] = self.adopt(k, result)
            at += _FRAME + size
        del self.pending[:at]

    def kill(self) -> None:
        _kill(self.pid, self.fd)


def _fork(
    claims: int, there: Callable[[int], Any], crew: list[_Helper], adopt: Callable[[int, Any], Any]
) -> _Helper:
    results_r, results_w = os.pipe()
    streams = _enlarge(results_w)
    parent = os.getpid()
    try:
        pid = fork()
    except OSError:
        os.close(results_r)
        os.close(results_w)
        raise
    if pid == 0:  # the helper: it never returns into the parent's code
        code = 1
        try:
            os.close(results_r)
            for helper in crew:
                os.close(helper.fd)
            start(parent)
            released()  # SIGINT is ignored by now: one that came since the fork is dropped
            if streams:
                _claim(claims, lambda k: _send(results_w, k, there(k)))
            else:
                _write_all(results_w, pickle.dumps(_claim(claims, there), pickle.HIGHEST_PROTOCOL))
            code = 0
        finally:
            os._exit(code)  # an error here leaves its chunks to the parent, which meets it again
    os.close(results_w)
    os.set_blocking(results_r, False)  # taken between the parent's chunks: never waited for then
    helper = _Helper(pid, results_r, streams, adopt)
    # A Ctrl-C that came during the fork is raised here, once the helper is stopped
    released(helper.kill)
    return helper


def _send(fd: int, k: int, result: Any) -> None:
    data = pickle.dumps((k, result), pickle.HIGHEST_PROTOCOL)
    _write_all(fd, len(data).to_bytes(_FRAME, "little") + data)


def _enlarge(fd: int) -> bool:
    """Whether the pipe now holds `_PIPE_BYTES` (Linux); elsewhere a helper sends all at the end."""
    if not sys.platform.startswith("linux"):
        return False
    import fcntl

    try:
        return bool(fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_BYTES) >= _PIPE_BYTES)
    except OSError:
        return False


def _kill(pid: int, fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    reap.stop(pid)  # killed and reaped: no zombie left behind


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
