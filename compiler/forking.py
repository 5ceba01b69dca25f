"""A helper's start: `os.fork` with Ctrl-C held off across it.

A terminal's Ctrl-C sends SIGINT to the whole process group. One that lands in a child between
`os.fork()` and the child's own `try` raises KeyboardInterrupt there, and the child then unwinds
through the parent's code: its except clauses and finally blocks, which may print "interrupted" or
clean up as the parent would. So SIGINT is blocked across the fork. The parent unblocks it at once (a
Ctrl-C that came meanwhile is raised then, in the parent); the child unblocks it inside its `try`,
with `released` (one that came meanwhile is raised then, where the child's `finally` ends it).
"""

from __future__ import annotations

import os
import signal

_HOLDS = hasattr(signal, "pthread_sigmask")  # POSIX; where there is none, there is no fork either
_blocked_before = False  # SIGINT was blocked by the caller already: the child leaves it so


def fork() -> int:
    """os.fork(), SIGINT blocked in the child until it calls `released()`. OSError: os.fork's."""
    global _blocked_before
    if _HOLDS:
        _blocked_before = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:
        _unhold()
        raise
    if pid:
        _unhold()
    return pid


def released() -> None:
    """In a child `fork` made, inside its `try` (or once it ignores SIGINT): Ctrl-C is delivered
    again, and one that came since the fork is raised now."""
    _unhold()


def _unhold() -> None:
    if _HOLDS and not _blocked_before:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
