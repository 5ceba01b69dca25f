"""The floor of `bench/serve.py`: the MCP SDK's minimal server answering `resources/read` from
memory, on the transport `skillc serve --http` uses (streamable HTTP at /mcp, stateless, JSON
responses, uvicorn on 127.0.0.1, a free port named on stderr as skillc names its own).

    python bench/serve_floor.py CONTENTS.json

CONTENTS.json maps each URI to the `contents` item skillc served for it, so both serve the same bytes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server


def main() -> None:
    contents: dict[str, dict[str, Any]] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> dict[str, Any]:
        return {"resultType": "complete", "contents": [contents[params.uri]]}

    server: Server[Any] = Server("floor")
    server.add_request_handler("resources/read", types.ReadResourceRequestParams, read)
    app = server.streamable_http_app(stateless_http=True, json_response=True)
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False))

    async def serve() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(web.serve)
            while not web.started:
                await anyio.sleep(0.01)
            port = web.servers[0].sockets[0].getsockname()[1]
            print(f"floor: serving on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)

    anyio.run(serve)


if __name__ == "__main__":
    main()
