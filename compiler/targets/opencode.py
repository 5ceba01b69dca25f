"""opencode 1.18.33: which project skills it lists for the model, and how.

Evidence: tests/harness/golden/opencode@1.18.33/ (discovery, fields, roots, policy).
Same-name skills are not modelled: opencode picks one at random (docs/targets.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from .model import Entry, Issue, Listing, Skill, Status, Verdict, Verdicts

# What it does with each trait graded validation reports (docs/targets.md "Field reading").
VERDICTS: Verdicts = {
    Issue.UNQUOTED_COLON: Verdict.LOADS,  # golden fields: colon
    Issue.FLAG_SPELLING: Verdict.LOADS,  # golden fields: every dmi-*/ui-* listed (the flags are ignored)
    Issue.NO_DESCRIPTION: Verdict.UNLISTED,  # golden fields: no-desc in `debug skill`, not in the listing
    Issue.EMPTY_DESCRIPTION: Verdict.LOADS,  # golden fields: empty-desc, `<description></description>`
    Issue.NO_NAME: Verdict.SKIPS,  # golden fields: no-name absent
    Issue.NAME_MISMATCH: Verdict.LOADS,  # golden discovery: listed as label-y
    Issue.LONG_DESCRIPTION: Verdict.LOADS,  # golden fields: long1600 whole, no cap
    Issue.LONG_COMPATIBILITY: Verdict.LOADS,  # not a field it reads
    Issue.LINK_OUTSIDE: Verdict.LOADS,  # golden discovery: link-outside
    Issue.MODEL_INVOCATION_OFF: Verdict.IGNORES,  # golden fields: manual listed
    Issue.SAME_NAME: Verdict.SKIPS,  # docs/targets.md: one of the copies, picked at random, is loaded
    Issue.NAME_PATTERN: Verdict.LOADS,  # golden names: every odd name listed
    Issue.NAME_LENGTH: Verdict.LOADS,  # golden names: long65 listed
    Issue.HIDDEN_FOLDER: Verdict.SKIPS,  # golden discovery: hidden folders skipped
}
INTRO = (
    "Skills provide specialized instructions and workflows for specific tasks.\n"
    "Use the skill tool to load a skill when a task matches its description."
)
# The skill 1.18.33 always lists (evidence: golden discovery.json, location `<built-in>`, printed
# escaped in the prompt). A test holds it equal to the golden; it moves with the pinned version.
BUILTIN = Skill(
    folder="",
    name="customize-opencode",
    description="Use ONLY when the user is editing or creating opencode's own configuration: opencode.json,"
    " opencode.jsonc, files under .opencode/, or files under ~/.config/opencode/. Also use when creating or"
    " fixing opencode agents, subagents, skills, plugins, MCP servers, or permission rules. Do not use for"
    " the user's own application code, or for any project that is not configuring opencode itself.",
    root="&lt;built-in&gt;",
)
Permission = Mapping[str, str]  # permission.skill: {pattern: "allow" | "deny" | "ask"}


def allowed(name: str, *rules: Permission) -> bool:
    """The last matching pattern decides, and later rule sets (an agent's) override earlier ones."""
    action = "allow"
    for rule in rules:
        for pattern, value in rule.items():
            if fnmatchcase(name, pattern):
                action = value
    return action != "deny"


def listing(
    skills: Sequence[Skill], builtins: Sequence[Skill] = (), permissions: Sequence[Permission] = ()
) -> Listing:
    """`<available_skills>` sorted by name; nothing escaped. `builtins` are listed like the rest."""
    entries = [_entry(s, permissions) for s in skills]
    shown = [e for e in entries if e.listed] + [_entry(b, permissions) for b in builtins]
    # By name without regard to case (golden names: `under_score` before `Upper-Case`).
    ordered = sorted((e for e in shown if e.listed), key=lambda e: (e.name.lower(), e.name))
    blocks = [_block(e) for e in ordered]
    text = "\n".join([INTRO, "<available_skills>", *blocks, "</available_skills>"])
    shown_builtins = tuple(sorted(e.name for e in shown if e.listed and e.skill in builtins))
    return Listing(text, tuple(entries), shown_builtins)


def _entry(skill: Skill, permissions: Sequence[Permission]) -> Entry:
    name = skill.name or ""
    if any(part.startswith(".") for part in skill.folder.split("/")):
        return Entry(skill, name, name, False, None, Status.SKIPPED, "in a hidden folder")
    if not skill.name:
        return Entry(skill, name, name, False, None, Status.SKIPPED, "no name")
    if skill.description is None:
        return Entry(skill, name, name, False, None, Status.NOT_LISTED, "no description")
    if not allowed(name, *permissions):
        return Entry(skill, name, name, False, None, Status.NOT_LISTED, "permission.skill: deny")
    return Entry(skill, name, name, True, skill.description, Status.FULL)


def _block(entry: Entry) -> str:
    skill = entry.skill
    location = f"{skill.root}/{skill.folder}/SKILL.md" if skill.folder else skill.root
    return (
        f"  <skill>\n    <name>{entry.name}</name>\n    <description>{entry.description}</description>\n"
        f"    <location>{location}</location>\n  </skill>"
    )
