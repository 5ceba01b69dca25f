"""The compiled schema check, on hand-built schemas: jsonschema's semantics, and where it steps aside."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from skillc.stages import fastschema


def accepts(schema: dict[str, Any], value: Any) -> bool:
    check = fastschema.compile_schema(schema)
    assert check is not None
    return fastschema.passes(check, value)


def test_an_unknown_keyword_leaves_the_schema_to_jsonschema() -> None:
    assert fastschema.compile_schema({"type": "object", "dependentRequired": {"a": ["b"]}}) is None
    assert fastschema.compile_schema({"$ref": "https://example.com/other.json"}) is None
    assert fastschema.compile_schema({"items": {"type": "string"}, "prefixItems": [{}]}) is None
    assert fastschema.compile_schema({"enum": [1, "a"]}) is None


def test_annotations_never_refuse() -> None:
    schema = {"$schema": "x", "$id": "y", "title": "t", "description": "d", "format": "email"}
    assert accepts(schema, "not an email")


def test_booleans_are_not_numbers_and_integers_may_be_floats() -> None:
    assert not accepts({"type": "integer"}, True)
    assert accepts({"type": "integer"}, 2.0)
    assert not accepts({"type": "number"}, False)
    assert not accepts({"const": 1}, True)
    assert accepts({"const": 1}, 1.0)
    assert not accepts({"minimum": 1}, 0) and accepts({"minimum": 1}, True)  # minimum: numbers only
    assert not accepts({"maximum": 5}, 6) and accepts({"maximum": 5}, 5) and accepts({"maximum": 5}, "x")


def test_the_config_schema_is_compiled() -> None:
    """A valid config needs no jsonschema either (its numbers have a maximum: fastschema knows it)."""
    from skillc.stages import schema

    assert schema.fast_check("config") is not None


def test_one_of_means_exactly_one() -> None:
    schema = {"oneOf": [{"type": "string"}, {"minLength": 2}]}
    assert accepts(schema, 3)  # only the second branch (minLength ignores non-strings)
    assert not accepts(schema, "ab")  # both


def test_refs_resolve_in_the_document_and_may_recurse() -> None:
    schema = {
        "$defs": {"tree": {"type": "object", "additionalProperties": {"$ref": "#/$defs/tree"}}},
        "$ref": "#/$defs/tree",
    }
    assert accepts(schema, {"a": {"b": {}}})
    assert not accepts(schema, {"a": {"b": 1}})


def test_additional_properties_skip_known_and_pattern_keys() -> None:
    schema = {
        "properties": {"a": {}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    }
    assert accepts(schema, {"a": 1, "x-b": "s"})
    assert not accepts(schema, {"x-b": 1})
    assert not accepts(schema, {"b": 1})


def test_what_it_cannot_decide_goes_to_jsonschema() -> None:
    assert accepts({"uniqueItems": True}, ["a", "b"])
    assert not accepts({"uniqueItems": True}, ["a", "a"])
    # [1, True] is unique to jsonschema, not to a set: the check does not answer yes.
    assert not accepts({"uniqueItems": True}, [1, True])
    assert not accepts({"additionalProperties": False}, {1: "a"})


@pytest.mark.parametrize("value", [{"description": "Use it.", "requires_bins": ["git"]}])
def test_valid_frontmatter_needs_no_jsonschema(value: dict[str, Any]) -> None:
    """The point of the check: a build of valid skills never imports jsonschema."""
    code = (
        "import sys\n"
        "from skillc.stages import schema\n"
        "from skillc.diagnostics.codes import Code\n"
        f"assert schema.check(None, {value!r}, 'frontmatter', Code.FRONTMATTER_SCHEMA) == ()\n"
        "assert 'jsonschema' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
