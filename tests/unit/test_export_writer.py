"""output/export.py: an export goes into a project beside its own files, owning only what it wrote."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.files import snapshot, write_tree

from skillc.errors import OutputRefused
from skillc.output import export as writer
from skillc.output import journal
from skillc.output.export import MARKER, Export, File, write_export
from skillc.output.settings import Setting

ABOUT = {"build": "b", "personas": ["lead"]}
ROOT = ".agents/skills"


def export(version: str = "one", *, skills: tuple[str, ...] = ("a", "b"), target: str = "codex") -> Export:
    files = [File(f"{ROOT}/{s}/SKILL.md", f"---\nname: {s}\n---\n{version}\n".encode()) for s in skills]
    if "a" in skills:
        files.append(File(f"{ROOT}/a/scripts/go", b"#!/bin/sh\n", executable=True))
    folders = tuple(f"{ROOT}/{s}" for s in skills)
    return Export(target, ABOUT, folders, tuple(sorted(files, key=lambda f: f.path)))


def opencode(*denied: str) -> Export:
    base = export(target="opencode")
    agent = Setting("opencode.json", ("agent", "lead"), {"mode": "primary"})
    deny = [Setting("opencode.json", ("permission", "skill", n), "deny") for n in denied]
    return Export("opencode", ABOUT, base.folders, base.files, (agent, *deny))


PROJECT = {"README.md": "mine\n", "src/main.py": "print()\n", f"{ROOT}/own/SKILL.md": "my own skill\n"}


def test_writes_its_folders_beside_the_projects_files(tmp_path: Path) -> None:
    write_tree(tmp_path, PROJECT)
    assert write_export(tmp_path, export())
    after = snapshot(tmp_path)
    assert {k: after[k] for k in PROJECT} == {k: v.encode() for k, v in PROJECT.items()}
    assert after[f"{ROOT}/a/SKILL.md"] == b"---\nname: a\n---\none\n"
    assert stat.S_IMODE(os.stat(tmp_path / f"{ROOT}/a/scripts/go").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tmp_path / f"{ROOT}/b/SKILL.md").st_mode) == 0o644
    record = json.loads(after[MARKER])["exports"]["codex"]
    assert record["folders"] == [f"{ROOT}/a", f"{ROOT}/b"] and record["dirs"] == []  # the project's


def test_the_same_export_again_rewrites_nothing(tmp_path: Path) -> None:
    write_export(tmp_path, export())
    before = os.stat(tmp_path / f"{ROOT}/a/SKILL.md").st_ino
    assert not write_export(tmp_path, export())
    assert os.stat(tmp_path / f"{ROOT}/a/SKILL.md").st_ino == before


def test_a_re_export_removes_only_what_its_marker_lists(tmp_path: Path) -> None:
    write_tree(tmp_path, PROJECT)
    write_export(tmp_path, export())
    write_export(tmp_path, export("two", skills=("a",)))
    after = snapshot(tmp_path)
    assert not (tmp_path / ROOT / "b").exists() and after[f"{ROOT}/a/SKILL.md"].endswith(b"two\n")
    assert {k: after[k] for k in PROJECT} == {k: v.encode() for k, v in PROJECT.items()}
    write_export(tmp_path, export(skills=()))
    assert sorted(p.name for p in (tmp_path / ROOT).iterdir()) == ["own"]


def test_the_folders_it_made_go_when_nothing_is_left_in_them(tmp_path: Path) -> None:
    write_export(tmp_path, export())
    assert json.loads((tmp_path / MARKER).read_bytes())["exports"]["codex"]["dirs"] == [".agents", ROOT]
    write_export(tmp_path, export(skills=()))
    assert sorted(p.name for p in tmp_path.iterdir()) == [MARKER]


def test_exports_for_two_targets_live_side_by_side(tmp_path: Path) -> None:
    write_export(tmp_path, export())
    claude = Export("claude-code", ABOUT, (".claude/skills/a",), (File(".claude/skills/a/SKILL.md", b"c\n"),))
    write_export(tmp_path, claude)
    write_export(tmp_path, export(skills=("b",)))
    assert (tmp_path / ".claude/skills/a/SKILL.md").read_bytes() == b"c\n"
    assert set(json.loads((tmp_path / MARKER).read_bytes())["exports"]) == {"claude-code", "codex"}


@pytest.mark.parametrize(
    "foreign",
    [
        f"{ROOT}/a/notes.txt",  # a user file inside an exported skill folder
        f"{ROOT}/a/extra/",  # a folder a user made inside one
    ],
)
def test_anything_the_marker_does_not_list_in_its_folders_refuses_the_export(
    tmp_path: Path, foreign: str
) -> None:
    write_export(tmp_path, export())
    target = tmp_path / foreign
    target.mkdir() if foreign.endswith("/") else target.write_text("mine\n")
    before = snapshot(tmp_path)
    with pytest.raises(OutputRefused, match="not written by the export"):
        write_export(tmp_path, export("two"))
    with pytest.raises(OutputRefused, match="not written by the export"):
        write_export(tmp_path, export(skills=("b",)))  # taking the folder back would delete it too
    assert snapshot(tmp_path) == before


def test_a_skill_folder_of_someone_elses_is_never_replaced(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"{ROOT}/a/SKILL.md": "the project's own a\n"})
    before = snapshot(tmp_path)
    with pytest.raises(OutputRefused, match=r"\.agents/skills/a/ \(no export for this target wrote it\)"):
        write_export(tmp_path, export())
    assert snapshot(tmp_path) == before


def test_a_symlink_on_the_way_or_in_its_folders_is_never_followed(tmp_path: Path) -> None:
    dest, elsewhere = tmp_path / "p", tmp_path / "elsewhere"
    write_export(dest, export())
    write_tree(elsewhere, {"keep": "keep\n"})
    os.rename(dest / ROOT / "b", tmp_path / "b-moved")
    os.symlink(elsewhere, dest / ROOT / "b")
    with pytest.raises(OutputRefused, match=r"\.agents/skills/b \(a symlink\)"):
        write_export(dest, export("two"))
    other = tmp_path / "q"
    (other / ".agents").mkdir(parents=True)
    os.symlink(elsewhere, other / ROOT)
    with pytest.raises(OutputRefused, match=r"\.agents/skills \(a symlink"):
        write_export(other, export())
    assert snapshot(elsewhere) == {"keep": b"keep\n"}


def test_a_symlinked_dest_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "out")
    with pytest.raises(OutputRefused, match="symlink"):
        write_export(tmp_path / "out", export())
    assert not list(real.iterdir())


def test_a_marker_it_cannot_read_is_refused_and_kept(tmp_path: Path) -> None:
    write_export(tmp_path, export())
    (tmp_path / MARKER).write_text("{not json")
    before = snapshot(tmp_path)
    with pytest.raises(OutputRefused, match="not a marker this skillc wrote"):
        write_export(tmp_path, export("two"))
    assert snapshot(tmp_path) == before


def test_settings_are_merged_and_taken_back(tmp_path: Path) -> None:
    write_tree(tmp_path, {"opencode.json": '{"agent": {"build": {"mode": "primary"}}, "theme": "x"}'})
    write_export(tmp_path, opencode("m"))
    doc = json.loads((tmp_path / "opencode.json").read_bytes())
    assert doc["theme"] == "x" and list(doc["agent"]) == ["build", "lead"]
    assert doc["permission"] == {"skill": {"m": "deny"}}
    write_export(tmp_path, export(target="opencode"))  # no settings this time
    assert json.loads((tmp_path / "opencode.json").read_bytes()) == {
        "agent": {"build": {"mode": "primary"}},
        "theme": "x",
    }


def test_a_settings_file_it_made_goes_with_its_keys(tmp_path: Path) -> None:
    write_export(tmp_path, opencode("m"))
    assert (tmp_path / "opencode.json").exists()
    write_export(tmp_path, export(target="opencode"))
    assert not (tmp_path / "opencode.json").exists()


def test_a_settings_file_that_is_not_json_is_a_clear_error_and_nothing_changes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"opencode.json": "{ // a comment\n}"})
    with pytest.raises(OutputRefused, match=r"opencode\.json is not valid JSON"):
        write_export(tmp_path, opencode())
    assert snapshot(tmp_path) == {"opencode.json": b"{ // a comment\n}"}


@pytest.mark.parametrize("fail_at", range(1, 12))
def test_a_failure_at_any_step_leaves_the_project_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    write_tree(tmp_path, {**PROJECT, "opencode.json": '{"theme": "x"}'})
    write_export(tmp_path, opencode("m"))
    before = snapshot(tmp_path)
    real, count = journal._do, [0]

    def failing(root: Path, kind: str, a: str, b: str) -> None:
        count[0] += 1
        if count[0] == fail_at:
            raise OSError(28, "No space left on device")
        real(root, kind, a, b)

    monkeypatch.setattr(journal, "_do", failing)
    try:
        write_export(
            tmp_path, Export("opencode", ABOUT, (f"{ROOT}/c",), (File(f"{ROOT}/c/SKILL.md", b"c\n"),))
        )
    except OSError:
        assert snapshot(tmp_path) == before
    else:
        assert count[0] < fail_at  # fewer steps than that: it went through
    assert not list(tmp_path.glob(".skillc-export.tmp-*"))


def test_a_failure_while_staging_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_export(tmp_path, export())
    before = snapshot(tmp_path)

    def failing(path: Path, data: bytes, executable: bool) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer, "_put", failing)
    with pytest.raises(OSError, match="No space"):
        write_export(tmp_path, export("two"))
    assert snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".agents", MARKER]


def test_a_missing_dest_it_made_is_gone_again_after_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "_put", lambda *a: (_ for _ in ()).throw(OSError(5, "I/O")))
    with pytest.raises(OSError):
        write_export(tmp_path / "new" / "dest", export())
    assert list(tmp_path.iterdir()) == []


def test_a_crash_in_the_middle_is_undone_by_the_next_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, PROJECT)
    write_export(tmp_path, export())
    before = snapshot(tmp_path)
    real, count = journal._do, [0]

    class Killed(BaseException):
        pass

    def dying(root: Path, kind: str, a: str, b: str) -> None:
        count[0] += 1
        if count[0] == 3:
            raise Killed
        real(root, kind, a, b)

    monkeypatch.setattr(journal, "_do", dying)
    monkeypatch.setattr(journal, "undo", lambda root, steps: None)  # killed: nothing undone
    monkeypatch.setattr(journal.fs, "remove_tree", lambda path: False)  # nor cleaned up
    with pytest.raises(Killed):
        write_export(tmp_path, export("two", skills=("a", "c")))
    monkeypatch.undo()
    assert snapshot(tmp_path) != before and list(tmp_path.glob(".skillc-export.tmp-*"))
    journal.recover(tmp_path, writer.STAGE_PREFIX)
    assert snapshot(tmp_path) == before and not list(tmp_path.glob(".skillc-export.tmp-*"))


def test_a_folder_it_cannot_remove_refuses_before_anything_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_export(tmp_path, export())
    before = snapshot(tmp_path)
    locked = str(tmp_path / ROOT / "a" / "scripts")
    real = os.access
    monkeypatch.setattr(writer.os, "access", lambda p, m: os.fspath(p) != locked and real(p, m))
    with pytest.raises(OutputRefused, match="cannot be removed"):
        write_export(tmp_path, export("two"))
    assert snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".agents", MARKER]


def test_what_it_replaced_left_behind_is_an_error_not_a_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_export(tmp_path, export())
    monkeypatch.setattr(journal.fs, "remove_tree", lambda path: False)
    with pytest.raises(writer.ExportLeftBehind, match="could not be removed"):
        write_export(tmp_path, export("two"))


@pytest.mark.parametrize(
    "path", ["../escape", "a/../../escape", "/abs", "a//b", "./a", "a\\b", "c:x", "a\x00", MARKER]
)
def test_a_path_that_could_leave_dest_is_refused_before_anything_is_written(
    tmp_path: Path, path: str
) -> None:
    dest = tmp_path / "box" / "out"
    bad = Export("codex", ABOUT, ("ok", path), (File("ok/SKILL.md", b"ok\n"), File(f"{path}/x", b"x")))
    with pytest.raises(OutputRefused, match="not a plain path"):
        write_export(dest, bad)
    assert list(tmp_path.rglob("*")) == []


@pytest.mark.parametrize("where", ["src", "src/deep", "dist", ".skillc-cache/x", "personas"])
def test_a_dest_a_build_reads_or_writes_is_refused(tmp_path: Path, where: str) -> None:
    places = [
        ("the source 'src'", tmp_path / "src"),
        ("the personas folder 'personas'", tmp_path / "personas"),
        ("the output 'dist'", tmp_path / "dist"),
        ("the build cache .skillc-cache/", tmp_path / ".skillc-cache"),
    ]
    with pytest.raises(OutputRefused, match="is inside the"):
        write_export(tmp_path / where, export(), places)
    assert not (tmp_path / where).exists()


def test_an_export_whose_folder_would_be_a_source_is_refused(tmp_path: Path) -> None:
    places = [("the source '.agents/skills/a'", tmp_path / ROOT / "a")]
    with pytest.raises(OutputRefused, match=r"\.agents/skills/a would overlap the source"):
        write_export(tmp_path, export(), places)
    write_export(tmp_path, export(skills=("b",)), places)  # beside it is fine
