"""Gemini CLI's rules against its recorded goldens (tests/harness/golden/gemini@*)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.targets import gemini
from skillc.targets.model import Skill

ROOTS = (".gemini/skills", ".agents/skills")


def builtins() -> list[Skill]:
    """The two built-in skills as the golden shows them (their text is Gemini CLI's, not copied here)."""
    text = golden("gemini", "discovery")["text"]
    found = []
    for block in text.split("<skill>\n")[1:]:
        if "/bundle/builtin/" not in block:
            continue
        name = block.split("<name>")[1].split("</name>")[0]
        description = block.split("<description>")[1].split("</description>")[0]
        location = block.split("<location>")[1].split("</location>")[0]
        found.append(
            Skill(folder="", name=name, description=description, root=location.removesuffix("/SKILL.md"))
        )
    return found


def roots_of(fixture: str, tmp_path: Path) -> list[list[Skill]]:
    return [
        [replace(s, root=f"<project>/{root}") for s in fixture_skills(fixture, root, tmp_path / str(i))]
        for i, root in enumerate(ROOTS)
    ]


@pytest.mark.parametrize("fixture", ["discovery", "fields", "many", "roots", "shadowing"])
def test_prompt_listing_equals_the_recorded_text(fixture: str, tmp_path: Path) -> None:
    skills = roots_of(fixture, tmp_path)
    if fixture not in ("roots", "shadowing"):
        skills = skills[:1]  # these fixtures write only the harness's first root
    assert gemini.listing(skills, builtins=builtins()).text == golden("gemini", fixture)["text"]


def test_settings_disabled_hides_the_skill_from_the_prompt(tmp_path: Path) -> None:
    listing = gemini.listing(roots_of("policy", tmp_path)[:1], ["settings-off"], builtins())
    assert listing.text == golden("gemini", "policy")["text"]
    assert [e.name for e in listing.entries if not e.listed] == ["settings-off"]
