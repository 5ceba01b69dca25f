"""Frontmatter rules that a JSON Schema cannot say: the spec's name rule and the
normalisations that make frontmatter the harnesses accept acceptable here too.

Names follow the Agent Skills spec exactly as its reference library
(skills-ref) checks them: NFKC-normalised, lowercase letters of any script,
digits and single hyphens, no leading or trailing hyphen, at most 64
characters.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import DescriptionFallback, Document
from ..names.paths import PLAIN_NAME
from ..targets import claude_code
from ..targets.model import Issue
from ..targets.model import Skill as TargetSkill
from ..targets.verdicts import suffix, tolerated

MAX_NAME = 64
# Text fields a plain YAML scalar can turn into a number or boolean (`description: 42`,
# `license: no`); skills-ref reads every scalar as the text written, so skillc does too.
STRING_FIELDS = ("name", "description", "license", "compatibility", "when_to_use", "agent", "model")


# Only ASCII whitespace is trimmed around a name. str.strip() would also drop a NO-BREAK SPACE or
# another Unicode space, so `name: "foo\u00a0"` would pass as `foo` while its directory, and any
# harness that does not strip, says otherwise; kept, NFKC turns it into a space and the name rule
# refuses it like any other character that is not a letter, a digit or a hyphen.
_ASCII_SPACE = " \t\n\r\f\v"


def normal_name(name: str) -> str:
    return unicodedata.normalize("NFKC", name.strip(_ASCII_SPACE))


# A name every check below passes, said in one regex (names.paths.PLAIN_NAME). Almost every name is
# one, and a check per character costs more.
_PLAIN_NAME = re.compile(PLAIN_NAME)


def name_problems(name: str) -> list[str]:
    """Why a (normalised) name breaks the spec; empty when it is valid. Same checks as skills-ref."""
    if len(name) <= MAX_NAME and _PLAIN_NAME.fullmatch(name):
        return []
    return name_checks(name)


def name_checks(name: str) -> list[str]:
    """name_problems, every check made (a test holds the shortcut to them)."""
    problems = []
    if not name:
        return ["must be a non-empty string"]
    if len(name) > MAX_NAME:
        problems.append(f"is {len(name)} characters long; the limit is {MAX_NAME}")
    if name != name.lower():
        problems.append("must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not start or end with a hyphen")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in name):
        problems.append("may hold only letters, digits and hyphens")
    return problems


def valid_name(name: str) -> bool:
    return not name_problems(normal_name(name))


def normalise(
    doc: Document, data: dict[str, Any], source: str
) -> tuple[dict[str, Any], tuple[Diagnostic, ...]]:
    """Values YAML typed differently from what the author meant, turned back into strings.

    source: the decoded SKILL.md text, to quote what was written.
    """
    if all(map(_text, data.values())):
        return data, ()  # most frontmatter: nothing below applies to a string or a map of strings
    return normalise_each(doc, data, source)


def normalise_each(
    doc: Document, data: dict[str, Any], source: str
) -> tuple[dict[str, Any], tuple[Diagnostic, ...]]:
    """normalise, every rule asked (a test holds the shortcut to it)."""
    diags: list[Diagnostic] = []
    hint = data.get("argument-hint")
    if isinstance(hint, list):
        text = "[" + ", ".join(_scalar_text(v) for v in hint) + "]"
        diags.append(
            dg.warning(
                doc.rel,
                Code.NORMALISED,
                f"argument-hint: YAML reads {text} as a list; using the string {text!r} as Claude Code shows it. "
                f'Quote it to say so: argument-hint: "{text}"',
                *doc.pos("argument-hint"),
            )
        )
        data = {**data, "argument-hint": text}
    version = data.get("version")
    if _number(version):
        written = _written(doc, source, ("version",)) or _scalar_text(version)
        diags.append(
            dg.warning(
                doc.rel,
                Code.NORMALISED,
                f"version: YAML reads {written} as the number {_scalar_text(version)}; using the string "
                f'{_scalar_text(version)!r} (YAML reads 1.10 as 1.1). Quote it to keep what you wrote: version: "{written}"',
                *doc.pos("version"),
            )
        )
        data = {**data, "version": _scalar_text(version)}
    for key in STRING_FIELDS:
        value = data.get(key)
        if _number(value) or isinstance(value, bool):
            written = _written(doc, source, (key,)) or _scalar_text(value)
            diags.append(
                dg.warning(
                    doc.rel,
                    Code.NORMALISED,
                    f"{key}: YAML reads {written} as a {'boolean' if isinstance(value, bool) else 'number'}; "
                    f'using the string {written!r}, as skills-ref does. Quote it to say so: {key}: "{written}"',
                    *doc.pos(key),
                )
            )
            data = {**data, key: written}
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and any(not isinstance(v, str) for v in metadata.values()):
        fixed, more = _metadata(doc, metadata, source)
        data, diags = {**data, "metadata": fixed}, diags + more
    return data, tuple(diags)


def _metadata(
    doc: Document, metadata: dict[str, Any], source: str
) -> tuple[dict[str, str], list[Diagnostic]]:
    """skills-ref reads metadata values as strings; so does skillc, saying which it converted."""
    fixed: dict[str, str] = {}
    diags = []
    for key, value in metadata.items():
        if isinstance(value, str):
            fixed[key] = value
            continue
        text = _written(doc, source, ("metadata", key)) if _number(value) or isinstance(value, bool) else None
        fixed[key] = text or _scalar_text(value)
        diags.append(
            dg.warning(
                doc.rel,
                Code.NORMALISED,
                f"metadata.{key}: not a string; stored as the string {fixed[key]!r}. "
                f'Quote it to say so: {key}: "{fixed[key]}"',
                *doc.pos("metadata", key),
            )
        )
    return fixed, diags


def _text(value: Any) -> bool:
    """A string, or a mapping of strings (metadata): a value `normalise` leaves as it is."""
    return type(value) is str or (type(value) is dict and all(type(v) is str for v in value.values()))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def _written(doc: Document, source: str, keys: tuple[Any, ...]) -> str | None:
    """The plain scalar as it stands in the file (`1.10`, not the float 1.1)."""
    hit = doc.positions.get(("v", *keys))
    if hit is None:
        return None
    line, col = hit
    lines = source.split("\n")
    if line - 1 >= len(lines):
        return None
    text = lines[line - 1][col - 1 :].split(" #", 1)[0].strip()
    return text.split(",", 1)[0].rstrip("]}").strip() or None  # flow style: `{a: 1.10, b: 2}`


# Claude Code's two flags: any scalar is read, `flag` decides (docs/targets.md "Field reading").
FLAGS = ("disable-model-invocation", "user-invocable")


def harness_values(
    doc: Document,
    data: dict[str, Any],
    source: str,
    targets: tuple[str, ...],
    fallback: DescriptionFallback = DescriptionFallback.NONE,
) -> tuple[dict[str, Any], tuple[Diagnostic, ...]]:
    """With `targets:` selected, what the harnesses load is loaded: a flag spelled `1`, `oN` or
    `maybe` read as Claude Code reads it, and a missing or empty description from the body's first
    line when Claude Code is selected (or every selected target loads an empty one). With
    `frontmatter.description_fallback`, a missing or empty one is taken from the body as the
    project's loader takes it. Warnings say so."""
    if fallback is not DescriptionFallback.NONE:  # the project's loader's, over any harness's
        data, said = _flags(doc, data, source, targets) if targets else (data, [])
        return _fallback(doc, data, fallback, said), tuple(said)
    if not targets:
        return data, ()
    data, diags = _flags(doc, data, source, targets)
    return _description(doc, data, targets, diags), tuple(diags)


