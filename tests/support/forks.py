"""Whether a forked child was reaped (the helpers the compiler forks: forking.py)."""

from __future__ import annotations

import os


def reaped(pid: int) -> bool:
    """Whether the child `pid` is gone and waited for (no zombie, nothing running)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
