"""`skillc serve` on the command line: usage errors, the missing extra, HTTP's ready line, and a
clean end on Ctrl-C and SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from support.cli import run

sys.path.insert(0, str(Path(__file__).resolve().parent))

import clients


def test_an_unknown_persona_is_a_usage_error_with_suggestions(dist: Path) -> None:
    code, out = run("serve", "--persona", "gust", str(dist))
    assert code == 2
    assert "unknown persona 'gust'" in out and "guest" in out


@pytest.mark.parametrize("address", ["x", "host:port", "1:2:3", "70000", "[::1]"])
def test_a_bad_address_is_a_usage_error(dist: Path, address: str) -> None:
    code, out = run("serve", "--persona", "lead", "--http", address, str(dist))
    assert code == 2 and "[HOST:]PORT" in out


def test_no_build_is_an_error(tmp_path: Path) -> None:
    code, out = run("serve", "--persona", "lead", str(tmp_path))
    assert code == 1 and "skillc build" in out


def test_without_the_extra_it_says_how_to_get_it(dist: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    code, out = run("serve", "--persona", "lead", str(dist))
    assert code == 1 and "pip install 'skillc[mcp]'" in out


def test_other_commands_never_import_the_sdk() -> None:
    """Nor do `serve --help` and serve's modules but server.py and run.py."""
    code = (
        "import sys\n"
        "from skillc.cli import main\n"
        "import skillc.serve.view, skillc.serve.methods, skillc.serve.builds, skillc.serve.tools\n"
        "for argv in (['--help'], ['catalog', '--help'], ['serve', '--help']):\n"
        "    try: main(argv)\n"
        "    except SystemExit: pass\n"
        "print('mcp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "False"


def _start(*argv: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillc", "serve", *argv],
        stderr=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("skillc: serving"):
            return proc, line.strip()
    raise AssertionError(f"no ready line; exit {proc.wait()}")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_http_says_where_it_serves_and_ends_cleanly(dist: Path, stop: signal.Signals) -> None:
    proc, ready = _start("--persona", "guest", "--http", "127.0.0.1:0", str(dist))
    try:
        assert ready.startswith("skillc: serving guest on http://127.0.0.1:") and ready.endswith("/mcp")
        url = ready.rsplit(" ", 1)[1]

        async def both() -> list[int]:
            counts = []
            for mode in ("legacy", "auto"):
                async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
                    counts.append(len(await clients.verified(client)))
            return counts

        assert anyio.run(both) == [8, 8]
    finally:
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_stdio_ends_cleanly(dist: Path, stop: signal.Signals) -> None:
    proc, ready = _start("--persona", "guest", str(dist))
    assert ready == "skillc: serving guest on stdio"
    os.kill(proc.pid, stop)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err, err


@pytest.mark.parametrize("how", ["found", "--config"])
def test_dist_defaults_to_the_config_s_output(dist: Path, tmp_path: Path, how: str) -> None:
    from mcp.client.stdio import StdioServerParameters

    config = ["--config", str(dist.parent / "skillc.yaml")] if how == "--config" else []
    where = dist.parent if how == "found" else tmp_path
    argv = ["-m", "skillc", "serve", "--persona", "guest", *config]
    params = StdioServerParameters(command=sys.executable, args=argv, cwd=str(where))

    async def listed() -> list[str]:
        async with Client(params, mode="legacy") as client:
            return [e["uri"] for e in await clients.entries(client)]

    assert anyio.run(listed) == [
        "skill://alpha/SKILL.md",
        "skill://manual/SKILL.md",
        "skill://secret/SKILL.md",
    ]


def test_an_address_in_use_is_an_error_not_a_traceback(dist: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out = run("serve", "--persona", "lead", "--http", f"127.0.0.1:{port}", str(dist))
    assert code == 1 and f"cannot listen on 127.0.0.1:{port}" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("8765", ("127.0.0.1", 8765)),
        ("0", ("127.0.0.1", 0)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("localhost:65535", ("localhost", 65535)),
        ("[::1]:0", ("::1", 0)),
    ],
)
def test_the_address_forms(text: str, address: tuple[str, int]) -> None:
    from skillc.cli.serve import _address

    assert _address(text) == address
