"""`skillc serve --http` under load: 20 concurrent SDK clients reading every file while the build
is rebuilt under them. Each read is the old build's bytes or the new one's, never an error or a
mix; a client that lists again verifies the new build whole."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))

import clients
import fixture_project

CLIENTS = 20


def _files(dist: Path) -> dict[str, bytes]:
    from skillc import reader
    from skillc.serve.view import View

    view = View(reader.open(dist), "lead")
    return {f.uri: view.read(f) for s in view.skills() for f in view.entry(s.command).files}  # type: ignore[union-attr]


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, str, subprocess.Popen[str]]:
    dist = fixture_project.built(tmp_path / "p")
    argv = [sys.executable, "-m", "skillc", "serve", "--persona", "lead", "--http", "127.0.0.1:0", str(dist)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = next(line for line in proc.stderr if line.startswith("skillc: serving"))
    yield tmp_path / "p", line.strip().rsplit(" ", 1)[1], proc
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)


def test_twenty_clients_read_through_a_rebuild(served: tuple[Path, str, subprocess.Popen[str]]) -> None:
    root, url, proc = served
    old = _files(root / "dist")
    reads: list[tuple[str, bytes]] = []
    cutoff: list[float] = []  # past the rebuild and builds.LOOK_EVERY

    async def reader_task() -> None:
        """Every file in turn, until a whole round begun after the cutoff is read."""
        async with Client(url, mode="legacy") as client:
            while True:
                began = time.monotonic()
                for uri in sorted(old):
                    reads.append((uri, await clients.read(client, uri)))
                if cutoff and began > cutoff[0]:
                    return

    def rebuild() -> None:
        guide = root / "src" / "alpha" / "references" / "guide.md"
        guide.write_text("# Guide\n\nStep one, rebuilt.\n")
        skill = root / "src" / "alpha" / "SKILL.md"
        skill.write_text(skill.read_text().replace("Read references", "Now read references"))
        fixture_project.skillc("build", "--no-cache", "--config", root / "skillc.yaml")

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(CLIENTS):
                group.start_soon(reader_task)
            while len(reads) < CLIENTS * len(old):  # every client under way
                await anyio.sleep(0.05)
            await anyio.to_thread.run_sync(rebuild)
            cutoff.append(time.monotonic() + 0.5)

    anyio.run(main)
    new = _files(root / "dist")
    assert new["skill://alpha/SKILL.md"] != old["skill://alpha/SKILL.md"]
    assert all(data in (old[uri], new[uri]) for uri, data in reads)
    assert {data for uri, data in reads if uri == "skill://alpha/references/guide.md"} == {
        old["skill://alpha/references/guide.md"],
        new["skill://alpha/references/guide.md"],
    }

    async def fresh() -> dict[str, bytes]:
        async with Client(url, mode="legacy") as client:
            return await clients.verified(client)

    assert anyio.run(fresh) == new
    assert proc.poll() is None
