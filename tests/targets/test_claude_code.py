"""Claude Code's listing rules against its recorded goldens (tests/harness/golden/claude@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.targets import claude_code
from skillc.targets.model import Skill, Status

BUDGETS = (300, 1_000, 2_000, 4_000, 8_000, 16_000)


def many() -> list[Skill]:
    full = golden("claude", "many")["skills"]
    return [Skill(folder=s["command"], name=s["command"], description=s["description"]) for s in full]


@pytest.mark.parametrize("chars", BUDGETS)
def test_greedy_first_fit_reproduces_the_recorded_listing(chars: int) -> None:
    assert claude_code.listing(many(), chars).text == golden("claude", f"many-{chars}")["text"]


@pytest.mark.parametrize("chars", (150, 250, 350, 450))
def test_the_budget_counts_display_columns(chars: int, tmp_path: Path) -> None:
    """CJK, fullwidth and emoji take two columns, a combining accent none (golden wide-<chars>)."""
    skills = fixture_skills("wide", ".claude/skills", tmp_path)
    assert claude_code.listing(skills, chars).text == golden("claude", f"wide-{chars}")["text"]
    assert claude_code.width("e\u0301\u65e5\U0001f44d\u00b1") == 6


def test_every_name_stays_and_dropped_descriptions_are_reported() -> None:
    entries = claude_code.listing(many(), 2_000).entries
    assert all(e.listed for e in entries)
    kept = [e.command for e in entries if e.status is Status.FULL]
    assert kept == ["s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s10"]


def test_a_team_priority_becomes_name_only_overrides_the_harness_then_honours() -> None:
    skills, chars = many(), 2_000
    order = ["s30", "s20", "s10"]  # ranked first by the team; the harness alone keeps s00-s07, s10
    off = claude_code.name_only_for(skills, chars, order)
    entries = claude_code.listing(skills, chars, dict.fromkeys(off, "name-only")).entries
    kept = [e.command for e in entries if e.status is Status.FULL]
    assert {"s30", "s20", "s10"} <= set(kept)
    assert set(kept) == {e.command for e in entries} - off  # the harness keeps exactly the rest
    # the listed lines stay within the budget (the header does not count)
    text = claude_code.listing(skills, chars, dict.fromkeys(off, "name-only")).text
    assert len(text.split("\n\n", 1)[1]) <= chars
    assert claude_code.name_only_for(skills, 1_000_000, order) == frozenset()


def test_budget_is_window_times_four_times_one_percent_unless_overridden() -> None:
    assert claude_code.budget(200_000) == 8_000
    assert claude_code.budget(1_000_000) == 40_000
    assert claude_code.budget(None) == 8_000
    assert claude_code.budget(200_000, override=2_000) == 2_000


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("yes", True),
        ("YES", True),
        ("oN", True),
        (1, True),
        ("True", True),
        (True, True),
        ("no", False),
        ("OFF", False),
        (0, False),
        ("maybe", False),
        (None, False),
    ],
)
def test_flags_read_as_claude_code_reads_them(value: object, expected: bool) -> None:
    assert claude_code.flag(value) is expected


@pytest.mark.parametrize(
    "fixture", ["fields", "discovery", "duplicates", "names", "spaces", "folders", "injection"]
)
def test_fixture_listing_equals_the_recorded_text(fixture: str, tmp_path: Path) -> None:
    skills = fixture_skills(fixture, ".claude/skills", tmp_path)
    assert claude_code.listing(skills, claude_code.budget(None)).text == golden("claude", fixture)["text"]


def test_fields_at_a_small_budget(tmp_path: Path) -> None:
    skills = fixture_skills("fields", ".claude/skills", tmp_path)
    assert claude_code.listing(skills, 2_000).text == golden("claude", "fields-2000")["text"]


def test_nested_skills_are_skipped_and_manual_ones_not_listed(tmp_path: Path) -> None:
    by_folder = {
        e.skill.folder: e
        for e in claude_code.listing(fixture_skills("discovery", ".claude/skills", tmp_path), 8_000).entries
    }
    assert by_folder["group/inner"].status is Status.SKIPPED
    skills = fixture_skills("fields", ".claude/skills", tmp_path / "f")
    by_folder = {e.skill.folder: e for e in claude_code.listing(skills, 8_000).entries}
    assert by_folder["manual"].status is Status.NOT_LISTED
    assert by_folder["gated"].status is Status.NOT_LISTED
    assert by_folder["long1600"].status is Status.CUT


def test_default_budget_of_the_default_model_is_30000(tmp_path: Path) -> None:
    """2.1.330's debug log: `72479 chars > 30000 budget` (a 750,000-token window x 4 x 1%)."""
    skills = fixture_skills("huge", ".claude/skills", tmp_path)
    assert claude_code.listing(skills, claude_code.budget(750_000)).text == golden("claude", "huge")["text"]


def test_project_skill_overrides(tmp_path: Path) -> None:
    """off and user-invocable-only hide from the model; name-only lists the bare command."""
    skills = fixture_skills("policy", ".claude/skills", tmp_path)
    overrides = {
        "override-off": "off",
        "override-name-only": "name-only",
        "override-uio": "user-invocable-only",
    }
    listing = claude_code.listing(skills, claude_code.budget(None), overrides)
    assert listing.text == golden("claude", "policy")["text"]
    status = {e.command: e.status for e in listing.entries}
    assert status["override-name-only"] is Status.DROPPED
    assert status["override-uio"] is Status.NOT_LISTED


def test_folders_it_does_not_load_are_skipped_and_the_rest_sorted_as_localecompare(tmp_path: Path) -> None:
    skills = fixture_skills("folders", ".claude/skills", tmp_path)
    listing = claude_code.listing(skills, claude_code.budget(None))
    recorded = [s["command"] for s in golden("claude", "folders")["skills"]]
    assert sorted(e.command for e in listing.entries if e.listed) == sorted(recorded)
    skipped = {e.command for e in listing.entries if e.status is Status.SKIPPED}
    assert skipped == {"lt<gt", "gt>x", "two  spaces", " lead", "trail ", ":lead", "trail:", "a :b", "a: b",
                       "\u0301lead", "nb\u00a0sp", "ideo\u3000sp"}  # fmt: skip


def test_line_breaks_in_when_to_use_are_one_space_as_in_the_description(tmp_path: Path) -> None:
    text = claude_code.listing(fixture_skills("injection", ".claude/skills", tmp_path), 30_000).text
    assert "- wtu-break: Plain. - later - evil: a forged entry" in text.splitlines()
    assert not any(line.startswith("- evil") for line in text.splitlines())


def test_a_label_belongs_to_the_command_of_that_name_first() -> None:
    skills = [
        Skill("-early", "café", "Listed first, named as the folder below."),
        Skill("café", "café", "The folder named so."),
        Skill("late", "dup", "A name no folder has."),
        Skill("later", "dup", "The same name again."),
    ]
    lines = claude_code.listing(skills, 30_000).text.splitlines()
    assert "- -early: Listed first, named as the folder below." in lines  # café is the folder's
    assert "- late (dup): A name no folder has." in lines and "- later: The same name again." in lines
