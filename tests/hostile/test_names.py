"""YAML and names: values keep the text written, names hide nothing, look-alike commands are reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.names.confusables import skeleton
from skillc.pipeline import compile_project


@pytest.mark.parametrize(
    "written",
    ["2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2002-12-14", "!!timestamp 2002-12-14"],
)
def test_timestamps_keep_their_text(tmp_path: Path, written: str) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a", metadata=f"\n  created: {written}")})
    assert run("--config", str(cfg), "build")[0] == 0
    created = reader.open(tmp_path / "dist").skill_meta("a").frontmatter["metadata"]["created"]
    assert created == written.removeprefix("!!timestamp ")


@pytest.mark.parametrize("space", ["\u00a0", "\u2007", "\u202f", "\u3000", "\u200b"])
@pytest.mark.parametrize("shape", ["{s}a", "a{s}", "a{s}b"])
def test_a_name_holding_a_unicode_space_is_refused(tmp_path: Path, space: str, shape: str) -> None:
    name = shape.format(s=space)
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md(f'"{name}"')})
    result = compile_project(cfg)
    assert not result.ok
    assert any(d.code == "SKC219" and "name" in d.message for d in result.diagnostics)


def test_ascii_spaces_around_a_quoted_name_are_still_trimmed(tmp_path: Path) -> None:
    assert compile_project(project(tmp_path, {"src/a/SKILL.md": skill_md('" a "')})).ok


def test_a_redirect_body_opening_with_a_block_is_not_cut_silently(tmp_path: Path) -> None:
    files = {
        "src/a/SKILL.md": skill_md("a", persona_exclusive="p"),
        "personas/p/manifest.yaml": "name: P\n",
        "personas/p-exclusive/a.md": "---\nsection: one\n---\nThe rest.\n",
    }
    result = compile_project(project(tmp_path, files))
    (warned,) = [d for d in result.diagnostics if d.code == "SKC420"]
    assert warned.path == "personas/p-exclusive/a.md" and "lines 1-3" in warned.message
    assert "'section'" in warned.message
    # A copy of a skill's frontmatter is what that block is for; a Markdown rule before prose is body.
    for body in ("---\nname: a\ndescription: d\n---\nBody.\n", "---\n\nProse after a rule.\n"):
        files["personas/p-exclusive/a.md"] = body
        result = compile_project(project(tmp_path, files))
        assert not [d for d in result.diagnostics if d.code == "SKC420"]


@pytest.mark.parametrize(
    ("latin", "twin"), [("pay", "pаy"), ("code", "сode"), ("apex", "αpεx"), ("deploy", "dеplоy")]
)
def test_look_alike_commands_are_reported(tmp_path: Path, latin: str, twin: str) -> None:
    assert skeleton(latin) == skeleton(twin)
    cfg = project(tmp_path, {f"src/{latin}/SKILL.md": skill_md(None), f"src/{twin}/SKILL.md": skill_md(None)})
    result = compile_project(cfg)
    found = [d for d in result.diagnostics if d.code == "SKC320"]
    assert len(found) == 1 and "\\u" in found[0].message


def test_distinct_names_are_not_look_alikes(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/pay/SKILL.md": skill_md("pay"), "src/pat/SKILL.md": skill_md("pat")})
    assert not [d for d in compile_project(cfg).diagnostics if d.code == "SKC320"]
