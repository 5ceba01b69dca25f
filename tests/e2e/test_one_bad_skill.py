"""Issue 17, "one bad skill costs one skill": with --skip-invalid no bad skill fails the build, and
every skill left out is named (SKC314), never dropped silently."""

from __future__ import annotations

import os
from pathlib import Path

from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader

CONFIG = "sources: [src]\nresources:\n  max_bytes: 100\n"


def _build(config: Path, *args: str) -> tuple[int, str]:
    return run("build", "--config", str(config), *args)


def _left_out(out: str) -> str:
    lines = [line for line in out.splitlines() if "SKC314" in line]
    assert len(lines) == 1, out
    return lines[0]


def test_ids_that_collide_leave_out_only_what_cannot_keep_its_id(tmp_path: Path) -> None:
    """Issue 39: `foo-bar` is a valid skill name and keeps the id it shares with `foo_bar`; of
    `a b` and `a.b`, neither is, so neither keeps it; one of a pair that does not even parse is
    left out all the same (it was a collision no skill owned, which failed the whole build); and
    26 such pairs cost 26 skills, not the build."""
    files = {
        "src/foo-bar/SKILL.md": skill_md(None),
        "src/foo_bar/SKILL.md": skill_md(None),
        "src/a b/SKILL.md": skill_md(None),
        "src/a.b/SKILL.md": skill_md(None),
        "src/x-y/SKILL.md": skill_md(None),
        "src/x_y/SKILL.md": "---\nname: [\n---\n",
        "src/ok/SKILL.md": skill_md(None),
        **{f"src/p{i}-q/SKILL.md": skill_md(None) for i in range(26)},
        **{f"src/p{i}_q/SKILL.md": skill_md(None) for i in range(26)},
    }
    config = project(tmp_path, files, CONFIG)
    code, out = _build(config)
    assert code == 1 and "src/foo_bar/SKILL.md:1:1: error[SKC306]" in out
    assert "src/foo-bar/SKILL.md:1:1: error" not in out
    code, out = _build(config, "--skip-invalid")
    assert code == 0, out
    kept = reader.open(tmp_path / "dist").all_commands()
    assert kept == sorted(["foo-bar", "ok", "x-y", *(f"p{i}-q" for i in range(26))])
    assert (
        "src/a b/SKILL.md:1:1: warning[SKC306]: command 'a b' has the same sanitized id as 'a.b' "
        "(src/a.b/SKILL.md) (the id 'a_b'), and neither is a valid skill name: neither keeps it"
    ) in out
    assert "(30 left out)" in out


def test_same_id_after_sanitising_costs_one_skill(tmp_path: Path) -> None:
    files = {f"src/{d}/SKILL.md": skill_md(None) for d in ("foo_bar", "foo-bar", "ok")}
    config = project(tmp_path, files, CONFIG)
    assert _build(config)[0] == 1
    code, out = _build(config, "--skip-invalid")
    assert code == 0, out
    assert _left_out(out).endswith("(--skip-invalid): foo_bar")
    assert reader.open(tmp_path / "dist").all_commands() == ["foo-bar", "ok"]


def test_an_oversized_resource_costs_that_file_and_says_so(tmp_path: Path) -> None:
    """One bad file costs one file (issue 39): under --skip-invalid the skill is built without it."""
    files = {
        "src/big/SKILL.md": skill_md("big"),
        "src/big/data.txt": "x" * 500,
        "src/big/small.txt": "x" * 50,
        "src/ok/SKILL.md": skill_md("ok"),
    }
    config = project(tmp_path, files, CONFIG)
    code, out = _build(config)
    assert code == 1 and "src/big/data.txt:1:1: error[SKC207]" in out
    code, out = _build(config, "--skip-invalid")
    assert code == 0, out
    assert (
        "src/big/data.txt:1:1: warning[SKC207]: left out of skill 'big', which is built without it "
        "(--skip-invalid): file is 500 bytes; the cap is 100; resources.max_bytes is 100"
    ) in out
    assert "SKC314" not in out and "left out)" not in out  # no skill was left out
    dist = reader.open(tmp_path / "dist")
    assert dist.all_commands() == ["big", "ok"] and dist.resources("default", "big") == ["small.txt"]


def test_a_folder_linked_outside_the_project_costs_that_entry(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "x"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text(skill_md("x"))
    root = tmp_path / "proj"
    config = project(root, {"src/ok/SKILL.md": skill_md("ok")}, CONFIG)
    os.symlink(outside, root / "src" / "x")
    code, out = _build(config)
    assert code == 1 and "src/x:1:1: error[SKC302]" in out
    code, out = _build(config, "--skip-invalid")
    assert code == 0, out
    assert "src/x:1:1: warning[SKC302]" in out
    assert _left_out(out).endswith("(--skip-invalid): x")
    assert reader.open(root / "dist").all_commands() == ["ok"]


def test_a_source_that_is_a_link_out_still_fails(tmp_path: Path) -> None:
    """Only entries below a source are one skill's worth: the source itself is the config's."""
    outside = tmp_path / "outside"
    (outside / "x").mkdir(parents=True)
    (outside / "x" / "SKILL.md").write_text(skill_md("x"))
    root = tmp_path / "proj"
    config = project(root, {}, "sources: [linked]\n")
    os.symlink(outside, root / "linked")
    assert _build(config, "--skip-invalid")[0] == 1


def test_a_code_raised_to_an_error_costs_one_skill_with_skip_invalid(tmp_path: Path) -> None:
    files = {"src/a/SKILL.md": skill_md("a", colour="red"), "src/ok/SKILL.md": skill_md("ok")}
    config = project(tmp_path, files, CONFIG + "diagnostics:\n  SKC205: error\n")
    assert _build(config)[0] == 1
    code, out = _build(config, "--skip-invalid")
    assert code == 0, out
    assert "src/a/SKILL.md:4:1: warning[SKC205]" in out
    assert _left_out(out).endswith("(--skip-invalid): a")
    assert reader.open(tmp_path / "dist").all_commands() == ["ok"]
