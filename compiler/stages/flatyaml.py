"""The common flat frontmatter, loaded without composing a YAML node graph.

Most SKILL.md frontmatter is a few `key: value` lines: a plain or quoted string, now and then a
boolean, and often the spec's `metadata:` with a few such lines indented below it. PyYAML composes
a node graph for it, parse.py walks the graph three times (aliases, tags, duplicates, depth; scalar
values; timestamps) and then constructs the data: about three quarters of what checking a SKILL.md
costs (bench/RESULTS.md). Text that is only such lines gives the same data, positions and (no)
diagnostics read line by line.

`load` answers only when it is sure, and None otherwise: then parse.py takes the full path. It is
sure of a line that is a simple key, `: `, and a value that is a double- or single-quoted string
with no escape or quote inside, or a plain scalar that cannot continue, hold a comment or a mapping,
or start with an indicator, which YAML's own resolver reads as a string, boolean or null; printable
ASCII only (no control characters, no line breaks YAML knows beyond `\\n`), no blank or comment
lines, no duplicate keys. One level of nesting: a top-level `key:` line alone, then one or more such
lines indented by the same number of spaces (a block mapping: `metadata:` with `author: x` below), or
one or more `- value` lines, indented alike or not at all (a block sequence of such scalars:
`allowed-tools:` with `- Read` below). A key of such a mapping may hold such a sequence too, its
items as deep as the key or deeper (`sven:`, then `requires_bins:` with `- rg` below it).
Anything else, numbers and dates included, goes to PyYAML.
`tests/property/test_flatyaml.py` holds the answers equal to the full path's.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):( +)(\S(?:[ -~]*\S)?)")
_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):")  # a key whose value is the indented lines below it
_ITEM = re.compile(r"-( +)(\S(?:[ -~]*\S)?)")  # one item of a block sequence below such a key
_PRINTABLE = re.compile(r"[ -~]*")  # printable ASCII: nothing YAML refuses, reads as a break, or skillc flags
# A plain scalar cannot start with one of these (YAML 1.1, 9.1.3 and PyYAML's check_plain).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_STR, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "bool", "null"))
# PyYAML's implicit types of a plain scalar, as its Resolver reads them (yaml/resolver.py), for the
# two this module keeps, bool and null; a scalar starting with a character of _OTHERS may be a
# number, a date, `<<` or `=`, and PyYAML's own resolver answers (imported then: a build that
# reads only `key: text` lines never imports PyYAML, 10 ms of an edit build).
# tests/property/test_flatyaml.py holds these to PyYAML's table.
_BOOL_FIRST, _NULL_FIRST = frozenset("yYnNtTfFoO"), frozenset("~nN")
_OTHERS = frozenset("-+0123456789.<=!&*")
_BOOL_WORDS = re.compile(r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF")
_NULL_WORDS = re.compile(r"~|null|Null|NULL|")
_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}

# ("k" or "v", *key path) -> (line, col), as every reader of frontmatter answers (yamlgraph.py too)
Positions = dict[tuple[Any, ...], tuple[int, int]]
# One key of a mapping: (key, where the key is, where its value is, the nested mapping's keys, the
# places of a sequence's items, or None for a scalar). A nested mapping's or a sequence's value
# starts at its first key or item, as PyYAML marks it.
_Key = tuple[str, tuple[int, int], tuple[int, int], "list[_Key] | _Items | None"]


class _Items(list[tuple[int, int]]):
    """Where each item of a block sequence is (a key's value that is a list of scalars)."""


def load(text: str, line_offset: int) -> tuple[dict[str, Any], Positions, tuple[()]] | None:
    """(data, positions, no diagnostics) as parse.load_yaml gives them, or None: not sure, ask PyYAML."""
    if not text.endswith("\n") or _PRINTABLE.fullmatch(text.replace("\n", "")) is None:
        return None
    data: dict[str, Any] = {}
    keys: list[_Key] = []
    inner: tuple[dict[str, Any], list[_Key], int] | None = None  # the open nested mapping, its indent
    # The open block sequence: its values, their places, its items' indent, its key's indent
    items: tuple[list[Any], _Items, int, int] | None = None
    pending: tuple[str, tuple[int, int], int] | None = None  # a nested `key:` alone, before its items
    for number, line in enumerate(text[:-1].split("\n"), 1 + line_offset):
        indent = len(line) - len(line.lstrip(" "))
        if line.startswith("-", indent):  # an item of a block sequence, or what PyYAML must say
            if items is None:
                if pending is not None and inner is not None and indent >= pending[2]:
                    key, key_at, owner = pending  # the nested `key:` above holds a sequence
                    items, pending = ([], _Items(), indent, owner), None
                    inner[0][key] = items[0]
                    inner[1].append((key, key_at, (number, indent + 1), items[1]))
                elif inner is None or inner[1] or pending is not None:
                    return None  # not right below a `key:` line
                else:
                    key, key_at, _, _ = keys[-1]  # the `key:` above holds a sequence, not a mapping
                    items = ([], _Items(), indent, 0)
                    data[key] = items[0]
                    keys[-1] = (key, key_at, (number, indent + 1), items[1])
                    inner = None
            if indent != items[2] or not _item(line[indent:], number, indent, items[0], items[1]):
                return None
            continue
        if pending is not None:
            return None  # a nested `key:` with no items: null, or a mapping a level deeper
        if items is not None:
            if indent and indent != items[3]:
                return None  # below an item: a continuation or a deeper level
            items = None  # the sequence ends: the mapping it is in goes on, or the top level
        if indent:
            if inner is None or (inner[1] and indent != inner[2]):
                return None  # indented, but not a nested key: a continuation or a deeper level
            if not inner[1]:  # the first nested key: where the nested mapping starts
                key, key_at, _, below = keys[-1]
                keys[-1] = (key, key_at, (number, indent + 1), below)
                inner = (inner[0], inner[1], indent)
            head = _HEAD.fullmatch(line, indent)
            if head is not None and _new_key(head.group(1), inner[0]):
                pending = (head.group(1), (number, indent + 1), indent)  # its items below
                continue
            if not _entry(line[indent:], number, indent, inner[0], inner[1]):
                return None
            continue
        if inner is not None and not inner[1]:
            return None  # `key:` with nothing below it: null, which PyYAML says
        head = _HEAD.fullmatch(line)
        if head is not None and _new_key(head.group(1), data):
            inner = ({}, [], 0)
            data[head.group(1)] = inner[0]
            keys.append((head.group(1), (number, 1), (number, 1), inner[1]))  # its value: set below
            continue
        inner = None
        if not _entry(line, number, 0, data, keys):
            return None
    if (inner is not None and not inner[1]) or pending is not None:
        return None
    return data, _positions(keys, line_offset), ()


def _new_key(key: str, mapping: dict[str, Any]) -> bool:
    return key not in mapping and _resolve(key) == _STR


def _entry(line: str, number: int, indent: int, mapping: dict[str, Any], keys: list[_Key]) -> bool:
    """One `key: value` line into mapping and keys; False when this module is not sure of it."""
    found = _LINE.fullmatch(line)
    if found is None or not _new_key(found.group(1), mapping):
        return False
    value = _value(found.group(3))
    if value is None:
        return False
    mapping[found.group(1)] = value[0]
    keys.append((found.group(1), (number, indent + 1), (number, indent + found.end(2) + 1), None))
    return True


def _item(line: str, number: int, indent: int, values: list[Any], places: _Items) -> bool:
    """One `- value` line into a sequence's values and their places; False when not sure of it."""
    found = _ITEM.fullmatch(line)
    value = _value(found.group(2)) if found is not None else None
    if found is None or value is None:
        return False
    values.append(value[0])
    places.append((number, indent + found.start(2) + 1))
    return True


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
    """The implicit tag PyYAML's resolver gives a plain scalar."""
    first = text[:1]
    if first in _OTHERS:
        return _pyyaml_resolve(text)
    if first in _BOOL_FIRST and _BOOL_WORDS.fullmatch(text):
        return _BOOL
    if (not text or first in _NULL_FIRST) and _NULL_WORDS.fullmatch(text):
        return _NULL
    return _STR


def _pyyaml_resolve(text: str) -> str:
    resolver, node = _pyyaml()
    tag: str = resolver.resolve(node, text, (True, False))
    return tag


@cache
def _pyyaml() -> tuple[Any, Any]:
    import yaml

    return yaml.resolver.Resolver(), yaml.ScalarNode


def _positions(keys: list[_Key], off: int) -> Positions:
    """In the order yamlgraph._check_graph records them: a mapping, its keys, then its values from the
    last (a stack), each nested mapping's own before the values above it."""
    pos: Positions = {}
    stack: list[tuple[tuple[str, ...], tuple[int, int], list[_Key] | _Items | None]] = [
        ((), (1 + off, 1), keys)
    ]
    while stack:
        path, at, nested = stack.pop()
        pos[("v", *path)] = at
        if isinstance(nested, _Items):  # a sequence: its items, from the last (a stack too)
            pos.update((("v", *path, i), item_at) for i, item_at in reversed(list(enumerate(nested))))
            continue
        for key, key_at, value_at, below in nested or ():
            pos[("k", *path, key)] = key_at
            stack.append(((*path, key), value_at, below))
    return pos
