"""The reader's bounds, held against what a build would write: the compiler never writes a file its own
reader refuses (a shard over the reader's document bound would make every skill in it unservable)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..format import layout as fmt
from ..model import Artifacts
from .assemble import Files


def over_bounds(art: Artifacts, config_rel: str) -> tuple[Diagnostic, ...]:
    """An error for each file of the build larger than the reader reads: JSON documents (the index,
    persona metas, shard-table nodes, shards) against MAX_INDEX_BYTES, other objects against
    MAX_OBJECT_BYTES. Read from `fmt` at call time: the tests lower the bounds."""
    problems: list[Diagnostic] = []
    files = art.files
    for rel in files:
        document = rel == fmt.INDEX or rel in art.documents
        limit = fmt.MAX_INDEX_BYTES if document else fmt.MAX_OBJECT_BYTES
        if _size(files, rel) > limit and (document or rel in art.objects):
            problems.append(_too_large(rel, files[rel], limit, config_rel))
    return tuple(problems)


def _size(files: Mapping[str, bytes], rel: str) -> int:
    # assemble's Files knows each size without reading the bytes back (they are spooled, or text).
    return files.size(rel) if isinstance(files, Files) else len(files[rel])


def _too_large(rel: str, data: bytes, limit: int, config_rel: str) -> Diagnostic:
    what = f"{rel} would be {len(data)} bytes; the reader accepts at most {limit}"
    heaviest = _heaviest_skills(data)
    if not heaviest:
        return dg.error(config_rel, Code.DOCUMENT_TOO_LARGE, f"{what}: nothing was written")
    names = ", ".join(f"{command} ({size} bytes)" for command, size, _ in heaviest)
    return dg.error(
        heaviest[0][2],
        Code.DOCUMENT_TOO_LARGE,
        f"{what}: the skills sharing its shard are too large together; the largest: {names}",
    )


def _heaviest_skills(data: bytes) -> list[tuple[str, int, str]]:
    """For a shard: its three largest entries as (command, encoded size, SKILL.md path)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return []
    skills = doc.get("skills") if isinstance(doc, dict) and "shard" in doc else None
    if not isinstance(skills, dict):
        return []
    sized = [
        (command, len(json.dumps(entry)), str(entry.get("path", "")))
        for command, entry in skills.items()
        if isinstance(entry, dict)
    ]
    return sorted(sized, key=lambda s: (-s[1], s[0]))[:3]
