"""Runs one real harness CLI on one fixture tree, offline, and prints what it discovered and listed.

    python tests/harness/run.py CLI FIXTURE [--budget N] [--keep]

CLI is codex, claude, gemini or opencode (installed by tests/harness/install.sh); FIXTURE a name in
fixtures.FIXTURES, or gen-<seed>-<persona> (fixtures.fixture); --budget is Codex's model_context_window or Claude Code's
SLASH_COMMAND_TOOL_CHAR_BUDGET. The output is the normalised JSON that golden files hold.

Isolation: the process re-executes itself inside a new network namespace (`unshare -n`) where only
loopback is up, so the CLIs can reach nothing but capture.py's server. Every CLI runs with a
throwaway HOME, CODEX_HOME and XDG_* folders under one temp folder, and every model endpoint points
at the loopback server. As root it uses `unshare -n`, otherwise `unshare -rn` (a user namespace); when neither works it refuses
to run, unless SKILLC_HARNESS_NO_NETNS=1 says the caller cuts the network off another way.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import drivers
import fixtures
from workspace import Workspace

# The pinned versions; install.sh installs exactly these and goldens live under <cli>@<version>.
VERSIONS = {"codex": "0.169.0", "claude": "2.1.330", "gemini": "0.61.0", "opencode": "1.18.33"}
_NETNS_MARK = "SKILLC_HARNESS_IN_NETNS"


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "skillc-harness"
    return Path(os.environ.get("SKILLC_HARNESS_CACHE") or default)


def binary(cli: str) -> Path:
    return cache_dir() / f"{cli}@{VERSIONS[cli]}" / "node_modules" / ".bin" / cli


def installed(cli: str) -> bool:
    return binary(cli).exists()


def record(cli: str, fixture: str, budget: int | None, keep: bool = False) -> dict[str, Any]:
    """Writes the fixture, runs the CLI's driver on it and returns the normalised result."""
    ws = Workspace(keep)
    if keep:
        print(ws.root, file=sys.stderr)
    try:
        roots = fixtures.ROOTS[cli]
        fixtures.fixture(fixture)(ws.project, roots, ws.outside)
        driver: Callable[..., dict[str, Any]] = drivers.DRIVERS[cli]
        result = driver(ws, str(binary(cli)), fixture, budget)
        head = {"cli": f"{cli}@{VERSIONS[cli]}", "fixture": fixture, "budget": budget}
        text = json.dumps(ws.normalise(head | result), ensure_ascii=False)
        return json.loads(text.replace(str(cache_dir()), "<cache>"))  # type: ignore[no-any-return]
    finally:
        ws.close()


def in_netns(argv: list[str]) -> None:
    """Re-executes this script in a fresh network namespace, unless already there (then: loopback up)."""
    if os.environ.get(_NETNS_MARK):
        _loopback_up()
        return
    if os.environ.get("SKILLC_HARNESS_NO_NETNS") == "1":
        return
    unshare = shutil.which("unshare")
    # As root a plain network namespace; otherwise a user namespace maps the caller to root first.
    for flags in (["-n"], ["-r", "-n"]):
        if (
            unshare
            and subprocess.run([unshare, *flags, "true"], capture_output=True, check=False).returncode == 0
        ):
            command = [unshare, *flags, sys.executable, *argv]
            os.execve(unshare, command, os.environ | {_NETNS_MARK: "1"})
    sys.exit("run.py: cannot create a network namespace (unshare -n); the CLIs must not reach the network")


def _loopback_up() -> None:
    """`ip link set lo up` without iproute2: SIOCSIFFLAGS with IFF_UP | IFF_LOOPBACK | IFF_RUNNING."""
    request = struct.pack("16sH14x", b"lo", 0x1 | 0x8 | 0x40)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, 0x8914, request)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli", choices=sorted(VERSIONS))
    parser.add_argument("fixture", help="a name in fixtures.FIXTURES, or gen-<seed>-<persona>")
    parser.add_argument("--budget", type=int)
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (its path goes to stderr)")
    args = parser.parse_args(argv)
    in_netns([str(Path(__file__).resolve()), *argv])
    result = record(args.cli, args.fixture, args.budget, args.keep)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
