"""JSON Schema validation of parsed YAML (config, frontmatter, persona manifests) as positioned diagnostics.

A value first meets the schema's compiled check (fastschema.py); jsonschema, imported only then,
runs when that check says no, and its errors become the diagnostics."""

from __future__ import annotations

import functools
import json
import os
import re
from typing import TYPE_CHECKING, Any

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Document
from ..names.suggest import did_you_mean
from . import fastschema

if TYPE_CHECKING:
    import jsonschema


@functools.cache
def document(name: str) -> Any:
    """compiler/schemas/<name>.schema.json, parsed (read once, never mutated)."""
    file = f"{name}.schema.json"
    try:  # beside this package's files, as pip installs them (importlib.resources costs 7 ms to import)
        with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "schemas", file), "rb") as fh:
            return json.loads(fh.read())
    except FileNotFoundError:  # imported from an archive: through the import system
        from importlib import resources

        return json.loads((resources.files("skillc") / "schemas" / file).read_bytes())


@functools.cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """The jsonschema validator for a schema (built on first use: most builds never need one)."""
    import jsonschema

    schema = document(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@functools.cache
def fast_check(name: str) -> fastschema.Check | None:
    """The schema's compiled check; None when it uses a keyword fastschema does not compile."""
    schema = document(name)
    return fastschema.compile_schema(schema) if isinstance(schema, dict) else None


@functools.cache
def properties(name: str) -> frozenset[str]:
    """The top-level property names a schema knows (read on first use, not at import)."""
    doc = document(name)
    return frozenset(doc["properties"]) if isinstance(doc, dict) else frozenset()


def check(doc: Document, data: Any, name: str, code: Code) -> tuple[Diagnostic, ...]:
    fast = fast_check(name)
    if fast is not None and fastschema.passes(fast, data):
        return ()  # jsonschema would find nothing (tests/property/test_fastschema.py)
    found = (leaf for err in validator(name).iter_errors(data) for leaf in _leaves(err))
    errors = sorted(found, key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return tuple(d for err in errors for d in _diagnostics(doc, err, code))


def schema_problem(given: Any) -> str | None:
    """Why `given` is no JSON Schema (a project's own, `frontmatter.extensions`), or None."""
    import jsonschema

    try:
        jsonschema.validators.validator_for(given, default=jsonschema.Draft202012Validator).check_schema(
            given
        )
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


@functools.cache
def _declared(text: str) -> jsonschema.protocols.Validator:
    """The validator of a project's own schema, given as canonical JSON (one per schema, built once)."""
    import jsonschema

    given = json.loads(text)
    return jsonschema.validators.validator_for(given, default=jsonschema.Draft202012Validator)(given)


def check_declared(doc: Document, field: str, value: Any, text: str) -> tuple[Diagnostic, ...]:
    """A declared extension field's value held to the project's schema for it (`text`), each
    error at the value it is about (SKC204)."""
    errors = sorted(
        _declared(text).iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message)
    )
    return tuple(
        dg.error(
            doc.rel,
            Code.FRONTMATTER_SCHEMA,
            f"{'.'.join(map(str, (field, *err.absolute_path)))}: {_message(err)} (frontmatter.extensions)",
            *doc.pos(field, *err.absolute_path),
        )
        for err in errors
    )


def _leaves(err: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """A `oneOf` whose value has the type of exactly one branch is reported as that branch's errors
    (`targets: [cluade-code]` is a typo in a list, not "not valid under any of the given schemas")."""
    if err.validator not in ("oneOf", "anyOf") or not err.context:
        return [err]
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in err.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    typed = [subs for subs in branches.values() if not any(_wrong_type(sub) for sub in subs)]
    if len(typed) != 1:
        return [err]
    return [leaf for sub in typed[0] for leaf in _leaves(sub)]


def _wrong_type(err: jsonschema.ValidationError) -> bool:
    return err.validator == "type" and not err.relative_path


def _diagnostics(doc: Document, err: jsonschema.ValidationError, code: Code) -> tuple[Diagnostic, ...]:
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        return _unknown_keys(doc, err, code, path)
    line, col = doc.pos(*path)
    where = ".".join(str(p) for p in path) or "document"
    return (dg.error(doc.rel, code, f"{where}: {_message(err)}", line, col),)


def _unknown_keys(
    doc: Document, err: jsonschema.ValidationError, code: Code, path: tuple[Any, ...]
) -> tuple[Diagnostic, ...]:
    """One diagnostic per unexpected key, at the key itself, with the known keys it is close to."""
    schema: Any = err.schema
    known = [str(k) for k in schema.get("properties") or {}] if isinstance(schema, dict) else []
    patterns = (
        [re.compile(p) for p in schema.get("patternProperties") or {}] if isinstance(schema, dict) else []
    )
    instance: Any = err.instance
    unexpected = [k for k in instance if k not in known and not any(p.search(str(k)) for p in patterns)]
    where = ".".join(str(p) for p in path)
    return tuple(
        dg.error(
            doc.rel,
            code,
            f"{where + ': ' if where else ''}unknown key {key!r}{did_you_mean(str(key), known)}",
            *doc.key_pos(*path, key),
        )
        for key in unexpected
    )


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
    if err.validator == "enum" and isinstance(value, str):
        allowed: Any = err.validator_value
        choices = [str(c) for c in allowed]
        return f"{_short(value)} is not one of {', '.join(map(repr, choices))}{did_you_mean(value, choices)}"
    if err.validator == "type":
        return f"{_short(value)} is not of type {err.validator_value!r}"
    return err.message if len(err.message) < 300 else err.message[:297] + "..."


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
