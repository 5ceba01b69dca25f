"""A Review printed: text for a terminal, markdown for a pull request comment, json for tools."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..dataclass import asdict
from ..diagnostics import printable
from .changes import Change, PersonaSummary, Review


def _in(personas: Sequence[str]) -> str:
    if not personas:
        return ""
    shown = ", ".join(personas[:8]) + (", …" if len(personas) > 8 else "")
    return f" (in {len(personas)} persona{'s' if len(personas) != 1 else ''}: {shown})"


def _headline(c: Change) -> str:
    mark = "[capability] " if c.capability else ""
    if c.kind == "catalog":
        return f"{mark}catalog changed{_in(c.personas)}"
    if c.kind == "body":
        return f"{mark}{c.where}: resolved body of {c.subject!r} changed{_in(c.personas)}"
    if c.kind == "skill" and c.field == "skill":
        return f"{mark}{c.where}: skill {c.subject!r} {c.new or c.old}"
    if c.kind == "persona" and c.field == "persona":
        return f"{mark}persona {c.subject!r} {c.new or c.old}"
    who = f"persona {c.subject!r}" if c.kind == "persona" else f"{c.where} ({c.subject})"
    what = "audit: " + c.field if c.kind == "audit" else c.field
    return f"{mark}{who}: {what}: {c.old if c.old is not None else '(none)'} -> {c.new if c.new is not None else '(none)'}{_in(c.personas)}"


def render_text(review: Review) -> str:
    if not review.changes:
        return ""
    lines: list[str] = []
    for c in review.changes:
        lines.append(printable(_headline(c)))
        lines.extend(f"    {printable(line)}" for line in c.diff)
    return "\n".join(lines) + "\n"


def render_markdown(review: Review) -> str:
    if not review.changes:
        return "## skillc review\n\nNo change in what any persona sees or may do.\n"
    caps = review.capability_changes
    out = ["## skillc review", ""]
    out.append(
        f"**{len(caps)} capability change{'s' if len(caps) != 1 else ''}**"
        if caps
        else "No capability change."
    )
    out += [f"- {_md(_headline(c).removeprefix('[capability] '))}" for c in caps]
    out += [
        "",
        "### Catalogs",
        "",
        "| persona | catalog chars | budget headroom | added | removed | newly cut |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    out += [_summary_row(s) for s in review.personas if _summary_changed(s)]
    body = [printable(line) for c in review.changes for line in (_headline(c), *c.diff)]
    fence = "`" * max(3, 1 + max((len(run) for line in body for run in re.findall(r"`+", line)), default=0))
    out += ["", f"<details><summary>All {len(review.changes)} changes</summary>", "", fence + "diff"]
    out += [*body, fence, "", "</details>", ""]
    return "\n".join(out)


def _summary_changed(s: PersonaSummary) -> bool:
    return s.chars[0] != s.chars[1] or bool(s.added or s.removed or s.newly_cut)


def _summary_row(s: PersonaSummary) -> str:
    def pair(values: tuple[int | None, int | None]) -> str:
        return " -> ".join("—" if v is None else str(v) for v in values)

    names = [", ".join(_code(c) for c in group) or "—" for group in (s.added, s.removed, s.newly_cut)]
    return (
        f"| {_md(s.persona)} | {pair(s.chars)} | {pair(s.headroom)} | {names[0]} | {names[1]} | {names[2]} |"
    )


# The characters that start markup anywhere in a list item's text: code spans, emphasis, links and
# images (`[`; `!` and `(` mean nothing without it), GFM strikethrough and table pipes, and the
# escape itself. `\` escapes each (CommonMark 2.4); `<` and `&` become entities instead.
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")


def _md(text: str) -> str:
    """Skill-controlled text as literal Markdown: no emphasis, link, code span or table cell break,
    and no raw HTML (`<`, `&` as entities: an entity is not a backslash escape)."""
    text = printable(text).replace("&", "&amp;").replace("<", "&lt;")
    return _MARKDOWN.sub(r"\\\1", text)


def _code(text: str) -> str:
    """A code span holding text as it is: its fence is one backtick longer than the longest run
    inside (CommonMark 6.1), padded with spaces when text starts or ends with a backtick; `|` is
    escaped because GFM splits table cells before it reads code spans."""
    text = printable(text).replace("|", "\\|")
    fence = "`" * (1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_json(review: Review) -> str:
    doc = {
        "capability_changes": sum(c.capability for c in review.changes),
        "changes": [_jsonable(c) for c in review.changes],
        "personas": [asdict(s) for s in review.personas],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _jsonable(c: Change) -> dict[str, Any]:
    data = asdict(c)
    data["personas"] = list(c.personas)
    data["diff"] = list(c.diff)
    return data
