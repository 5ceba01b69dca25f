"""The server in process (the SDK's client connected to it directly), over real builds: this
repository's own `dist/` for every persona, each file read and verified, each equal to what the
reader gives that persona; and nothing any persona is not served."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from skillc import reader
from skillc.serve import server as server_mod
from skillc.serve.builds import Builds, Pin
from skillc.serve.view import View

sys.path.insert(0, str(Path(__file__).resolve().parent))

import clients

REPO_DIST = Path(__file__).resolve().parents[2] / "dist"
PERSONAS = reader.open(REPO_DIST).personas()


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_repository_s_build_served_to_each_persona(persona: str) -> None:
    pin = Pin(Builds(str(REPO_DIST), persona, say=lambda _: None), sticky=True)

    async def run() -> dict[str, bytes]:
        async with Client(server_mod.make(pin, with_tools=False)) as client:
            return await clients.verified(client)

    files = anyio.run(run)
    opened = reader.open(REPO_DIST)
    view = View(opened, persona)
    want = {i.command for i in opened.skills(persona, env=reader.EVERYWHERE) if i.model or i.user}
    assert {f.command for f in (view.file_at(u) for u in files) if f is not None} == want
    for uri, data in files.items():
        found = view.file_at(uri)
        assert found is not None
        if found.path is not None:
            assert data == opened.resource(persona, found.command, found.path)
        else:
            body = opened.read_object(opened.resolution(persona, found.command).body_sha256)
            assert data.endswith(body)
