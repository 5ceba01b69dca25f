"""Gemini CLI's rules against its recorded goldens (tests/harness/golden/gemini@*)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.targets import fixture_skills, golden

from skillc.dataclass import replace
from skillc.targets import gemini
from skillc.targets.model import Skill

ROOTS = (".gemini/skills", ".agents/skills")


# Where the recording found the CLI's own package (tests/harness/run.py installs it there).
INSTALL = "<cache>/gemini@0.61.0/node_modules/@google/gemini-cli"


def builtins() -> tuple[Skill, ...]:
    return gemini.builtins(INSTALL)


def test_the_builtins_are_those_the_cli_lists() -> None:
    """The constants in gemini.py equal the built-in blocks of the recorded prompt."""
    text = golden("gemini", "discovery")["text"]
    recorded = [block for block in text.split("  <skill>\n")[1:] if "/bundle/builtin/" in block]
    made = gemini.listing([], builtins=builtins())
    assert made.builtins == ("antigravity-support", "skill-creator")
    assert made.text.split("  <skill>\n")[1:] == recorded


def roots_of(fixture: str, tmp_path: Path) -> list[list[Skill]]:
    return [
        [replace(s, root=f"<project>/{root}") for s in fixture_skills(fixture, root, tmp_path / str(i))]
        for i, root in enumerate(ROOTS)
    ]


@pytest.mark.parametrize(
    "fixture", ["discovery", "fields", "many", "roots", "shadowing", "names", "folders", "injection"]
)
def test_prompt_listing_equals_the_recorded_text(fixture: str, tmp_path: Path) -> None:
    skills = roots_of(fixture, tmp_path)
    if fixture not in ("roots", "shadowing"):
        skills = skills[:1]  # these fixtures write only the harness's first root
    assert gemini.listing(skills, builtins=builtins()).text == golden("gemini", fixture)["text"]


def test_settings_disabled_hides_the_skill_from_the_prompt(tmp_path: Path) -> None:
    listing = gemini.listing(roots_of("policy", tmp_path)[:1], ["settings-off"], builtins())
    assert listing.text == golden("gemini", "policy")["text"]
    assert [e.name for e in listing.entries if not e.listed] == ["settings-off"]
