"""A loopback stand-in for a model endpoint: saves every request body, answers just enough to end a turn.

    python tests/harness/capture.py OUT_DIR [--port 0] [--timeout 60]

It listens on 127.0.0.1 only, prints the bound port on its first stdout line (so a caller can pass
port 0 and read the real one), writes each request to OUT_DIR/NNNN.json as
{"method", "path", "headers", "body"} (body parsed as JSON when it is JSON, else text), and stops by
itself after --timeout seconds. Stdlib only.

The answer is an Anthropic Messages reply ("ok", end_turn) on `.../messages`, as server-sent events
when the request asked to stream, else one JSON object: Claude Code and opencode (through its bundled
anthropic provider) end their turn on it. `...:generateContent` and `...:streamGenerateContent` get a
Gemini reply (Gemini CLI through GOOGLE_GEMINI_BASE_URL). Any other path gets an empty JSON object,
which the CLIs treat as an unusable optional service and move on.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_MESSAGE = {
    "id": "msg_capture",
    "type": "message",
    "role": "assistant",
    "model": "capture",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def _sse_events() -> list[tuple[str, dict[str, Any]]]:
    """The smallest event stream the Anthropic SDKs accept as a finished text message."""
    start = dict(_MESSAGE, content=[], stop_reason=None)
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


# Gemini's generateContent answer (Gemini CLI through GOOGLE_GEMINI_BASE_URL); streamed as one SSE event.
# The text is also valid JSON for the CLI's model router, which otherwise retries.
_GEMINI_TEXT = json.dumps({"complexity_reasoning": "ok", "complexity_score": 10})
_GEMINI = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": _GEMINI_TEXT}]}, "finishReason": "STOP", "index": 0}
    ],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    "modelVersion": "capture",
}


def _parse(raw: bytes) -> Any:
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Handler(BaseHTTPRequestHandler):
    server: _CaptureServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the saved files are the log

    def do_GET(self) -> None:
        self._handle(b"")

    def do_HEAD(self) -> None:
        self._handle(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._handle(self.rfile.read(length))

    def _handle(self, raw: bytes) -> None:
        body = _parse(raw)
        self.server.save(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        )
        path = self.path.split("?")[0]
        if self.command == "POST" and path.endswith("/messages"):
            streamed = isinstance(body, dict) and bool(body.get("stream"))
            self._stream() if streamed else self._json(_MESSAGE)
        elif path.endswith(":streamGenerateContent"):
            self._send("text/event-stream", f"data: {json.dumps(_GEMINI)}\r\n\r\n".encode())
        elif path.endswith(":generateContent"):
            self._json(_GEMINI)
        else:
            self._json({})

    def _json(self, value: dict[str, Any]) -> None:
        self._send("application/json", json.dumps(value).encode())

    def _stream(self) -> None:
        data = "".join(f"event: {name}\ndata: {json.dumps(event)}\n\n" for name, event in _sse_events())
        self._send("text/event-stream", data.encode())

    def _send(self, content_type: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _CaptureServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, out: Path, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.out = out
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def save(self, request: dict[str, Any]) -> None:
        with self._lock:
            path = self.out / f"{next(self._numbers):04d}.json"
            path.write_text(json.dumps(request, indent=1, ensure_ascii=False), encoding="utf-8")


def _print_port(port: int) -> None:
    print(port, flush=True)


def serve(out: Path, port: int, timeout: float, announce: Callable[[int], None] = _print_port) -> None:
    """Serves until `timeout` seconds have passed; `announce` gets the bound port first."""
    out.mkdir(parents=True, exist_ok=True)
    with _CaptureServer(out, port) as server:
        announce(server.server_address[1])
        timer = threading.Timer(timeout, server.shutdown)
        timer.daemon = True  # a caller that ends earlier must not wait for it
        timer.start()
        server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    serve(args.out, args.port, args.timeout)


if __name__ == "__main__":
    main(sys.argv[1:])
