"""opencode's listing rules against its recorded goldens (tests/harness/golden/opencode@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.dataclass import replace
from skillc.targets import opencode
from skillc.targets.model import Skill, Status

ROOT = "<project>/.opencode/skills"


def shown(text: str) -> str:
    """The listing as the goldens normalise it: the project folder as `<project>` (the CLI
    escapes locations, so ROOT's placeholder comes out escaped)."""
    return text.replace("&lt;project&gt;", "<project>")


def builtins() -> list[Skill]:
    return [opencode.BUILTIN]


def test_the_builtin_is_the_one_the_cli_lists() -> None:
    skill = next(s for s in golden("opencode", "discovery")["skills"] if s["location"] == "<built-in>")
    assert (opencode.BUILTIN.name, opencode.BUILTIN.description) == (skill["name"], skill["description"])
    assert opencode.listing([], builtins()).builtins == ("customize-opencode",)


def skills_of(fixture: str, tmp_path: Path) -> list[Skill]:
    return [replace(s, root=ROOT) for s in fixture_skills(fixture, ".opencode/skills", tmp_path)]


@pytest.mark.parametrize("fixture", ["discovery", "fields", "many", "names", "folders", "injection"])
def test_listing_equals_the_recorded_text(fixture: str, tmp_path: Path) -> None:
    listing = opencode.listing(skills_of(fixture, tmp_path), builtins())
    assert shown(listing.text) == golden("opencode", fixture)["text"]


def test_project_and_agent_permissions_hide_what_they_deny(tmp_path: Path) -> None:
    skills = skills_of("policy", tmp_path)
    project = {"denied-top": "deny"}
    recorded = golden("opencode", "policy")
    assert shown(opencode.listing(skills, builtins(), [project]).text) == recorded["text"]
    persona = {"*": "deny", "allowed": "allow"}
    agent = opencode.listing(skills, builtins(), [project, persona]).text
    assert shown(agent) == recorded["agent_text"]["persona"]


def test_a_skill_without_description_is_discovered_but_not_listed(tmp_path: Path) -> None:
    entries = {e.skill.folder: e for e in opencode.listing(skills_of("fields", tmp_path)).entries}
    assert entries["no-desc"].status is Status.NOT_LISTED
    assert entries["no-name"].status is Status.SKIPPED
    assert entries["empty-desc"].listed


def test_a_pattern_matches_as_its_wildcard_does() -> None:
    assert opencode.match("ab", "a*") and opencode.match("a.b", "a?b") and not opencode.match("axb", "a.b")
    assert opencode.match("br[ack]", "br[ack]") and not opencode.match("b", "[abc]")  # no classes
    assert (
        opencode.match("123", "123 *")
        and opencode.match("123 x", "123 *")
        and not opencode.match("1234", "123 *")
    )
    assert not opencode.match("~", "~") and not opencode.match("$HOMEx", "$HOMEx")  # expanded to a folder


def test_array_index_keys_come_first_as_javascript_orders_them() -> None:
    rules = {"*": "deny", "7": "allow", "a": "allow"}
    assert opencode.entries(rules) == [("7", "allow"), ("*", "deny"), ("a", "allow")]
    assert not opencode.allowed("7", rules) and opencode.allowed("a", rules)
    assert opencode.allowed("7", {"*": "deny", opencode.exact("7"): "allow"})
