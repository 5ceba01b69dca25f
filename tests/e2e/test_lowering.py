"""Issue 17 item 5: spec-conformance codes can be lowered (per code, per path, inline, --ignore);
integrity codes never, and every setting that cannot take effect is a located error."""

from __future__ import annotations

from pathlib import Path

from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.diagnostics.codes import CONFORMANCE, DESCRIPTIONS, Code, lowerable

CONFIG = "sources: [src]\n"
# The two spec strictness failures of public collections: a name that differs from its folder,
# and a description over the spec's 1,024 characters.
FILES = {
    "src/ok/SKILL.md": skill_md("ok"),
    "src/foo/SKILL.md": skill_md("other-name"),
    "src/vendor/long/SKILL.md": skill_md("long", description="x" * 1068),
}


def _validate(
    tmp_path: Path, config: str, *args: str, files: dict[str, str] | None = None
) -> tuple[int, str]:
    cfg = project(tmp_path, files or FILES, config)
    return run("validate", "--config", str(cfg), *args)


def test_by_default_spec_strictness_fails(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, CONFIG)
    assert code == 1 and "error[SKC206]" in out and "error[SKC216]" in out


def test_lowered_per_code_the_skills_are_built(tmp_path: Path) -> None:
    config = project(tmp_path, FILES, CONFIG + "diagnostics:\n  SKC206: warning\n  SKC216: ignore\n")
    code, out = run("build", "--config", str(config))
    assert code == 0, out
    assert "warning[SKC206]" in out and "SKC216" not in out
    built = reader.open(tmp_path / "dist")
    assert built.all_commands() == ["foo", "ok", "vendor/long"]  # built, not silently dropped
    assert built.skill_meta("foo").name == "other-name"


def test_lowered_per_path(tmp_path: Path) -> None:
    config = CONFIG + 'diagnostics:\n  per_path:\n    "src/vendor/**": {SKC216: warning}\n  SKC206: ignore\n'
    code, out = _validate(tmp_path, config)
    assert code == 0, out
    assert "src/vendor/long/SKILL.md:3:14: warning[SKC216]" in out
    # the pattern holds only where it matches
    files = {**FILES, "src/mine/SKILL.md": skill_md("mine", description="y" * 1068)}
    code, out = _validate(tmp_path / "q", config, files=files)
    assert code == 1 and "src/mine/SKILL.md:3:14: error[SKC216]" in out


def test_lowered_inline_in_the_frontmatter(tmp_path: Path) -> None:
    text = "---\nname: other-name\n# skillc: ignore[SKC206]\ndescription: Does x.\n---\nBody\n"
    code, out = _validate(tmp_path, CONFIG, files={"src/foo/SKILL.md": text})
    assert code == 0 and "SKC206" not in out, out


def test_inline_refusals_are_located(tmp_path: Path) -> None:
    text = "---\nname: foo\n# skillc: ignore[SKC999, SKC301]\ndescription: Does x.\n---\nBody\n"
    code, out = _validate(tmp_path, CONFIG, files={"src/foo/SKILL.md": text})
    assert code == 1
    assert "src/foo/SKILL.md:3:18: error[SKC106]: skillc: ignore: unknown code 'SKC999'" in out
    assert "src/foo/SKILL.md:3:26: error[SKC106]: skillc: ignore: SKC301 is an integrity code" in out


def test_lowering_an_integrity_code_is_a_located_error(tmp_path: Path) -> None:
    config = CONFIG + 'diagnostics:\n  SKC204: warning\n  per_path:\n    "src/**": {SKC302: ignore}\n'
    code, out = _validate(tmp_path, config)
    assert code == 1
    assert "skillc.yaml:3:3: error[SKC106]: diagnostics: SKC204 is an integrity code" in out
    assert "skillc.yaml:5:16: error[SKC106]: diagnostics.per_path.src/**: SKC302 is an integrity code" in out


def test_unknown_code_per_path_is_refused(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, CONFIG + 'diagnostics:\n  per_path:\n    "src/**": {SKC998: ignore}\n')
    assert code == 1 and "skillc.yaml:4:16: error[SKC102]" in out and "unknown code 'SKC998'" in out


def test_ignore_flag_follows_the_same_rules(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, CONFIG, "--ignore", "SKC206", "--ignore", "SKC216")
    assert code == 0, out
    code, out = _validate(tmp_path / "q", CONFIG, "--ignore", "SKC204")
    assert code == 2 and "SKC204 is an integrity code" in out


def test_no_setting_is_silently_without_effect() -> None:
    """Every code either can be lowered or refuses to be: there is no third, silent, kind."""
    for code in DESCRIPTIONS:
        assert lowerable(code.value) == (code in CONFORMANCE)
    # what the output's correctness rests on is never lowerable
    for code in (
        Code.TOO_LARGE,
        Code.SYMLINK_ESCAPES,
        Code.COLLISION,
        Code.SKIPPED_INVALID,
        Code.YAML_SYNTAX,
    ):
        assert not lowerable(code.value)


def test_codes_lists_the_kind(tmp_path: Path) -> None:
    code, out = run("codes")
    assert code == 0
    assert any(line.startswith("SKC206  lowerable") for line in out.splitlines())
    assert any(line.startswith("SKC302  integrity") for line in out.splitlines())


def test_a_lowered_error_on_a_skill_that_cannot_be_built_says_so(tmp_path: Path) -> None:
    long = "a" * 65  # a directory name over 64 characters cannot be the skill's name
    files = {f"src/{long}/SKILL.md": skill_md(None)}
    code, out = _validate(tmp_path, CONFIG + "diagnostics:\n  SKC307: ignore\n", files=files)
    assert code == 1 and "error[SKC307]" in out and "(not lowered: the skill cannot be built with it)" in out


def test_lowering_shows_even_when_another_error_keeps_the_skill_out(tmp_path: Path) -> None:
    text = "---\nname: other\ndescription: [not, text]\n---\nBody\n"
    code, out = _validate(
        tmp_path, CONFIG + "diagnostics:\n  SKC206: warning\n", files={"src/foo/SKILL.md": text}
    )
    assert code == 1 and "error[SKC204]" in out and "error[SKC206]" not in out
