"""skillc init, finding the config upward, and --config on either side of the subcommand."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from support.files import write_tree
from support.project import skill_md

from skillc.cli import cli
from skillc.project import init as init_mod


def _invoke(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("preset", "sources", "personas"),
    [
        ("claude-code", [".claude/skills"], None),
        ("agents", [".agents/skills"], None),
        ("codex", [".agents/skills", ".codex/skills"], None),
        ("aria", ["skills/core", "skills/project"], "skills/personas"),
    ],
)
def test_presets_write_a_config_that_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, preset: str, sources: list[str], personas: str | None
) -> None:
    code, out = _invoke(tmp_path, "init", "--preset", preset, monkeypatch=monkeypatch)
    assert code == 0, out
    data = yaml.safe_load((tmp_path / "skillc.yaml").read_text())
    assert data["sources"] == sources and data.get("personas") == personas
    assert "# budgets:" in (tmp_path / "skillc.yaml").read_text()  # commented, with the defaults
    write_tree(tmp_path, {f"{sources[-1]}/hello/SKILL.md": skill_md("hello")})
    code, out = _invoke(tmp_path, "build", monkeypatch=monkeypatch)
    assert code == 0, out
    assert (tmp_path / "dist").is_dir()


def test_init_detects_the_tree(tmp_path: Path) -> None:
    (tmp_path / ".codex" / "skills").mkdir(parents=True)
    (tmp_path / ".agents" / "skills").mkdir(parents=True)
    assert init_mod.detect(tmp_path).sources == (".agents/skills", ".codex/skills")
    assert init_mod.detect(tmp_path / "nothing").name == "claude-code"


def test_init_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "skillc.yaml").write_text("mine\n")
    code, out = _invoke(tmp_path, "init", monkeypatch=monkeypatch)
    assert code == 1 and "already exists" in out
    assert (tmp_path / "skillc.yaml").read_text() == "mine\n"


def test_config_is_found_upward_but_not_above_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(
        tmp_path,
        {
            "skillc.yaml": "sources: [src]\n",
            "src/a/SKILL.md": skill_md("a"),
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/deep/er/x.txt": "",
        },
    )
    deep = tmp_path / "src" / "a"
    code, out = _invoke(deep, "validate", monkeypatch=monkeypatch)
    assert code == 0, out
    assert init_mod.find_config(tmp_path / "repo" / "deep" / "er") is None  # stops at .git
    code, out = _invoke(tmp_path / "repo" / "deep", "validate", monkeypatch=monkeypatch)
    assert code == 2 and "skillc init" in out


def test_config_option_before_or_after_the_subcommand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"p/conf.yaml": "sources: [src]\n", "p/src/a/SKILL.md": skill_md("a")})
    cfg = str(tmp_path / "p" / "conf.yaml")
    assert _invoke(tmp_path, "--config", cfg, "validate", monkeypatch=monkeypatch)[0] == 0
    assert _invoke(tmp_path, "validate", "--config", cfg, monkeypatch=monkeypatch)[0] == 0
    code, out = _invoke(
        tmp_path, "validate", "--config", str(tmp_path / "missing.yaml"), monkeypatch=monkeypatch
    )
    assert code == 2 and "not found" in out
