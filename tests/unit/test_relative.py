"""diagnostics/relative.py: a diagnostic's path shown from the working directory, by its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillc.diagnostics import Diagnostic, Severity
from skillc.diagnostics.relative import rebase, shown


@pytest.mark.parametrize(
    ("path", "root", "cwd", "want"),
    [
        ("skills/a/SKILL.md", "/p", "/p/skills", "a/SKILL.md"),  # below the working directory
        ("skills/a/SKILL.md", "/p", "/", "p/skills/a/SKILL.md"),
        ("skills/a", "/p", "/p/skills/a", "."),
        ("../x/y.md", "/p/q", "/p", "x/y.md"),  # a source beside the project
        ("skills/a.md", "/p", "/q", "/p/skills/a.md"),  # elsewhere: absolute, never '..'
        ("skills/a.md", "/p", "/pp", "/p/skills/a.md"),  # a folder whose name only starts alike
        (".", "/p", "/p/x", "/p"),
        ("a/../b.md", "/p", "/p/c", "/p/b.md"),
        ("~/x.md", "/p", "/", "~/x.md"),  # as the config spells it
        ("/abs/x.md", "/p", "/", "/abs/x.md"),
    ],
)
def test_shown(path, root, cwd, want):
    assert shown(path, Path(root), Path(cwd)) == want


def test_rebase_keeps_everything_but_the_path(tmp_path):
    (tmp_path / "skills").mkdir()
    diags = (
        Diagnostic("skills/a/SKILL.md", 1, 2, Severity.ERROR, "SKC201", "one"),
        Diagnostic("skills/a/SKILL.md", 3, 4, Severity.WARNING, "SKC202", "two"),
        Diagnostic("skillc.yaml", 1, 1, Severity.WARNING, "SKC110", "three"),
    )
    got = rebase(diags, tmp_path, tmp_path / "skills")
    assert [d.path for d in got] == ["a/SKILL.md", "a/SKILL.md", str(tmp_path / "skillc.yaml")]
    assert [(d.line, d.col, d.severity, d.code, d.message) for d in got] == [
        (d.line, d.col, d.severity, d.code, d.message) for d in diags
    ]
    assert rebase(diags, tmp_path, tmp_path) is diags
