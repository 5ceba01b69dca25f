"""Paths in text, json and github output are relative to the working directory, as ruff and mypy print
them; SARIF keeps project-relative URIs and says where the project is (originalUriBaseIds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.project import skill_md
from support.project import src_project as project

from skillc.cli import cli

BAD = {"src/bad/SKILL.md": skill_md("wrong")}


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def nested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "packages" / "agent"
    root.mkdir(parents=True)
    project(root, BAD, "format: 1\nsources: [src, src]\npersonas: personas\noutput: dist\n")
    monkeypatch.chdir(tmp_path)
    return root


def test_github_names_the_file_from_the_working_directory(nested: Path) -> None:
    code, out, _ = invoke("--config", "packages/agent/skillc.yaml", "validate", "--format", "github")
    assert code == 1 and "file=packages/agent/src/bad/SKILL.md," in out


def test_json_and_text_too(nested: Path) -> None:
    _, out, _ = invoke("--config", "packages/agent/skillc.yaml", "validate", "--format", "json")
    files = {row["code"]: row["file"] for row in map(json.loads, out.splitlines())}
    assert files["SKC206"] == "packages/agent/src/bad/SKILL.md"
    _, _, err = invoke("--config", "packages/agent/skillc.yaml", "validate")
    assert "\npackages/agent/src/bad/SKILL.md:2:" in "\n" + err


def test_from_below_the_project(nested: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(nested / "src")
    _, out, _ = invoke("validate", "--format", "json")
    files = {row["code"]: row["file"] for row in map(json.loads, out.splitlines())}
    assert files["SKC206"] == "bad/SKILL.md"
    assert files["SKC105"] == str(nested.resolve() / "skillc.yaml")  # above cwd: absolute, as ruff does


def test_sarif_says_where_the_project_is(nested: Path) -> None:
    _, out, _ = invoke("--config", "packages/agent/skillc.yaml", "validate", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == nested.resolve().as_uri() + "/"
    (result,) = (r for r in run["results"] if r["ruleId"] == "SKC206")
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "src/bad/SKILL.md", "uriBaseId": "PROJECTROOT"}


def test_a_replayed_build_shows_paths_from_here_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    project(root, {"src/a/SKILL.md": skill_md("a", extra_field="x")})
    monkeypatch.chdir(root)
    _, _, first = invoke("build")
    assert "\nsrc/a/SKILL.md:" in "\n" + first, first
    monkeypatch.chdir(tmp_path)
    _, _, again = invoke("--config", "agent/skillc.yaml", "build")  # the cache replays the warnings
    assert "\nagent/src/a/SKILL.md:" in "\n" + again, again
