"""One SKILL.md checked: frontmatter fields, names, harness blocks, tool lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.project import skill_md, src_project

from skillc.options import Options
from skillc.pipeline import compile_project
from skillc.stages.skills import split_tools


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
