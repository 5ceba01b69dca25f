"""opencode's listing rules against its recorded goldens (tests/harness/golden/opencode@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.dataclass import replace
from skillc.targets import opencode
from skillc.targets.model import Skill, Status

ROOT = "<project>/.opencode/skills"


def builtins() -> list[Skill]:
    return [opencode.BUILTIN]


def test_the_builtin_is_the_one_the_cli_lists() -> None:
    skill = next(s for s in golden("opencode", "discovery")["skills"] if s["location"] == "<built-in>")
    assert (opencode.BUILTIN.name, opencode.BUILTIN.description) == (skill["name"], skill["description"])
    assert opencode.listing([], builtins()).builtins == ("customize-opencode",)


def skills_of(fixture: str, tmp_path: Path) -> list[Skill]:
    return [replace(s, root=ROOT) for s in fixture_skills(fixture, ".opencode/skills", tmp_path)]


@pytest.mark.parametrize("fixture", ["discovery", "fields", "many", "names"])
def test_listing_equals_the_recorded_text(fixture: str, tmp_path: Path) -> None:
    listing = opencode.listing(skills_of(fixture, tmp_path), builtins())
    assert listing.text == golden("opencode", fixture)["text"]


def test_project_and_agent_permissions_hide_what_they_deny(tmp_path: Path) -> None:
    skills = skills_of("policy", tmp_path)
    project = {"denied-top": "deny"}
    recorded = golden("opencode", "policy")
    assert opencode.listing(skills, builtins(), [project]).text == recorded["text"]
    persona = {"*": "deny", "allowed": "allow"}
    assert opencode.listing(skills, builtins(), [project, persona]).text == recorded["agent_text"]["persona"]


def test_a_skill_without_description_is_discovered_but_not_listed(tmp_path: Path) -> None:
    entries = {e.skill.folder: e for e in opencode.listing(skills_of("fields", tmp_path)).entries}
    assert entries["no-desc"].status is Status.NOT_LISTED
    assert entries["no-name"].status is Status.SKIPPED
    assert entries["empty-desc"].listed
