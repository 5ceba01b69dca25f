"""The Skills Extension's requests, answered from a view: plain JSON results, no SDK.

`skills/list`, `skills/get`, `resources/list`, `resources/read` and `resources/directory/read` as
the Final spec (SEP-2640) says them. An unknown skill or URI, a hidden one included, is
`InvalidParams` (-32602) with the same message as a URI that never existed, so an answer says
nothing of what another persona sees. A cursor names its page's build and offset: the next page
comes from the same build while it is kept (builds.KEPT), else it is refused and the client lists
again.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, TypeVar

from .. import reader
from . import uris
from .builds import Pin
from .view import File, Served, View

T = TypeVar("T")
PAGE = 100  # skills/list, resources/list and directory entries per page (the issue: at most 100)
# Freshness hints (SEP-2549): a rebuild shows within a second or two, and a persona's view is not
# to be shared by a cache across callers (docs/serve.md).
TTL_MS = 1000
CACHE_SCOPE = "private"
EXTENSION = "io.modelcontextprotocol/skills"


class InvalidParams(Exception):
    """-32602: an unknown skill, URI or cursor."""


class Internal(Exception):
    """-32603: the build cannot be read (missing, corrupt, or its persona gone)."""


def _cache(result: dict[str, Any]) -> dict[str, Any]:
    return _complete({**result, "ttlMs": TTL_MS, "cacheScope": CACHE_SCOPE})


def _complete(result: dict[str, Any]) -> dict[str, Any]:
    """`resultType`, which revision 2026-07-28 requires of every result (the SDK drops it on 2025-11-25)."""
    return {"resultType": "complete", **result}


def _cursor(view: View, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{view.build_hash}:{offset}".encode()).decode()


def _page(pin: Pin, cursor: str | None, sticky: bool) -> tuple[View, int]:
    """The view and offset a request's cursor names (none: the latest build, from 0). A list
    request (`sticky`) pins the connection to that build."""
    if cursor is None:
        return (pin.refresh() if sticky else pin.view()), 0
    try:
        build, _, offset = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii").partition(":")
        start = int(offset)
    except (ValueError, UnicodeError, binascii.Error):
        raise InvalidParams(f"{cursor!r} is not a cursor this server gave") from None
    view = pin.builds.get(build)
    if view is None or start < 0 or str(start) != offset:
        raise InvalidParams(f"{cursor!r} is not a cursor of a build this server still serves: list again")
    return (pin.refresh(view) if sticky else view), start


def _guarded(view: View, call: Callable[[], T]) -> T:
    """`call`, the reader's failures on a build it cannot read as `Internal`."""
    try:
        return call()
    except reader.UnknownPersona:
        raise Internal(f"the build {view.build_hash[:12]} has no persona {view.persona!r}") from None
    except (reader.IntegrityError, reader.FormatError, reader.DistRebuilt) as exc:
        raise Internal(str(exc)) from None


def skills_list(pin: Pin, cursor: str | None) -> dict[str, Any]:
    view, start = _page(pin, cursor, sticky=True)
    served = _guarded(view, view.skills)
    page = served[start : start + PAGE]
    result: dict[str, Any] = {"skills": _guarded(view, lambda: _entries(view, page))}
    if start + PAGE < len(served):
        result["nextCursor"] = _cursor(view, start + PAGE)
    return _cache(result)


def _entries(view: View, served: list[Served]) -> list[dict[str, Any]]:
    found = (view.entry(s.command) for s in served)
    return [entry.json() for entry in found if entry is not None]


def skills_get(pin: Pin, uri: str) -> dict[str, Any]:
    view = pin.refresh()
    entry = _guarded(view, lambda: view.skill_at(uri))
    if entry is None:
        raise InvalidParams(f"No skill is served at {uri}")
    return _cache({"skill": entry.json()})


def resources_list(pin: Pin, cursor: str | None) -> dict[str, Any]:
    """Each served SKILL.md, with its skill's name and description (the spec's resource metadata)."""
    view, start = _page(pin, cursor, sticky=False)
    served = _guarded(view, view.skills)
    resources = [
        {
            "uri": uris.skill_uri(s.skill_path),
            "name": s.name,
            "description": s.info.description,
            "mimeType": "text/markdown",
        }
        for s in served[start : start + PAGE]
    ]
    result: dict[str, Any] = {"resources": resources}
    if start + PAGE < len(served):
        result["nextCursor"] = _cursor(view, start + PAGE)
    return _cache(result)


def resources_read(pin: Pin, uri: str) -> dict[str, Any]:
    view = pin.view()
    found = _guarded(view, lambda: view.file_at(uri))
    if found is None:
        raise InvalidParams(f"No resource is served at {uri}")
    file: File = found
    data = _guarded(view, lambda: view.read(file))
    content: dict[str, Any] = {"uri": uri, "mimeType": file.mime_type}
    try:
        content["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        content["blob"] = base64.b64encode(data).decode("ascii")
    return _cache({"contents": [content]})


def directory_read(pin: Pin, uri: str, cursor: str | None) -> dict[str, Any]:
    view, start = _page(pin, cursor, sticky=False)
    children = _guarded(view, lambda: view.directory(uri))
    if children is None:
        raise InvalidParams(f"{uri} is not a directory resource of this server")
    resources = []
    for child, name, folder in children[start : start + PAGE]:
        found = None if folder else view.file_at(child)
        mime = "inode/directory" if folder else (found.mime_type if found else "application/octet-stream")
        resources.append({"uri": child, "name": name, "mimeType": mime})
    result: dict[str, Any] = {"resources": resources}
    if start + PAGE < len(children):
        result["nextCursor"] = _cursor(view, start + PAGE)
    return _complete(result)
