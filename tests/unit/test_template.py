"""Catalog templates: loading, the entry macro, plain-text output."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def test_markdown_template_is_plain_text(tmp_path: Path) -> None:
    from support.files import REPO

    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "list.md.j2").write_bytes(
        (REPO / "compiler" / "templates" / "catalog.md.j2").read_bytes()
    )
    config = "sources: [src]\ntemplate: templates/list.md.j2\n"
    result = compile_project(
        src_project(tmp_path, {"src/a/SKILL.md": skill_md("a", description="Tom & Jerry <3")}, config=config)
    )
    assert result.artifacts.files["personas/default/prompt.md"] == (
        b"Available skills:\n- a: Tom & Jerry <3\n\nUse the use_skill tool to invoke a skill when relevant.\n"
    )


def test_template_without_entry_macro_is_reported(tmp_path: Path) -> None:
    (tmp_path / "t.xml.j2").write_text("{{ skills }}")
    result = compile_project(
        src_project(
            tmp_path, {"src/a/SKILL.md": skill_md("a")}, config="sources: [src]\ntemplate: t.xml.j2\n"
        )
    )
    assert not result.ok and codes(result) == ["SKC104"]
