"""[tool.skillc] in pyproject.toml: found like skillc.yaml, the same keys, diagnostics at its lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.files import write_tree
from support.project import skill_md

from skillc import reader

PYPROJECT = """\
[project]
name = "demo"
version = "1.0"

[tool.skillc]
format = 1
sources = ["skills"]
output = "agent-skills"

[tool.skillc.budgets]
catalog_chars = 5000
"""


def tree(root: Path, pyproject: str = PYPROJECT) -> Path:
    (root / ".git").mkdir()
    write_tree(root, {"pyproject.toml": pyproject, "skills/demo/SKILL.md": skill_md("demo")})
    return root


def test_found_from_a_subfolder_and_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path)
    monkeypatch.chdir(tmp_path / "skills" / "demo")
    code, out = run("build")
    assert code == 0, out
    assert reader.open(tmp_path / "agent-skills").all_commands() == ["demo"]


def test_a_pyproject_without_the_table_is_no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, "[project]\nname = 'demo'\n")
    monkeypatch.chdir(tmp_path)
    code, out = run("build")
    assert code != 0 and "[tool.skillc]" in out


def test_other_edits_of_pyproject_keep_the_build_current(tmp_path: Path) -> None:
    tree(tmp_path)
    config = str(tmp_path / "pyproject.toml")
    assert run("--config", config, "build")[0] == 0
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('version = "1.0"', 'version = "2.0"'))
    code, out = run("--config", config, "check")
    assert code == 0, out


def test_diagnostics_point_at_the_key_line(tmp_path: Path) -> None:
    tree(tmp_path, PYPROJECT.replace("catalog_chars = 5000", 'catalog_chars = "x"'))
    code, out = run("--config", str(tmp_path / "pyproject.toml"), "validate")
    assert code == 1
    assert "pyproject.toml:11:1: error[SKC102]" in out


def test_toml_syntax_errors_are_located(tmp_path: Path) -> None:
    tree(tmp_path, PYPROJECT + "broken = [\n")
    code, out = run("--config", str(tmp_path / "pyproject.toml"), "validate")
    assert code == 1 and "pyproject.toml:12:" in out and "SKC101" in out


def test_a_broken_table_is_found_and_reported_not_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(tmp_path, PYPROJECT + "broken = [\n")
    monkeypatch.chdir(tmp_path / "skills")
    code, out = run("validate")
    assert code == 1 and "pyproject.toml:12:" in out and "SKC101" in out, out


def test_broken_toml_without_the_table_is_still_no_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(tmp_path, "[project]\nname = 'demo\n")
    monkeypatch.chdir(tmp_path)
    code, out = run("build")
    assert code == 2 and "[tool.skillc]" in out, out


def test_skillc_yaml_wins_and_both_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path)
    (tmp_path / "skillc.yaml").write_text("format: 1\nsources: [skills]\noutput: from-yaml\n")
    monkeypatch.chdir(tmp_path)
    code, out = run("build")
    assert code == 0, out
    assert (tmp_path / "from-yaml").is_dir() and not (tmp_path / "agent-skills").exists()
    assert "pyproject.toml:5:1: warning[SKC110]" in out
