"""Stopping a helper process this one started (a forked child or a spawned interpreter): the one
way every helper is ended when its answer is not wanted (a build that fails or is interrupted),
and `Helper`, a running helper with the file its answer comes out of."""

from __future__ import annotations

import contextlib
import os
import signal


def stop(pid: int) -> None:
    """Kill the child `pid` and reap it, if it still runs (0: none). SIGKILL: a helper may be
    writing into a pipe no one reads, and holds nothing that needs cleaning up."""
    if not pid:
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


class Helper:
    """A running helper, from this process's side: its pid (0 once reaped) and the descriptor its
    answer is read from (-1 once closed)."""

    def __init__(self, pid: int, out: int) -> None:
        self._pid, self._out = pid, out

    def end(self) -> None:
        """Stop the helper and reap it, if it still runs, and close its answer's descriptor."""
        stop(self._pid)
        self._pid = 0
        if self._out >= 0:
            os.close(self._out)
            self._out = -1
