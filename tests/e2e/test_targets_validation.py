"""Graded validation through `skillc check` and `build` with `targets:` set (docs/targets.md)."""

from __future__ import annotations

import os
from pathlib import Path

from support.cli import build, invoke
from support.project import project, skill_md

from skillc import reader

FLAGS = "sources: [skills]\ntargets: [{}]\n"


def _config(targets: str, extra: str = "") -> str:
    return FLAGS.format(targets) + extra


def test_what_every_selected_target_loads_builds_with_warnings(tmp_path: Path) -> None:
    cfg = project(
        tmp_path,
        {
            "skills/colon/SKILL.md": "---\nname: colon\ndescription: Use when: x\n---\nBody.\n",
            "skills/one/SKILL.md": skill_md("one", **{"disable-model-invocation": "1"}),
            "skills/mixed/SKILL.md": skill_md("mixed", **{"user-invocable": '"oN"'}),
            "skills/folder/SKILL.md": skill_md("label"),
            "skills/long/SKILL.md": skill_md("long", description="x" * 1100),
            "skills/nodesc/SKILL.md": "---\nname: nodesc\n---\nFirst line.\n\nSecond.\n",
        },
        _config("claude-code"),
    )
    result = build(cfg)
    assert result.exit_code == 0, result.stderr
    assert {d.severity for d in result.diags} == {"warning"}
    assert result.one("SKC206").message == (
        "name 'label' does not match its directory 'folder' (claude-code: loads)"
    )
    dist = reader.open(tmp_path / "dist")
    assert dist.skill_meta("nodesc").description == "First line."
    assert dist.skill_meta("one").frontmatter["disable-model-invocation"] is True
    assert dist.skill_meta("mixed").frontmatter["user-invocable"] is True
    assert dist.skill_meta("colon").description == "Use when: x"
    # --strict promotes every warning left, these too (as it always has)
    assert build(cfg, "--strict").exit_code == 1


def test_without_targets_the_same_tree_fails_as_before(tmp_path: Path) -> None:
    cfg = project(
        tmp_path,
        {
            "skills/colon/SKILL.md": "---\nname: colon\ndescription: Use when: x\n---\nBody.\n",
            "skills/one/SKILL.md": skill_md("one", **{"disable-model-invocation": "1"}),
            "skills/folder/SKILL.md": skill_md("label"),
        },
        "sources: [skills]\n",
    )
    result = build(cfg)
    assert result.exit_code == 1
    assert {d.code for d in result.diags if d.severity == "error"} == {"SKC203", "SKC204", "SKC206"}
    assert "(" not in result.one("SKC206").message  # no verdicts without targets


def test_a_target_that_skips_keeps_the_error_and_says_which(tmp_path: Path) -> None:
    cfg = project(
        tmp_path, {"skills/nodesc/SKILL.md": "---\nname: nodesc\n---\nBody.\n"}, _config("codex, gemini")
    )
    result = invoke("check", config=cfg)
    assert result.exit_code == 1
    assert result.one("SKC204").message == "description: is required (codex: skips; gemini: skips)"


def test_codex_ignores_disable_model_invocation_and_it_is_said(tmp_path: Path) -> None:
    files = {"skills/manual/SKILL.md": skill_md("manual", **{"disable-model-invocation": True})}
    cfg = project(tmp_path, files, _config("claude-code, codex"))
    said = build(cfg).one("SKC217")
    assert said.severity == "warning"
    assert "(claude-code: honours it; codex: ignores it); for Codex, `skillc export`" in said.message
    assert build(project(tmp_path, files, _config("claude-code"))).find("SKC217") == []


def test_a_skill_no_one_can_invoke_is_linted(tmp_path: Path) -> None:
    files = {
        "skills/nobody/SKILL.md": skill_md(
            "nobody", **{"disable-model-invocation": True, "user-invocable": False}
        )
    }
    result = build(project(tmp_path, files, "sources: [skills]\n"))
    assert result.exit_code == 0
    assert result.one("SKC218").severity == "warning"


def test_a_skill_without_name_is_said_to_be_skipped_by_gemini(tmp_path: Path) -> None:
    files = {"skills/anon/SKILL.md": "---\ndescription: d\n---\nBody.\n"}
    result = build(project(tmp_path, files, _config("gemini")))
    assert result.exit_code == 0
    assert result.one("SKC217").message == (
        "no name: skillc names it after its folder, a selected harness skips it (gemini: skips). "
        "Add name: anon"
    )


