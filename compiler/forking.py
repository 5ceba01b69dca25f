"""A helper's start: `os.fork` with Ctrl-C held off across it, on both sides.

A terminal's Ctrl-C sends SIGINT to the whole process group. One that lands in a child between
`os.fork()` and the child's own `try` raises KeyboardInterrupt there, and the child then unwinds
through the parent's code: its except clauses and finally blocks, which may print "interrupted" or
clean up as the parent would. One that lands in the parent before it has recorded the child leaves
a child no one stops. So `fork` returns with SIGINT blocked in both processes, and each side calls
`released` once it is ready for it: the child inside its `try` (or once it ignores SIGINT), the
parent once it holds the child where its own clean-up finds it. A Ctrl-C that came meanwhile is
raised then.

Forks are made from the main thread, so what `fork` notes for `released` is one value, not one per
thread. SIGINT is held off in that thread: where the process has another (build --watch's notifier,
when the check workers fork), that thread may take a Ctrl-C, and the parent then sees it at once, as
it would without the hold. The children have only the thread that forked.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

_HOLDS = hasattr(signal, "pthread_sigmask")  # POSIX; where there is none, there is no fork either
_blocked_before = False  # SIGINT was blocked by the caller already: `released` leaves it so


def fork() -> int:
    """os.fork(), with SIGINT blocked in both processes until each calls `released()`. What
    os.fork raises (OSError: no process to spare) leaves SIGINT as it was."""
    global _blocked_before
    if _HOLDS:
        _blocked_before = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return os.fork()
    except BaseException:
        released()
        raise


def released(stop: Callable[[], object] | None = None) -> None:
    """SIGINT delivered again, in the process that calls it after `fork`: a Ctrl-C that came since
    is raised now (KeyboardInterrupt), where the caller is ready for it. The parent passes `stop`,
    which ends the child it made first (the helper's end: stopped, reaped, its pipes closed)."""
    try:
        if _HOLDS and not _blocked_before:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    except BaseException:
        if stop is not None:
            stop()
        raise
