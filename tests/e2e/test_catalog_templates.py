"""Catalog templates: errors at render time are diagnostics, and every file they include is an input."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md, src_project


@pytest.mark.parametrize(
    "body, expected",
    [
        ("{% for s in skills %}{{ s.nope }}{% endfor %}", "template failed while rendering: UndefinedError"),
        ("{{ 1 // budget }}", "template failed: ZeroDivisionError"),
    ],
)
def test_template_errors_at_render_time_are_diagnostics(tmp_path: Path, body: str, expected: str) -> None:
    template = "{% macro entry(skill) %}<s>{{ skill.name }}</s>{% endmacro %}" + body
    config = src_project(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a"), "t.xml.j2": template},
        config="sources: [src]\ntemplate: t.xml.j2\n",
    )
    code, out = run("build", "--config", str(config))
    assert code == 1 and "Traceback" not in out and "internal error" not in out
    assert f"t.xml.j2:1:1: error[SKC104]: {expected}" in out


def test_included_templates_feed_the_build_hash(tmp_path: Path) -> None:
    template = "{% macro entry(skill) %}<s>{{ skill.name }}</s>{% endmacro %}{% include 'part.txt' %}"
    files = {"src/a/SKILL.md": skill_md("a"), "t/c.xml.j2": template, "t/part.txt": "one\n"}
    config = src_project(tmp_path, files, config="sources: [src]\ntemplate: t/c.xml.j2\n")
    assert run("build", "--config", str(config))[0] == 0
    (tmp_path / "t" / "part.txt").write_text("two\n")
    code, out = run("build", "--config", str(config))
    assert code == 0 and "already up to date" not in out
    assert (tmp_path / "dist" / "personas" / "default" / "prompt.xml").read_text() == "two\n"


def test_computed_include_names_are_refused(tmp_path: Path) -> None:
    template = "{% macro entry(skill) %}x{% endmacro %}{% include persona.id ~ '.txt' %}"
    config = src_project(
        tmp_path,
        {"src/a/SKILL.md": skill_md("a"), "t.xml.j2": template},
        config="sources: [src]\ntemplate: t.xml.j2\n",
    )
    code, out = run("build", "--config", str(config))
    assert code == 1 and "error[SKC104]: template 't.xml.j2' includes a template by a computed name" in out
