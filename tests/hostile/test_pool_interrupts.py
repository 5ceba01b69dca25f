"""Interrupts while the process pool validates: Ctrl-C exits 130 at once with no worker traceback,
and a parent killed with SIGKILL leaves no worker behind holding stdout open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.project import skill_md
from support.project import src_project as project

from skillc.stages.skills import PARALLEL_THRESHOLD

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="the pool needs fork and two cores"
)

# The CLI in a child process whose skill check is slow, so the pool is surely busy when the test
# acts; the forked workers inherit the patched module. The first check touches `marker`.
SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from skillc.stages import skills
    real = skills.check_skill
    def slow(src):
        Path(sys.argv[1]).touch()
        time.sleep(0.2)  # 1,510 of them take two workers over 150 s: far from "at once"
        return real(src)
    skills.check_skill = slow
    from skillc.cli import main
    main(["--config", sys.argv[2], "validate"])
    """
)


def _start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    files = {f"src/s{i}/SKILL.md": skill_md(f"s{i}") for i in range(PARALLEL_THRESHOLD + 10)}
    cfg = project(tmp_path, files)
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(marker), str(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: a terminal's Ctrl-C reaches every member
        # not inherited from a background job, which starts with Ctrl-C ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    return proc, marker


def test_ctrl_c_during_the_pool_exits_130_at_once_without_tracebacks(tmp_path: Path) -> None:
    proc, _ = _start(tmp_path)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=90)  # EOF on both pipes: every worker is gone too
    assert time.monotonic() - sent < 60  # not the 150 s the pool's work takes; loose for a busy machine
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    proc, _ = _start(tmp_path)
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)  # returns only when no worker holds the pipes
    assert time.monotonic() - sent < 10
    deadline = time.monotonic() + 10  # a killed worker takes a moment to become a zombie
    while _living_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _living_members(proc.pid) == [], [
        Path(f"/proc/{p}/cmdline").read_bytes() for p in _living_members(proc.pid)
    ]


def _living_members(group: int) -> list[int]:
    """Processes of the group that are not zombies (a container's init may reap those late)."""
    living = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            living.append(int(entry))
    return living


def test_without_the_kernel_a_worker_still_follows_its_parent(tmp_path: Path) -> None:
    """The fallback where PR_SET_PDEATHSIG is missing: the watch thread sees the parent gone."""
    script = textwrap.dedent(
        """
        import os, sys, time
        from skillc.stages import workers
        workers._die_with_parent = lambda: False
        parent = os.getpid()
        if os.fork() == 0:
            workers.start(parent)
            time.sleep(60)  # holds stdout, as a busy worker does
            os._exit(0)
        time.sleep(1)  # the worker's watch has begun
        os._exit(0)  # the parent dies without a word, as under kill -9
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True)
    started = time.monotonic()
    proc.communicate(timeout=30)  # EOF: the orphaned worker has exited
    assert time.monotonic() - started < 10