def _linked(tmp_path: Path, extra: str) -> Path:
    outside = tmp_path / "elsewhere" / "linked"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text(skill_md("linked"), encoding="utf-8")
    cfg = project(tmp_path / "p", {"skills/plain/SKILL.md": skill_md("plain")}, _config("codex", extra))
    os.symlink(outside, tmp_path / "p" / "skills" / "linked")
    return cfg


def test_a_symlink_out_of_the_project_is_followed_when_the_config_says_so(tmp_path: Path) -> None:
    cfg = _linked(tmp_path, "follow_symlinks: outside\n")
    result = build(cfg)
    assert result.exit_code == 0, result.stderr
    assert result.one("SKC302").severity == "warning"
    assert "(codex: loads); followed (follow_symlinks: outside)" in result.one("SKC302").message
    assert reader.open(tmp_path / "p" / "dist").skill_meta("linked").name == "linked"


def test_without_the_switch_an_escaping_link_costs_one_skill_under_skip_invalid(tmp_path: Path) -> None:
    cfg = _linked(tmp_path, "")
    refused = build(cfg)
    assert refused.exit_code == 1 and refused.one("SKC302").severity == "error"
    assert "`follow_symlinks: outside` follows it" in refused.one("SKC302").message
    skipped = build(cfg, "--skip-invalid")
    assert skipped.exit_code == 0, skipped.stderr
    assert "linked" in skipped.one("SKC314").message
    assert skipped.one("SKC314").path == refused.one("SKC302").path  # the file, not the bare name


def test_the_build_cache_checks_a_skill_again_when_the_targets_change(tmp_path: Path) -> None:
    files = {"skills/colon/SKILL.md": "---\nname: colon\ndescription: Use when: x\n---\nBody.\n"}
    plain = project(tmp_path, files, "sources: [skills]\n")
    assert build(plain).exit_code == 1
    graded = build(project(tmp_path, files, _config("opencode")))
    assert graded.exit_code == 0, graded.stderr
    assert "(opencode: loads)" in graded.one("SKC214").message
    again = build(project(tmp_path, files, "sources: [skills]\n"))  # the memo must not answer for it
    assert again.exit_code == 1 and again.one("SKC203").severity == "error"


def test_two_skills_with_one_name_are_reported_with_what_each_harness_keeps(tmp_path: Path) -> None:
    files = {
        "skills/alpha/SKILL.md": skill_md("shared"),
        "skills/beta/SKILL.md": skill_md("shared"),
        "skills/gamma/SKILL.md": skill_md("gamma"),
    }
    cfg = project(tmp_path, files, _config("codex, gemini"))
    result = build(cfg)
    assert result.exit_code == 0, result.stderr
    found = [d for d in result.diags if d.code == "SKC217"]
    assert [(d.path, d.line) for d in found] == [("skills/beta/SKILL.md", 2)]
    assert found[0].message == (
        "skill 'beta' has the name 'shared' of 'alpha' (skills/alpha/SKILL.md) (codex: loads; gemini: skips)."
        " Give each skill its own name"
    )
    # skillc keys skills by command: without targets there is nothing to report
    cfg = project(tmp_path / "plain", files, "sources: [skills]\ndiagnostics:\n  SKC206: warning\n")
    assert not [d for d in build(cfg).diags if d.code == "SKC217"]


def test_a_hidden_skill_folder_is_reported_when_a_selected_target_loads_it(tmp_path: Path) -> None:
    files = {"skills/.hidden/SKILL.md": skill_md(".hidden"), "skills/seen/SKILL.md": skill_md("seen")}
    cfg = project(tmp_path, files, _config("claude-code, codex"))
    result = build(cfg)
    assert result.exit_code == 0, result.stderr
    assert [(d.path, d.message) for d in result.find("SKC217")] == [
        (
            "skills/.hidden/SKILL.md",
            "skill folder '.hidden' is hidden: skillc does not compile it (claude-code: loads; codex: skips)."
            " Rename the folder without its leading dot to compile it",
        )
    ]
    # no selected target loads it: nothing to say
    cfg = project(tmp_path / "codex", files, _config("codex"))
    assert not build(cfg).find("SKC217")
