"""The temp folder a harness runs in, the loopback capture server, and how a CLI is started there."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import capture

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


class Workspace:
    """One temp folder holding home/, project/ (a git repository), outside/ and capture/.

    Its path always has the same length (/tmp/skh-XXXXXXXX) because Codex's budget counts the
    skill-root paths it prints, and goldens must not depend on where the machine keeps temp files.
    """

    def __init__(self, keep: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="skh-", dir="/tmp"))
        self.keep = keep
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.outside = self.root / "outside"
        self.capture = self.root / "capture"
        self.empty = self.root / "empty"  # a project without skills: what the CLI shows by itself
        for folder in (self.home, self.project, self.outside, self.capture, self.empty):
            folder.mkdir()
        for project in (self.project, self.empty):
            subprocess.run(["git", "init", "-q", str(project)], check=True)

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        """A minimal environment: no variable of the caller leaks in but PATH and locale."""
        node_dir = str(Path(shutil.which("node") or "/usr/bin/node").parent)
        home = str(self.home)
        env = {
            "PATH": f"{node_dir}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": home,
            "CODEX_HOME": f"{home}/.codex",
            "XDG_CONFIG_HOME": f"{home}/.config",
            "XDG_DATA_HOME": f"{home}/.local/share",
            "XDG_CACHE_HOME": f"{home}/.cache",
            "XDG_STATE_HOME": f"{home}/.local/state",
            "TMPDIR": str(self.root),
            "NO_COLOR": "1",
            "TERM": "dumb",
            "CI": "1",
        }
        Path(env["CODEX_HOME"]).mkdir(exist_ok=True)
        return env | extra

    def normalise(self, value: Any) -> Any:
        """Replaces the temp paths, which change per run, by stable placeholders."""
        text = json.dumps(value, ensure_ascii=False)
        for path, name in ((self.project, "<project>"), (self.home, "<home>"), (self.root, "<tmp>")):
            text = text.replace(str(path), name)
        return json.loads(_UUID.sub("<uuid>", text))  # session ids (Claude Code's ${CLAUDE_SESSION_ID})

    def close(self) -> None:
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


class Capture:
    """capture.py's server on a thread of this process (so inside the same network namespace)."""

    def __init__(self, out: Path, timeout: float = 120.0) -> None:
        self.out = out
        self._port: list[int] = []
        ready = threading.Event()

        def announce(port: int) -> None:
            self._port.append(port)
            ready.set()

        self._thread = threading.Thread(
            target=capture.serve, args=(out, 0, timeout), kwargs={"announce": announce}, daemon=True
        )
        self._thread.start()
        ready.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port[0]}"

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.out.glob("*.json"))]


def run_cli(
    ws: Workspace, argv: list[str], extra_env: dict[str, str], timeout: float = 120, cwd: Path | None = None
) -> tuple[str, str]:
    """Runs the CLI in the project folder (or `cwd`) with stdin closed; returns stdout and stderr."""
    done = subprocess.run(
        argv,
        cwd=cwd or ws.project,
        env=ws.env(extra_env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout, done.stderr
