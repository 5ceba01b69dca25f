"""Compiler-style diagnostics: `path:line:col: severity[CODE]: message`."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from enum import StrEnum

from ..dataclass import dataclass
from ..format.escape import HIDDEN_CATEGORIES
from .codes import DESCRIPTIONS, Code


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    # A diagnostic a setting ignored, kept as a mark (its path and code) among the others until the
    # report is made (policy.unused tells from the marks which settings suppressed something): the
    # incremental builds splice a skill's marks with its diagnostics. Never reported.
    SUPPRESSED = "suppressed"


# Every code by its string, for what users type (configs, --ignore) and `skillc codes`.
CODES: dict[str, str] = {code.value: text for code, text in DESCRIPTIONS.items()}


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str
    line: int
    col: int
    severity: Severity
    code: str
    message: str

    def format(self) -> str:
        return (
            f"{_printable(self.path)}:{self.line}:{self.col}: "
            f"{self.severity.value}[{self.code}]: {_printable(self.message)}"
        )


# Escaped when printed: control characters (C0, C1: a newline in a file name could forge
# extra diagnostic lines), line and paragraph separators (U+2028, U+2029: line breaks
# to editors and some terminals), format characters (bidi overrides and marks, zero-width
# characters: a path that displays differently from what it is) and lone surrogates
# (undecodable file names).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cs"}) | HIDDEN_CATEGORIES


def printable(text: str) -> str:
    """text with every character that could forge or disguise a line written as \\x.., \\u...."""
    if text.isascii() and text.isprintable():  # nearly every message: no per-character scan
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _ESCAPED_CATEGORIES else ch for ch in text)


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii") if ch != "\x7f" else "\\x7f"


def clip(text: str) -> str:
    """`text` cut to 80 characters for a message, "..." saying where."""
    return text if len(text) <= 80 else text[:77] + "..."


_printable = printable


def error(path: str, code: Code, message: str, line: int = 1, col: int = 1) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.ERROR, code.value, message)


def warning(path: str, code: Code, message: str, line: int = 1, col: int = 1) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.WARNING, code.value, message)


def position(text: str | bytes, offset: int, first_line: int = 1) -> tuple[int, int]:
    """(line, column), both from 1, of `offset` in text whose first line is `first_line`."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, offset) + first_line  # type: ignore[arg-type]
    return line, offset - (text.rfind(newline, 0, offset) + 1) + 1  # type: ignore[arg-type]


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diags)


def ordered(diags: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Stable report order so two runs print identical output."""
    return tuple(sorted(set(diags), key=lambda d: (d.path, d.line, d.col, d.code, d.message)))
