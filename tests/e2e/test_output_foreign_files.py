"""skillc never deletes or overwrites a file it did not write; init keeps clear of packaging's dist/."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc.project import init as init_mod


def built(tmp_path: Path) -> Path:
    config = project(tmp_path, {"src/demo/SKILL.md": skill_md("demo")})
    code, out = run("--config", str(config), "build")
    assert code == 0, out
    return config


@pytest.mark.parametrize("where", ["pkg-1.0-py3-none-any.whl", "personas/notes/README.md"])
def test_a_foreign_file_stops_the_build_and_stays(tmp_path: Path, where: str) -> None:
    config = built(tmp_path)
    (tmp_path / "src/other/").mkdir()
    (tmp_path / "src/other/SKILL.md").write_text(skill_md("other"))  # a build would write anew
    foreign = tmp_path / "dist" / where
    foreign.parent.mkdir(parents=True, exist_ok=True)
    foreign.write_bytes(b"not skillc's")
    for args in ((), ("--no-cache",)):
        code, out = run("--config", str(config), "build", *args)
        assert code == 1 and f"dist/{where}" in out and "SKC704" in out, out
        assert foreign.read_bytes() == b"not skillc's"


def test_a_removed_persona_copy_is_still_ours(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        {
            "src/demo/SKILL.md": skill_md("demo"),
            "personas/p/manifest.yaml": "name: P\n",
        },
    )
    assert run("--config", str(config), "build")[0] == 0
    copies = sorted(p.name for p in (tmp_path / "dist" / "personas").iterdir())
    (tmp_path / "personas/p/manifest.yaml").unlink()
    (tmp_path / "personas/p").rmdir()
    code, out = run("--config", str(config), "build")
    assert code == 0, out
    assert sorted(p.name for p in (tmp_path / "dist" / "personas").iterdir()) != copies


@pytest.mark.parametrize("packaging", ["pyproject.toml", "setup.py", "package.json"])
def test_init_keeps_clear_of_packaging_output(tmp_path: Path, packaging: str) -> None:
    (tmp_path / packaging).write_text("")
    target, _ = init_mod.write(tmp_path, None)
    assert "output: skillc-dist" in target.read_text()


def test_init_without_packaging_writes_dist(tmp_path: Path) -> None:
    target, _ = init_mod.write(tmp_path, None)
    assert "output: dist " in target.read_text()


def test_init_offers_the_hidden_folders_of_an_openai_like_checkout(tmp_path: Path) -> None:
    for folder in (".system", ".curated", ".experimental"):
        skill = tmp_path / "skills" / folder / f"s{folder[1:]}" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(skill_md(f"s{folder[1:]}"))
    preset = init_mod.detect(tmp_path)
    assert preset.sources == ("skills/.experimental", "skills/.curated", "skills/.system")
    assert not (tmp_path / ".claude").exists()


def test_init_finds_a_plain_skills_folder(tmp_path: Path) -> None:
    (tmp_path / "skills" / "demo").mkdir(parents=True)
    (tmp_path / "skills" / "demo" / "SKILL.md").write_text(skill_md("demo"))
    assert init_mod.detect(tmp_path).sources == ("skills",)


def test_an_empty_build_warns_and_fails_under_strict(tmp_path: Path) -> None:
    config = project(tmp_path, {})
    code, out = run("--config", str(config), "build")
    assert code == 0 and "SKC315" in out
    code, out = run("--config", str(config), "build", "--strict")
    assert code == 1 and "error[SKC315]" in out
