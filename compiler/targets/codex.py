"""Codex 0.169.0: which project skills it lists for the model, and how.

Evidence: tests/harness/golden/codex@0.169.0/ (many-<window>, fields, roots, shadowing).
Source: openai/codex codex-rs/core-skills/src/render.rs (stored snapshot at commit 0899b7c4; its
budget rules match every golden, but 0.169.0 always prints the root-alias table, charges nothing
for it, and ends the block after the entries, without the "How to use skills" section).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..dataclass import dataclass
from .model import Entry, Issue, Listing, Skill, Status, Verdict, Verdicts

MAX_NAME = 64  # a longer name is not loaded (golden names: long65 absent)
# MAX_SCAN_DEPTH: folders below a root it enters; a SKILL.md deeper is never found (golden
# discovery: depth6 listed, depth7 not; export-odd-*: a command seven folders deep)
MAX_DEPTH = 6
# MAX_SKILLS_DIRS_PER_ROOT: the folders of one root it visits, breadth first, in the file
# system's directory order; past it the scan stops (source: loader.rs)
MAX_FOLDERS = 2_000
# `split_whitespace`: Unicode White_Space (Python's str.split also splits at \x1c-\x1f)
_WHITE = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
# Listing injection (targets/injection.py): white space is collapsed (no line of its own), nothing
# is escaped, and the listing is wrapped in <skills_instructions>: a name, description or folder
# holding that tag ends or opens the block (golden injection: desc-wrap, `</skills_instructions>`).
RAW = ("name", "description", "folder")
MARKUP = re.compile(r"<\s*/?\s*skills_instructions", re.IGNORECASE)
MAX_DESCRIPTION = 1_024  # longer descriptions become 1,021 characters + "..." when loaded
DEFAULT_CHARS = 8_000  # DEFAULT_SKILL_METADATA_CHAR_BUDGET, when no context window is known
WINDOW_PERCENT = 2  # SKILL_METADATA_CONTEXT_WINDOW_PERCENT
BYTES_PER_TOKEN = 4  # APPROX_BYTES_PER_TOKEN
# What it does with each trait graded validation reports (docs/targets.md "Field reading").
VERDICTS: Verdicts = {
    Issue.UNQUOTED_COLON: Verdict.LOADS,  # golden fields: colon
    Issue.FLAG_SPELLING: Verdict.LOADS,  # golden fields: every dmi-*/ui-* listed (the flags are ignored)
    Issue.NO_DESCRIPTION: Verdict.SKIPS,  # golden fields: no-desc absent
    Issue.EMPTY_DESCRIPTION: Verdict.SKIPS,  # golden fields: empty-desc absent
    Issue.NO_NAME: Verdict.LOADS,  # golden fields: no-name, named by its folder
    Issue.NAME_MISMATCH: Verdict.LOADS,  # golden discovery: listed as label-y
    Issue.LONG_DESCRIPTION: Verdict.CUTS,  # golden fields: long1100 -> 1,021 characters + "..."
    Issue.LONG_COMPATIBILITY: Verdict.LOADS,  # not a field it reads
    Issue.LINK_OUTSIDE: Verdict.LOADS,  # golden discovery: link-outside
    Issue.MODEL_INVOCATION_OFF: Verdict.IGNORES,  # golden fields: manual listed; agents/openai.yaml decides
    Issue.SAME_NAME: Verdict.LOADS,  # golden duplicates: `dup` listed twice; no precedence
    Issue.NAME_PATTERN: Verdict.LOADS,  # golden names: Upper-Case, under_score, two words... listed
    Issue.NAME_LENGTH: Verdict.SKIPS,  # golden names: long65 absent
    Issue.HIDDEN_FOLDER: Verdict.SKIPS,  # golden discovery: hidden folders skipped at any depth
}
INTRO = (
    "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the"
    " list of skills that can be used. Each entry includes a name, description, and a short path that can"
    " be expanded into an absolute path using the skill roots table."
)


@dataclass(frozen=True)
class Budget:
    """A limit in approximate tokens (ceil(bytes / 4) per line) or, without a window, characters."""

    limit: int
    tokens: bool

    def cost(self, text: str) -> int:
        return math.ceil(len(text.encode()) / BYTES_PER_TOKEN) if self.tokens else len(text)


def budget(window: int | None) -> Budget:
    if window is None or window <= 0:
        return Budget(DEFAULT_CHARS, tokens=False)
    return Budget(max(1, window * WINDOW_PERCENT // 100), tokens=True)


def single_line(text: str) -> str:
    """`sanitize_single_line`: runs of white space become one space, none at either end."""
    return _WHITE.sub(" ", text).strip(" ")


def loaded_description(text: str) -> str:
    """White space collapsed to single spaces (golden spaces), then the loader's cap (golden fields:
    long1100, long1600 -> 1,024 characters ending in ...)."""
    text = single_line(text)
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 3] + "..."


def name(skill: Skill) -> str:
    """`name` on one line, else the folder's name (golden fields: no-name; golden injection: a
    line break in a name is a space; loader.rs `default_skill_name`)."""
    return single_line(skill.name or "") or single_line(skill.folder.rsplit("/", 1)[-1]) or "skill"


def listing(skills: Sequence[Skill], roots: Sequence[str], window: int | None) -> Listing:
    """The <skills_instructions> block for the skills of `roots` (their order gives r0, r1...)."""
    # by name, then by path as Rust compares paths, a component at a time (`a/b` before `a-b`)
    visible = sorted((s for s in skills if _reason(s) == ""), key=lambda s: (name(s), _components(s)))
    chosen = _fit(visible, roots, budget(window))
    lines, entries = [], {}
    for skill in visible:
        entries[id(skill)] = _entry(skill, roots, chosen.get(id(skill)))
        if id(skill) in chosen:
            lines.append(_line(skill, roots, chosen[id(skill)]))
    table = [f"- `r{i}` = `{root}`" for i, root in enumerate(roots)]
    head = ["<skills_instructions>", "## Skills", INTRO, "### Skill roots", *table, "### Available skills"]
    text = "\n".join([*head, *lines, "</skills_instructions>"])
    for skill in skills:
        entries.setdefault(
            id(skill), Entry(skill, name(skill), name(skill), False, None, Status.SKIPPED, _reason(skill))
        )
    return Listing(text, tuple(entries[id(s)] for s in skills))


def _reason(skill: Skill) -> str:
    parts = skill.folder.split("/")
    if len(parts) > MAX_DEPTH:
        return f"{len(parts)} folders below the root: Codex scans {MAX_DEPTH}"
    if any(part.startswith(".") for part in parts):
        return "in a hidden folder"
    if not single_line(skill.description or ""):
        return "no description: not loaded"
    if len(name(skill)) > MAX_NAME:
        return f"name over {MAX_NAME} characters: not loaded"
    if not skill.allow_implicit_invocation:
        return "agents/openai.yaml policy.allow_implicit_invocation: false"
    return ""


def _components(skill: Skill) -> tuple[str, ...]:
    return (*skill.root.split("/"), *skill.folder.split("/"), "SKILL.md")


def _path(skill: Skill, roots: Sequence[str]) -> str:
    return f"r{list(roots).index(skill.root)}/{skill.folder}/SKILL.md"


def _line(skill: Skill, roots: Sequence[str], chars: int) -> str:
    text = loaded_description(skill.description or "")[:chars]
    path = _path(skill, roots)
    return f"- {name(skill)}: {text} (file: {path})" if text else f"- {name(skill)}: (file: {path})"


def _entry(skill: Skill, roots: Sequence[str], chars: int | None) -> Entry:
    full = loaded_description(skill.description or "")
    if chars is None:
        return Entry(
            skill, name(skill), name(skill), False, None, Status.NOT_LISTED, "over the skills budget"
        )
    shown = full[:chars]
    status = Status.FULL if chars >= len(full) else (Status.CUT if chars else Status.DROPPED)
    cut_by_loader = full != (skill.description or "")
    status = Status.CUT if status is Status.FULL and cut_by_loader else status
    return Entry(skill, name(skill), name(skill), True, shown or None, status)


def _fit(skills: Sequence[Skill], roots: Sequence[str], limit: Budget) -> dict[int, int]:
    """Characters of description per listed skill (by id): full, else round-robin, else names first fit."""
    full = {id(s): len(loaded_description(s.description or "")) for s in skills}
    cost = sum(limit.cost(_line(s, roots, full[id(s)]) + "\n") for s in skills)
    if cost <= limit.limit:
        return full
    minimum = sum(limit.cost(_line(s, roots, 0) + "\n") for s in skills)
    if minimum <= limit.limit:
        return _round_robin(skills, roots, limit, limit.limit - minimum)
    chosen, used = {}, 0
    for skill in skills:  # descriptions all dropped; skills placed first fit, in order
        line_cost = limit.cost(_line(skill, roots, 0) + "\n")
        if used + line_cost <= limit.limit:
            chosen[id(skill)], used = 0, used + line_cost
    return chosen


def _round_robin(
    skills: Sequence[Skill], roots: Sequence[str], limit: Budget, remaining: int
) -> dict[int, int]:
    """One more description character per skill per pass, while its extra cost still fits."""
    extra = {id(s): _extra_costs(s, roots, limit) for s in skills}
    chars = dict.fromkeys(extra, 0)
    changed = True
    while changed:
        changed = False
        for skill in skills:
            costs, n = extra[id(skill)], chars[id(skill)]
            if n + 1 < len(costs) and costs[n + 1] - costs[n] <= remaining:
                remaining -= costs[n + 1] - costs[n]
                chars[id(skill)] = n + 1
                changed = True
    return chars


def _extra_costs(skill: Skill, roots: Sequence[str], limit: Budget) -> list[int]:
    """Cost, above the bare line, of showing the first k characters (k = 0..len), as render.rs counts it."""
    bare = _line(skill, roots, 0)
    bare_chars, bare_bytes = len(bare) + 1, len(bare.encode()) + 1
    base = _count(limit, bare_chars, bare_bytes)
    costs, chars, size = [0], 0, 0
    for ch in loaded_description(skill.description or ""):
        chars, size = chars + 1, size + len(ch.encode())
        costs.append(_count(limit, bare_chars + chars + 1, bare_bytes + size + 1) - base)
    return costs


def _count(limit: Budget, chars: int, size: int) -> int:
    return math.ceil(size / BYTES_PER_TOKEN) if limit.tokens else chars
