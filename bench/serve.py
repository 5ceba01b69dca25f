"""Issue 42's figures for `skillc serve`, side by side in one run with the floor of this stack.

    python bench/serve.py [--workdir /dev/shm/skillc-serve] [--clients 20] [--seconds 10]
                          [--rounds 3] [--big 10000] [--out FILE]

The floor is the MCP SDK's minimal server (bench/serve_floor.py): its low-level `Server` with one
`resources/read` handler answering from a dict in memory, over the same transport as `skillc
serve --http` (streamable HTTP, stateless, JSON responses, uvicorn), serving the very bytes skillc
serves. The figures:

- reads/s: `--clients` concurrent clients, each reading every file of a 100-skill build in turn
  (one `resources/read` a request, revision 2026-07-28), for `--seconds`, skillc and the floor
  alternated `--rounds` times (ABBA); the ratio in each round and of the medians (target >= 0.67);
- peak memory: the server's VmHWM after every file was read once, then after each round of reads
  (flat: the same after the first round and the last, while the requests served grow by the round);
- first response at `--big` skills: `skillc serve` over stdio started in a new process, the time
  to its `initialize` response and to its first `skills/list` page, SDK import included (median of
  five; target < 1 s), with the CPU seconds the server had used by then.

Trees come from bench/gen.py, built with this checkout's skillc. Needs the `mcp` extra (httpx2 is
the SDK's own HTTP client, used for the load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.gen import generate  # noqa: E402

REVISION = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": REVISION, "io.modelcontextprotocol/clientCapabilities": {}}


def built(work: Path, skills: int) -> Path:
    tree = work / f"tree-{skills}"
    if not (tree / "dist" / "_index.json").exists():
        generate(tree, skills, 12, 0)
        cmd = [
            sys.executable,
            "-m",
            "skillc",
            "build",
            "--no-cache",
            "-q",
            "--config",
            str(tree / "skillc.yaml"),
        ]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return tree / "dist"


def widest(dist: Path) -> str:
    """The persona that sees the most skills."""
    from skillc import reader

    opened = reader.open(dist)
    return max(opened.personas(), key=lambda p: (len(opened.skills(p)), p))


def start(argv: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "http://" in line:
            return proc, line.strip().rsplit(" ", 1)[1]
    raise RuntimeError(f"{argv}: no URL, exit {proc.wait()}")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def hwm(pid: int) -> int:
    """The process's peak resident set, in KiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", text).group(1))  # type: ignore[union-attr]


async def post(client: Any, url: str, method: str, params: dict[str, Any], name: str | None = None) -> Any:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": REVISION}
    headers["Mcp-Method"] = method
    if name is not None:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    response = await client.post(url, json=body, headers=headers)
    doc = response.json()
    if "error" in doc:
        raise RuntimeError(f"{method}: {doc['error']}")
    return doc["result"]


async def files_of(url: str) -> dict[str, dict[str, Any]]:
    """Every file skillc serves, with its contents as served: {uri: content}."""
    import httpx2

    out: dict[str, dict[str, Any]] = {}
    async with httpx2.AsyncClient(timeout=60) as client:
        cursor = None
        while True:
            page = await post(client, url, "skills/list", {"cursor": cursor} if cursor else {})
            for skill in page["skills"]:
                for r in skill["resources"]:
                    if r["uri"] not in out:
                        result = await post(client, url, "resources/read", {"uri": r["uri"]}, r["uri"])
                        out[r["uri"]] = result["contents"][0]
            cursor = page.get("nextCursor")
            if not cursor:
                return out


