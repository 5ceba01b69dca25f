"""forking.fork: a Ctrl-C between the fork and the child's `try` waits for the child's `released()`,
and the parent's Ctrl-C is its own again at once."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from skillc import forking

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")


def _child(work) -> bytes:
    """Run `work(write)` in a child `forking.fork` made; what it wrote."""
    read, write = os.pipe()
    pid = forking.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            work(write)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read()
    os.waitpid(pid, 0)
    return said


def test_a_ctrl_c_in_the_child_before_its_try_is_raised_when_released() -> None:
    def work(write: int) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl-C landing right after the fork
        os.write(write, b"held;")  # still here: not raised before the child is ready for it
        try:
            forking.released()
            for _ in range(1000):  # the handler runs between bytecodes
                pass
            os.write(write, b"never")
        except KeyboardInterrupt:
            os.write(write, b"raised inside")

    assert _child(work) == b"held;raised inside"


def test_the_parent_takes_ctrl_c_again_at_once() -> None:
    forking_pid = forking.fork()
    if forking_pid == 0:
        os._exit(0)
    os.waitpid(forking_pid, 0)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_a_ctrl_c_the_caller_blocked_stays_blocked() -> None:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:

        def work(write: int) -> None:
            forking.released()
            blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
            os.write(write, b"blocked" if blocked else b"unblocked")

        assert _child(work) == b"blocked"
        assert signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def test_a_failed_fork_unblocks(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_process() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_process)
    with pytest.raises(OSError):
        forking.fork()
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX")
def test_every_fork_of_the_compiler_goes_through_forking() -> None:
    """The helpers (cache/lstats.py, cache/aside.py, stages/workers.py) fork only through it."""
    import skillc

    root = os.path.dirname(skillc.__file__)
    direct = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "forking.py":
                with open(path, encoding="utf-8") as fh:
                    if "os.fork()" in fh.read():
                        direct.append(os.path.relpath(path, root))
    assert direct == []
