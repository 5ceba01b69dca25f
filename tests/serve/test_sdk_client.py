"""The official Python SDK's client over stdio, on both protocol revisions: every file of every
persona's skills read, each digest, size and frontmatter verified, and each file's bytes equal to
what the reader gives that persona."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from skillc import reader
from skillc.serve import server as server_mod
from skillc.serve.builds import Builds, Pin
from skillc.serve.view import View
from skillc.targets import export

sys.path.insert(0, str(Path(__file__).resolve().parent))

import clients

# "legacy": the initialize handshake, revision 2025-11-25; "auto": server/discover, 2026-07-28.
# Over stdio (a new process each, as a host starts it) for one persona; the others in process.
CASES = [
    (persona, mode, transport)
    for persona in ("lead", "ops", "guest")
    for mode in ("legacy", "auto")
    for transport in (("stdio", "in-process") if persona == "lead" else ("in-process",))
]
REVISION = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def _server(dist: Path, persona: str, *extra: str) -> StdioServerParameters:
    argv = ["-m", "skillc", "serve", "--persona", persona, *extra, str(dist)]
    return StdioServerParameters(command=sys.executable, args=argv)


def _expected(dist: Path, persona: str, uri: str) -> bytes:
    """What the reader gives the persona for the file served at `uri`."""
    opened = reader.open(dist)
    found = View(opened, persona).file_at(uri)
    assert found is not None
    if found.path is not None:
        return opened.resource(persona, found.command, found.path)
    info = next(i for i in opened.skills(persona, env=reader.EVERYWHERE) if i.command == found.command)
    name = uri.split("/")[-2]
    return export.skill_md_of(
        opened, persona, info, export.frontmatter(opened, export.NEUTRAL, info, name=name)
    )


@pytest.mark.parametrize(("persona", "mode", "transport"), CASES, ids=["-".join(c) for c in CASES])
def test_every_file_read_and_verified_is_what_the_reader_gives(
    dist: Path, persona: str, mode: str, transport: str
) -> None:
    if transport == "stdio":
        target: Any = _server(dist, persona)
    else:
        target = server_mod.make(Pin(Builds(str(dist), persona, say=lambda _: None), sticky=True), False)

    async def run() -> tuple[dict[str, bytes], Any]:
        async with Client(target, mode=mode) as client:  # type: ignore[arg-type]
            if transport == "stdio":
                assert client.protocol_version == REVISION[mode]
            return await clients.verified(client), client.server_capabilities

    files, capabilities = anyio.run(run)
    assert capabilities.extensions == {"io.modelcontextprotocol/skills": {"directoryRead": True}}
    assert capabilities.resources is not None
    opened = reader.open(dist)
    served = [i for i in opened.skills(persona, env=reader.EVERYWHERE) if i.model or i.user]
    assert len([u for u in files if u.endswith("/SKILL.md")]) >= len(served)
    for uri, data in files.items():
        assert data == _expected(dist, persona, uri), uri


def test_the_tools_fallback_over_stdio(dist: Path) -> None:
    async def run() -> tuple[list[str], str | None, str, bool]:
        async with Client(_server(dist, "guest", "--tools"), mode="legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            loaded = await client.call_tool("load_skill", {"name": "alpha", "arguments": "now"})
            hidden = await client.call_tool("load_skill", {"name": "group"})
            return names, client.instructions, loaded.content[0].text, bool(hidden.is_error)  # type: ignore[union-attr]

    names, instructions, loaded, hidden_is_error = anyio.run(run)
    assert names == ["list_skills", "load_skill"]
    assert instructions is not None and instructions.endswith(
        reader.open(dist).catalog("guest", env=reader.EVERYWHERE)
    )
    assert loaded == reader.open(dist).load("guest", "alpha", "now").render()
    assert hidden_is_error


def test_isolation_probes_over_the_wire_are_invalid_params(dist: Path) -> None:
    """test_view.py's probes, each as resources/read, skills/get and a directory read of a stub
    persona and an allowlisted one: -32602, the same message as for a URI that never existed."""
    from mcp.shared.exceptions import MCPError

    async def run(persona: str) -> list[tuple[str, str, int, str]]:
        pin = Pin(Builds(str(dist), persona, say=lambda _: None), sticky=True)
        answers = []
        async with Client(server_mod.make(pin, False), mode="legacy") as client:
            for uri in [p for p in clients.PROBES if p]:
                for method in ("resources/read", "skills/get", "resources/directory/read"):
                    try:
                        await clients.request(client, method, {"uri": uri})
                        answers.append((persona, method, 0, uri))
                    except MCPError as exc:
                        answers.append(
                            (persona, method, exc.error.code, exc.error.message.replace(uri, "URI"))
                        )
        return answers

    for persona in ("ops", "guest"):
        answers = anyio.run(run, persona)
        assert {code for _, _, code, _ in answers} == {-32602}, [a for a in answers if a[2] != -32602]
        hidden = [m for _, method, _, m in answers if method == "skills/get"]
        assert set(hidden) == {"No skill is served at URI"}
