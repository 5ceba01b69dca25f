"""Gemini CLI's discovery rules against its recorded goldens (tests/harness/golden/gemini@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_util import fixture_skills, golden

from skillc.targets import gemini

ROOTS = (".gemini/skills", ".agents/skills")


def recorded(fixture: str) -> list[tuple[str, str | None, bool]]:
    return [(s["name"], s.get("description"), s["enabled"]) for s in golden("gemini", fixture)["skills"]]


def predicted(
    fixture: str, tmp_path: Path, disabled: tuple[str, ...] = ()
) -> list[tuple[str, str | None, bool]]:
    roots = [fixture_skills(fixture, root, tmp_path / str(i)) for i, root in enumerate(ROOTS[:1])]
    listing = gemini.listing(roots, disabled)
    return [(e.name, e.description, e.status.value == "full") for e in listing.entries if e.listed]


@pytest.mark.parametrize("fixture", ["discovery", "fields", "duplicates", "many"])
def test_discovered_set_equals_the_recorded_one(fixture: str, tmp_path: Path) -> None:
    assert predicted(fixture, tmp_path) == recorded(fixture)


def test_settings_disable_marks_the_skill(tmp_path: Path) -> None:
    assert predicted("policy", tmp_path, ("settings-off",)) == recorded("policy")
