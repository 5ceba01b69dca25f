"""Overlay content lint: what ARIA's loader says overlays must not contain.

Overlays are untrusted data that may only restyle a skill. These checks are
heuristics (warnings), the hard guarantee is the escaped delimiter.
"""

from __future__ import annotations

import functools
import re

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..format.escape import delimiter_positions, escape_delimiter, wrap_untrusted

__all__ = ["escape_delimiter", "lint_overlay", "wrap_overlay"]


# The rules are compiled at their first use, not at import: an edit build imports this module for
# every persona's overlays and most edits touch none (compiling the six patterns: 3-4 ms).
@functools.cache
def _rules() -> tuple[tuple[Code, str, re.Pattern[str]], ...]:
    return (
        (
            Code.OVERLAY_OVERRIDE,
            "attempts a system prompt override",
            re.compile(
                r"ignore\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier)\s+(instructions|rules|prompts?)"
                r"|disregard\s+(all\s+|the\s+)?(previous|prior|above|system)"
                r"|(new|override|replace)\s+(the\s+)?system\s+prompt|system\s+prompt\s*:"
                r"|you\s+are\s+now\s+(in\s+)?(developer|dan|jailbreak|unrestricted)"
                r"|<\s*/?\s*system\s*>",
                re.IGNORECASE,
            ),
        ),
        (
            Code.OVERLAY_TOOLS,
            "contains tool invocation instructions",
            re.compile(
                r"\b(call|invoke|run|execute|use)\s+(the\s+)?[`'\"]?[a-z_]+[`'\"]?\s+tool\b"
                r"|\b(load_skill|use_skill|activateSkill|read_file|write_file|bash|spawn_subagent)\s*\("
                r"|<\s*(tool_use|function_calls|invoke)\b",
                re.IGNORECASE,
            ),
        ),
        (
            Code.OVERLAY_FILES,
            "requests file access",
            re.compile(
                r"\b(read|open|cat|print|dump|upload|send)\s+(the\s+)?(contents?\s+of\s+)?(file\s+)?"
                r"(~/|/etc/|/home/|\.env\b|\.ssh\b|id_rsa|credentials)",
                re.IGNORECASE,
            ),
        ),
    )


# The rules for ASCII text: the same patterns lowercased, without IGNORECASE, matched in the text
# lowercased. For ASCII the two find the same spans (lowercasing keeps every index), at twice the
# speed (35 us an overlay instead of 74). The patterns hold no escape that lowercasing would change
# (\S, \W, \D, \B: a test holds the two equal).
@functools.cache
def _ascii_rules() -> tuple[tuple[Code, str, re.Pattern[str]], ...]:
    return tuple((code, what, re.compile(pattern.pattern.lower())) for code, what, pattern in _rules())


def _rule_hits(text: str) -> list[tuple[Code, str, int, int]]:
    """(code, what, start, end) of every rule's matches, rule by rule."""
    if text.isascii():
        lowered = text.lower()
        return [
            (code, what, *m.span())
            for code, what, pattern in _ascii_rules()
            for m in pattern.finditer(lowered)
        ]
    return [(code, what, *m.span()) for code, what, pattern in _rules() for m in pattern.finditer(text)]


def lint_overlay(rel: str, text: str) -> tuple[Diagnostic, ...]:
    # SKC503 finds exactly what escape_delimiter escapes (one rule, in format/escape.py).
    hits = [
        (
            Code.OVERLAY_DELIMITER,
            "tries to open or close the untrusted-data delimiter",
            at,
            text[at : at + 16],
        )
        for at in delimiter_positions(text)
    ]
    hits += [(code, what, start, text[start:end]) for code, what, start, end in _rule_hits(text)]
    found: list[Diagnostic] = []
    for code, what, at, seen in hits:
        line, col = dg.position(text, at)
        found.append(dg.warning(rel, code, f"overlay {what}: {seen!r}", line, col))
    return tuple(found)


def wrap_overlay(source: str, text: str) -> str:
    return wrap_untrusted(source, text)
