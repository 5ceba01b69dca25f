"""Catalogs: one rendered prompt per persona, within its budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import values as v
from support.project import skill_md, src_project

from skillc.model import Program
from skillc.pipeline import compile_project
from skillc.stages.budget import Packing
from skillc.stages.catalog import catalogs
from skillc.stages.resolve import resolve


def test_budget_for_an_unknown_persona_warns(tmp_path: Path) -> None:
    config = "sources: [src]\nbudgets:\n  personas:\n    ghost: 500\n"
    result = compile_project(src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config=config))
    assert [d.format() for d in result.diagnostics] == [
        "skillc.yaml:4:5: warning[SKC412]: budgets.personas names unknown persona 'ghost'"
    ]


# --- catalogs() on hand-built values (no disk, a template in Python) -------------------


def _catalogs(prog: Program, **config: Any) -> tuple[dict[str, str], dict[str, Packing], list[str]]:
    texts, packings, diags = catalogs(v.config(**config), prog, resolve(prog), v.template())
    return texts, packings, v.codes(diags)


def test_each_persona_lists_the_skills_its_model_may_invoke() -> None:
    prog = v.program(
        [
            v.skill("open", description="Anyone."),
            v.skill("secret", description="Pilots only.", persona_exclusive="pilot"),
            v.skill("hidden", description="Never listed.", disable__model__invocation=True),
        ],
        [v.persona("pilot"), v.persona("crew")],
    )
    texts, packings, codes = _catalogs(prog)
    assert texts["pilot"] == "Skills for Pilot:\n- open: Anyone.\n- secret: Pilots only.\n"
    assert texts["crew"] == "Skills for Crew:\n- open: Anyone.\n"  # a stub is never a catalog entry
    assert packings["crew"].included == ("open",) and packings["crew"].left_out == ()
    assert codes == []


def test_a_catalog_stays_within_its_budget_and_says_how_many_were_left_out() -> None:
    prog = v.program([v.skill(f"s{i}", description="x" * 30) for i in range(5)], [v.persona("p")])
    texts, packings, codes = _catalogs(prog, catalog_chars=120)
    assert len(texts["p"]) <= 120
    assert packings["p"].included == ("s0", "s1") and packings["p"].left_out == ("s2", "s3", "s4")
    assert texts["p"].endswith("(3 more)\n") and codes == ["SKC601"]


def test_a_persona_budget_overrides_the_catalog_budget() -> None:
    prog = v.program([v.skill(f"s{i}") for i in range(3)], [v.persona("p"), v.persona("q")])
    _, packings, codes = _catalogs(prog, persona_budgets=(("q", 40),), catalog_chars=1000)
    assert codes == ["SKC601"]  # q left some out
    assert (packings["p"].budget, packings["q"].budget) == (1000, 40)
    assert len(packings["p"].included) == 3 and len(packings["q"].included) < 3


def test_a_budget_for_a_persona_that_does_not_exist_warns() -> None:
    prog = v.program([v.skill("a")], [v.persona("p")])
    assert _catalogs(prog, persona_budgets=(("ghost", 500),))[2] == ["SKC412"]


def test_personas_share_the_entries_they_list_and_a_template_that_changes_one_changes_no_other() -> None:
    """catalogs() makes each skill's entry once for every catalog that lists it with the same
    description (catalog_text's `made`); each render gets copies, so a template that writes into
    what it is given (a project's Jinja could) changes no other persona's catalog."""
    from skillc.dataclass import replace
    from skillc.stages import catalog as catalog_mod

    prog = v.program(
        [v.skill(f"s{i}", description=f"Skill {i}.") for i in range(4)], [v.persona("p"), v.persona("q")]
    )
    made: list[str] = []
    real = catalog_mod.catalog_skill

    def counted(skill: Any, template: Any, description: str | None = None) -> dict[str, Any]:
        made.append(skill.command)
        return real(skill, template, description)

    plain = v.template()

    def defacing(*, persona: dict[str, Any], skills: list[dict[str, Any]], omitted: int, budget: int) -> str:
        text = plain.render(persona=persona, skills=skills, omitted=omitted, budget=budget)
        for entry in skills:
            entry["description"] = "changed by " + persona["name"]
        return text

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(catalog_mod, "catalog_skill", counted)
        texts, _, _ = catalogs(v.config(), prog, resolve(prog), replace(plain, render=defacing))
    assert sorted(made) == ["s0", "s1", "s2", "s3"]  # once each (for its cost), for two catalogs too
    lines = "- s0: Skill 0.\n- s1: Skill 1.\n- s2: Skill 2.\n- s3: Skill 3.\n"
    assert texts == {"p": "Skills for P:\n" + lines, "q": "Skills for Q:\n" + lines}
