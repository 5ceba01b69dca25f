"""What ruff and mypy users expect of a linter's command line: colour control, statistics, -q and -v
everywhere diagnostics are reported, a success line from validate, and one matching rule for globs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.cli import cli

RED = "\x1b[1;31m"


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def bad(tmp_path: Path) -> str:
    return str(
        project(
            tmp_path,
            {
                "src/a/SKILL.md": skill_md("wrong"),
                "src/b/SKILL.md": skill_md("wrong-too"),
                "src/c/SKILL.md": skill_md("c", extra="x"),
            },
        )
    )


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, False),  # not a terminal
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (("--color", "always"), {"NO_COLOR": "1"}, True),
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour(bad: str, args: tuple[str, ...], env: dict[str, str], coloured: bool) -> None:
    base = {"NO_COLOR": "", "FORCE_COLOR": ""}
    _, _, err = invoke("--config", bad, "validate", *args, env={**base, **env})
    assert (RED in err) is coloured


def test_color_before_the_command_too(bad: str) -> None:
    _, _, err = invoke("--color", "always", "--config", bad, "check")
    assert RED in err


@pytest.mark.parametrize("command", ["build", "validate", "check"])
def test_statistics_count_per_code(bad: str, command: str) -> None:
    code, _, err = invoke("--config", bad, command, "--statistics")
    assert code == 1
    lines = err.splitlines()
    assert lines[0].split()[:3] == ["2", "SKC206", "error"]
    assert not any("src/a/SKILL.md" in line for line in lines)
    _, out, _ = invoke("--config", bad, command, "--statistics", "--format", "json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {
        "code": "SKC206",
        "severity": "error",
        "count": 2,
        "description": "name does not match its directory",
    }


def test_statistics_refuse_per_location_formats(bad: str) -> None:
    code, _, err = invoke("--config", bad, "validate", "--statistics", "--format", "github")
    assert code == 2 and "--statistics" in err


@pytest.mark.parametrize("command", [("validate",), ("check",), ("explain", "default", "c")])
def test_quiet_everywhere(tmp_path: Path, command: tuple[str, ...]) -> None:
    config = str(project(tmp_path, {"src/c/SKILL.md": skill_md("c", extra="x")}))
    _, _, loud = invoke("--config", config, *command)
    _, _, quiet = invoke("--config", config, *command, "-q")
    assert "warning[" in loud or "skillc: " in loud or command[0] == "explain"
    assert "warning[" not in quiet and "skillc: dist/" not in quiet


def test_validate_says_it_passed(tmp_path: Path) -> None:
    config = str(project(tmp_path, {"src/c/SKILL.md": skill_md("c")}))
    code, out, err = invoke("--config", config, "validate")
    assert code == 0 and out == ""
    assert err.strip().splitlines()[-1].startswith("skillc: valid: 1 skills")
    assert invoke("--config", config, "validate", "-q")[2] == ""
    assert invoke("--config", config, "validate", "--format", "json")[2] == ""


def test_priority_matches_like_resources_exclude(tmp_path: Path) -> None:
    """`s1*` is a name at any depth and `team/` everything below team, as in .gitignore."""
    skills = {f"src/{n}/SKILL.md": skill_md(n, description="d" * 60) for n in ("a", "b", "s1x")}
    skills.update({"src/team/SKILL.md": skill_md("team"), "src/team/t1/SKILL.md": skill_md("t1")})
    config = project(
        tmp_path,
        skills,
        "format: 1\nsources: [src]\npersonas: personas\noutput: dist\n"
        "budgets:\n  catalog_chars: 520\n  priority: ['team/', 's1*']\n",
    )
    code, _, err = invoke("--config", str(config), "build")
    assert code == 0, err
    dist = reader.open(tmp_path / "dist")
    meta = dist.persona_meta(dist.personas()[0])
    # fnmatch would match neither `team/t1` with 'team/' nor rank it before `a`: it would be left out.
    assert set(meta.included) == {"s1x", "team/t1"}, meta


def test_shell_completion_as_documented() -> None:
    """click's completion, through the `skillc` entry point: `_SKILLC_COMPLETE=bash_source skillc`."""
    import os
    import shutil
    import subprocess

    beside = Path(sys.executable).parent / "skillc"  # this environment's entry point, not another's
    exe = str(beside) if beside.exists() else shutil.which("skillc") or "skillc"
    env = {**os.environ, "COMP_WORDS": "skillc bu", "COMP_CWORD": "1", "_SKILLC_COMPLETE": "bash_complete"}
    proc = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["plain,build"]
    script = subprocess.run(
        [exe],
        env={**os.environ, "_SKILLC_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_skillc_completion" in script.stdout


@pytest.mark.parametrize("command", [("catalog",), ("export", "out")])
@pytest.mark.parametrize("option", ["--window", "--chars"])
@pytest.mark.parametrize("value", ["9" * 400, "1000000001", "0", "-5"])
def test_numeric_options_are_bounded(
    tmp_path: Path, command: tuple[str, ...], option: str, value: str
) -> None:
    """A number past its range is a usage error (exit 2), never an OverflowError (docs/cli.md)."""
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    name, *dest = command
    args = ["--config", str(config), name, "--target", "claude-code", "--persona", "default", option, value]
    result = CliRunner().invoke(cli, [*args, *(str(tmp_path / d) for d in dest)])
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output and "1<=x<=1000000000" in result.output
