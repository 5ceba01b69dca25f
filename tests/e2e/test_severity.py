"""Per-code severity: config `diagnostics:`, `--ignore`, then `--strict`."""

from __future__ import annotations

from pathlib import Path

from support.cli import build, invoke, run
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


def warnings_of(config: Path, *extra: str) -> list[str]:
    result = invoke("validate", *extra, config=config)
    assert result.exit_code == 0, result.stderr
    return [f"{d.path}:{d.line}:{d.col}: {d.code}: {d.message}" for d in result.diags]


def test_an_inline_ignore_that_suppresses_nothing_is_said_at_its_code(tmp_path: Path) -> None:
    text = "---\nname: a\n# skillc: ignore[SKC205, SKC213]\ndescription: Does.\ncolour: red\n---\nBody.\n"
    config = src_project(tmp_path, {"src/a/SKILL.md": text}, CONFIG)
    assert warnings_of(config) == [
        "src/a/SKILL.md:3:26: SKC107: skillc: ignore[SKC213] suppresses nothing: this skill has no SKC213"
    ]
    (tmp_path / "src/a/SKILL.md").write_text(text.replace("SKC213]", "SKC213, SKC107]"))  # kept on purpose
    assert warnings_of(config) == []


def test_a_config_setting_that_suppresses_nothing_is_said_at_its_key(tmp_path: Path) -> None:
    settings = "diagnostics:\n  SKC205: ignore\n  SKC216: warning\n  SKC206: error\n"
    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a", colour="red")}, CONFIG + settings)
    assert warnings_of(config, "--ignore", "SKC213") == [  # --ignore is the command line's: never said
        "skillc.yaml:4:3: SKC107: diagnostics: SKC216: warning suppresses nothing: no SKC216 in this build; "
        "remove the setting"
    ]
    config.write_text(config.read_text() + "  SKC107: ignore\n")  # how a project keeps such settings
    assert warnings_of(config) == []


def test_per_path_patterns_that_can_never_match_are_said(tmp_path: Path) -> None:
    absolute = f"{tmp_path.resolve().as_posix()}/src/**"
    per_path = f"  per_path:\n    '../other/**': {{SKC205: ignore}}\n    '{absolute}': {{SKC205: ignore}}\n"
    files = {"src/a/SKILL.md": skill_md("a", colour="red")}
    config = src_project(tmp_path, files, CONFIG + "diagnostics:\n" + per_path)
    said = warnings_of(config)
    assert [line.split(": ", 2)[1] for line in said] == ["SKC107", "SKC107", "SKC205"]  # skillc.yaml first
    assert "'../other/**' can never match" in said[0]
    assert f"'{absolute}' suppresses nothing in this build (SKC205: ignore)" in said[1]


def test_a_suppression_an_edit_build_makes_idle_is_said_as_a_clean_build_says_it(tmp_path: Path) -> None:
    files = {"src/a/SKILL.md": skill_md("a", body=""), "src/b/SKILL.md": skill_md("b")}
    config = src_project(tmp_path, files, CONFIG + "diagnostics:\n  SKC213: ignore\n")
    assert build(config).diags == ()  # the empty body's SKC213 is ignored: the setting is used
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", body="Now written.\n"))
    again = build(config)
    assert [d.code for d in again.diags] == ["SKC107"], again.stderr
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", body=""))
    assert build(config).diags == ()
