"""The common flat frontmatter, loaded without composing a YAML node graph.

Most SKILL.md frontmatter is a few `key: value` lines: a plain or quoted string, now and then a
boolean. PyYAML composes a node graph for it, parse.py walks the graph three times (aliases, tags,
duplicates, depth; scalar values; timestamps) and then constructs the data: about three quarters of
what checking a SKILL.md costs (bench/RESULTS.md). Text that is only such lines gives the same data,
positions and (no) diagnostics read line by line.

`load` answers only when it is sure, and None otherwise: then parse.py takes the full path. It is
sure of a line that is a simple key, `: `, and a value that is a double- or single-quoted string
with no escape or quote inside, or a plain scalar that cannot continue, hold a comment or a mapping,
or start with an indicator, which YAML's own resolver reads as a string, boolean or null; printable
ASCII only (no control characters, no line breaks YAML knows beyond `\\n`), no blank or comment
lines, no duplicate keys. Anything else, numbers and dates included, goes to PyYAML.
`tests/property/test_flatyaml.py` holds the answers equal to the full path's.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):( +)(\S(?:[ -~]*\S)?)")
_PRINTABLE = re.compile(r"[ -~]*")  # printable ASCII: nothing YAML refuses, reads as a break, or skillc flags
# A plain scalar cannot start with one of these (YAML 1.1, 9.1.3 and PyYAML's check_plain).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_STR, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "bool", "null"))
_RESOLVER = yaml.resolver.Resolver()
_BOOLS = yaml.constructor.SafeConstructor.bool_values

Positions = dict[tuple[Any, ...], tuple[int, int]]


def load(text: str, line_offset: int) -> tuple[dict[str, Any], Positions, tuple[()]] | None:
    """(data, positions, no diagnostics) as parse.load_yaml gives them, or None: not sure, ask PyYAML."""
    if not text.endswith("\n") or _PRINTABLE.fullmatch(text.replace("\n", "")) is None:
        return None
    data: dict[str, Any] = {}
    keys: list[tuple[str, int]] = []  # (key, 1-based column of its value)
    for line in text[:-1].split("\n"):
        found = _LINE.fullmatch(line)
        if found is None or found.group(1) in data or _resolve(found.group(1)) != _STR:
            return None
        value = _value(found.group(3))
        if value is None:
            return None
        data[found.group(1)] = value[0]
        keys.append((found.group(1), found.end(2) + 1))
    return data, _positions(keys, line_offset), ()


def _value(text: str) -> tuple[Any] | None:
    """(the value,) of a scalar this module is sure of, else None."""
    if text[0] in "\"'":
        quote = text[0]
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != quote or quote in inner or "\\" in inner:
            return None
        return (inner,)
    if text[0] in _INDICATORS or ": " in text or " #" in text or text.endswith(":"):
        return None
    tag = _resolve(text)
    if tag == _STR:
        return (text,)
    if tag == _BOOL:
        return (_BOOLS[text.lower()],)
    if tag == _NULL:
        return (None,)
    return None  # numbers, dates, `<<`, `=`: PyYAML's constructors decide those


def _resolve(text: str) -> str:
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag


def _positions(keys: list[tuple[str, int]], off: int) -> Positions:
    """In the order parse._check_graph records them: the mapping, its keys, then its values from
    the last (a stack)."""
    pos: Positions = {("v",): (1 + off, 1)}
    for line, (key, _) in enumerate(keys, 1 + off):
        pos[("k", key)] = (line, 1)
    for line, (key, col) in reversed(list(enumerate(keys, 1 + off))):
        pos[("v", key)] = (line, col)
    return pos
