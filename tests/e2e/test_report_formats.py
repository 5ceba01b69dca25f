"""The diagnostics formats as the command line prints them: machine formats on stdout, text on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from support.project import skill_md, src_project
from support.sarif import SARIF_SUBSET

from skillc.cli import cli


def _broken(tmp_path: Path) -> Path:
    return src_project(
        tmp_path,
        {
            "src/a/SKILL.md": skill_md("a", description="x" * 1100),
            "src/b/SKILL.md": skill_md("b", colour="red"),
        },
    )


@pytest.mark.parametrize("command", ["build", "validate", "check"])
def test_machine_formats_write_only_diagnostics_to_stdout(tmp_path: Path, command: str) -> None:
    config = _broken(tmp_path)
    result = CliRunner().invoke(cli, [command, "--config", str(config), "--format", "json"])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["code"] for r in rows} == {"SKC216", "SKC205"}
    assert "skillc:" not in result.stdout


def test_sarif_from_the_cli_is_one_document(tmp_path: Path) -> None:
    config = _broken(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--config", str(config), "--format", "sarif"])
    doc = json.loads(result.stdout)
    jsonschema.Draft7Validator(SARIF_SUBSET).validate(doc)
    assert result.exit_code == 1 and len(doc["runs"][0]["results"]) == 2


def test_github_format_from_the_cli(tmp_path: Path) -> None:
    config = _broken(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--config", str(config), "--format", "github"])
    assert any(
        line.startswith("::error file=src/a/SKILL.md,line=3,col=14,title=SKC216::")
        for line in result.stdout.splitlines()
    )
    assert any(line.startswith("::warning file=src/b/SKILL.md") for line in result.stdout.splitlines())


def test_text_is_the_compiler_format(tmp_path: Path) -> None:
    config = _broken(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--config", str(config)])
    assert "src/b/SKILL.md:" in result.output and "warning[SKC205]" in result.output
    assert result.stdout == ""  # text goes to stderr
