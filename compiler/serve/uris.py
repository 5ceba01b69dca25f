"""The `skill://` URI scheme of `skillc serve`, and the Agent Skills name rule the spec applies to
a URI's last skill segment.

A skill is served at `skill://<skill path>/<file path>`, where the skill path is its command's
folders (`sven/plan`) and the file path is relative to the skill's folder. Each segment is
percent-encoded as RFC 3986 says (`quote`: everything but the unreserved characters), so a URI is
read back by exact string: a URI in any other spelling (a `..`, an encoded `/`, lower-case hex) is
simply not one the server serves. The persona is the server's, never part of a URI.
"""

from __future__ import annotations

import re
from urllib.parse import quote

SCHEME = "skill://"
SKILL_MD = "SKILL.md"
# Agent Skills (agentskills.io/specification, `name`): 1-64 characters, lowercase ASCII letters,
# digits and hyphens, no hyphen first, last or twice in a row; the conformance suite's own check.
_NAME = re.compile(r"(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?")
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def valid_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def served_name(segment: str) -> str | None:
    """The name a skill in folder `segment` is served under: the folder itself when the rule
    takes it, else its lower-case letters and digits joined by single hyphens, at most 64
    characters; None when nothing is left (the skill is then not served)."""
    if valid_name(segment):
        return segment
    name = _NOT_NAME.sub("-", segment.lower()).strip("-")[:64].rstrip("-")
    return name if name and valid_name(name) else None


def encode(path: str) -> str:
    """A `/`-separated path, each segment percent-encoded."""
    return "/".join(quote(segment, safe="") for segment in path.split("/"))


def skill_uri(skill_path: str) -> str:
    """The URI of a skill's SKILL.md, from its skill path (already encoded)."""
    return f"{SCHEME}{skill_path}/{SKILL_MD}"


def file_uri(skill_path: str, file: str) -> str:
    """The URI of one file of a skill: `file` is its path below the skill's folder, as built."""
    return f"{SCHEME}{skill_path}/{encode(file)}"


def split(uri: str) -> list[str] | None:
    """The encoded segments after the scheme, or None for a URI that is not one of this scheme
    (another scheme, an empty segment, a trailing slash)."""
    if not uri.startswith(SCHEME):
        return None
    parts = uri[len(SCHEME) :].split("/")
    return parts if all(parts) else None
