"""Gemini CLI 0.61.0: which project skills it discovers and lists for the model, and how.

Evidence: tests/harness/golden/gemini@0.61.0/ (discovery, fields, roots, duplicates, shadowing,
policy, many). Source: @google/gemini-cli@0.61.0 bundle/chunk-5FZXKDXH.js: `loadSkillsFromDir`
(glob "SKILL.md" and "*/SKILL.md"), `parseFrontmatter` (name and description must be strings),
`addSkillsWithPrecedence` (a Map by name: a later skill replaces an earlier one in its place),
`discoverSkills` (built-ins, then .gemini/skills, then .agents/skills), `renderAgentSkills`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from .model import Entry, Issue, Listing, Skill, Status, Verdict, Verdicts

# What it does with each trait graded validation reports (docs/targets.md "Field reading").
VERDICTS: Verdicts = {
    Issue.UNQUOTED_COLON: Verdict.LOADS,  # golden fields: colon; source `parseSimpleFrontmatter`
    Issue.FLAG_SPELLING: Verdict.LOADS,  # golden fields: every dmi-*/ui-* listed (the flags are ignored)
    Issue.NO_DESCRIPTION: Verdict.SKIPS,  # golden fields: no-desc absent; source `parseFrontmatter`
    Issue.EMPTY_DESCRIPTION: Verdict.LOADS,  # golden fields: empty-desc listed, shown empty
    Issue.NO_NAME: Verdict.SKIPS,  # golden fields: no-name absent
    Issue.NAME_MISMATCH: Verdict.LOADS,  # golden discovery: listed as label-y
    Issue.LONG_DESCRIPTION: Verdict.LOADS,  # golden fields: long1600 whole
    Issue.LONG_COMPATIBILITY: Verdict.LOADS,  # not a field it reads
    Issue.LINK_OUTSIDE: Verdict.LOADS,  # golden discovery: link-outside
    Issue.MODEL_INVOCATION_OFF: Verdict.IGNORES,  # golden fields: manual listed
    Issue.SAME_NAME: Verdict.SKIPS,  # golden duplicates: a later same-name skill replaces the earlier (a Map by name)
    Issue.NAME_PATTERN: Verdict.LOADS,  # golden names: every odd name listed (`:\\/<>*?\"|` become -)
    Issue.NAME_LENGTH: Verdict.LOADS,  # golden names: long65 listed
    Issue.HIDDEN_FOLDER: Verdict.SKIPS,  # golden discovery: .hidden1 absent
}
INTRO = (
    "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill"
    " and receive its detailed instructions, call the `activate_skill` tool with the skill's name."
)
_UNSAFE = re.compile(r'[:\\/<>*?"|]')  # loadSkillFromFile: replaced by "-" in names
_IGNORED = frozenset({"node_modules", ".git"})  # loadSkillsFromDir's glob `ignore`
# Listing injection (targets/injection.py): `renderAgentSkills` prints the description and the
# location raw in its XML-like block, so a tag there forges entries (golden injection: desc-xml
# lists `evil-xml`); names lose < and > (`_UNSAFE`).
RAW = ("description", "folder")
MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?]")
# Where the built-ins' locations start in `text`: the CLI prints the absolute path of its own
# install (`<its package>/bundle/builtin/<name>/SKILL.md`), which a prediction cannot know.
INSTALL = "<gemini-cli>"
# The two skills 0.61.0 always adds to the model's list, as its package's bundle/builtin/<name>/SKILL.md
# declares them (evidence: golden discovery.json `text`; `gemini skills list` shows them only with --all).
# A test holds these equal to the golden. They move with the pinned version.
BUILTINS = (
    (
        "antigravity-support",
        "Use when the user asks questions, seeks help, or requests instructions related to installing,"
        " setting up, or migrating to Antigravity CLI. This skill provides the latest up to date details,"
        " requirements, and commands sourced from the official Antigravity CLI documentation.",
    ),
    (
        "skill-creator",
        "Guide for creating effective skills. This skill should be used when users want to create a new"
        " skill (or update an existing skill) that extends Gemini CLI's capabilities with specialized"
        " knowledge, workflows, or tool integrations.",
    ),
)


def builtins(install: str = INSTALL) -> tuple[Skill, ...]:
    """The built-in skills as Skills, located below `install` (the CLI package's folder)."""
    return tuple(
        Skill(folder="", name=name, description=text, root=f"{install}/bundle/builtin/{name}")
        for name, text in BUILTINS
    )


def listing(
    roots: Sequence[Sequence[Skill]], disabled: Collection[str] = (), builtins: Sequence[Skill] = ()
) -> Listing:
    """`roots` in the CLI's order (.gemini/skills, then .agents/skills); `disabled` is skills.disabled.

    Each root's skills must come in the order the CLI globs them, which is the filesystem's
    directory order: of two same-name skills in one root the later wins. The prompt lists skills
    in that same order; `text` sorts them by name, as the goldens do (the real order is not portable).
    """
    table: dict[str, Skill] = {name(b): b for b in builtins}
    entries: list[Entry] = []
    for skills in roots:
        for skill in skills:
            reason = _skip_reason(skill)
            if reason:
                entries.append(_entry(skill, Status.SKIPPED, reason))
                continue
            old = table.get(name(skill))
            if old is not None and old not in builtins:
                entries.append(_entry(old, Status.SKIPPED, f"replaced by {skill.root}/{skill.folder}"))
            table[name(skill)] = skill
    off = {n.lower() for n in disabled}
    shown = [s for s in table.values() if name(s).lower() not in off]
    entries += [_entry(s, Status.NOT_LISTED, "skills.disabled") for s in table.values() if s not in shown]
    entries += [_entry(s, Status.FULL, "") for s in shown if s not in builtins]
    blocks = [_block(s) for s in sorted(shown, key=name)]
    text = "\n".join([INTRO, "", "<available_skills>", *blocks, "</available_skills>"])
    return Listing(text, tuple(entries), tuple(sorted(name(b) for b in builtins if b in shown)))


def name(skill: Skill) -> str:
    """The name it keys, lists and disables a skill by: `name` with `:\\/<>*?"|` made `-`
    (`loadSkillFromFile`; golden export-odd-*: the folder `co:lon` is the skill `co-lon`)."""
    return _UNSAFE.sub("-", skill.name or "")


def _skip_reason(skill: Skill) -> str:
    if "/" in skill.folder:
        return "deeper than <root>/<dir>/SKILL.md"
    if skill.folder.startswith("."):
        return "in a hidden folder"
    if skill.folder in _IGNORED:
        return f"its glob ignores **/{skill.folder}/**"
    if not isinstance(skill.name, str):
        return "no name"
    if not isinstance(skill.description, str):
        return "no description"
    return ""


def _entry(skill: Skill, status: Status, reason: str) -> Entry:
    listed = status is Status.FULL
    return Entry(
        skill, name(skill), name(skill), listed, skill.description if listed else None, status, reason
    )


def _block(skill: Skill) -> str:
    location = f"{skill.root}/{skill.folder}/SKILL.md" if skill.folder else f"{skill.root}/SKILL.md"
    return (
        f"  <skill>\n    <name>{name(skill)}</name>\n    <description>{skill.description}</description>\n"
        f"    <location>{location}</location>\n  </skill>"
    )
