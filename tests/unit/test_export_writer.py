"""output/export.py: an export folder is replaced atomically, and only when everything in it is ours."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support.files import snapshot

from skillc.errors import OutputRefused
from skillc.output import export as writer
from skillc.output.export import MARKER, File, marked, write_export

ABOUT = {"target": "codex"}


def tree(version: str = "one") -> tuple[File, ...]:
    return marked(
        [
            File(".agents/skills/a/SKILL.md", f"---\nname: a\n---\n{version}\n".encode()),
            File(".agents/skills/a/scripts/go", b"#!/bin/sh\n", executable=True),
            File(".agents/skills/b/SKILL.md", b"b\n"),
        ],
        ABOUT,
    )


def test_writes_every_file_with_fixed_modes_and_the_marker(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    assert write_export(dest, tree())
    assert (dest / ".agents/skills/a/SKILL.md").read_bytes() == b"---\nname: a\n---\none\n"
    assert stat.S_IMODE(os.stat(dest / ".agents/skills/a/scripts/go").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(dest / ".agents/skills/b/SKILL.md").st_mode) == 0o644
    assert (dest / MARKER).is_file()


def test_the_same_export_again_rewrites_nothing(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    write_export(dest, tree())
    before = os.stat(dest / ".agents/skills/a/SKILL.md").st_ino
    assert not write_export(dest, tree())
    assert os.stat(dest / ".agents/skills/a/SKILL.md").st_ino == before


def test_a_new_export_drops_files_the_old_one_wrote(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    write_export(dest, tree())
    write_export(dest, marked([File(".agents/skills/a/SKILL.md", b"only\n")], ABOUT))
    assert not (dest / ".agents/skills/b").exists()
    assert sorted(p.name for p in (dest / ".agents/skills").iterdir()) == ["a"]


def test_an_empty_folder_is_taken(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    assert write_export(dest, tree())


@pytest.mark.parametrize(
    "foreign",
    [
        "README.md",  # a folder skillc never exported into
        ".agents/skills/a/notes.txt",  # a user file inside an exported skill folder
        ".agents/skills/c/",  # an empty folder a user made
    ],
)
def test_anything_the_marker_does_not_list_refuses_the_export(tmp_path: Path, foreign: str) -> None:
    dest = tmp_path / "out"
    if foreign != "README.md":
        write_export(dest, tree())
    target = dest / foreign
    target.parent.mkdir(parents=True, exist_ok=True)
    if foreign.endswith("/"):
        target.mkdir()
    else:
        target.write_text("mine\n")
    before = snapshot(dest)
    with pytest.raises(OutputRefused, match="did not export"):
        write_export(dest, tree("two"))
    assert snapshot(dest) == before


def test_a_symlink_below_dest_is_foreign_and_never_followed(tmp_path: Path) -> None:
    dest, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    write_export(dest, tree())
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("keep\n")
    os.rename(dest / ".agents/skills/b", tmp_path / "b-moved")
    os.symlink(elsewhere, dest / ".agents/skills/b")
    with pytest.raises(OutputRefused, match=r"\.agents/skills/b"):
        write_export(dest, tree("two"))
    assert (elsewhere / "keep").read_text() == "keep\n"


def test_a_symlinked_dest_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "out")
    with pytest.raises(OutputRefused, match="symlink"):
        write_export(tmp_path / "out", tree())
    assert not list(real.iterdir())


def test_a_broken_marker_makes_nothing_ours(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    write_export(dest, tree())
    (dest / MARKER).write_text("{not json")
    with pytest.raises(OutputRefused):
        write_export(dest, tree("two"))


def test_a_failure_midway_leaves_the_previous_export_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "out"
    write_export(dest, tree())
    before = snapshot(dest)
    calls: list[File] = []
    real_put = writer._put

    def failing(root: Path, file: File) -> None:
        calls.append(file)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_put(root, file)

    monkeypatch.setattr(writer, "_put", failing)
    with pytest.raises(OSError, match="No space"):
        write_export(dest, tree("two"))
    assert snapshot(dest) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temp tree left behind


@pytest.mark.parametrize(
    "path", ["../escape", "a/../../escape", "/abs", "a//b", "./a", "a\\b", "c:x", "a\x00"]
)
def test_a_path_that_could_leave_dest_is_refused_before_anything_is_written(
    tmp_path: Path, path: str
) -> None:
    dest = tmp_path / "box" / "out"
    with pytest.raises(OutputRefused, match="not a plain path"):
        write_export(dest, marked([File("ok/SKILL.md", b"ok\n"), File(path, b"x")], ABOUT))
    assert sorted(p.name for p in tmp_path.rglob("*")) == []
