"""Stopping a helper process this one started (a forked child or a spawned interpreter): the one
way every helper is ended when its answer is not wanted (a build that fails or is interrupted)."""

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
