"""[tool.skillc] in pyproject.toml: found like skillc.yaml, the same keys, diagnostics at its lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import invoke, run
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


def diagnostics(root: Path, name: str, text: str) -> list[tuple[str, str]]:
    """(code, message) of each diagnostic a config file gives; its exit is 1, never an internal error."""
    write_tree(root, {name: text, "skills/demo/SKILL.md": skill_md("demo")})
    result = invoke("validate", config=root / name)
    assert result.exit_code == 1 and result.exception is None, result.stderr
    assert "internal error" not in result.stderr
    return [(d.code, d.message) for d in result.diags]


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        ("1979-05-27", "a date"),
        ("07:32:00", "a time"),
        ("1979-05-27T07:32:00Z", "a date-time"),
        ("[1979-05-27]", "a date"),
    ],
)
def test_a_toml_date_is_an_error_at_its_key(tmp_path: Path, value: str, spelled: str) -> None:
    text = f'[tool.skillc]\nsources = ["skills"]\noutput = {value}\n'
    write_tree(tmp_path, {"pyproject.toml": text, "skills/demo/SKILL.md": skill_md("demo")})
    result = invoke("build", config=tmp_path / "pyproject.toml")
    assert result.exit_code == 1 and "internal error" not in result.stderr, result.stderr
    d = result.one("SKC102")
    assert (d.line, d.col) == (3, 1) and spelled in d.message and "quote it" in d.message


@pytest.mark.parametrize("number", [2**64, 2**64 + 1, 10**30, -(2**63) - 1])
@pytest.mark.parametrize("key", [("output",), ("resources", "max_bytes"), ("budgets", "personas", "a")])
def test_an_integer_past_64_bits_is_refused_as_in_yaml(
    tmp_path: Path, number: int, key: tuple[str, ...]
) -> None:
    *tables, leaf = key
    toml = '[tool.skillc]\nsources = ["skills"]\n' + (f"[tool.skillc.{'.'.join(tables)}]\n" if tables else "")
    yaml = "format: 1\nsources: [skills]\n" + "".join(f"{'  ' * i}{t}:\n" for i, t in enumerate(tables))
    from_toml = diagnostics(tmp_path / "t", "pyproject.toml", toml + f"{leaf} = {number}\n")
    from_yaml = diagnostics(tmp_path / "y", "skillc.yaml", yaml + f"{'  ' * len(tables)}{leaf}: {number}\n")
    assert from_toml == from_yaml == [("SKC203", f"integer '{number}' is out of range")]


@pytest.mark.parametrize(("toml", "yaml"), [("nan", ".nan"), ("inf", ".inf"), ("-inf", "-.inf")])
def test_a_number_json_cannot_carry_is_refused_as_in_yaml(tmp_path: Path, toml: str, yaml: str) -> None:
    from_toml = diagnostics(
        tmp_path / "t", "pyproject.toml", f'[tool.skillc]\nsources = ["skills"]\nstrict = {toml}\n'
    )
    from_yaml = diagnostics(tmp_path / "y", "skillc.yaml", f"format: 1\nsources: [skills]\nstrict: {yaml}\n")
    assert from_toml == [("SKC203", f"'{toml}' is not a finite number")]
    assert from_yaml == [("SKC203", f"'{yaml}' is not a finite number")]


def test_a_control_character_is_refused_as_in_yaml(tmp_path: Path) -> None:
    toml = '[tool.skillc]\nsources = ["skills"]\n[tool.skillc.resources]\nexclude = ["a\\u001bb"]\n'
    yaml = 'format: 1\nsources: [skills]\nresources:\n  exclude: ["a\\eb"]\n'
    expected = [("SKC215", "control character U+001B in a string value")]
    assert (
        diagnostics(tmp_path / "t", "pyproject.toml", toml)
        == diagnostics(tmp_path / "y", "skillc.yaml", yaml)
        == expected
    )


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deep_nesting_is_refused_as_in_yaml(tmp_path: Path, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    toml = f'[tool.skillc]\nsources = ["skills"]\noutput = {nested}\n'
    yaml = f"format: 1\nsources: [skills]\noutput: {nested}\n"
    expected = [("SKC203", "nesting deeper than 32 levels")]
    assert (
        diagnostics(tmp_path / "t", "pyproject.toml", toml)
        == diagnostics(tmp_path / "y", "skillc.yaml", yaml)
        == expected
    )
