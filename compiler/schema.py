"""JSON Schema validation of parsed YAML, reported as positioned diagnostics."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

import jsonschema

from . import diagnostics as dg
from .diagnostics import Diagnostic
from .model import Document


@functools.cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """The validator for compiler/schemas/<name>.schema.json (read once, never mutated)."""
    text = resources.files(__package__).joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@functools.cache
def properties(name: str) -> frozenset[str]:
    """The top-level property names a schema knows (read on first use, not at import)."""
    doc = validator(name).schema
    return frozenset(doc["properties"]) if isinstance(doc, dict) else frozenset()


DIST_SCHEMAS = ("index", "persona-meta", "shard")  # every JSON file of format 2


@functools.cache
def _dist_validator(name: str) -> jsonschema.protocols.Validator:
    from referencing import Registry, Resource

    docs = [
        json.loads(resources.files(__package__).joinpath("schemas", f"{n}.schema.json").read_text("utf-8"))
        for n in (name, "frontmatter")
    ]
    registry = Registry().with_resources([(d["$id"], Resource.from_contents(d)) for d in docs])
    return jsonschema.Draft202012Validator(docs[0], registry=registry)


def dist_errors(data: Any, name: str = "index") -> list[str]:
    """Problems of one JSON file of a format 2 dist/ against compiler/schemas/<name>.schema.json."""
    v = _dist_validator(name)
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}" for e in v.iter_errors(data)
    ]


def artifact_errors(files: Mapping[str, bytes]) -> list[str]:
    """Every JSON file a build would write (index, persona metas, shard table, shards) held to its schema.

    `skillc validate` runs this on what the build would write; `check` does not (it compares bytes).
    """
    from .runtime import format as fmt

    try:
        index = json.loads(files[fmt.INDEX])
        named = [(fmt.INDEX, "index", index)]
        named += [
            (f"meta of {pid}", "persona-meta", json.loads(files[fmt.object_path(p["meta"])]))
            for pid, p in index["personas"].items()
        ]
        todo = [index["shards"]]
        while todo:  # the shard table is a tree of nodes
            node = json.loads(files[fmt.object_path(todo.pop())])
            named.append((f"shard table node {node.get('prefix')!r}", "shard-table", node))
            todo += node.get("tables", {}).values()
            named += [
                (f"shard {s}", "shard", json.loads(files[fmt.object_path(d)]))
                for s, d in node.get("shards", {}).items()
            ]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [f"{fmt.INDEX}: unreadable: {type(exc).__name__}: {exc}"]
    return [f"{where}: {e}" for where, name, data in named for e in dist_errors(data, name)]


def index_errors(data: Any) -> list[str]:
    return dist_errors(data, "index")


def check(doc: Document, data: Any, name: str, code: str) -> tuple[Diagnostic, ...]:
    errors = sorted(
        validator(name).iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message)
    )
    return tuple(_diagnostic(doc, err, code) for err in errors)


def _diagnostic(doc: Document, err: jsonschema.ValidationError, code: str) -> Diagnostic:
    path = tuple(err.absolute_path)
    line, col = doc.pos(*path)
    where = ".".join(str(p) for p in path) or "document"
    return dg.error(doc.rel, code, f"{where}: {_message(err)}", line, col)


def _message(err: jsonschema.ValidationError) -> str:
    # jsonschema repeats the whole offending value; a 1,025-char description
    # would flood the terminal, so say what is wrong in numbers instead.
    value = err.instance
    if err.validator == "maxLength" and isinstance(value, str):
        return f"is {len(value)} characters long; the limit is {err.validator_value}"
    if err.validator == "minLength" and isinstance(value, str):
        return f"is {len(value)} characters long; at least {err.validator_value} required"
    if err.validator == "pattern" and isinstance(value, str):
        return f"{_short(value)} does not match {err.validator_value}"
    if err.validator == "additionalProperties":
        return err.message
    if err.validator == "type":
        return f"{_short(value)} is not of type {err.validator_value!r}"
    return err.message if len(err.message) < 300 else err.message[:297] + "..."


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
