"""What a build would write, held to format 3's JSON Schemas (`skillc validate`; the tests too).

A failure here is a skillc bug, never bad input: the compiler writes only what the schemas allow.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

import jsonschema

from ..format.layout import INDEX, object_path
from ..format.shardtree import table_nodes

if TYPE_CHECKING:
    from ..format.shapes import ShardTableDoc

DIST_SCHEMAS = ("index", "persona-meta", "shard", "shard-table", "split", "plan", "requires")  # format 3


@functools.cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    from referencing import Registry, Resource

    docs = [
        json.loads((resources.files("skillc") / "schemas" / f"{n}.schema.json").read_text("utf-8"))
        for n in (name, "frontmatter")
    ]
    registry = Registry().with_resources([(d["$id"], Resource.from_contents(d)) for d in docs])
    return jsonschema.Draft202012Validator(docs[0], registry=registry)


def dist_errors(data: Any, name: str = "index") -> list[str]:
    """Problems of one JSON document of a format 3 dist/ against skillc/schemas/<name>.schema.json."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}"
        for e in _validator(name).iter_errors(data)
    ]


def artifact_errors(files: Mapping[str, bytes]) -> list[str]:
    """Every JSON document a build would write (index, persona metas and plans, the split and the
    requirements, shard table, shards), each held to its schema."""

    def node(digest: str, prefix: str) -> ShardTableDoc:
        return cast("ShardTableDoc", json.loads(files[object_path(digest)]))

    try:
        index = json.loads(files[INDEX])
        named = [(INDEX, "index", index)]
        named += [
            (f"meta of {pid}", "persona-meta", json.loads(files[object_path(p["meta"])]))
            for pid, p in index["personas"].items()
        ]
        named += [
            (f"plan of {pid}", "plan", json.loads(files[object_path(p["plan"])]))
            for pid, p in index["personas"].items()
            if p["plan"] is not None
        ]
        named += [
            (key, key, json.loads(files[object_path(index[key])]))
            for key in ("split", "requires")
            if index[key] is not None
        ]
        for table in table_nodes(index["shards"], node, INDEX):
            named.append((f"shard table node {table.get('prefix')!r}", "shard-table", table))
            named += [
                (f"shard {s}", "shard", json.loads(files[object_path(d)]))
                for s, d in table.get("shards", {}).items()
            ]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [f"{INDEX}: unreadable: {type(exc).__name__}: {exc}"]
    return [f"{where}: {e}" for where, name, data in named for e in dist_errors(data, name)]
