"""Codex's listing rules against its recorded goldens (tests/harness/golden/codex@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.dataclass import replace
from skillc.targets import codex
from skillc.targets.model import Skill, Status

ROOT = "<project>/.agents/skills"
WINDOWS = (2_000, 8_000, 20_000, 40_000, 100_000, 400_000)


def many() -> list[Skill]:
    full = golden("codex", "many-400000")["skills"]
    return [Skill(folder=s["name"], name=s["name"], description=s["description"], root=ROOT) for s in full]


@pytest.mark.parametrize("window", WINDOWS)
def test_budget_reproduces_the_recorded_listing(window: int) -> None:
    assert codex.listing(many(), [ROOT], window).text == golden("codex", f"many-{window}")["text"]


def test_round_robin_cuts_before_anything_is_dropped() -> None:
    statuses = {e.status for e in codex.listing(many(), [ROOT], 20_000).entries}
    assert statuses <= {Status.CUT, Status.DROPPED, Status.FULL} and Status.NOT_LISTED not in statuses
    omitted = [e for e in codex.listing(many(), [ROOT], 2_000).entries if not e.listed]
    assert len(omitted) == 40


def test_budget_is_two_percent_of_the_window_in_tokens_else_8000_characters() -> None:
    assert codex.budget(200_000) == codex.Budget(4_000, tokens=True)
    assert codex.budget(None) == codex.Budget(8_000, tokens=False)


def test_loader_cuts_long_descriptions_to_1021_plus_dots() -> None:
    assert codex.loaded_description("x" * 1100) == "x" * 1021 + "..."
    assert codex.loaded_description("x" * 1024) == "x" * 1024


@pytest.mark.parametrize(
    ("fixture", "window"),
    [
        ("fields", None),
        ("fields", 20_000),
        ("duplicates", None),
        ("names", None),
        ("spaces", None),
        ("discovery", None),
        ("folders", None),
        ("injection", None),
    ],
)
def test_fixture_listing_equals_the_recorded_text(fixture: str, window: int | None, tmp_path: Path) -> None:
    skills = [replace(s, root=ROOT) for s in fixture_skills(fixture, ".agents/skills", tmp_path)]
    name = fixture if window is None else f"{fixture}-{window}"
    assert codex.listing(skills, [ROOT], window).text == golden("codex", name)["text"]


def test_default_window_of_the_default_model_is_272000(tmp_path: Path) -> None:
    """Only a 5,440-token limit (2% of 272,000) reproduces the default run on `huge`."""
    skills = [replace(s, root=ROOT) for s in fixture_skills("huge", ".agents/skills", tmp_path)]
    assert codex.listing(skills, [ROOT], 272_000).text == golden("codex", "huge")["text"]


def test_policy_file_hides_and_the_caller_leaves_out_user_disabled_skills(tmp_path: Path) -> None:
    """agents/openai.yaml hides implicit-off; the user-level [[skills.config]] disables user-config-off."""
    skills = [
        replace(s, root=ROOT, allow_implicit_invocation=s.folder != "implicit-off")
        for s in fixture_skills("policy", ".agents/skills", tmp_path)
        if s.folder != "user-config-off"
    ]
    assert codex.listing(skills, [ROOT], None).text == golden("codex", "policy")["text"]


def test_a_skill_deeper_than_six_folders_or_in_a_hidden_one_is_not_found(tmp_path: Path) -> None:
    entries = codex.listing(
        [replace(s, root=ROOT) for s in fixture_skills("discovery", ".agents/skills", tmp_path)], [ROOT], None
    ).entries
    skipped = {e.skill.folder.split("/")[0] for e in entries if e.status is Status.SKIPPED}
    assert skipped == {"depth7", "depth8", ".hidden", "vis"}


def test_names_are_read_on_one_line() -> None:
    skill = Skill("plain", "two\n  lines\u2028here", "A description.")
    assert codex.name(skill) == "two lines here" and codex.name(Skill("x y", "  ", "d")) == "x y"
