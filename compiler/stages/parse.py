"""Parse stage: bytes -> text -> (frontmatter mapping with positions, body).

Frontmatter of plain `key: value` lines is read by flatyaml.py; anything else by PyYAML's node
graph (yamlgraph.py: the safe loader, aliases, tags, duplicates and depth refused before any object
is built), imported only then.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Document, InputFile
from . import flatyaml
from .flatyaml import Positions


def decode(file: InputFile) -> tuple[str | None, tuple[Diagnostic, ...]]:
    """UTF-8 text with LF line endings, or None with an error."""
    data, rel = file.data, file.rel
    diags: list[Diagnostic] = []
    if b"\x00" in data:
        line, col = dg.position(data, data.index(b"\x00"))
        return None, (dg.error(rel, Code.NOT_UTF8, "binary file (contains NUL bytes)", line, col),)
    if data.startswith(b"\xef\xbb\xbf"):  # Windows editors write one; harnesses read past it silently too
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = dg.position(data, exc.start)
        return None, (
            dg.error(rel, Code.NOT_UTF8, f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", line, col),
        )
    if "\r" in text:  # files saved on Windows: normalised silently, as every harness reads them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, tuple(diags)


# Raw in a text file (a body, an overlay), the same characters a YAML escape could write:
# terminal escapes and the like never reach a prompt. Tab, newline and CR (normalised) are text.
_RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_characters(rel: str, text: str, first_line: int) -> tuple[Diagnostic, ...]:
    """An error at the first control character in text (whose first line is first_line), if any."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
        return ()  # ASCII but tab, newline and CR is printable or one of _RAW_CONTROL: at a third of the cost
    hit = _RAW_CONTROL.search(text)
    if hit is None:
        return ()
    line, col = dg.position(text, hit.start(), first_line)
    return (
        dg.error(
            rel, Code.CONTROL_CHARACTER, f"control character U+{ord(hit.group(0)):04X} in text", line, col
        ),
    )


def parse_document(
    file: InputFile, *, frontmatter: str = "required", colon_fallback: str | None = None
) -> Document:
    """Split `---` frontmatter from the body and load it.

    frontmatter: "required" (SKILL.md), "optional" (exclusive bodies, overlays)
    or "whole" (the whole file is YAML: manifests).
    colon_fallback: when given (what the selected targets do, for the warning), frontmatter that
    YAML refuses only because top-level plain values hold ': ' is read with those values as strings.
    """
    text, diags = decode(file)
    return _document(file, text, diags, frontmatter, colon_fallback)


def parse_text(file: InputFile, *, colon_fallback: str | None = None) -> tuple[str, Document]:
    """parse_document of a SKILL.md (frontmatter required), and its decoded text ("" when it does
    not decode): the checks that quote what was written read it without decoding the file again."""
    text, diags = decode(file)
    return text or "", _document(file, text, diags, "required", colon_fallback)


def _document(
    file: InputFile,
    text: str | None,
    diags: tuple[Diagnostic, ...],
    frontmatter: str,
    colon_fallback: str | None,
) -> Document:
    if text is None:
        return Document(file.rel, None, {}, "", 1, diags)
    if frontmatter == "whole":
        data, pos, more = load_yaml(text, file.rel, 0)
        return Document(file.rel, data, pos, "", 1, diags + more)
    split = _split(text)
    if split is not None and frontmatter == "optional" and not _is_mapping_block(split[0]):
        split = None  # a Markdown `---` rule, not frontmatter: the whole file is body
    if split is None:
        if frontmatter == "optional":
            return Document(
                file.rel, {}, {}, _clean_body(text), 1, diags + control_characters(file.rel, text, 1)
            )
        reason = "no frontmatter: the file must start with a '---' line"
        if text.startswith("---"):
            reason = "unterminated frontmatter: no closing '---' line"
        return Document(file.rel, None, {}, "", 1, (*diags, dg.error(file.rel, Code.NO_FRONTMATTER, reason)))
    fm_text, body, body_line = split
    data, pos, more = load_yaml(fm_text, file.rel, 1)
    if data is None and colon_fallback is not None and more and _only_syntax(more):
        data, pos, more = _requoted(fm_text, file.rel, colon_fallback) or (data, pos, more)
    if data is not None and not isinstance(data, dict):
        line, col = pos.get(("v",), (2, 1))
        more += (dg.error(file.rel, Code.NO_FRONTMATTER, "frontmatter is not a mapping", line, col),)
        data = None
    more += control_characters(file.rel, body, body_line)
    return Document(file.rel, data, pos, _clean_body(body), body_line, diags + more)


def _only_syntax(diags: tuple[Diagnostic, ...]) -> bool:
    return all(d.code == Code.YAML_SYNTAX for d in diags)


