"""forking.fork: a Ctrl-C in the moment after a fork waits, in each process, for its `released()`;
the helpers that fork stop their child when it comes in the parent."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.forks import reaped

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
    forking.released()
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


def test_the_parent_takes_ctrl_c_again_once_released() -> None:
    pid = forking.fork()
    if pid == 0:
        os._exit(0)
    held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    forking.released()
    os.waitpid(pid, 0)
    assert held and signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


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


@pytest.mark.parametrize("error", [OSError(11, "no process to spare"), RuntimeError("fork refused")])
def test_a_failed_fork_unblocks(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    def no_process() -> int:
        raise error

    monkeypatch.setattr(os, "fork", no_process)
    with pytest.raises(type(error)):
        forking.fork()
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """os.fork, with a Ctrl-C arriving in the parent while it forks; the pids it made."""
    real, made = os.fork, []

    def fork() -> int:
        pid = real()
        if pid:
            made.append(pid)
            # To this thread (a signal to the process may go to another thread, which does not
            # block it): held off, as SIGINT is blocked across the fork
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield made
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_during_a_memo_childs_fork_stops_that_child(
    forked: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillc.incremental import aside

    monkeypatch.setattr(aside, "forkable", lambda: True)
    with pytest.raises(KeyboardInterrupt):
        aside.aside(lambda: time.sleep(30) or 0)
    assert len(forked) == 1 and reaped(forked[0])


def test_a_ctrl_c_during_the_lstats_fork_stops_that_child(forked: list[int], tmp_path: Path) -> None:
    from skillc.incremental import lstats

    for i in range(3):
        (tmp_path / f"f{i}").write_text("x")
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(KeyboardInterrupt):
            lstats._fork([f"f{i}" for i in range(3)], fd, None)
    finally:
        os.close(fd)
    assert len(forked) == 1 and reaped(forked[0])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX")
def test_every_fork_of_the_compiler_goes_through_forking() -> None:
    """The helpers (incremental/lstats.py, incremental/aside.py, stages/workers.py) fork only through it."""
    import skillc

    root = os.path.dirname(skillc.__file__)
    direct = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "forking.py":
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                if re.search(r"\bos\.fork\(|from os import[^\n]*\bfork\b", text):
                    direct.append(os.path.relpath(path, root))
    assert direct == []
