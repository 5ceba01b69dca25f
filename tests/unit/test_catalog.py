"""Catalogs: one rendered prompt per persona, within its budget."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project


def test_budget_for_an_unknown_persona_warns(tmp_path: Path) -> None:
    config = "sources: [src]\nbudgets:\n  personas:\n    ghost: 500\n"
    result = compile_project(src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config=config))
    assert [d.format() for d in result.diagnostics] == [
        "skillc.yaml:1:1: warning[SKC412]: budgets.personas names unknown persona 'ghost'"
    ]
