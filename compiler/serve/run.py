"""`skillc serve`'s transports: stdio, or streamable HTTP at `/mcp`, until stdin closes, Ctrl-C or
SIGTERM. Over HTTP the server is stateless per request (no session, no pin: every request reads
the latest build), so any number of them behind a load balancer serve one build alike.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable

import anyio
import anyio.abc

from ..errors import SkillcError
from . import server as server_mod
from .builds import Builds, Pin

MCP_PATH = "/mcp"


def stdio(builds: Builds, with_tools: bool, ready: Callable[[], None]) -> None:
    """Serve one connection over stdin and stdout: it reads from the build of its last list or get."""
    from mcp.server.stdio import stdio_server

    server = server_mod.make(Pin(builds, sticky=True), with_tools)

    async def main() -> None:
        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            await group.start(_cancel_on_signal, group.cancel_scope)
            ready()
            await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()  # stdin closed: the host is gone

    anyio.run(main)


async def _cancel_on_signal(scope: anyio.CancelScope, *, task_status: anyio.abc.TaskStatus[None]) -> None:
    """Ctrl-C or SIGTERM: the connection ends as if stdin had closed."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            scope.cancel()
            return


def http(builds: Builds, with_tools: bool, host: str, port: int, ready: Callable[[str], None]) -> None:
    """Serve streamable HTTP on host:port at /mcp; `ready` is told the URL once the socket listens
    (port 0 takes a free port, and the URL names it)."""
    import uvicorn

    sock = listening(host, port)
    server = server_mod.make(Pin(builds, sticky=False), with_tools)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    web = uvicorn.Server(config)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: web.serve(sockets=[sock]))
            while not web.started:
                if web.should_exit:
                    return
                await anyio.sleep(0.01)
            shown = f"[{host}]" if ":" in host else host
            ready(f"http://{shown}:{sock.getsockname()[1]}{MCP_PATH}")

    # uvicorn ends on Ctrl-C and SIGTERM itself, then raises the signal again for the handler it
    # found; this one asks it to stop, as its own does (so a signal before it starts stops it too).
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: setattr(web, "should_exit", True))
    anyio.run(main)


def listening(host: str, port: int) -> socket.socket:
    """The bound socket uvicorn serves on: bound here, so that an address in use or a host that
    does not resolve is an error message (exit 1), not uvicorn's exit from inside its task."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise SkillcError(f"--http {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise SkillcError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
