"""Graded validation: what each selected harness does with a skill that has an Issue, as one suffix.

The verdicts live in each harness's module (`VERDICTS`, each with its golden cited); this module
only gathers them for the names of `targets:` and says them the way every diagnostic does:
`(claude-code: loads; codex: skips)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from .model import Issue, Verdict, Verdicts


@cache
def _tables() -> dict[str, Verdicts]:
    """Each harness's verdicts, by its name in `targets:`. The harnesses' modules are imported when
    a target is selected: every skill check asks, and most builds select none."""
    from . import claude_code, codex, gemini, opencode

    return {
        "claude-code": claude_code.VERDICTS,
        "codex": codex.VERDICTS,
        "gemini": gemini.VERDICTS,
        "opencode": opencode.VERDICTS,
    }


def __getattr__(name: str) -> Any:
    if name == "TABLES":
        return _tables()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def verdicts(issue: Issue, targets: Sequence[str]) -> tuple[tuple[str, Verdict], ...]:
    """(target, verdict) for each selected target, in the config's order."""
    if not targets:
        return ()
    tables = _tables()
    return tuple((name, tables[name][issue]) for name in targets if name in tables)


def suffix(issue: Issue, targets: Sequence[str]) -> str:
    """` (codex: loads; claude-code: skips)`, or "" when no target is selected."""
    found = verdicts(issue, targets)
    if not found:
        return ""
    return " (" + "; ".join(f"{name}: {verdict.value}" for name, verdict in found) + ")"


def tolerated(issue: Issue, targets: Sequence[str]) -> bool:
    """Every selected target loads the skill anyway (False when none is selected: nothing to go by)."""
    found = verdicts(issue, targets)
    return bool(found) and all(verdict.tolerates for _, verdict in found)


def any_verdict(issue: Issue, targets: Sequence[str], *wanted: Verdict) -> bool:
    return any(verdict in wanted for _, verdict in verdicts(issue, targets))
