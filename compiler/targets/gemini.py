"""Gemini CLI 0.61.0: which project skills `gemini skills list` shows.

Evidence: tests/harness/golden/gemini@0.61.0/ (discovery, fields, roots, duplicates, shadowing, policy).
The model-visible prompt was not captured; this is the discovered set only.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .model import Entry, Listing, Skill, Status


def listing(roots: Sequence[Sequence[Skill]], disabled: Collection[str] = ()) -> Listing:
    """One entry per skill; `roots` in the CLI's order (.gemini/skills, then .agents/skills).

    Within a root the first folder (in name order) keeps a name; a later root replaces an earlier
    root's skill of the same name (golden duplicates, shadowing). `disabled` is the project
    settings' skills.disabled: still listed, marked disabled (golden policy).
    """
    winners: dict[str, Skill] = {}
    entries: list[Entry] = []
    for skills in roots:
        first: dict[str, Skill] = {}
        for skill in sorted(skills, key=lambda s: s.folder):
            reason = _skip_reason(skill)
            if reason or (skill.name or "") in first:
                entries.append(
                    Entry(
                        skill,
                        skill.name or "",
                        skill.name or "",
                        False,
                        None,
                        Status.SKIPPED,
                        reason or "same name earlier in this root",
                    )
                )
                continue
            first[skill.name or ""] = skill
        for name, skill in first.items():
            if name in winners:  # a later root wins over an earlier one
                entries.append(
                    Entry(winners[name], name, name, False, None, Status.SKIPPED, f"shadowed by {skill.root}")
                )
            winners[name] = skill
    for name, skill in sorted(winners.items()):
        status = Status.NOT_LISTED if name in disabled else Status.FULL
        entries.append(
            Entry(
                skill,
                name,
                name,
                True,
                skill.description,
                status,
                "skills.disabled" if name in disabled else "",
            )
        )
    text = "\n".join(
        f"{e.name} [{'Disabled' if e.status is Status.NOT_LISTED else 'Enabled'}]"
        for e in entries
        if e.listed
    )
    return Listing(text, tuple(entries))


def _skip_reason(skill: Skill) -> str:
    if skill.folder.count("/") > 0:
        return "deeper than <root>/<dir>/SKILL.md"
    if skill.folder.startswith("."):
        return "in a hidden folder"
    if not skill.name:
        return "no name"
    if skill.description is None:
        return "no description"
    return ""
