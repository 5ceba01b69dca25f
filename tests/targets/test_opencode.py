"""opencode's listing rules against its recorded goldens (tests/harness/golden/opencode@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
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


_NAMES = st.text(st.sampled_from("ab*?7 \\/~$H"), min_size=1, max_size=5)


@settings(max_examples=300)
@given(st.lists(st.dictionaries(_NAMES, st.sampled_from(["allow", "deny"]), max_size=6), max_size=3), _NAMES)
def test_the_matcher_decides_as_the_last_matching_rule(rules: list[dict[str, str]], name: str) -> None:
    naive = None
    for rule in rules:
        for pattern, action in opencode.entries(rule):
            if opencode.match(name, pattern):
                naive = action
    assert opencode.Matcher(*rules).decision(name) == naive


@settings(max_examples=200)
@given(st.lists(st.tuples(_NAMES, st.booleans()), max_size=8, unique_by=lambda t: t[0]))
@example([("7", True), ("7 *", False)])  # one key for both: the allow stays, `7 *` is left out
def test_the_rules_an_export_writes_place_every_skill_they_can(skills: list[tuple[str, bool]]) -> None:
    denied, agent = opencode.rules(skills)
    rules = opencode.Matcher(dict(denied), dict(agent))
    plain = [(n, model) for n, model in skills if "*" not in n and "?" not in n and not opencode._home(n)]
    for name, model in plain:  # names without wildcards are always placed (globs may not be: choose.py)
        if not any(opencode.match(name, k) for k, _ in agent if k not in ("*", opencode.exact(name))):
            assert (rules.decision(name) != "deny") == model, (name, agent)