# `key: plain value` at the top level: the key as the spec's fields are spelled, the value a plain
# scalar (no quote, flow collection, block scalar, anchor, alias, tag or comment can start it).
_TOP_PLAIN = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+([^\s'\"\[\]{}|>&*!%@`#,?-].*?)[ \t]*$")


def requote_colons(text: str) -> tuple[str, tuple[int, ...]]:
    """The frontmatter with each top-level one-line plain value holding ': ' written as a quoted
    string, and the 0-based lines changed: the fallback the Agent Skills client guide recommends
    (Gemini CLI's `parseSimpleFrontmatter` reads such a line as `key: <rest of line>`).

    A plain scalar can never hold ': ' in block context, so only lines YAML refuses are changed.
    Left alone: values that go on over indented lines (multi-line), values with a comment (` #`),
    indented keys (inside a mapping) and flow collections, which a line alone cannot say.
    """
    lines = text.split("\n")
    changed = []
    for i, line in enumerate(lines):
        found = _TOP_PLAIN.match(line)
        if found is None or (": " not in found.group(2) and not found.group(2).endswith(":")):
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if " #" in found.group(2) or (following[:1] in (" ", "\t") and following.strip()):
            continue
        lines[i] = line[: found.start(2)] + json.dumps(found.group(2), ensure_ascii=False)
        changed.append(i)
    return "\n".join(lines), tuple(changed)


def _requoted(text: str, rel: str, note: str) -> tuple[Any, Positions, tuple[Diagnostic, ...]] | None:
    """The frontmatter read with its colon values quoted, with a warning per line; None when that
    does not make it valid YAML (the original error is reported: the fallback hides no other)."""
    fixed, lines = requote_colons(text)
    if not lines:
        return None
    data, pos, more = load_yaml(fixed, rel, 1)
    if data is None or any(d.code == Code.YAML_SYNTAX for d in more):
        return None
    original = text.split("\n")
    found = [(i, _TOP_PLAIN.match(original[i])) for i in lines]
    warnings = tuple(_requote_warning(hit, rel, i + 2, note) for i, hit in found if hit)
    return data, pos, warnings + more


def _requote_warning(found: re.Match[str], rel: str, line_no: int, note: str) -> Diagnostic:
    key, value = found.group(1), found.group(2)
    quoted = json.dumps(value, ensure_ascii=False) if "'" in value else f"'{value}'"
    return dg.warning(
        rel,
        Code.NORMALISED,
        f"{key}: YAML refuses ': ' inside a plain value; read as the string {dg.clip(repr(value))}, as the "
        f"Agent Skills client guide recommends{note}. Quote it: {key}: {dg.clip(quoted)}",
        line_no,
        found.start(2) + 1,
    )


def _split(text: str) -> tuple[str, str, int] | None:
    """(frontmatter lines with a final newline, the body after the closing line, the body's first
    line number), or None. Line by line through the frontmatter only: the body, most of the file,
    is sliced off, never split into lines and joined again."""
    end = text.find("\n")
    if end < 0 or text[:end].rstrip() != "---":
        return None  # one line alone is never frontmatter: it has no closing line
    start = pos = end + 1
    number = 2  # of the line at pos
    while True:
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.rstrip() in ("---", "..."):
            return text[start:pos] or "\n", "" if end < 0 else text[end + 1 :], number + 1
        if end < 0:
            return None
        pos, number = end + 1, number + 1


def _is_mapping_block(block: str) -> bool:
    """Where frontmatter is optional (redirect bodies), a leading `---` block is frontmatter only
    when it composes as a YAML mapping; anything else (prose, a heading, a list) is the body's
    own text after a Markdown horizontal rule."""
    from . import yamlgraph

    return yamlgraph.is_mapping(block)


def _clean_body(body: str) -> str:
    # Leading blank lines and trailing whitespace carry no meaning and differ
    # between editors; normalising them keeps the content hash stable.
    stripped = body.lstrip("\n").rstrip()
    return stripped + "\n" if stripped else ""


def load_yaml(text: str, rel: str, line_offset: int) -> tuple[Any, Positions, tuple[Diagnostic, ...]]:
    """Safe-load one YAML document; return (data, positions, diagnostics).

    positions maps ("v", *keypath) to the value's (line, col) and
    ("k", *keypath) to the key's, both 1-based in the file.
    """
    flat = flatyaml.load(text, line_offset)  # the common `key: value` lines, without a node graph
    if flat is not None:
        return flat
    from . import yamlgraph  # PyYAML is imported only for frontmatter flatyaml is not sure of

    return yamlgraph.load_yaml_graph(text, rel, line_offset)
