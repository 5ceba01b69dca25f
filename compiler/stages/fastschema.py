"""A compiled yes/no check of a value against one of skillc's JSON Schemas, for the hot path.

jsonschema costs about 26 us per SKILL.md, even when the frontmatter is valid, which it nearly always
is; this check costs a fraction of that and needs no jsonschema import. It only says whether a value
is valid. When it says no, `schema.check` runs jsonschema, which stays the contract and produces
the located diagnostics; so the check must never say yes where jsonschema finds an error, and
`tests/property/test_fastschema.py` holds the two equal on generated values.

The check is compiled from the schema file itself, so a schema change needs no change here. It knows
only the keywords skillc's schemas use, with jsonschema's semantics (draft 2020-12, no format
assertions); a schema with any other keyword is not compiled (`compile_schema` returns None) and
always goes to jsonschema. Values are what YAML and JSON give: dict, list, str, int, float, bool,
None. A value the check cannot decide alike (uniqueItems over non-strings, a non-string key) raises
`Undecided` inside, which `passes` turns into "ask jsonschema".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

# Keywords that never make a value invalid (annotations, and $defs, reached through $ref).
_ANNOTATIONS = frozenset(
    {"$schema", "$comment", "$defs", "title", "description", "default", "examples", "deprecated"}
    | {"readOnly", "writeOnly", "format"}  # format: jsonschema asserts it only with a format checker
)


class Unsupported(Exception):
    """A keyword or form this module does not compile: the schema goes to jsonschema."""


class Undecided(Exception):
    """A value this check cannot decide as jsonschema would: the value goes to jsonschema."""


def compile_schema(root: Mapping[str, Any]) -> Check | None:
    """The check for a whole schema document, or None when it uses something not compiled here."""
    refs: dict[str, Check] = {}
    try:
        return _Compiler(root, refs).compile(root, top=True)
    except Unsupported:
        return None


def passes(check: Check, value: Any) -> bool:
    """True only when jsonschema would find no error in value; False means: ask jsonschema."""
    try:
        return check(value)
    except Undecided:
        return False


class _Compiler:
    def __init__(self, root: Mapping[str, Any], refs: dict[str, Check]) -> None:
        self.root, self.refs = root, refs

    def compile(self, schema: Any, *, top: bool = False) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, Mapping):
            raise Unsupported(repr(schema))
        if "$id" in schema and not top:
            raise Unsupported("$id below the root changes how $ref resolves")
        checks = [
            self._keyword(key, value, schema)
            for key, value in schema.items()
            if key not in _ANNOTATIONS and not (top and key == "$id")
        ]
        return _all_of([c for c in checks if c is not None])

    def _keyword(self, key: str, value: Any, schema: Mapping[str, Any]) -> Check | None:
        if key in _SIMPLE:
            return _SIMPLE[key](value)
        if key in ("properties", "additionalProperties", "patternProperties", "required"):
            return self._object(key, value, schema)
        if key == "propertyNames":
            return _property_names(self.compile(value))
        if key == "items":
            if "prefixItems" in schema:
                raise Unsupported("prefixItems")
            return _items(self.compile(value))
        if key in ("oneOf", "anyOf", "allOf"):
            return _combine(key, [self.compile(sub) for sub in value])
        if key == "not":
            inner = self.compile(value)
            return lambda v: not inner(v)
        if key == "$ref":
            return self._ref(value)
        raise Unsupported(key)

    def _object(self, key: str, value: Any, schema: Mapping[str, Any]) -> Check | None:
        if key == "required":
            return _required(tuple(value))
        if key == "properties":
            return _properties({k: self.compile(sub) for k, sub in value.items()})
        if key == "patternProperties":
            return _pattern_properties([(re.compile(p), self.compile(sub)) for p, sub in value.items()])
        known = frozenset(schema.get("properties") or {})
        # jsonschema joins the patterns into one alternation (find_additional_properties): so does this.
        joined = "|".join(schema.get("patternProperties") or {})
        return _additional(self.compile(value), known, re.compile(joined) if joined else None)

    def _ref(self, ref: Any) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise Unsupported(f"$ref {ref!r}")
        if ref not in self.refs:
            target: Any = self.root
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or part not in target:
                    raise Unsupported(f"$ref {ref!r}")
                target = target[part]
            self.refs[ref] = _never  # a recursive reference: compiled below, looked up at check time
            self.refs[ref] = self.compile(target)
        refs = self.refs
        return lambda v: refs[ref](v)


def _always(_: Any) -> bool:
    return True


def _never(_: Any) -> bool:
    return False


def _all_of(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(value: Any) -> bool:
        for c in checks:  # noqa: SIM110 - a loop, not all(genexpr): this runs per value and key
            if not c(value):
                return False
        return True

    return check


def _combine(key: str, checks: list[Check]) -> Check:
    if key == "allOf":
        return _all_of(checks)
    if key == "anyOf":
        return lambda v: any(c(v) for c in checks)
    return lambda v: sum(1 for c in checks if c(v)) == 1


# --- types and scalar keywords ----------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def _type(value: Any) -> Check:
    names = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) and n in _TYPES for n in names):
        raise Unsupported(f"type {value!r}")
    if len(names) == 1:
        return _TYPES[names[0]]
    checks = [_TYPES[n] for n in names]
    return lambda v: any(c(v) for c in checks)


def _enum(value: Any) -> Check:
    # With string members jsonschema's equality is plain ==, and nothing but a string can be equal.
    if not all(isinstance(m, str) for m in value):
        raise Unsupported("enum with members that are not strings")
    members = frozenset(value)
    return lambda v: isinstance(v, str) and v in members


def _const(value: Any) -> Check:
    if isinstance(value, str):
        return lambda v: isinstance(v, str) and v == value
    if value is None or isinstance(value, bool):
        return lambda v: v is value
    if isinstance(value, int):  # jsonschema: 1 == 1.0, but True is not 1
        return lambda v: _is_number(v) and v == value
    raise Unsupported(f"const {value!r}")


def _string_length(bound: int, longest: bool) -> Check:
    if longest:
        return lambda v: not isinstance(v, str) or len(v) <= bound
    return lambda v: not isinstance(v, str) or len(v) >= bound


def _item_count(bound: int, most: bool) -> Check:
    if most:
        return lambda v: not isinstance(v, list) or len(v) <= bound
    return lambda v: not isinstance(v, list) or len(v) >= bound


def _property_count(bound: int) -> Check:
    return lambda v: not isinstance(v, dict) or len(v) <= bound


def _pattern(value: str) -> Check:
    search = re.compile(value).search
    return lambda v: not isinstance(v, str) or search(v) is not None


def _minimum(bound: Any) -> Check:
    if not _is_number(bound):
        raise Unsupported(f"minimum {bound!r}")
    return lambda v: not _is_number(v) or v >= bound


def _maximum(bound: Any) -> Check:
    if not _is_number(bound):
        raise Unsupported(f"maximum {bound!r}")
    return lambda v: not _is_number(v) or v <= bound


def _unique(value: Any) -> Check | None:
    if value is not True:
        return None

    def check(v: Any) -> bool:
        if not isinstance(v, list):
            return True
        if not all(isinstance(item, str) for item in v):
            raise Undecided("uniqueItems over values that are not strings")
        return len(set(v)) == len(v)

    return check


_SIMPLE: dict[str, Callable[[Any], Check | None]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minLength": lambda n: _string_length(n, longest=False),
    "maxLength": lambda n: _string_length(n, longest=True),
    "minItems": lambda n: _item_count(n, most=False),
    "maxItems": lambda n: _item_count(n, most=True),
    "maxProperties": _property_count,
    "pattern": _pattern,
    "minimum": _minimum,
    "maximum": _maximum,
    "uniqueItems": _unique,
}


# --- objects and arrays ------------------------------------------------------------------------


def _keys(v: dict[Any, Any]) -> dict[Any, Any]:
    if not all(isinstance(k, str) for k in v):
        raise Undecided("a key that is not a string")
    return v


def _required(names: tuple[str, ...]) -> Check:
    return lambda v: not isinstance(v, dict) or all(n in v for n in names)


def _properties(props: dict[str, Check]) -> Check:
    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for key, value in v.items():
            sub = props.get(key)
            if sub is not None and not sub(value):
                return False
        return True

    return check


def _pattern_properties(pairs: list[tuple[re.Pattern[str], Check]]) -> Check:
    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        return all(sub(value) for pat, sub in pairs for key, value in _keys(v).items() if pat.search(key))

    return check


def _additional(sub: Check, known: frozenset[str], patterns: re.Pattern[str] | None) -> Check:
    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for key, value in _keys(v).items():
            if key in known or (patterns is not None and patterns.search(key)):
                continue
            if not sub(value):
                return False
        return True

    return check


def _property_names(sub: Check) -> Check:
    return lambda v: not isinstance(v, dict) or all(sub(k) for k in v)


def _items(sub: Check) -> Check:
    return lambda v: not isinstance(v, list) or all(sub(item) for item in v)