async def load(url: str, uris: list[str], clients: int, seconds: float) -> float:
    """Reads a second: `clients` concurrent clients, each reading every URI in turn."""
    import httpx2

    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(timeout=60, limits=limits) as client:
        done = 0
        end = time.perf_counter() + seconds

        async def one(offset: int) -> None:
            nonlocal done
            i = offset
            while time.perf_counter() < end:
                uri = uris[i % len(uris)]
                await post(client, url, "resources/read", {"uri": uri}, uri)
                done += 1
                i += 1

        began = time.perf_counter()
        await asyncio.gather(*(one(k * len(uris) // clients) for k in range(clients)))
        return done / (time.perf_counter() - began)


async def warm(url: str, uris: list[str]) -> None:
    """Every file read once, so every cache a server keeps is as full as the build makes it."""
    import httpx2

    async with httpx2.AsyncClient(timeout=60) as client:
        for uri in uris:
            await post(client, url, "resources/read", {"uri": uri}, uri)


def throughput(args: argparse.Namespace, dist: Path, persona: str) -> dict[str, Any]:
    serve = [
        sys.executable,
        "-m",
        "skillc",
        "serve",
        "--persona",
        persona,
        "--http",
        "127.0.0.1:0",
        str(dist),
    ]
    skillc, url = start(serve)
    contents = asyncio.run(files_of(url))
    stop(skillc)
    store = Path(args.workdir) / "floor.json"
    store.write_text(json.dumps(contents))
    uris = sorted(contents)
    servers = {"skillc": serve, "floor": [sys.executable, str(REPO / "bench" / "serve_floor.py"), str(store)]}
    rates: dict[str, list[float]] = {name: [] for name in servers}
    requests: dict[str, int] = dict.fromkeys(servers, 0)
    peaks: dict[str, list[tuple[int, int]]] = {name: [] for name in servers}  # (requests served, KiB)
    procs = {name: start(argv) for name, argv in servers.items()}
    try:
        for name, (proc, u) in procs.items():
            asyncio.run(warm(u, uris))
            requests[name] += len(uris)
            peaks[name].append((requests[name], hwm(proc.pid)))
        for round_ in range(args.rounds):  # the order alternates, so drift in the machine's load evens out
            for name in sorted(servers, reverse=round_ % 2 == 1):
                proc, u = procs[name]
                rate = asyncio.run(load(u, uris, args.clients, args.seconds))
                rates[name].append(rate)
                requests[name] += round(rate * args.seconds)
                peaks[name].append((requests[name], hwm(proc.pid)))
    finally:
        for proc, _ in procs.values():
            stop(proc)
    ratios = [a / b for a, b in zip(rates["skillc"], rates["floor"], strict=True)]
    return {
        "files": len(uris),
        "persona": persona,
        "reads_per_s": rates,
        "ratio_per_round": ratios,
        "ratio_of_medians": statistics.median(rates["skillc"]) / statistics.median(rates["floor"]),
        "peak_kib_after_requests": peaks,
    }


FIRST = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "skills/list", "params": {}},
]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_response(dist: Path, persona: str) -> dict[str, float]:
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillc", "serve", "--persona", persona, str(dist)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(("\n".join(json.dumps(m) for m in FIRST) + "\n").encode())
    proc.stdin.flush()
    proc.stdout.readline()
    initialize, cpu_init = time.perf_counter() - began, cpu_seconds(proc.pid)
    listed = json.loads(proc.stdout.readline())
    first_list, cpu_list = time.perf_counter() - began, cpu_seconds(proc.pid)
    assert len(listed["result"]["skills"]) == 100
    proc.stdin.close()
    proc.wait()
    return {
        "initialize": initialize,
        "initialize_cpu": cpu_init,
        "skills_list": first_list,
        "skills_list_cpu": cpu_list,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default="/dev/shm/skillc-serve")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big", type=int, default=10000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    small = built(work, 100)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, CPython {platform.python_version()}, {platform.system()} {platform.release()}",
        "load_average": os.getloadavg(),
        "throughput": throughput(args, small, widest(small)),
    }
    if args.big:
        big = built(work, args.big)
        persona = widest(big)
        runs = [first_response(big, persona) for _ in range(5)]
        report["first_response"] = {
            "skills": args.big,
            "persona": persona,
            **{k: statistics.median(r[k] for r in runs) for k in runs[0]},
        }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
