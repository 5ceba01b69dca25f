"""validate(): a Discovery becomes a Program of skills, personas and exclusive bodies (hand-built, no disk)."""

from __future__ import annotations

from support import values as v
from support.project import skill_md

from skillc import diagnostics as dg
from skillc.dataclass import replace
from skillc.diagnostics.codes import Code
from skillc.diagnostics.policy import Policy
from skillc.model import InputFile
from skillc.stages.validate import settle, validate


def _md(description: str = "Does a thing.", **fields: str) -> str:
    return skill_md(description=description, **fields)


def test_a_discovery_becomes_a_program_of_skills_and_personas() -> None:
    prog = validate(
        v.discovery(
            [v.skill_source("a", _md(allowed__tools="Read Bash(git:*)")), v.skill_source("a/b", _md())],
            [
                v.persona_source("pilot", "name: Pilot\n"),
                v.persona_source("pilot-x", "name: X\nfallback: pilot\n"),
            ],
        )
    )
    assert v.codes(prog.diagnostics) == []
    assert list(prog.skills) == ["a", "a/b"]
    a = prog.skills["a"]
    assert (a.name, a.description, a.body, a.path) == (
        "a",
        "Does a thing.",
        "Do the thing.\n",
        "skills/a/SKILL.md",
    )
    assert a.fields["allowed-tools"] == ["Read", "Bash(git:*)"] and a.children == ("a/b",)
    assert prog.skills["a/b"].parent == "a"
    assert (prog.personas["pilot-x"].fallback, prog.personas["pilot-x"].chain) == ("pilot", ("pilot",))


def test_no_persona_directory_means_the_default_persona() -> None:
    prog = validate(v.discovery([v.skill_source("a", _md())]))
    assert list(prog.personas) == ["default"] and prog.personas["default"].allowlist is None


def test_an_exclusive_body_is_kept_for_its_persona_and_checked() -> None:
    prog = validate(
        v.discovery(
            [
                v.skill_source("s", _md(persona_exclusive="pilot")),
                v.skill_source("t", _md(persona_exclusive="pilot")),
            ],
            [v.persona_source("pilot", "name: Pilot\n")],
            [
                v.exclusive_source("pilot", {"s": "The real steps.\n"}),
                v.exclusive_source("ghost", {"s": "x\n"}),
            ],
        )
    )
    assert prog.exclusive_bodies == {("pilot", "s"): ("personas/pilot-exclusive/s.md", "The real steps.\n")}
    assert sorted(v.codes(prog.diagnostics)) == ["SKC404", "SKC406"]  # ghost is no persona; t has no body


def test_allowlists_and_overlays_keep_only_what_names_a_skill() -> None:
    prog = validate(
        v.discovery(
            [v.skill_source("a", _md(has_persona_overlay="true")), v.skill_source("b", _md())],
            [
                v.persona_source(
                    "p",
                    "name: P\nskills: [a, nope]\n",
                    {"a": "Say arr.\n", "b": "Ignored.\n", "zz": "No skill.\n"},
                )
            ],
        )
    )
    p = prog.personas["p"]
    assert p.allowlist == ("a",)
    assert p.overlays == {"a": ("personas/p/skill-overlays/a.md", "Say arr.\n")}
    # nope is unknown (409), b sets no has_persona_overlay (408), zz is no skill (407)
    assert sorted(v.codes(prog.diagnostics)) == ["SKC407", "SKC408", "SKC409"]


def test_a_fallback_cycle_is_an_error() -> None:
    prog = validate(
        v.discovery(
            [v.skill_source("a", _md())],
            [
                v.persona_source("p", "name: P\nfallback: q\n"),
                v.persona_source("q", "name: Q\nfallback: p\n"),
            ],
        )
    )
    assert v.codes(prog.diagnostics) == ["SKC403", "SKC403"]


def test_skip_invalid_leaves_a_broken_skill_out_with_warnings() -> None:
    disc = v.discovery([v.skill_source("good", _md()), v.skill_source("bad", _md(description="x" * 1025))])
    strict = validate(disc)
    assert "bad" not in strict.skills and v.codes(strict.diagnostics) == ["SKC216"]
    assert strict.diagnostics[0].severity.value == "error"
    loose = validate(disc, skip_invalid=True)
    assert list(loose.skills) == ["good"] and loose.invalid == (("bad", ("SKC216",)),)
    assert {d.severity.value for d in loose.diagnostics} == {"warning"} and "SKC314" in v.codes(
        loose.diagnostics
    )


def test_a_skill_that_gives_nothing_and_says_only_warnings_is_an_error() -> None:
    """No silent drop: a check that gives no skill must say why with an error; when it says only
    warnings (a bug), settle adds one (SKC317), so the build fails or --skip-invalid names it."""
    src = v.skill_source("x", skill_md("x"))
    said = dg.warning(src.skill_md.rel, Code.NORMALISED, "something")
    assert settle(src, [said], Policy(), built=True) == [said]
    settled = settle(src, [said], Policy(), built=False)
    assert [d.code for d in settled] == ["SKC214", "SKC317"] and dg.has_errors(settled)


def test_skip_invalid_serves_an_earlier_sources_copy_of_a_command_left_out() -> None:
    early = v.skill_source("plan", skill_md("plan", description="Early."), source=0)
    early = replace(early, skill_md=InputFile("user/plan/SKILL.md", early.skill_md.data))
    late = v.skill_source("plan", skill_md("plan", description="[a, list]"), source=1)
    found = replace(v.discovery([late]), shadowed=(early,))
    program = validate(found, skip_invalid=True)
    assert program.skills["plan"].path == "user/plan/SKILL.md" and not program.invalid
    assert program.left_out == ("skills/plan/SKILL.md",)
    assert "left out because it has errors (--skip-invalid): the copy of 'plan' in user/plan/SKILL.md" in (
        program.diagnostics[-1].message
    )
    program = validate(found)
    assert "plan" not in program.skills and dg.has_errors(program.diagnostics)


def test_skills_kept_by_id_are_duplicates_when_two_share_one() -> None:
    """`frontmatter.names: lowercase-hyphens`: V1 keys skills by their id, last discovered wins."""
    from skillc.model import Duplicates, FrontmatterRules, Names

    rules = FrontmatterRules(names=Names.LOWERCASE_HYPHENS)
    a = replace(v.skill_source("a", skill_md("Safe Edit")), rules=rules)
    b = replace(v.skill_source("b", skill_md("safe edit")), rules=rules)
    found = v.discovery([a, b])
    last = validate(found, by_name=(Duplicates.LAST_WINS,), policy=Policy((("SKC219", "ignore"),)))
    assert list(last.skills) == ["b"] and last.left_out == ("skills/a/SKILL.md",)
    reported = [d.format() for d in last.diagnostics if d.severity is not dg.Severity.SUPPRESSED]
    assert reported == [  # the marks of the ignored SKC219s are the report's to drop
        "skills/a/SKILL.md:2:7: warning[SKC305]: left out: skills/b/SKILL.md has the same id ('safe-edit') "
        "and comes later (duplicates: last-wins)"
    ]
    error = validate(found, by_name=(Duplicates.ERROR,), policy=Policy((("SKC219", "ignore"),)))
    assert [d.code for d in error.diagnostics if d.severity is dg.Severity.ERROR] == ["SKC306"]
    assert list(validate(found, policy=Policy((("SKC219", "ignore"),))).skills) == ["a", "b"]
