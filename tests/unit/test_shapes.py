"""The typed documents (format/shapes.py) and the JSON Schemas (compiler/schemas/) say the same keys.

Every TypedDict reachable from a document type is compared with the schema at the same place:
its keys with the schema's `properties`, its required keys with the schema's `required`.
"""

from __future__ import annotations

import json
import types
from importlib import resources
from typing import Any, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from skillc.format import shapes
from skillc.format.shapes import SCHEMAS


def _schema(name: str) -> dict[str, Any]:
    return json.loads((resources.files("skillc") / "schemas" / f"{name}.schema.json").read_text("utf-8"))


def _deref(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"a typed value refers outside its schema: {ref}"
        node = root
        for part in ref[2:].split("/"):
            node = node[part]
    return node


def _has_typeddict(hint: Any) -> bool:
    return is_typeddict(hint) or any(_has_typeddict(a) for a in get_args(hint))


def _mismatches(hint: Any, node: dict[str, Any], root: dict[str, Any], where: str) -> list[str]:
    """Where the type and the schema disagree, below `where` (only TypedDicts carry keys)."""
    if not _has_typeddict(hint):
        return []
    node = _deref(node, root)
    origin = get_origin(hint)
    if is_typeddict(hint):
        return _keys(hint, node, root, where)
    if origin is dict:
        return _mismatches(get_args(hint)[1], node["additionalProperties"], root, f"{where}.*")
    if origin is list:
        return _mismatches(get_args(hint)[0], node["items"], root, f"{where}[]")
    if origin in (Union, types.UnionType):  # X | None: the schema's branch that is not null
        branches = [
            b for b in node.get("oneOf", node.get("anyOf", [node])) if _deref(b, root).get("type") != "null"
        ]
        kinds = [a for a in get_args(hint) if a is not type(None)]
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


def _keys(typed: Any, node: dict[str, Any], root: dict[str, Any], where: str) -> list[str]:
    found = []
    hints = get_type_hints(typed)
    if set(hints) != set(node.get("properties", {})):
        found.append(f"{where}: keys {sorted(hints)} != properties {sorted(node.get('properties', {}))}")
    if _required(typed) != set(node.get("required", ())):
        found.append(f"{where}: required {sorted(_required(typed))} != {sorted(node.get('required', ()))}")
    for key, hint in hints.items():
        if key in node.get("properties", {}):
            found += _mismatches(hint, node["properties"][key], root, f"{where}.{key}")
    return found


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_document_type_has_the_keys_of_its_schema(name: str) -> None:
    schema = _schema(name)
    assert _mismatches(SCHEMAS[name], schema, schema, name) == []


def test_every_document_of_the_format_has_a_type_and_a_schema() -> None:
    from skillc.output.verify import DIST_SCHEMAS

    assert sorted(SCHEMAS) == sorted(DIST_SCHEMAS)
    assert all(is_typeddict(t) and getattr(shapes, t.__name__) is t for t in SCHEMAS.values())


def test_a_key_missing_from_a_type_is_found() -> None:
    """The comparison itself can fail: a schema with one more property than the type."""
    schema = _schema("persona-meta")
    schema["properties"]["colour"] = {"type": "string"}
    assert _mismatches(SCHEMAS["persona-meta"], schema, schema, "persona-meta") != []
