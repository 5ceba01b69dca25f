"""A built dist/ read raw, every JSON file held to its schema (compiler/schemas/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillc.format import layout as fmt
from skillc.format.documents import check_shard_table
from skillc.format.shardtree import all_shards
from skillc.output import verify


def _object(dist: Path, digest: str) -> bytes:
    return (dist / fmt.object_path(digest)).read_bytes()


def _valid(data: Any, name: str, where: str) -> Any:
    errors = verify.dist_errors(data, name)
    assert not errors, f"{where} breaks {name}.schema.json: {errors[:5]}"
    return data


def _shards(dist: Path, root: str) -> dict[str, str]:
    """Every shard of the shard table, each node schema-checked and format-checked on the way."""

    def node(digest: str, prefix: str) -> Any:
        data = _valid(json.loads(_object(dist, digest)), "shard-table", f"shard table node {prefix!r}")
        check_shard_table(data, prefix, f"shard table node {prefix!r}")
        return data

    return all_shards(root, node, str(dist))


def expand(dist: Path) -> dict[str, Any]:
    """The whole build, schema-checked: index, persona metas, skills, and every pair's resolution."""
    index = _valid(json.loads((dist / fmt.INDEX).read_bytes()), "index", fmt.INDEX)
    metas = {
        pid: _valid(json.loads(_object(dist, p["meta"])), "persona-meta", f"meta of {pid}")
        for pid, p in index["personas"].items()
    }
    skills: dict[str, Any] = {}
    for name, digest in _shards(dist, index["shards"]).items():
        shard = _valid(json.loads(_object(dist, digest)), "shard", f"shard {name}")
        assert shard["shard"] == name and all(fmt.shard_of(c, len(name)) == name for c in shard["skills"])
        skills.update(shard["skills"])
    table: dict[str, dict[str, Any]] = {pid: {} for pid in index["personas"]}
    for command, s in sorted(skills.items()):
        for pid in index["personas"]:
            r = s["exceptions"][pid] if pid in s["exceptions"] else s["default"]
            if r is not None:
                table[pid][command] = dict(r, in_catalog=command in metas[pid]["included"])
    return {"index": index, "personas": metas, "skills": dict(sorted(skills.items())), "resolutions": table}
