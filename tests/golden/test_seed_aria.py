"""Golden tests: the ARIA seed's access table and its four overlay examples.

The tree uses the seed's own layout (.claude/skills, personas/) so the
untrusted-data source paths are exactly the seed's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.files import write_tree
from support.project import skill_md
from support.seeds import ARIA_TABLE, aria_manifests

from skillc.pipeline import compile_project


def aria_tree(root: Path, *, variant_overlay: bool) -> Path:
    files: dict[str, str] = {
        "skillc.yaml": "sources: [.claude/skills]\npersonas: personas\n",
        ".claude/skills/threat-assessment/SKILL.md": skill_md(
            "threat-assessment", body="Assess threats.\n", has_persona_overlay=True
        ),
        ".claude/skills/mark-assessment/SKILL.md": skill_md(
            "mark-assessment", body="Only PARIA pilots can use this.\n", persona_exclusive="paria"
        ),
        "personas/paria-exclusive/mark-assessment.md": "# Mark assessment\nSize up the mark.\n",
        "personas/paria/skill-overlays/threat-assessment.md": "Frame threats as opportunities.\n",
    }
    if variant_overlay:
        files["personas/paria-g/skill-overlays/threat-assessment.md"] = "Guristas framing.\n"
    write_tree(root, files | aria_manifests(ARIA_TABLE))
    return root / "skillc.yaml"


def resolution(result, persona: str, command: str):
    return next(r for r in result.resolutions if r.persona == persona and r.command == command)


@pytest.fixture
def aria(tmp_path: Path):
    result = compile_project(aria_tree(tmp_path, variant_overlay=False))
    assert result.ok, [d.format() for d in result.diagnostics]
    return result


@pytest.mark.parametrize(
    "persona, access, via",
    [
        ("paria", "granted", "persona"),  # direct match
        ("paria-g", "granted", "fallback:paria"),  # fallback match
        ("paria-s", "granted", "fallback:paria"),  # fallback match
        ("aria-mk4", "stub", None),  # no
        ("forge", "granted", "unrestricted"),  # unrestricted_skills
        ("vind", "stub", None),
    ],
)
def test_access_table(aria, persona: str, access: str, via: str | None) -> None:
    r = resolution(aria, persona, "mark-assessment")
    assert (r.access, r.via) == (access, via)
    if access == "granted":
        assert r.body == "# Mark assessment\nSize up the mark.\n"
        assert r.model is True
    else:
        assert r.body == "Only PARIA pilots can use this.\n"
        assert r.model is False and r.user is True


def test_every_persona_variant_of_paria_is_granted(aria) -> None:
    granted = sorted(
        r.persona for r in aria.resolutions if r.command == "mark-assessment" and r.access == "granted"
    )
    assert granted == ["forge", "paria", "paria-a", "paria-b", "paria-g", "paria-n", "paria-s"]


def test_example_1_paria_uses_primary_overlay(aria) -> None:
    r = resolution(aria, "paria", "threat-assessment")
    assert r.overlay == "personas/paria/skill-overlays/threat-assessment.md"
    assert r.body == (
        "Assess threats.\n"
        "\n"
        '<untrusted-data source="personas/paria/skill-overlays/threat-assessment.md">\n'
        "Frame threats as opportunities.\n"
        "</untrusted-data>\n"
    )


def test_example_2_variant_without_overlay_falls_back(aria) -> None:
    r = resolution(aria, "paria-g", "threat-assessment")
    assert r.overlay == "personas/paria/skill-overlays/threat-assessment.md"
    assert "not found" in r.trace[1] and "found, appended" in r.trace[2]


def test_example_3_variant_overlay_wins(tmp_path: Path) -> None:
    result = compile_project(aria_tree(tmp_path, variant_overlay=True))
    r = resolution(result, "paria-g", "threat-assessment")
    assert r.overlay == "personas/paria-g/skill-overlays/threat-assessment.md"
    assert "Guristas framing." in r.body and "Frame threats" not in r.body
    # the other variants still fall back to PARIA's overlay
    assert (
        resolution(result, "paria-s", "threat-assessment").overlay
        == "personas/paria/skill-overlays/threat-assessment.md"
    )


def test_example_4_empire_persona_gets_base_only(aria) -> None:
    r = resolution(aria, "aria-mk4", "threat-assessment")
    assert r.overlay is None
    assert r.body == "Assess threats.\n"
    assert r.trace[-3] == "overlay: none found; base body only"
