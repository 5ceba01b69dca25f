"""The tools fallback through a real harness CLI, offline: opencode (pinned in tests/harness) with
`skillc serve --tools` in its MCP config, its model request captured as tests/harness does.

    python tests/serve/harness_tools.py DIST PERSONA

Runs itself in a network namespace with loopback only (tests/harness/run.py), starts the capture
server, writes opencode's config (the capture server as its model endpoint, the skillc server as a
local MCP server), runs `opencode run hi` in a throwaway project and HOME, and prints what the
model was sent: {"tools": [names], "system": [texts]}.
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


def captured(dist: str, persona: str) -> dict[str, Any]:
    ws = Workspace()
    try:
        server = Capture(ws.capture / "opencode")
        config = drivers.opencode_config(server.url)
        command = [sys.executable, "-m", "skillc", "serve", "--persona", persona, "--tools", dist]
        config["mcp"] = {"skillc": {"type": "local", "command": command, "enabled": True}}
        run_cli(
            ws, [str(run.binary("opencode")), "run", "hi"], {"OPENCODE_CONFIG_CONTENT": json.dumps(config)}
        )
        bodies = [
            r["body"] for r in server.requests() if isinstance(r["body"], dict) and "tools" in r["body"]
        ]
        tools = sorted({t["name"] for body in bodies for t in body["tools"]})
        system = [b["text"] for body in bodies for b in body.get("system") or [] if isinstance(b, dict)]
        return {"tools": tools, "system": system}
    finally:
        ws.close()


def main(argv: list[str]) -> None:
    run.in_netns([str(Path(__file__).resolve()), *argv])
    print(json.dumps(captured(argv[0], argv[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
