"""Budget: first-fit packing of a persona's catalog."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project
from skillc.stages.budget import Candidate, pack


def test_budget_first_fit_keeps_always_and_reserves_the_notice() -> None:
    cands = (
        Candidate("a", False, 50, "a"),
        Candidate("b", False, 500, "b"),
        Candidate("c", True, 300, "c"),
        Candidate("d", False, 40, "d"),
    )
    packing = pack("p", 500, cands, lambda omitted: 20 + (60 if omitted else 0))
    assert packing.included == ("a", "c", "d")
    assert packing.left_out == ("b",)
    assert [d.code for d in packing.diagnostics] == ["SKC601"]


def test_always_skills_over_budget_warn_but_stay() -> None:
    packing = pack("p", 100, (Candidate("a", True, 500, "a"),), lambda n: 10)
    assert packing.included == ("a",)
    assert [d.code for d in packing.diagnostics] == ["SKC602"]


def test_rendered_catalog_never_exceeds_the_budget(tmp_path: Path) -> None:
    files = {
        f"src/s{i:02d}/SKILL.md": skill_md(f"s{i:02d}", description="x" * (50 + i * 7)) for i in range(40)
    }
    config = "sources: [src]\nbudgets:\n  catalog_chars: 2000\n"
    result = compile_project(src_project(tmp_path, files, config=config))
    text = result.artifacts.files["personas/default/prompt.xml"].decode()
    assert len(text) <= 2000
    assert f"<!-- {len(result.packings['default'].left_out)} more skills not listed" in text


def test_frame_alone_over_budget_warns_without_candidates() -> None:
    packing = pack("p", 100, (), lambda n: 150)
    assert packing.included == () and [d.code for d in packing.diagnostics] == ["SKC602"]
