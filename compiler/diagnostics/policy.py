"""Severity settings: per code (`diagnostics:`, `--ignore`), per path (`diagnostics: per_path:`) and
inline in a SKILL.md (`# skillc: ignore[SKC206]`); only spec-conformance codes may be lowered.

A setting that cannot take effect (an unknown code, an integrity code set to warning or ignore) is
refused where it is written, never silently dropped: `refusal` says why.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..dataclass import dataclass, replace
from . import CODES, Diagnostic, Severity, warning
from .codes import Code, lowerable

LEVELS = ("error", "warning", "ignore")
Levels = tuple[tuple[str, str], ...]  # (code, level), sorted


def refusal(code: str, level: str) -> str | None:
    """Why `code: level` cannot be honoured, or None when it can."""
    if code not in CODES:
        return f"unknown code {code!r} (`skillc codes` lists them)"
    if level in ("warning", "ignore") and not lowerable(code):
        return (
            f"{code} is an integrity code and cannot be set to {level}: the output would be wrong or unsafe "
            "(it can only be raised; `skillc codes` marks which codes can be lowered)"
        )
    return None


@dataclass(frozen=True)
class Policy:
    """Per-code levels, then per-path levels (later patterns win), then a skill's inline ignores."""

    codes: Levels = ()
    paths: tuple[tuple[str, Levels], ...] = ()

    @functools.cached_property
    def _by_code(self) -> dict[str, str]:
        return dict(self.codes)

    @functools.cached_property
    def _by_path(self) -> tuple[tuple[str, dict[str, str]], ...]:
        return tuple((pattern, dict(levels)) for pattern, levels in self.paths)

    def level(self, d: Diagnostic, inline: frozenset[str] = frozenset()) -> str | None:
        if d.code in inline:
            return "ignore"
        found = self._by_code.get(d.code)
        for pattern, levels in self._by_path:
            hit = levels.get(d.code)
            if hit is not None and _matcher(pattern)(d.path):
                found = hit
        return found

    def apply(self, diags: Iterable[Diagnostic], inline: frozenset[str] = frozenset()) -> list[Diagnostic]:
        """Each diagnostic at its level (no --strict here: that comes last, on everything)."""
        if not self.codes and not self.paths and not inline:
            return list(diags)
        kept: list[Diagnostic] = []
        for d in diags:
            if d.severity is Severity.SUPPRESSED:  # levelled already
                kept.append(d)
                continue
            level = self.level(d, inline)
            if level == "error" and d.severity is not Severity.ERROR:
                d = replace(d, severity=Severity.ERROR)
            elif level in ("warning", "ignore") and (d.severity is Severity.WARNING or lowerable(d.code)):
                if level == "ignore":
                    kept.append(Diagnostic(d.path, 0, 0, Severity.SUPPRESSED, d.code, ""))  # see unused
                    continue
                d = replace(d, severity=Severity.WARNING)
            kept.append(d)
        return kept


def unused(
    policy: Policy,
    written: Mapping[tuple[str | int, ...], tuple[int, int]],
    config_rel: str,
    diags: Iterable[Diagnostic],
) -> list[Diagnostic]:
    """SKC107 for each setting of the config that lowers codes but met none of them in this build
    (`diags`: the build's, with the marks of those a setting ignored), as ruff reports an unused
    `noqa`; and for each `per_path` pattern that can never match. `written`: where the config sets
    each key; a setting it does not write (`--ignore` on the command line) is never reported. A
    setting that raises a code to an error suppresses nothing: it guards, and is not reported.
    Settings of SKC107 itself are not reported either (they are how a project silences this), nor
    those of a code that depends on the machine (SKC324, `_NEVER_IDLE`)."""
    paths: dict[str, set[str]] = {}
    for d in diags:
        paths.setdefault(d.code, set()).add(d.path)
    found = [
        warning(
            config_rel,
            Code.UNUSED_SUPPRESSION,
            f"diagnostics: {code}: {level} suppresses nothing: no {code} in this build; remove the setting",
            *written[("diagnostics", code)],
        )
        for code, level in policy.codes
        if _lowers(code, level) and ("diagnostics", code) in written and code not in paths
    ]
    for pattern, levels in policy.paths:
        at = written.get(("diagnostics", "per_path", pattern), (1, 1))
        if ".." in pattern.split("/"):
            why = "can never match: a diagnostic's path is relative to the project root and never holds '..'"
            found.append(
                warning(config_rel, Code.UNUSED_SUPPRESSION, f"diagnostics.per_path: {pattern!r} {why}", *at)
            )
            continue
        match = _matcher(pattern)
        idle = [f"{c}: {lv}" for c, lv in levels if _lowers(c, lv) and not any(map(match, paths.get(c, ())))]
        if idle:
            message = (
                f"diagnostics.per_path: {pattern!r} suppresses nothing in this build ({', '.join(idle)}); "
                "its patterns match paths relative to the project root"
            )
            found.append(warning(config_rel, Code.UNUSED_SUPPRESSION, message, *at))
    return found


