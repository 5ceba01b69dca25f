"""The typed documents (format/shapes.py) and the JSON Schemas (compiler/schemas/) say the same keys.

Every TypedDict reachable from a document type is compared with the schema at the same place. Where
the schema is closed (`additionalProperties: false`) the type has exactly its `properties`, and
requires exactly its `required`. Where the schema is open (the frontmatter keeps any field the source
had) the type names some of its properties and requires none the schema does not.
"""

from __future__ import annotations

import json
import types
from importlib import resources
from typing import Any, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from skillc.format import shapes
from skillc.format.shapes import SCHEMAS

Node = dict[str, Any]


def _schema(name: str) -> Node:
    return json.loads((resources.files("skillc") / "schemas" / f"{name}.schema.json").read_text("utf-8"))


def _deref(node: Node, root: Node) -> tuple[Node, Node]:
    """The node a `$ref` points at, and the schema it lives in (another file of compiler/schemas/)."""
    while "$ref" in node:
        file, _, pointer = node["$ref"].partition("#")
        if file:
            root = _schema(file.removesuffix(".schema.json"))
        node = root
        for part in filter(None, pointer.split("/")):
            node = node[part]
    return node, root


def _has_typeddict(hint: Any) -> bool:
    return is_typeddict(hint) or any(_has_typeddict(a) for a in get_args(hint))


def _mismatches(hint: Any, node: Node, root: Node, where: str) -> list[str]:
    """Where the type and the schema disagree, below `where` (only TypedDicts carry keys)."""
    if not _has_typeddict(hint):
        return []
    node, root = _deref(node, root)
    origin = get_origin(hint)
    if is_typeddict(hint):
        return _keys(hint, node, root, where)
    if origin is dict:
        return _mismatches(get_args(hint)[1], node["additionalProperties"], root, f"{where}.*")
    if origin is list:
        return _mismatches(get_args(hint)[0], node["items"], root, f"{where}[]")
    if origin in (Union, types.UnionType):  # X | None, str | X: the schema's object branch
        branches = [
            b
            for b in node.get("oneOf", node.get("anyOf", [node]))
            if _deref(b, root)[0].get("type") not in ("null", "string")
        ]
        kinds = [a for a in get_args(hint) if a is not type(None) and a is not str]
        assert len(branches) == len(kinds) == 1, where
        return _mismatches(kinds[0], branches[0], root, where)
    raise AssertionError(f"{where}: no rule for {hint!r}")


def _required(typed: Any) -> set[str]:
    """The required keys, read off the annotations: under `from __future__ import annotations`
    Python 3.11 builds `__required_keys__` without looking inside `Required[...]`."""
    marked = get_type_hints(typed, include_extras=True)
    return {
        key
        for key, hint in marked.items()
        if get_origin(hint) is Required or (typed.__total__ and get_origin(hint) is not NotRequired)
    }


def _keys(typed: Any, node: Node, root: Node, where: str) -> list[str]:
    hints, properties = get_type_hints(typed), node.get("properties", {})
    required, schema_required = _required(typed), set(node.get("required", ()))
    if node.get("additionalProperties") is False:
        same = set(hints) == set(properties) and required == schema_required
    else:
        same = set(hints) <= set(properties) and required <= schema_required
    found = [] if same else [f"{where}: {sorted(hints)} (required {sorted(required)}) against {node}"]
    for key, hint in hints.items():
        if key in properties:
            found += _mismatches(hint, properties[key], root, f"{where}.{key}")
    return found


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_document_type_has_the_keys_of_its_schema(name: str) -> None:
    schema = _schema(name)
    assert _mismatches(SCHEMAS[name], schema, schema, name) == []


def test_every_document_of_the_format_has_a_type_and_a_schema() -> None:
    from skillc.output.verify import DIST_SCHEMAS

    assert sorted(SCHEMAS) == sorted(DIST_SCHEMAS)
    assert all(is_typeddict(t) and getattr(shapes, t.__name__) is t for t in SCHEMAS.values())


def test_a_property_missing_from_a_type_is_found() -> None:
    """The comparison itself can fail: a closed schema with one more property than the type."""
    schema = _schema("persona-meta")
    schema["properties"]["colour"] = {"type": "string"}
    assert _mismatches(SCHEMAS["persona-meta"], schema, schema, "persona-meta") != []


def test_a_type_naming_a_field_an_open_schema_lacks_is_found() -> None:
    """The frontmatter is open: its type may name fewer fields, never one the schema does not know."""
    schema = _schema("shard")
    frontmatter = _schema("frontmatter")
    del frontmatter["properties"]["allowed-tools"]
    schema["$defs"]["skill"]["properties"]["frontmatter"] = frontmatter
    assert _mismatches(SCHEMAS["shard"], schema, schema, "shard") != []
