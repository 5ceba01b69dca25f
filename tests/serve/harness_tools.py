"""The tools fallback through real harness CLIs, offline: opencode and Gemini CLI (pinned in
tests/harness) with `skillc serve --tools` in their MCP config, their model request captured as
tests/harness does.

    python tests/serve/harness_tools.py opencode|gemini DIST PERSONA

Runs itself in a network namespace with loopback only (tests/harness/run.py), starts the capture
server, writes the CLI's config (the capture server as its model endpoint, the skillc server as a
local MCP server named `skillc`), runs one prompt in a throwaway project and HOME, and prints what
the model was sent: {"tools": [names], "system": [texts]}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "harness"))

import drivers
import run
from workspace import Capture, Workspace, run_cli


def opencode(ws: Workspace, command: list[str]) -> dict[str, Any]:
    """As tests/harness/drivers.py's `opencode run hi`, with the server in the config."""
    server = Capture(ws.capture / "opencode")
    config = drivers.opencode_config(server.url)
    config["mcp"] = {"skillc": {"type": "local", "command": command, "enabled": True}}
    env = {"OPENCODE_CONFIG_CONTENT": json.dumps(config)}
    run_cli(ws, [str(run.binary("opencode")), "run", "hi"], env)
    bodies = [r["body"] for r in server.requests() if isinstance(r["body"], dict) and "tools" in r["body"]]
    tools = sorted({t["name"] for body in bodies for t in body["tools"]})
    system = [b["text"] for body in bodies for b in body.get("system") or [] if isinstance(b, dict)]
    return {"tools": tools, "system": system}


def gemini(ws: Workspace, command: list[str]) -> dict[str, Any]:
    """As tests/harness/drivers.py's `gemini -p hi`, with the server in the user settings."""
    settings = ws.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    servers = {"skillc": {"command": command[0], "args": command[1:], "trust": True}}
    doc = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": servers}
    settings.write_text(json.dumps(doc), encoding="utf-8")
    server = Capture(ws.capture / "gemini")
    env = {
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_API_KEY": "dummy",
    }
    run_cli(ws, [str(run.binary("gemini")), "-p", "hi"], env)
    bodies = [r["body"] for r in server.requests() if isinstance(r["body"], dict)]
    declared = [f for b in bodies for t in b.get("tools") or [] for f in t.get("functionDeclarations") or []]
    parts = [p for b in bodies for p in (b.get("systemInstruction") or {}).get("parts") or []]
    return {
        "tools": sorted({f["name"] for f in declared}),
        "system": [p["text"] for p in parts if "text" in p],
    }


CLIS = {"opencode": opencode, "gemini": gemini}


def captured(cli: str, dist: str, persona: str) -> dict[str, Any]:
    ws = Workspace()
    try:
        command = [sys.executable, "-m", "skillc", "serve", "--persona", persona, "--tools", dist]
        return CLIS[cli](ws, command)
    finally:
        ws.close()


def main(argv: list[str]) -> None:
    run.in_netns([str(Path(__file__).resolve()), *argv])
    print(json.dumps(captured(argv[0], argv[1], argv[2])))


if __name__ == "__main__":
    main(sys.argv[1:])