# Settings never said to be idle: SKC107's own (how a project keeps a setting on purpose), and a
# code that depends on the machine: an optional source missing is said where the tier is absent (a
# CI runner without `~/.agent/skills`), so its setting meets nothing on a machine that has it.
_NEVER_IDLE = frozenset({Code.UNUSED_SUPPRESSION, Code.OPTIONAL_SOURCE_MISSING})


def _lowers(code: str, level: str) -> bool:
    return level != "error" and code not in _NEVER_IDLE


@functools.cache
def _matcher(pattern: str) -> Callable[[str], bool]:
    from ..names import gitignore

    return gitignore.matcher(pattern)


# `# skillc: ignore[SKC206, SKC216]` on a line of its own in the frontmatter (a YAML comment:
# every other harness skips it, as Python tools skip a noqa or type-ignore comment).
_INLINE = re.compile(rb"^[ \t]*#[ \t]*skillc:[ \t]*ignore\[([^\]\n]*)\][ \t]*\r?$", re.MULTILINE)


def inline_ignores(skill_md: bytes) -> list[tuple[str, int, int]]:
    """(code, line, column) of each code an inline comment in the frontmatter names."""
    end = _frontmatter_end(skill_md)
    found = []
    for m in _INLINE.finditer(skill_md, 0, end):
        line = skill_md.count(b"\n", 0, m.start()) + 1
        start = m.start(1)
        for part in m.group(1).split(b","):
            code = part.strip().decode("utf-8", "replace")
            if code:
                col = start - (skill_md.rfind(b"\n", 0, start) + 1) + 1
                found.append((code, line, col + len(part) - len(part.lstrip())))
            start += len(part) + 1
    return found


def _frontmatter_end(data: bytes) -> int:
    if not data.removeprefix(b"\xef\xbb\xbf").startswith(b"---"):  # a BOM, as parse.decode allows
        return 0
    closing = re.search(rb"\n(?:---|\.\.\.)[ \t]*\r?(?:\n|$)", data)
    return closing.start() if closing else 0


def from_config(table: Mapping[str, Any], ignore: Iterable[str]) -> Policy:
    """The Policy of a checked `diagnostics:` table with --ignore on top."""
    codes = {k: v for k, v in table.items() if k != "per_path"}
    codes.update(dict.fromkeys(ignore, "ignore"))
    paths = tuple(
        (pattern, tuple(sorted(levels.items()))) for pattern, levels in (table.get("per_path") or {}).items()
    )
    return Policy(tuple(sorted(codes.items())), paths)


def apply_policy(
    diags: Iterable[Diagnostic],
    severities: Mapping[str, str],
    strict: bool,
    paths: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (),
) -> tuple[Diagnostic, ...]:
    """Per-code and per-path levels (`diagnostics:`, `--ignore`), then `--strict` promotes every warning left.

    Any code may be raised to an error. Only spec-conformance codes (codes.CONFORMANCE) may be
    lowered to a warning or to nothing; an integrity error stays an error, since the output would be
    wrong (config.py refuses such a setting where it is written, so it never gets here silently).
    """
    # the marks of what a setting ignored are read by now (policy.unused) and never reported
    kept = [
        d
        for d in Policy(tuple(severities.items()), paths).apply(diags)
        if d.severity is not Severity.SUPPRESSED
    ]
    if strict:
        kept = [Diagnostic(d.path, d.line, d.col, Severity.ERROR, d.code, d.message) for d in kept]
    return tuple(kept)