def _flags(
    doc: Document, data: dict[str, Any], source: str, targets: tuple[str, ...]
) -> tuple[dict[str, Any], list[Diagnostic]]:
    diags: list[Diagnostic] = []
    for key in FLAGS:
        if key in data and _flag_like(data[key]):
            value = claude_code.flag(data[key])
            written = _written(doc, source, (key,)) if data[key] is not None else "an empty value"
            diags.append(_flag_warning(doc, key, written or str(data[key]), value, targets))
            data = {**data, key: value}
    return data, diags


_HEADING = re.compile(r"#{1,6}(\s|$)")


def first_paragraph(body: str) -> str:
    """Pegasus's description fallback: the body's first paragraph (Markdown headings before it
    skipped), its lines joined by single spaces."""
    lines: list[str] = []
    for line in body.splitlines():
        text = line.strip()
        if not text or _HEADING.match(text):
            if lines:
                break
            continue
        lines.append(text)
    return " ".join(lines)


def _fallback(
    doc: Document, data: dict[str, Any], fallback: DescriptionFallback, diags: list[Diagnostic]
) -> dict[str, Any]:
    """A missing or empty description taken from the body, as `frontmatter.description_fallback` says."""
    value = data.get("description")
    if (isinstance(value, str) and value.strip()) or (value is not None and not isinstance(value, str)):
        return data  # given, or a list or a number: the schema's error (or the number's normalisation) stands
    if fallback is DescriptionFallback.FIRST_PARAGRAPH:
        text, what = first_paragraph(doc.body), "first paragraph"
    else:
        text, what = claude_code.description(TargetSkill("", None, None, body=doc.body)), "first line"
    if not text:
        return data  # nothing to take: the schema's error
    where = doc.pos("description") if "description" in data else doc.pos()
    diags.append(
        dg.warning(
            doc.rel,
            Code.NORMALISED,
            f"description: {'missing' if value is None else 'empty'}; using the body's {what} {_clip(text)!r} "
            f"(frontmatter.description_fallback: {fallback.value}). Write a description that says when to use "
            "the skill",
            *where,
        )
    )
    return {**data, "description": text}


def _flag_like(value: Any) -> bool:
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))


def _flag_warning(doc: Document, key: str, written: str, value: bool, targets: tuple[str, ...]) -> Diagnostic:
    word = "true" if value else "false"
    return dg.warning(
        doc.rel,
        Code.NORMALISED,
        f"{key}: {written} is not a YAML boolean; read as {word}, as Claude Code reads it (true, yes, on "
        f"and 1 in any case are true, anything else false){suffix(Issue.FLAG_SPELLING, targets)}. "
        f"Write {key}: {word}",
        *doc.pos(key),
    )


def _description(
    doc: Document, data: dict[str, Any], targets: tuple[str, ...], diags: list[Diagnostic]
) -> dict[str, Any]:
    """A missing or empty description becomes the body's first line, as Claude Code reads it."""
    value = data.get("description")
    if isinstance(value, str) and value.strip():
        return data
    if value is not None and not isinstance(value, str):
        return data  # a list or a number: the schema's error (or the number's normalisation) stands
    issue = Issue.NO_DESCRIPTION if value is None else Issue.EMPTY_DESCRIPTION
    first = claude_code.description(TargetSkill("", None, None, body=doc.body))
    if not first or not ("claude-code" in targets or tolerated(issue, targets)):
        return data
    what = "missing" if value is None else "empty"
    where = doc.pos("description") if "description" in data else doc.pos()
    diags.append(
        dg.warning(
            doc.rel,
            Code.NORMALISED,
            f"description: {what}; using the body's first line {_clip(first)!r}, as Claude Code reads "
            f"such a skill{suffix(issue, targets)}. Write a description that says when to use the skill",
            *where,
        )
    )
    return {**data, "description": first}


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."
