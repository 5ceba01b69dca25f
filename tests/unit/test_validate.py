"""Validate: frontmatter fields, names, harness blocks, tool lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import values as v
from support.project import skill_md, src_project

from skillc.options import Options
from skillc.pipeline import compile_project
from skillc.stages.validate import split_tools, validate


def test_unknown_field_is_a_warning_and_an_error_when_strict(tmp_path: Path) -> None:
    files = {"src/x/SKILL.md": skill_md("x", triggers="hello")}
    loose = compile_project(src_project(tmp_path, files))
    assert loose.ok and [d.format() for d in loose.diagnostics] == [
        "src/x/SKILL.md:4:1: warning[SKC205]: unknown frontmatter field 'triggers'"
    ]
    strict = compile_project(src_project(tmp_path, files), Options(strict=True))
    assert not strict.ok and [d.severity.value for d in strict.diagnostics] == ["error"]


def test_name_defaults_to_directory_and_must_match_it(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/good/SKILL.md": skill_md(None),
                "src/bad/SKILL.md": skill_md("other"),
            },
        )
    )
    assert result.program.skills["good"].name == "good"
    assert [d.format() for d in result.diagnostics] == [
        "src/bad/SKILL.md:2:7: error[SKC206]: name 'other' does not match its directory 'bad'"
    ]


def test_sven_block_is_folded_into_the_harness_fields(tmp_path: Path) -> None:
    text = "---\ndescription: d\nsven:\n  always: true\n  requires_bins: [docker]\n---\nBody\n"
    result = compile_project(src_project(tmp_path, {"src/s/SKILL.md": text}))
    skill = result.program.skills["s"]
    assert skill.flag("always") is True and skill.flag("requires_bins") == ["docker"]


@pytest.mark.parametrize(
    "text, tools",
    [
        ("Bash(git:*) Read", ["Bash(git:*)", "Read"]),
        ("read_file, grep_files", ["read_file", "grep_files"]),
        ("Bash(git add:*), Write", ["Bash(git add:*)", "Write"]),
    ],
)
def test_allowed_tools_spec_and_pegasus_forms(text: str, tools: list[str]) -> None:
    assert split_tools(text) == tools


# --- validate() on a hand-built Discovery (no disk) ----------------------------------


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
    assert "bad" not in strict.skills and v.codes(strict.diagnostics) == ["SKC204"]
    assert strict.diagnostics[0].severity.value == "error"
    loose = validate(disc, skip_invalid=True)
    assert list(loose.skills) == ["good"] and loose.invalid == (("bad", ("SKC204",)),)
    assert {d.severity.value for d in loose.diagnostics} == {"warning"} and "SKC314" in v.codes(
        loose.diagnostics
    )
