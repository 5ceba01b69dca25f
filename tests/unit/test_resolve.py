"""Resolve: which persona sees which skill, through which route."""

from __future__ import annotations

from pathlib import Path

from support import values as v
from support.project import skill_md, src_project

from skillc.model import Outcome, Program
from skillc.pipeline import compile_project
from skillc.stages.lint import wrap_overlay
from skillc.stages.resolve import resolve


def test_allowlist_limits_visibility(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/a/SKILL.md": skill_md("a"),
                "src/b/SKILL.md": skill_md("b"),
                "personas/p/manifest.yaml": "name: P\nskills: [a]\n",
                "personas/q/manifest.yaml": "name: Q\nskills: []\n",
                "personas/r/manifest.yaml": "name: R\nskills: ['*']\n",
            },
        )
    )
    visible = {(r.persona, r.command) for r in result.resolutions}
    assert visible == {("p", "a"), ("r", "a"), ("r", "b")}


def test_fallback_chains_grant_through_every_level(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/x/SKILL.md": skill_md("x", persona_exclusive="root"),
                "personas/root-exclusive/x.md": "real x\n",
                "personas/root/manifest.yaml": "name: Root\n",
                "personas/mid/manifest.yaml": "name: Mid\nfallback: root\n",
                "personas/leaf/manifest.yaml": "name: Leaf\nfallback: mid\n",
            },
        )
    )
    leaf = next(r for r in result.resolutions if r.persona == "leaf")
    assert (leaf.access, leaf.via, leaf.body) == ("granted", "fallback:root", "real x\n")
    assert result.program.personas["leaf"].chain == ("mid", "root")


def test_no_personas_means_one_default_persona(tmp_path: Path) -> None:
    result = compile_project(
        src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config="sources: [src]\n")
    )
    assert list(result.program.personas) == ["default"]
    assert result.artifacts.files["personas/default/prompt.xml"].startswith(b"<available_skills>")


# --- on hand-built programs (no disk) ----------------------------------------------


def _outcomes(prog: Program, command: str) -> dict[str, Outcome]:
    return dict(resolve(prog)[command].outcomes)


SECRET = v.skill("secret", body="Ask the pilot.\n", persona_exclusive="pilot")


def test_exclusive_skill_is_granted_to_its_persona_and_its_variants_through_the_fallback() -> None:
    prog = v.program(
        [SECRET],
        [v.persona("pilot"), v.persona("pilot-x", chain=("pilot",)), v.persona("crew")],
        {("pilot", "secret"): "The real steps.\n"},
    )
    got = _outcomes(prog, "secret")
    assert (got["pilot"].access, got["pilot"].via) == ("granted", "persona")
    assert (got["pilot-x"].access, got["pilot-x"].via) == ("granted", "fallback:pilot")
    assert (got["crew"].access, got["crew"].via) == ("stub", None)


def test_a_granted_persona_gets_the_redirect_body_and_any_other_the_stub() -> None:
    prog = v.program([SECRET], [v.persona("pilot"), v.persona("crew")], {("pilot", "secret"): "Real.\n"})
    got = _outcomes(prog, "secret")
    assert got["pilot"].body == "Real.\n" and got["pilot"].model
    assert "redirect: body loaded from personas/pilot-exclusive/secret.md" in got["pilot"].trace
    assert got["crew"].body == "Ask the pilot.\n" and not got["crew"].model  # the stub: never a catalog entry
    assert "stub: body is the unavailability notice in skills/secret/SKILL.md" in got["crew"].trace


def test_unrestricted_skills_grant_every_exclusive_skill() -> None:
    prog = v.program(
        [SECRET],
        [v.persona("pilot"), v.persona("admin", unrestricted=True)],
        {("pilot", "secret"): "Real.\n"},
    )
    admin = _outcomes(prog, "secret")["admin"]
    assert (admin.access, admin.via, admin.body) == ("granted", "unrestricted", "Real.\n")


def test_a_fallback_match_wins_over_unrestricted() -> None:
    prog = v.program([SECRET], [v.persona("pilot"), v.persona("kid", chain=("pilot",), unrestricted=True)])
    assert _outcomes(prog, "secret")["kid"].via == "fallback:pilot"


OVERLAID = v.skill("tips", body="Base.\n", has_persona_overlay=True)


def test_overlay_primary_then_fallback_then_none() -> None:
    prog = v.program(
        [OVERLAID],
        [
            v.persona("root", overlays={"tips": "From root."}),
            v.persona("mid", chain=("root",), overlays={"tips": "From mid."}),
            v.persona("leaf", chain=("root",)),
            v.persona("alone"),
        ],
    )
    got = _outcomes(prog, "tips")
    assert got["mid"].overlay == "personas/mid/skill-overlays/tips.md"  # its own, before its fallback's
    assert "From mid." in got["mid"].body and "From root." not in got["mid"].body
    assert got["leaf"].overlay == "personas/root/skill-overlays/tips.md"
    assert got["leaf"].body == "Base.\n\n" + wrap_overlay(
        "personas/root/skill-overlays/tips.md", "From root."
    )
    assert (got["alone"].overlay, got["alone"].body) == (None, "Base.\n")
    assert got["alone"].trace[-3] == "overlay: none found; base body only"


def test_a_stub_gets_no_overlay() -> None:
    skill = v.skill("secret", body="Stub.\n", persona_exclusive="pilot", has_persona_overlay=True)
    prog = v.program([skill], [v.persona("pilot"), v.persona("crew", overlays={"secret": "Hi."})])
    crew = _outcomes(prog, "secret")["crew"]
    assert (crew.access, crew.overlay, crew.body) == ("stub", None, "Stub.\n")


def test_an_open_skill_is_one_outcome_shared_by_every_persona() -> None:
    prog = v.program([v.skill("a")], [v.persona("p"), v.persona("q"), v.persona("r")])
    got = _outcomes(prog, "a")
    assert got["p"] is got["q"] is got["r"] and got["p"].access == "open"


def test_an_allowlist_hides_the_skills_it_does_not_name() -> None:
    prog = v.program([v.skill("a"), v.skill("b")], [v.persona("p", allowlist=("a",)), v.persona("q")])
    resolved = resolve(prog)
    assert list(resolved["a"].outcomes) == ["p", "q"] and list(resolved["b"].outcomes) == ["q"]


def test_model_and_user_flags_follow_the_frontmatter() -> None:
    prog = v.program(
        [v.skill("m", disable__model__invocation=True), v.skill("u", user__invocable=False)], [v.persona("p")]
    )
    assert (_outcomes(prog, "m")["p"].model, _outcomes(prog, "m")["p"].user) == (False, True)
    assert (_outcomes(prog, "u")["p"].model, _outcomes(prog, "u")["p"].user) == (True, False)
