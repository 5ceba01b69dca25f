"""Compiler-style diagnostics: `path:line:col: severity[CODE]: message`."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


# Every code the compiler can emit. Kept in one table so `skillc codes` and the
# tests can check that no stage invents an undocumented code.
CODES: dict[str, str] = {
    # config (1xx)
    "SKC101": "config file is not valid YAML or not a mapping",
    "SKC102": "config file does not match its schema",
    "SKC103": "a configured path is missing or escapes the project",
    "SKC104": "template cannot be loaded or rendered",
    "SKC105": "a source is listed more than once",
    # files and frontmatter (2xx)
    "SKC201": "file cannot be read as UTF-8 text",
    "SKC202": "missing or unterminated frontmatter",
    "SKC203": "YAML syntax error",
    "SKC204": "frontmatter does not match the schema",
    "SKC205": "unknown frontmatter field",
    "SKC206": "name does not match its directory",
    "SKC207": "file exceeds the size cap",
    "SKC208": "YAML anchors and aliases are not allowed",
    "SKC209": "duplicate mapping key",
    "SKC212": "YAML tag not allowed (safe loading only)",
    "SKC213": "empty body",
    "SKC214": "frontmatter value normalised to what the harnesses read (quote it to silence this)",
    "SKC215": "control character in text or a YAML string",
    # paths and discovery (3xx)
    "SKC301": "unsafe path",
    "SKC302": "symlink escapes the root",
    "SKC303": "symlink loop",
    "SKC304": "overlay or redirect body is not .md, .yaml or .json (SEC-002)",
    "SKC305": "command overridden by a later source",
    "SKC306": "commands collide (case or sanitized id)",
    "SKC307": "directory name is not a valid skill name",
    "SKC308": "source directory does not exist",
    "SKC309": "SKILL.md at a source root is ignored (the root is not a skill)",
    "SKC310": "file cannot be read",
    "SKC311": "directory reached again through a symlink; walked once",
    "SKC312": "lowercase skill.md accepted",
    "SKC313": "source holds no skills",
    "SKC314": "skills left out because they have errors (--skip-invalid)",
    # personas (4xx)
    "SKC401": "persona manifest invalid",
    "SKC402": "unknown fallback persona",
    "SKC403": "fallback cycle",
    "SKC404": "exclusive skill for an unknown persona",
    "SKC405": "exclusive body without a matching skill",
    "SKC406": "exclusive skill has no body for its persona",
    "SKC407": "overlay for a skill that does not exist",
    "SKC408": "overlay ignored: skill does not set has_persona_overlay",
    "SKC409": "allowlist names an unknown command",
    "SKC410": "persona directory without manifest.yaml",
    "SKC411": "persona_exclusive names an unknown persona",
    "SKC412": "a budget is configured for an unknown persona",
    # overlay content lint (5xx)
    "SKC501": "overlay contains tool invocation instructions",
    "SKC502": "overlay attempts a system prompt override",
    "SKC503": "overlay tries to close the untrusted-data delimiter",
    "SKC504": "overlay requests file access",
    # budget (6xx)
    "SKC601": "skills left out of or shortened in a persona catalog by the character budget",
    "SKC602": "always-on skills alone exceed the budget",
    # output (7xx)
    "SKC701": "output directory is stale",
    "SKC702": "what the build would write breaks the artifact schemas (a skillc bug)",
    "SKC703": "cannot write the output directory",
    "SKC704": "output directory was not written by skillc: refusing to replace it",
}


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
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def printable(text: str) -> str:
    """text with every character that could forge or disguise a line written as \\x.., \\u...."""
    if text.isascii() and text.isprintable():  # nearly every message: no per-character scan
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _ESCAPED_CATEGORIES else ch for ch in text)


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii") if ch != "\x7f" else "\\x7f"


_printable = printable


def error(path: str, code: str, message: str, line: int = 1, col: int = 1) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.ERROR, _known(code), message)


def warning(path: str, code: str, message: str, line: int = 1, col: int = 1) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.WARNING, _known(code), message)


def _known(code: str) -> str:
    if code not in CODES:
        raise ValueError(f"undocumented diagnostic code {code}")
    return code


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diags)


LEVELS = ("error", "warning", "ignore")


def apply_policy(
    diags: Iterable[Diagnostic], severities: Mapping[str, str], strict: bool
) -> tuple[Diagnostic, ...]:
    """Per-code severities first (`diagnostics:`, `--ignore`), then `--strict` promotes every warning left.

    A code may be raised to an error or lowered to a warning or to nothing,
    but only where it was reported as a warning: an error means the output
    would be wrong, so no setting lets such a build be written (leaving bad
    skills out is what `--skip-invalid` is for).
    """
    kept: list[Diagnostic] = []
    for d in diags:
        level = severities.get(d.code)
        if d.severity is Severity.WARNING and level == "ignore":
            continue
        if level == "error" or (strict and d.severity is Severity.WARNING):
            d = Diagnostic(d.path, d.line, d.col, Severity.ERROR, d.code, d.message)
        kept.append(d)
    return tuple(kept)


def ordered(diags: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Stable report order so two runs print identical output."""
    return tuple(sorted(set(diags), key=lambda d: (d.path, d.line, d.col, d.code, d.message)))
