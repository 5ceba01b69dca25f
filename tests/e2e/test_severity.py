"""Per-code severity: config `diagnostics:`, `--ignore`, then `--strict`."""

from __future__ import annotations

from pathlib import Path

from support.cli import run
from support.files import REPO
from support.project import skill_md, src_project

CONFIG = "sources: [src]\n"
FILES = {
    "src/a/SKILL.md": skill_md("a", colour="red"),
    "src/b/SKILL.md": skill_md("b", description="x" * 1100),
}


def test_config_diagnostics_and_ignore_flag(tmp_path: Path) -> None:
    files = {"src/a/SKILL.md": skill_md("a", colour="red")}
    config = src_project(tmp_path, files, CONFIG + "diagnostics:\n  SKC205: error\n")
    code, out = run("validate", "--config", str(config))
    assert code == 1 and "error[SKC205]" in out
    code, out = run("validate", "--config", str(config), "--ignore", "SKC205")
    assert code == 0 and "SKC205" not in out


def test_strict_promotes_what_is_left(tmp_path: Path) -> None:
    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a", colour="red")}, CONFIG)
    assert run("validate", "--config", str(config), "--strict")[0] == 1
    assert run("validate", "--config", str(config), "--strict", "--ignore", "SKC205")[0] == 0


def test_unknown_codes_are_refused(tmp_path: Path) -> None:
    config = src_project(tmp_path, FILES, CONFIG + "diagnostics:\n  SKC999: ignore\n")
    code, out = run("validate", "--config", str(config))
    assert code == 1 and "skillc.yaml:3:3: error[SKC102]: diagnostics: unknown code 'SKC999'" in out
    config = src_project(tmp_path / "q", FILES, CONFIG)
    code, out = run("validate", "--config", str(config), "--ignore", "SKC999")
    assert code == 2 and "unknown diagnostic code" in out


def test_the_example_passes_check_strict() -> None:
    code, out = run("check", "--config", str(REPO / "skillc.yaml"), "--strict")
    assert code == 0, out


def test_validate_holds_what_the_build_would_write_to_the_schemas(tmp_path: Path) -> None:
    from skillc import pipeline
    from skillc.output import verify

    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, CONFIG)
    result = pipeline.compile_project(config)
    assert isinstance(result, pipeline.Compiled) and result.artifacts is not None
    files = dict(result.artifacts.files)
    assert verify.artifact_errors(files) == []
    files["_index.json"] = files["_index.json"].replace(b'"format": 3', b'"format": 4')
    assert any("format" in e for e in verify.artifact_errors(files))
    assert run("validate", "--config", str(config))[0] == 0
