"""Listing injection: text a skill controls that a harness's listing would read as markup, so as
entries or structure of its own, and what `skillc export` does about it.

Each harness module says which of a skill's texts its listing prints as they are (`RAW`) and
what reads as markup there (`MARKUP`), from its golden `injection` (docs/targets.md). Claude Code
2.1.330 has none: it makes every line break of the description and of when_to_use one space and
escapes < and >. A description is escaped (XML text: &, <, >), which its listing then shows as
text; a name or a folder is the skill's identity (what the model and the user call it, what
permission rules match, where its files are), so a skill whose name or folder would be read as
markup is left out of that harness's export instead. The build reports each (SKC220), and
`catalog`, `explain` and `diff --target` show it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..dataclass import dataclass
from ..format.escape import escape_text
from . import claude_code, codex, gemini, opencode

# Per harness: the texts its listing prints as they are, and what reads as markup in them.
_RULES: dict[str, tuple[tuple[str, ...], re.Pattern[str] | None]] = {
    "claude-code": (claude_code.RAW, None),
    "codex": (codex.RAW, codex.MARKUP),
    "gemini": (gemini.RAW, gemini.MARKUP),
    "opencode": (opencode.RAW, opencode.MARKUP),
}
ESCAPED = "escaped"
LEFT_OUT = "left out"


@dataclass(frozen=True)
class Finding:
    """One text of a skill that `target`'s listing reads as markup, and the export's remedy."""

    target: str
    field: str  # "name", "description" or "folder"
    sample: str  # the markup found, as written
    remedy: str  # ESCAPED or LEFT_OUT

    def said(self) -> str:
        what = "its folder's name" if self.field == "folder" else self.field
        return f"{what} holds {self.sample!r}, markup that {self.target}'s listing prints as it is"


def findings(
    targets: Sequence[str], name: str | None, description: str | None, folder: str
) -> tuple[Finding, ...]:
    """What each of `targets` would read as markup in the skill's listing entry (`folder`: the
    command, as a path below the harness's root)."""
    texts = {"name": name or "", "description": description or "", "folder": folder}
    found = []
    for target in targets:
        raw, markup = _RULES.get(target, ((), None))
        for field in raw:
            hit = markup.search(texts[field]) if markup else None
            if hit:
                remedy = ESCAPED if field == "description" else LEFT_OUT
                found.append(Finding(target, field, _tag(texts[field], hit.start()), remedy))
    return tuple(found)


def _tag(text: str, start: int) -> str:
    """The tag that starts at `start`, up to its `>` (at most 40 characters), for the message."""
    end = text.find(">", start, start + 40)
    return text[start : end + 1] if end >= 0 else text[start : start + 40]


def neutral_description(target: str, description: str) -> str:
    """The description an export for `target` writes: escaped where that listing reads markup."""
    raw, markup = _RULES.get(target, ((), None))
    if "description" in raw and markup and markup.search(description):
        return escape_text(description)
    return description
