"""The MCP server of `skillc serve`, on the official Python SDK's low-level `Server`.

Only wiring: the extension's methods (methods.py) and the tools fallback (tools.py) registered as
handlers, their errors as JSON-RPC errors, the capabilities the spec asks for (`resources`, which
the SDK advertises once a `resources/list` handler is registered, and the extension with
`directoryRead`). The SDK serves both protocol revisions, 2026-07-28 (the extension read from
`server/discover`) and 2025-11-25 (from `initialize`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from . import methods, tools
from .builds import Pin


class GetSkillParams(types.RequestParams):
    uri: str


class DirectoryReadParams(types.PaginatedRequestParams):
    uri: str


Ctx = ServerRequestContext[Any, Any]


def _answer(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return call()
    except methods.InvalidParams as exc:
        raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
    except methods.Internal as exc:
        raise MCPError(code=types.INTERNAL_ERROR, message=str(exc)) from None


def _handler(call: Callable[[Any], dict[str, Any]]) -> Callable[[Ctx, Any], Awaitable[dict[str, Any]]]:
    async def handle(ctx: Ctx, params: Any) -> dict[str, Any]:
        return _answer(lambda: call(params))

    return handle


def make(pin: Pin, with_tools: bool) -> Server[Any]:
    """The server for one persona: every request reads the build `pin` names."""
    server: Server[Any] = Server(
        "skillc",
        version=__version__,
        title=f"skillc: {pin.builds.persona}",
        **(_tool_handlers(pin) if with_tools else {}),  # their instructions: _handshake
    )
    # resources/list makes the SDK advertise `resources`, which the spec asks of the extension's server
    server.add_request_handler(
        "resources/list",
        types.PaginatedRequestParams,
        _handler(lambda p: methods.resources_list(pin, p.cursor)),
    )
    server.add_request_handler(
        "resources/read",
        types.ReadResourceRequestParams,
        _handler(lambda p: methods.resources_read(pin, p.uri)),
    )
    server.add_request_handler(
        "skills/list", types.PaginatedRequestParams, _handler(lambda p: methods.skills_list(pin, p.cursor))
    )
    server.add_request_handler(
        "skills/get", GetSkillParams, _handler(lambda p: methods.skills_get(pin, p.uri))
    )
    server.add_request_handler(
        "resources/directory/read",
        DirectoryReadParams,
        _handler(lambda p: methods.directory_read(pin, p.uri, p.cursor)),
    )
    server.extensions = {methods.EXTENSION: dict(SETTINGS)}
    server.middleware.append(_handshake(pin, with_tools))
    return server


SETTINGS = {"directoryRead": True}
_HANDSHAKES = frozenset({"initialize", "server/discover"})


def _handshake(pin: Pin, with_tools: bool) -> ServerMiddleware[Any]:
    """What `initialize` and `server/discover` say beyond the SDK's own answer: the extension in
    `initialize`'s capabilities too (revision 2025-11-25's schema has no `extensions` there, so
    the SDK's result sieve drops what `server.extensions` says, but a client of that revision
    learns of the extension from `initialize` alone; the conformance suite reads it there), and
    with `--tools`, instructions from the latest build (a rebuild's catalog for a new connection)."""

    async def answer(ctx: Ctx, call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method not in _HANDSHAKES or not isinstance(result, dict):
            return result
        capabilities = result.get("capabilities")
        if ctx.method == "initialize" and isinstance(capabilities, dict):
            result["capabilities"] = {**capabilities, "extensions": {methods.EXTENSION: dict(SETTINGS)}}
        if with_tools:
            with contextlib.suppress(tools.ToolError):  # a build that cannot be read: the SDK's own
                result["instructions"] = tools.instructions(pin.view())
        return result

    return answer


def _tool_handlers(pin: Pin) -> dict[str, Any]:
    async def list_tools(ctx: Ctx, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": tools.TOOLS})

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        view = pin.view()
        try:
            if params.name == tools.LIST:
                text = tools.list_skills(view)
            elif params.name == tools.LOAD:
                text = tools.load_skill(view, params.arguments or {})
            else:
                raise MCPError(code=types.INVALID_PARAMS, message=f"no tool {params.name!r}")
        except tools.ToolError as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(exc))], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return {"on_list_tools": list_tools, "on_call_tool": call_tool}
