"""Property: the compiled schema check accepts exactly what jsonschema accepts.

The fast check stands in for jsonschema on the hot path (stages/fastschema.py): a value it accepts
gets no schema diagnostics at all. So it must never accept what jsonschema refuses; and it should
refuse only what jsonschema refuses, or the fast path would not pay. Values are generated around
each schema's own vocabulary (its property names, enum members, pattern-like strings), so that both
answers come up often."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillc.stages import fastschema, schema

SETTINGS = settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow])


def _vocabulary(node: Any, keys: set[str], words: set[str]) -> None:
    """Every property name and every string constant anywhere in a schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("properties", "$defs", "patternProperties"):
                keys.update(value)
            if key in ("enum", "const") and isinstance(value, (list, str)):
                words.update(v for v in ([value] if isinstance(value, str) else value) if isinstance(v, str))
            _vocabulary(value, keys, words)
    elif isinstance(node, list):
        for item in node:
            _vocabulary(item, keys, words)


@functools.cache
def values(name: str) -> st.SearchStrategy[Any]:
    keys: set[str] = set()
    words: set[str] = {"", " ", "a", "a-b", "A", "a--b", "-a", "SKC101", "x" * 70, "é"}
    _vocabulary(schema.document(name), keys, words)
    strings = st.sampled_from(sorted(words | keys)) | st.text(max_size=6)
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 300),
        st.sampled_from([0.0, 1.0, 1.5, -2.0, 100.0]),
        strings,
        strings,
    )
    key = st.sampled_from(sorted(keys)) | st.text(max_size=4)
    return st.recursive(
        scalars,
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.lists(st.sampled_from(["a", "b", ""]), max_size=3)  # duplicates, for uniqueItems
            | st.dictionaries(key, kids, max_size=6)
        ),
        max_leaves=16,
    )


def near(name: str, node: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like what a schema node asks for (its type, members, items, properties),
    now and then something else: most are valid, many are wrong in one place."""
    root = schema.document(name)
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    if not isinstance(node, dict) or depth > 3:
        return values(name)
    shaped = _shaped(name, node, depth)
    return st.one_of(*[shaped] * 5, values(name)) if shaped is not None else values(name)


def _shaped(name: str, node: dict[str, Any], depth: int) -> st.SearchStrategy[Any] | None:
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from([*node["enum"], "none-of-them"])
    if "oneOf" in node:
        return st.one_of(*(near(name, sub, depth + 1) for sub in node["oneOf"]))
    kind = node.get("type")
    strings = st.sampled_from(["a", "b", "a-b", "", "Use it.", "SKC101", "Ab"])
    if kind == "array":
        items = near(name, node.get("items", {}), depth + 1)
        return st.lists(items, max_size=3) | st.lists(st.sampled_from(["a", "b"]), min_size=2, max_size=3)
    if kind == "object":
        props = node.get("properties") or {}
        extra = node.get("additionalProperties", {})
        fields = {k: near(name, sub, depth + 1) for k, sub in props.items()}
        required = [k for k in node.get("required", ()) if k in fields]
        chosen = st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True) if fields else st.just([])
        others = st.dictionaries(st.text(max_size=4), near(name, extra, depth + 1), max_size=1)
        return st.tuples(chosen, others).flatmap(
            lambda pair: st.fixed_dictionaries({k: fields[k] for k in [*required, *pair[0]]}).map(
                lambda d: {**pair[1], **d}
            )
        )
    return (
        {
            "string": strings,
            "boolean": st.booleans(),
            "integer": st.integers(-2, 200),
            "number": st.integers(-2, 200),
        }.get(kind)
        if isinstance(kind, str)
        else None
    )


def frontmatter() -> st.SearchStrategy[Any]:
    return near("frontmatter", schema.document("frontmatter"))


def jsonschema_accepts(name: str, value: Any) -> bool:
    return not any(True for _ in schema.validator(name).iter_errors(value))


def fast_accepts(name: str, value: Any) -> bool:
    check = schema.fast_check(name)
    assert check is not None
    return fastschema.passes(check, value)


@SETTINGS
@given(frontmatter())
def test_frontmatter_check_is_jsonschema(value: Any) -> None:
    assert fast_accepts("frontmatter", value) == jsonschema_accepts("frontmatter", value)


def one_field() -> st.SearchStrategy[dict[str, Any]]:
    """A sound description and one more field: each keyword of each field decides on its own."""
    props = schema.document("frontmatter")["properties"]
    return st.sampled_from(sorted(props)).flatmap(
        lambda key: near("frontmatter", props[key]).map(lambda value: {"description": "Use it.", key: value})
    )


@SETTINGS
@given(one_field())
def test_each_field_check_is_jsonschema(value: dict[str, Any]) -> None:
    assert fast_accepts("frontmatter", value) == jsonschema_accepts("frontmatter", value)


@SETTINGS
@given(
    st.sampled_from(["persona", "config"]).flatmap(
        lambda n: st.tuples(st.just(n), near(n, schema.document(n)))
    )
)
def test_manifest_and_config_checks_are_jsonschema(pair: tuple[str, Any]) -> None:
    name, value = pair
    assert fast_accepts(name, value) == jsonschema_accepts(name, value)


def test_both_answers_come_up() -> None:
    """The generator is not vacuous: it yields frontmatter each side accepts and refuses."""
    seen: set[bool] = set()

    @settings(max_examples=200, database=None)
    @given(frontmatter())
    def collect(value: Any) -> None:
        seen.add(jsonschema_accepts("frontmatter", value))

    collect()
    assert seen == {True, False}
