"""Issue 17 item 7: `check` on a stale build names the source files whose change made it stale,
one line per source, never object hashes one line each."""

from __future__ import annotations

from pathlib import Path

from support.cli import run
from support.project import skill_md
from support.project import src_project as project

CONFIG = "sources: [src]\npersonas: personas\n"


def _built(tmp_path: Path) -> Path:
    files = {
        "src/a/SKILL.md": skill_md("a"),
        "src/b/SKILL.md": skill_md("b"),
        "src/b/notes.md": "notes\n",
        "personas/ops/manifest.yaml": "name: Ops\n",
    }
    config = project(tmp_path, files, CONFIG)
    assert run("build", "--config", str(config))[0] == 0
    assert run("check", "--config", str(config))[0] == 0
    return config


def _stale_lines(config: Path) -> list[str]:
    code, out = run("check", "--config", str(config))
    assert code == 1
    return [line for line in out.splitlines() if "SKC701" in line]


def test_each_changed_source_is_one_line(tmp_path: Path) -> None:
    config = _built(tmp_path)
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", description="Does it better."))
    (tmp_path / "src/b/notes.md").write_text("other notes\n")
    (tmp_path / "src/c").mkdir()
    (tmp_path / "src/c/SKILL.md").write_text(skill_md("c"))
    (tmp_path / "personas/ops/manifest.yaml").write_text("name: Operations\n")
    lines = _stale_lines(config)
    assert [line.split(": error")[0] for line in lines] == [
        "personas/ops/manifest.yaml:1:1",
        "src/a/SKILL.md:1:1",
        "src/b/notes.md:1:1",
        "src/c/SKILL.md:1:1",
    ]
    assert "(description, frontmatter)" in lines[1] and "new skill 'c'" in lines[3]
    assert not any("objects/" in line for line in lines)


def test_a_removed_skill_and_a_body_change(tmp_path: Path) -> None:
    config = _built(tmp_path)
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", body="A new body.\n"))
    (tmp_path / "src/b/notes.md").unlink()
    (tmp_path / "src/b/SKILL.md").unlink()
    lines = _stale_lines(config)
    assert len(lines) == 2
    assert lines[0].startswith("src/a/SKILL.md:1:1: error[SKC701]: changed since the build (body)")
    assert lines[1].startswith("src/b/SKILL.md:1:1: error[SKC701]: skill 'b' is gone")


def test_a_config_change_names_the_config(tmp_path: Path) -> None:
    config = _built(tmp_path)
    config.write_text(CONFIG + "budgets:\n  catalog_chars: 5000\n")
    lines = _stale_lines(config)
    assert len(lines) == 1 and lines[0].startswith("skillc.yaml:1:1: error[SKC701]:")
    assert "config changed since the build (catalog_chars)" in lines[0]


def test_a_hand_edited_output_names_at_most_ten_files(tmp_path: Path) -> None:
    config = _built(tmp_path)
    for obj in sorted((tmp_path / "dist/objects").rglob("*"))[:40]:
        if obj.is_file():
            obj.write_bytes(b"tampered")
    lines = _stale_lines(config)
    assert 1 <= len(lines) <= 11
    assert all(line.startswith("dist/") for line in lines)


def _advice(config: Path) -> str:
    code, out = run("check", "--config", str(config))
    assert code == 1
    return next(line for line in out.splitlines() if line.startswith("skillc:") and "is stale" in line)


def test_an_object_changed_in_place_is_repaired_by_the_advice(tmp_path: Path) -> None:
    """A build with the cache does not notice an object edited in place (its name and its folder's
    stat data stay): `check` advises the build that does, and following it makes the output current."""
    config = _built(tmp_path)
    obj = next(p for p in sorted((tmp_path / "dist/objects").rglob("*")) if p.is_file())
    obj.write_bytes(obj.read_bytes() + b"tampered")
    assert "run `skillc build --no-cache` and commit it" in _advice(config)
    assert run("build", "--config", str(config), "--no-cache")[0] == 0
    assert run("check", "--config", str(config))[0] == 0


def test_a_source_change_advises_a_plain_build(tmp_path: Path) -> None:
    config = _built(tmp_path)
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", body="A new body.\n"))
    assert "run `skillc build` and commit it" in _advice(config)
