"""Frontmatter through PyYAML's node graph: any YAML document flatyaml.py is not sure of.

YAML is loaded with the safe constructor only (the libyaml C loader when
present). Aliases, non-standard tags, duplicate keys and absurd nesting are
rejected on the composed node graph *before* any Python object is built, so a
billion-laughs document or a `!!python/object` tag never gets to run. Imported
only when a document needs it (parse.py): a build of flat frontmatter never loads PyYAML.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from . import values
from .flatyaml import Positions
from .values import MAX_DEPTH

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STD = "tag:yaml.org,2002:"
_ALLOWED_TAGS = frozenset(
    _STD + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
)
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})


def is_mapping(block: str) -> bool:
    """Where frontmatter is optional (redirect bodies), a leading `---` block is frontmatter only
    when it composes as a YAML mapping; anything else (prose, a heading, a list) is the body's
    own text after a Markdown horizontal rule."""
    if too_deep(block) is not None:
        return True  # composing it could overflow the C stack; load_yaml reports the depth
    try:
        loader = _Loader(block)
    except yaml.YAMLError:
        return False
    try:
        return isinstance(loader.get_single_node(), yaml.MappingNode)
    except (yaml.YAMLError, RecursionError, ValueError):
        return False
    finally:
        loader.dispose()


def too_deep(text: str) -> tuple[int, int] | None:
    """The 0-based (line, column) where collections nest deeper than MAX_DEPTH, else None.

    Composing a node graph recurses once per level, in C under libyaml: about 50,000 nested `[`
    (or `- `, `? `, `{a: `) overflow the C stack and kill the process before _check_graph could
    look. The event parser is a state machine with a heap stack, so counting its collection
    events is safe at any depth; a syntax error stops the count and is left to the real load."""
    # Every collection opens at one of these characters (a block mapping at its first `:` or `?`):
    # text with few of them cannot nest deeply, and most frontmatter skips the event scan.
    if sum(text.count(c) for c in "[{-?:") <= MAX_DEPTH + 1:
        return None
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                mark = event.start_mark
                if depth > MAX_DEPTH + 1:
                    return (mark.line, mark.column) if mark else (0, 0)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops flow nesting at 1,000 levels itself, and its
        # scanner reads a run of `[` ahead of the events, so the count never reaches the limit:
        # its message is the only sign, and the place it gives is inside the too-deep run.
        if exc.problem == "exceeded maximum nesting depth" and exc.problem_mark is not None:
            return exc.problem_mark.line, exc.problem_mark.column
        return None
    except (yaml.YAMLError, ValueError):
        return None
    return None


def load_yaml_graph(text: str, rel: str, line_offset: int) -> tuple[Any, Positions, tuple[Diagnostic, ...]]:
    """load_yaml through PyYAML's node graph, for any document (flatyaml's answers are held to it)."""
    deep = too_deep(text)
    if deep is not None:
        line, col = deep[0] + 1 + line_offset, deep[1] + 1
        return (
            None,
            {},
            (dg.error(rel, Code.YAML_SYNTAX, values.too_deep_message(), line, col),),
        )
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # the pure-Python reader checks characters up front
        return None, {}, (_reader_error(exc, text, rel, line_offset),)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}, ()
        pos: Positions = {}
        problems = _check_graph(node, rel, line_offset, pos) or _check_values(loader, node, rel, line_offset)
        if any(d.code != Code.CONTROL_CHARACTER for d in problems):
            return None, pos, problems
        # Control characters are errors, but the data is sound: later checks (paths) still report theirs.
        _timestamps_as_text(loader, node)
        return loader.construct_document(node), pos, problems
    except yaml.MarkedYAMLError as exc:
        return None, {}, (yaml_error(exc, text, rel, line_offset),)
    except yaml.reader.ReaderError as exc:
        return None, {}, (_reader_error(exc, text, rel, line_offset),)
    except Exception as exc:
        return (
            None,
            {},
            (dg.error(rel, Code.YAML_SYNTAX, f"YAML error: {type(exc).__name__}", 1 + line_offset, 1),),
        )
    finally:
        loader.dispose()


def yaml_error(exc: yaml.MarkedYAMLError, text: str, rel: str, off: int) -> Diagnostic:
    """PyYAML's error, explained: where the trouble starts, and how to fix the common cases.

    PyYAML says what went wrong only in prose, so its problem text is what is matched here.
    """
    problem, context = str(exc.problem or ""), str(exc.context or "")
    mark = exc.problem_mark or exc.context_mark
    hint = ""
    if "end of stream" in problem and exc.context_mark is not None:
        # An unterminated quote or bracket: the end of the text is not where the mistake is.
        mark = exc.context_mark
        hint = "; it is opened here and never closed"
    elif "mapping values are not allowed" in problem and exc.problem_mark is not None:
        hint = _quote_hint(text, exc.problem_mark.line)
    line, col = (mark.line + 1 + off, mark.column + 1) if mark else (1 + off, 1)
    msg = " ".join(p for p in (context, problem) if p) or "invalid YAML"
    return dg.error(rel, Code.YAML_SYNTAX, f"YAML syntax error: {msg}{hint}", line, col)


_KEY_VALUE = re.compile(r"^(\s*[^\s:#][^:#]*):\s+(.*?)\s*$")


def _quote_hint(text: str, line: int) -> str:
    """`description: Use when: x` is a mapping inside a plain value: quoting the value says what was meant."""
    lines = text.split("\n")
    found = _KEY_VALUE.match(lines[line]) if line < len(lines) else None
    if found is None:
        return "; a value holding ': ' must be quoted"
    key, value = found.group(1).strip(), found.group(2)
    quoted = json.dumps(value, ensure_ascii=False) if "'" in value else f"'{value}'"
    return f"; a value holding ': ' must be quoted: {key}: {dg.clip(quoted)}"


def _reader_error(exc: yaml.reader.ReaderError, text: str, rel: str, off: int) -> Diagnostic:
    """A character YAML refuses (control characters, U+FFFE): point at it."""
    # libyaml reports a UTF-8 byte offset, the pure-Python reader a character offset.
    if _Loader is yaml.SafeLoader:
        before = text[: exc.position]
    else:
        before = text.encode("utf-8")[: exc.position].decode("utf-8", "ignore")
    line, col = dg.position(before, len(before), 1 + off)
    return dg.error(
        rel,
        Code.YAML_SYNTAX,
        f"YAML syntax error: character U+{exc.character:04X} is not allowed in YAML",
        line,
        col,
    )


def _check_graph(root: yaml.Node, rel: str, off: int, pos: Positions) -> tuple[Diagnostic, ...]:
    """Reject what safe loading alone does not: aliases, odd tags, duplicates, depth."""
    seen: set[int] = set()
    problems: list[Diagnostic] = []
    stack: list[tuple[yaml.Node, tuple[Any, ...], int]] = [(root, (), 0)]

    def at(node: yaml.Node) -> tuple[int, int]:
        return node.start_mark.line + 1 + off, node.start_mark.column + 1

    while stack:
        node, path, depth = stack.pop()
        line, col = at(node)
        if id(node) in seen:
            problems.append(dg.error(rel, Code.YAML_ALIAS, "YAML aliases are not allowed", line, col))
            continue
        seen.add(id(node))
        pos[("v", *path)] = (line, col)
        if depth > MAX_DEPTH:
            problems.append(dg.error(rel, Code.YAML_SYNTAX, values.too_deep_message(), line, col))
            continue
        if node.tag not in _ALLOWED_TAGS:
            problems.append(dg.error(rel, Code.YAML_TAG, f"tag {node.tag!r} is not allowed", line, col))
            continue
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*path, i), depth + 1) for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            problems.extend(_check_mapping(node, path, depth, rel, off, pos, stack, seen))
    return tuple(problems)


def _check_values(loader: Any, root: yaml.Node, rel: str, off: int) -> tuple[Diagnostic, ...]:
    """Construct every scalar on its own, so a value its tag's constructor refuses (`!!bool maybe`,
    `!!int ""`, `!!timestamp nope`) is a located diagnostic, and check what JSON cannot hold."""
    problems: list[Diagnostic] = []
    stack = [root]
    while stack:  # the graph is a tree of bounded depth here: _check_graph passed
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.ScalarNode):
            found = _scalar_problem(loader, node)
            if found:
                line, col = node.start_mark.line + 1 + off, node.start_mark.column + 1
                problems.append(dg.error(rel, found[0], found[1], line, col))
    return tuple(problems)


def _scalar_problem(loader: Any, node: yaml.ScalarNode) -> tuple[Code, str] | None:
    """(code, message) for a scalar that must not become data, else None."""
    tag = node.tag[len(_STD) :]
    if tag == "null" and node.value not in _NULLS:
        return _invalid(tag, node)  # PyYAML's constructor ignores the text: `!!null anything` would be None
    if tag == "str":
        value = node.value  # what SafeConstructor.construct_yaml_str returns; construct_document builds it
    else:
        try:
            value = loader.construct_object(node)
        except Exception:
            return _invalid(tag, node)
    return values.problem(value, node.value)


def _invalid(tag: str, node: yaml.ScalarNode) -> tuple[Code, str]:
    return Code.YAML_SYNTAX, f"invalid !!{tag} value {values.short(node.value)}"


def _check_mapping(
    node: yaml.MappingNode,
    path: tuple[Any, ...],
    depth: int,
    rel: str,
    off: int,
    pos: Positions,
    stack: list[tuple[yaml.Node, tuple[Any, ...], int]],
    seen: set[int],
) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    keys: set[str] = set()
    for key_node, value_node in node.value:
        line, col = key_node.start_mark.line + 1 + off, key_node.start_mark.column + 1
        if id(key_node) in seen or not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STD + "str":
            problems.append(
                dg.error(rel, Code.FRONTMATTER_SCHEMA, "mapping keys must be plain strings", line, col)
            )
            continue
        seen.add(id(key_node))
        if key_node.value in keys:
            problems.append(dg.error(rel, Code.DUPLICATE_KEY, f"duplicate key {key_node.value!r}", line, col))
            continue
        keys.add(key_node.value)
        pos[("k", *path, key_node.value)] = (line, col)
        stack.append((value_node, (*path, key_node.value), depth + 1))
    return problems


def _timestamps_as_text(loader: Any, root: yaml.Node) -> None:
    """A timestamp keeps the text written: the harnesses read frontmatter as strings, and a date
    turned into a datetime and back is reformatted (`2001-12-14t21:59:43.10-05:00` would become
    `2001-12-14T21:59:43.100000-05:00`). _check_values has already refused invalid ones."""
    stack = [root]
    while stack:  # a tree of bounded depth: _check_graph passed
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif node.tag == _STD + "timestamp":
            node.tag = _STD + "str"
            loader.constructed_objects.pop(node, None)  # _check_values built it as a datetime
