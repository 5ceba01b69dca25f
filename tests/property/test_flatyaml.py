"""Property: where the flat loader answers, it answers what PyYAML's node graph gives.

stages/flatyaml.py reads common `key: value` frontmatter line by line; yamlgraph.load_yaml_graph is the
reference. Lines are generated near the edge of what the flat loader accepts (values YAML types as
numbers, booleans, nulls or dates; indicators; comments; `: ` inside; quotes; tabs, non-ASCII and
control characters; duplicate keys), so that both answers come up and every refusal is exercised."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillc.stages import flatyaml
from skillc.stages.yamlgraph import load_yaml_graph

SETTINGS = settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])

KEYS = st.sampled_from(
    ["name", "description", "always", "allowed-tools", "a_b", "yes", "on", "null", "Off", "y", "_x", "k"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True)
EDGES = [
    *["true", "True", "FALSE", "yes", "No", "on", "off", "y", "n", "~", "null", "Null", "NULL"],
    *["1", "1.0", "0x1f", "0o7", "1_000", "1:30", ".inf", ".NaN", "-1", "+1", "1e3", "2001-12-14"],
    *["2001-12-14t21:59:43.10-05:00", "<<", "=", "a: b", "a #b", "a#b", "a:", "a:b", "#c", "-x", "- x"],
    *["?x", "[a, b]", "{a: 1}", "&a", "*a", "!!str x", "|", ">", "%x", "@x", "`x`", "'q'", '"q"'],
    *['"a \\" b"', "'it''s'", '"\\t"', "'a' b", '"a" b', "a\tb", "é", "\u2028", "\x85", "\x07", "a  b"],
    *["Use it.", "Use when the user asks (x). Prefer y, z.", "a,b", "a]b", "x ", " x", ""],
]
WORDS = st.sampled_from(EDGES)
VALUES = WORDS | st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=12)
QUOTED = VALUES.map(lambda v: f'"{v}"') | VALUES.map(lambda v: f"'{v}'")
LINES = st.tuples(KEYS, st.sampled_from([": ", ":  ", ":", " : ", ":\t"]), VALUES | QUOTED).map("".join)
ODD = st.sampled_from(["", "# comment", "  nested: x", "- item", "metadata:", "k: v  # note"])
# A `key:` line and lines below it, indented alike or not (one level of nesting is the flat loader's,
# a second level, a ragged indent, a tab or a missing block is PyYAML's).
INDENTS = st.sampled_from([" ", "  ", "   ", "    ", "\t", "  \t"])
NESTED = st.tuples(
    KEYS.map(lambda k: k + ":") | st.sampled_from(["metadata:", "metadata: ", "metadata:  # c", "a:b:"]),
    st.lists(st.tuples(INDENTS, LINES | ODD), min_size=0, max_size=4),
).map(lambda head: "\n".join([head[0], *(indent + line for indent, line in head[1])]))
# A `key:` line and items below it: a block sequence, indented or not, ragged or not, with items the
# flat loader takes and items only PyYAML reads (nested sequences, mappings, comments, empty items).
ITEMS = st.tuples(
    st.sampled_from(["", " ", "  ", "    "]),
    st.sampled_from(["- ", "-  ", "-", "- - ", "-\t"]),
    VALUES | QUOTED | st.sampled_from(["a: b", "x # c", ""]),
).map("".join)
SEQUENCE = st.tuples(
    KEYS.map(lambda k: k + ":") | st.sampled_from(["requires_bins:", "tags: ", "k:  # c"]),
    st.lists(ITEMS, min_size=0, max_size=4),
).map(lambda head: "\n".join([head[0], *head[1]]))
# A `key:` line and a mapping below it whose keys hold scalars or block sequences (`sven:` with
# `requires_bins:` and `- rg` below): items as deep as their key or deeper, ragged or not, and what
# only PyYAML reads (a key with nothing below it, a mapping a level deeper, comments).
NESTED_KEY = st.tuples(
    KEYS.map(lambda k: k + ":") | st.sampled_from(["requires_bins:", "tags:  # c", "k: "]),
    st.sampled_from(["", "", "  ", " ", "\t"]),  # the items' indent past their key's
    st.lists(st.tuples(st.sampled_from(["", "", " "]), ITEMS), min_size=0, max_size=3),
).map(lambda t: [t[0], *(t[1] + ragged + item.lstrip(" ") for ragged, item in t[2])])
NESTED_SEQUENCE = st.tuples(
    KEYS.map(lambda k: k + ":") | st.sampled_from(["sven:", "metadata:"]),
    st.sampled_from(["  ", "    ", " "]),  # the nested mapping's indent
    st.lists(
        LINES.map(lambda line: [line]) | NESTED_KEY | ODD.map(lambda line: [line]), min_size=1, max_size=4
    ),
).map(lambda t: "\n".join([t[0], *(t[1] + line for group in t[2] for line in group)]))
TEXTS = st.lists(LINES | ODD | NESTED | SEQUENCE | NESTED_SEQUENCE, min_size=1, max_size=6).map(
    lambda lines: "\n".join(lines) + "\n"
)


def typed(value: Any) -> Any:
    """A value with its type spelled out: True and 1, or 1 and 1.0, are not the same answer."""
    if isinstance(value, dict):
        return [(k, typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return ["list", *map(typed, value)]
    return (type(value).__name__, value)


@SETTINGS
@given(TEXTS)
def test_flat_loader_answers_as_the_node_graph(text: str) -> None:
    flat = flatyaml.load(text, 1)
    if flat is None:
        return
    data, pos, diags = load_yaml_graph(text, "SKILL.md", 1)
    assert typed(flat[0]) == typed(data)
    assert list(flat[1].items()) == list(pos.items())  # the same positions, in the same order
    assert flat[2] == diags == ()


@pytest.mark.parametrize("word", EDGES)
def test_each_edge_value_alone(word: str) -> None:
    for value in (word, f'"{word}"', f"'{word}'"):
        text = f"key: {value}\n"
        flat = flatyaml.load(text, 1)
        if flat is not None:
            graph = load_yaml_graph(text, "SKILL.md", 1)
            assert (typed(flat[0]), flat[1], flat[2]) == (typed(graph[0]), graph[1], graph[2]), text


def test_both_answers_come_up() -> None:
    seen: set[bool] = set()

    @settings(max_examples=300, database=None)
    @given(TEXTS)
    def collect(text: str) -> None:
        seen.add(flatyaml.load(text, 1) is None)

    collect()
    assert seen == {True, False}


def test_the_common_frontmatter_takes_the_flat_path() -> None:
    text = 'name: pdf\ndescription: "Fill PDF forms. Use when: asked."\nlicense: MIT\nalways: false\n'
    assert flatyaml.load(text, 1) == load_yaml_graph(text, "SKILL.md", 1)
    assert flatyaml.load(text, 1) is not None


def test_the_spec_metadata_block_takes_the_flat_path() -> None:
    text = 'name: pdf\nmetadata:\n  author: team\n  version: "2.4"\ndescription: Fill forms.\nx:\n    y: z\n'
    flat = flatyaml.load(text, 1)
    assert flat is not None
    graph = load_yaml_graph(text, "SKILL.md", 1)
    assert (flat[0], list(flat[1].items()), flat[2]) == (graph[0], list(graph[1].items()), graph[2])


@pytest.mark.parametrize(
    "text",
    [
        "metadata:\n",  # null
        "metadata:\nname: x\n",  # null, then a key
        "metadata:\n  a: b\n    c: d\n",  # deeper: a continuation or an error
        "metadata:\n    a: b\n  c: d\n",  # shallower: an error
        "metadata:\n  a: b\n  a: c\n",  # a duplicate nested key
        "metadata:\n  a:\n    b: c\n",  # two levels
        "name: x\n  a: b\n",  # below a scalar
        "metadata:\n\ta: b\n",  # a tab
        "yes:\n  a: b\n",  # a key YAML reads as a boolean
    ],
)
def test_what_the_nested_block_leaves_to_pyyaml(text: str) -> None:
    assert flatyaml.load(text, 1) is None


def test_the_bool_and_null_words_are_pyyamls():
    # flatyaml reads bool and null without importing PyYAML: its words must be the resolver's.
    import yaml

    table = yaml.resolver.Resolver.yaml_implicit_resolvers
    bools = {c for c, found in table.items() if any(tag == flatyaml._BOOL for tag, _ in found)}
    nulls = {c for c, found in table.items() if any(tag == flatyaml._NULL for tag, _ in found)}
    assert bools == flatyaml._BOOL_FIRST
    assert nulls == {*flatyaml._NULL_FIRST, ""}
    assert set(table) == {*bools, *nulls, *flatyaml._OTHERS}
    assert yaml.constructor.SafeConstructor.bool_values == flatyaml._BOOLS


WORDLIKE = st.sampled_from(EDGES) | st.from_regex(r"[~yYnNtTfFoOaA][a-zA-Z~]{0,5}", fullmatch=True)


@SETTINGS
@given(WORDLIKE | st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8))
def test_a_plain_scalar_resolves_as_pyyaml_resolves_it(text: str) -> None:
    import yaml

    want = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    assert flatyaml._resolve(text) == want


def test_a_list_of_scalars_takes_the_flat_path() -> None:
    """Claude Code's and the generator's frontmatter lists (`allowed-tools`, `requires_bins`): a key
    with `- item` lines below it, indented or not, read without PyYAML."""
    for text in (
        "name: pdf\nrequires_bins:\n  - make\n  - 'git'\nallowed-tools:\n- Read\n- Bash\ndescription: x\n",
        "metadata:\n  author: t\ntags:\n    -   yes\n    - ~\n",
    ):
        flat = flatyaml.load(text, 1)
        assert flat is not None
        graph = load_yaml_graph(text, "SKILL.md", 1)
        assert (typed(flat[0]), list(flat[1].items()), flat[2]) == (
            typed(graph[0]),
            list(graph[1].items()),
            graph[2],
        )
