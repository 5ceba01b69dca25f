"""Work done by a forked child while this process goes on: the memo's save (session.py), from the
end of the checks, while this process writes the output and records the build.

A build that checked its skills ends by writing the memo (256 bucket files, each skill's result
encoded and checked to round-trip: 0.2 s at 10,000 skills, 2 s at 100,000), by writing the output
and by recording the build (the output's walk, the carry, the record): each on one core, one after
the other, while the other core is idle. A child forked once the checks are done shares the build's
pages and writes the memo from them; nothing the write or the record needs is in the memo's files,
so they go on side by side, and this process waits for the child before it returns (the cache is
whole when the command ends).

A fork is made only where lstats.py makes one (Linux, two cores, this process's only thread). The
child answers one number, through a pipe, and leaves with os._exit: no atexit handler, no buffered
output of this process's. A child that fails answers nothing, and the caller does the work itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..forking import fork, released
from ..reap import Helper
from .lstats import forkable

_ANSWER = 8  # bytes of the child's number


class Aside(Helper):
    """A forked child doing one piece of work, from this process's side."""

    def __init__(self, pid: int, answer: int) -> None:
        super().__init__(pid, answer)
        self.pid = pid  # the child's, kept once it is reaped (the temporary files it leaves are named by it)

    def join(self) -> int | None:
        """The child's number, once it is done; None when it failed."""
        try:
            with open(self._out, "rb", closefd=False) as pipe:
                said = pipe.read()
            _pid, status = os.waitpid(self._pid, 0)
            self._pid = 0
        finally:
            self.end()
        if status != 0 or len(said) != _ANSWER:
            return None
        return int.from_bytes(said, "little")


def aside(work: Callable[[], int]) -> Aside | None:
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
    if pid == 0:  # the child: the work, its number into the pipe, then out
        code = 1
        try:
            released()
            os.close(read)
            number = work()
            os.write(write, number.to_bytes(_ANSWER, "little"))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    saving = Aside(pid, read)
    # A Ctrl-C that came during the fork is raised here, once the child is stopped
    released(saving.end)
    return saving
