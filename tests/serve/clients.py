"""What the serve tests share: the isolation probes, the SDK client's extension requests, and a
full verifying read of everything a server serves."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import yaml
from mcp import Client

# URIs a persona must not reach (test_view.py, test_sdk_client.py): another persona's file, `..`
# and `.` segments, encoded separators and dots, other spellings, the build's own files.
PROBES = [
    "skill://secret/references/plan.md",  # the granted persona's file, from a stub persona
    "skill://secret/references/../references/plan.md",
    "skill://secret/references/%2E%2E/references/plan.md",
    "skill://secret%2Freferences/plan.md",
    "skill://secret/references%2Fplan.md",
    "skill://SECRET/SKILL.md",
    "skill://lead/secret/SKILL.md",
    "skill://lead-exclusive/secret.md",
    "skill://ops/skill-overlays/overlaid.md",
    "skill://personas/ops/skill-overlays/overlaid.md",
    "skill://nobody/SKILL.md",
    "skill://under_score/SKILL.md",
    "skill://label-y/SKILL.md",
    "skill://alpha/references/./guide.md",
    "skill://alpha//references/guide.md",
    "skill://alpha/data file (1).txt",
    "skill://alpha/SKILL.md/",
    "skill://./alpha/SKILL.md",
    "skill://../dist/_index.json",
    "skill://objects/ab/cd",
    "skill://_index.json",
    "file:///etc/passwd",
    "skill://alpha/SKILL.md?persona=lead",
    "skill://alpha/SKILL.md#x",
    "skill://alpha/skill.md",
    "",
]


async def request(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request of the extension through the SDK client's session (it has no public call for a
    method outside the core protocol): stamped as its own requests are, for either revision."""
    session = client.session
    data: dict[str, Any] = {"method": method, "params": params}
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # type: ignore[arg-type]
    result: dict[str, Any] = await session._dispatcher.send_raw_request(method, data["params"], opts)  # type: ignore[arg-type]
    return result


async def read(client: Client, uri: str) -> bytes:
    """The bytes of one resource, text or blob."""
    content = (await client.read_resource(uri)).contents[0]
    text = getattr(content, "text", None)
    return text.encode("utf-8") if text is not None else base64.b64decode(content.blob)  # type: ignore[union-attr]


async def entries(client: Client) -> list[dict[str, Any]]:
    """Every skills/list entry, page by page."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await request(client, "skills/list", {"cursor": cursor} if cursor else {})
        found += page["skills"]
        cursor = page.get("nextCursor")
        if not cursor:
            return found


def frontmatter(skill_md: bytes) -> dict[str, Any]:
    head = skill_md.decode("utf-8").split("---\n", 2)[1]
    loaded: dict[str, Any] = yaml.safe_load(head)
    return loaded


async def verified(client: Client) -> dict[str, bytes]:
    """Every file of every listed skill read and checked as a host must (digest, size, the SKILL.md
    frontmatter against the entry's): {uri: bytes}."""
    files: dict[str, bytes] = {}
    for entry in await entries(client):
        for resource in entry["resources"]:
            data = files.get(resource["uri"]) or await read(client, resource["uri"])
            assert resource["digest"] == "sha256:" + hashlib.sha256(data).hexdigest(), resource["uri"]
            assert resource["size"] == len(data), resource["uri"]
            files[resource["uri"]] = data
        assert frontmatter(files[entry["uri"]]) == entry["frontmatter"], entry["uri"]
    return files
