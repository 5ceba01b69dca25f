"""Audit: what every skill of a build can do (tool grants, dynamic context, hooks, executables,
hidden text), read through the reader's public API."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .. import reader
from ..dataclass import asdict, dataclass, field
from ..diagnostics import printable
from ..format.escape import hidden

# Claude Code runs `!`command`` inline and ```! fenced blocks when it loads a skill (dynamic context).
_INLINE_INJECTION = re.compile(r"(?<![\w`])!`([^`\n]+)`")
_FENCED_INJECTION = re.compile(r"^[ \t]*(```|~~~)!.*$", re.MULTILINE)


@dataclass(frozen=True)
class Finding:
    """One thing a skill can do, as `skillc audit` lists it."""

    command: str
    kind: str  # allowed-tools | injection | hooks | executable | hidden-unicode
    detail: str


def audit(dist: reader.Dist) -> tuple[Finding, ...]:
    """What every skill of a build can do: grants, dynamic context, hooks, executables, hidden text."""
    found: list[Finding] = []
    for command in dist.all_commands():
        meta = dist.skill_meta(command)
        found.extend(_skill_findings(meta, dist.read_object(meta.body_sha256).decode("utf-8", "replace")))
    return tuple(found)


def _skill_findings(meta: reader.SkillMeta, body: str) -> list[Finding]:
    c = meta.command
    fm = meta.frontmatter
    found = [Finding(c, "allowed-tools", str(tool)) for tool in _as_list(fm.get("allowed-tools"))]
    found += [Finding(c, "injection", f"!`{m.group(1)}`") for m in _INLINE_INJECTION.finditer(body)]
    found += [Finding(c, "injection", m.group(0).strip()) for m in _FENCED_INJECTION.finditer(body)]
    if fm.get("hooks"):
        found.append(Finding(c, "hooks", json.dumps(fm["hooks"], sort_keys=True, ensure_ascii=False)))
    found += [Finding(c, "executable", r.path) for r in meta.resources if r.executable]
    found += [Finding(c, "hidden-unicode", h) for h in _hidden_unicode(body)]
    return found


def _hidden_unicode(text: str) -> list[str]:
    """Bidi controls, zero-width and other invisible format characters: text a reviewer cannot see."""
    hits: dict[str, int] = {}
    for ch in text:
        if hidden(ch) and ch != "\ufeff":  # a BOM is how some editors start a file
            hits[ch] = hits.get(ch, 0) + 1
    return [f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED')} x{n}" for ch, n in sorted(hits.items())]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


@dataclass(frozen=True)
class AuditReport:
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    def text(self) -> str:
        # printable: a bidi override in a skill's text must not reorder the line that reports it.
        return "".join(printable(f"{f.command}: {f.kind}: {f.detail}") + "\n" for f in self.findings)

    def json(self) -> str:
        return json.dumps([asdict(f) for f in self.findings], indent=2, ensure_ascii=False) + "\n"
