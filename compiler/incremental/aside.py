"""Work done by a forked child while this process goes on, its answer bytes through a pipe: the
quick path's lstats (lstats.py) and the memo's save (session.py), beside the write and the record.

A fork is made only where it is safe and pays (`forkable`: Linux, two cores, this process's only
thread). The child leaves with os._exit. A child that fails answers nothing, and the caller does
the work itself; one whose answer is not wanted is stopped (reap.py).
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable

from ..forking import fork, released
from ..reap import Helper


class Aside(Helper):
    """A forked child doing one piece of work, from this process's side."""

    def __init__(self, pid: int, answer: int) -> None:
        super().__init__(pid, answer)
        self.pid = pid  # the child's, kept once it is reaped (the temporary files it leaves are named by it)

    def running(self) -> bool:
        """Whether the child is still at its work (it writes its answer once it is done)."""
        return self._out >= 0 and not select.select([self._out], [], [], 0)[0]

    def join(self) -> bytes | None:
        """The child's answer, once it is done; None when it failed."""
        try:
            with open(self._out, "rb", closefd=False) as pipe:
                said = pipe.read()
            _pid, status = os.waitpid(self._pid, 0)
            self._pid = 0
        finally:
            self.end()
        return said if status == 0 else None


def forkable() -> bool:
    """Whether forking is safe and can pay: Linux, two cores, and this process's only thread."""
    if not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def aside(work: Callable[[], bytes]) -> Aside | None:
    """`work` started in a forked child; None where no child is made (the caller does the work)."""
    if not forkable():
        return None
    read, write = os.pipe()
    try:
        pid = fork()
    except OSError:  # no process to spare (a limit)
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: the work, its answer into the pipe, then out
        code = 1
        try:
            released()
            os.close(read)
            with open(write, "wb") as pipe:
                pipe.write(work())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    child = Aside(pid, read)
    released(child.end)  # a Ctrl-C that came during the fork is raised here, once the child is stopped
    return child
