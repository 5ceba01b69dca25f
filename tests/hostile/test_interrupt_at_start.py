"""Ctrl-C in the first tenths of a second of a command, while it imports what it runs: exit 130 and
"skillc: interrupted", never a traceback, never a crash (found by a review, with SIGINT sent at
random times: about one run in ten printed a traceback, one in a hundred died of SIGSEGV)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.project import skill_md
from support.project import src_project as project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals: os.kill(pid, SIGINT)")

# Sends this process a SIGINT (as a terminal's Ctrl-C would) the first time one of `names` is
# imported, from inside that import: deterministic where a timed signal lands by luck.
HOOK = textwrap.dedent(
    """
    import builtins, os, signal, sys
    names = set(sys.argv[1].split(","))
    real = builtins.__import__
    def hooked(name, *args, **kwargs):
        if name in names and not getattr(hooked, "sent", False):
            hooked.sent = True
            print("sent", name, flush=True)
            os.kill(os.getpid(), signal.SIGINT)
        return real(name, *args, **kwargs)
    builtins.__import__ = hooked
    """
)


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-c", HOOK + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not a background job's SIG_IGN
    )


ORJSON = """
    {before}
    try:
        from skillc.fastjson import orjson
    except KeyboardInterrupt:
        print("interrupted after the import:", "orjson" in sys.modules)
        sys.exit(3)
    print("not interrupted")
    """
# orjson's compiled module imports these while it sets itself up
ORJSON_IMPORTS = "uuid,dataclasses,datetime,enum"
# Another thread, as `build --watch`'s notifier: a signal sent to the process may reach it instead
A_THREAD = "import threading, time; threading.Thread(target=time.sleep, args=(5,), daemon=True).start()"


@pytest.mark.parametrize("before", ["pass", A_THREAD], ids=["alone", "with-a-thread"])
def test_ctrl_c_while_orjson_sets_itself_up_arrives_after_the_import(before: str) -> None:
    """A KeyboardInterrupt raised inside orjson's set-up crashed the interpreter with SIGSEGV."""
    done = _run(ORJSON.format(before=before), ORJSON_IMPORTS)
    if "sent" not in done.stdout:
        pytest.skip("this orjson imports none of the modules the hook watches")
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert "interrupted after the import: True" in done.stdout


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    """A background job's SIGINT is ignored: deferring it must not turn it into an interrupt."""
    done = _run(ORJSON.format(before="signal.signal(signal.SIGINT, signal.SIG_IGN)"), ORJSON_IMPORTS)
    if "sent" not in done.stdout:
        pytest.skip("this orjson imports none of the modules the hook watches")
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "not interrupted" in done.stdout


@pytest.mark.parametrize(
    "command",
    [["build"], ["build", "-q"], ["check"], ["validate"]],
    ids=["build", "build-q", "check", "validate"],
)
# before any command runs (boundary), before click parses the command line, and in the command (yaml)
@pytest.mark.parametrize("module", ["boundary", "click", "yaml"])
def test_ctrl_c_while_the_command_line_is_imported_exits_130(
    tmp_path: Path, command: list[str], module: str
) -> None:
    if module == "click" and command == ["build"]:
        pytest.skip("a plain `skillc build` runs without click (test_plain_build.py)")
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    done = _run(
        """
        from skillc.cli import run
        sys.argv = ["skillc", *sys.argv[2].split(), "--config", sys.argv[3]]
        run()
        """,
        module,
        " ".join(command),
        str(cfg),
    )
    assert "sent" in done.stdout
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr.strip().splitlines()[-1] == "skillc: interrupted"
    assert "Traceback" not in done.stderr
