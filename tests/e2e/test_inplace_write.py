"""The in-place rebuild: new objects go into the existing objects/, `_index.json` is renamed over last.

A build killed at any step of that write leaves the previous build served, whole; the next build
removes its temporary files and ends byte-identical to a clean build; a reader holding the old
build keeps it; --prune and the ownership rules keep their promises.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import build, invoke
from support.files import served, snapshot, write_tree
from support.project import project, skill_md

from skillc import reader
from skillc.format.layout import INDEX, TEMP_PREFIX, is_object

CONFIG = (
    "format: 1\nsources: [skills]\npersonas: personas\noutput: dist\nbudgets:\n  catalog_chars: 1000000\n"
)
PERSONA = "name: {name}\n"

# Runs one build in a new process, killed with SIGKILL at a chosen call of write._put (every file the
# write creates), or just after write._place has renamed the index into place (the commit).
KILLER = """
import atexit, os, signal, sys
from skillc.output import write as w

config, mode, at = sys.argv[1], sys.argv[2], int(sys.argv[3])
calls = [0]
real_put, real_place = w._put, w._place

def put(path, data):
    calls[0] += 1
    if mode == "before" and calls[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
    real_put(path, data)
    if mode == "after" and calls[0] == at:  # the file is complete under its temporary name
        os.kill(os.getpid(), signal.SIGKILL)

def place(dist, rel, data):
    real_place(dist, rel, data)
    if mode == "committed" and rel == "_index.json":
        os.kill(os.getpid(), signal.SIGKILL)

w._put, w._place = put, place
if mode == "count":
    atexit.register(lambda: print(calls[0]))
from skillc.cli import main
sys.argv = ["skillc", "build", "-q", "--config", config, *sys.argv[4:]]
main()
"""


def tree(version: int) -> dict[str, str]:
    """v2 changes half the skills, drops one, adds one, and drops persona `q` (its prompt copy goes)."""
    files: dict[str, str] = {}
    for i in range(60):
        v = version if i % 2 else 1
        if version == 2 and i == 3:
            continue
        files[f"skills/s{i:02d}/SKILL.md"] = skill_md(
            description=f"Skill {i} v{v}.", body=f"Body {i} v{v}.\n"
        )
        files[f"skills/s{i:02d}/references/r.md"] = f"reference {i} v{v}\n"
    if version == 2:
        files["skills/zz-new/SKILL.md"] = skill_md(description="New in v2.")
    files["personas/p/manifest.yaml"] = PERSONA.format(name=f"P v{version}")
    if version == 1:
        files["personas/q/manifest.yaml"] = PERSONA.format(name="Q")
    return files


def set_sources(root: Path, version: int) -> None:
    shutil.rmtree(root / "skills", ignore_errors=True)
    shutil.rmtree(root / "personas", ignore_errors=True)
    write_tree(root, tree(version), exact=True)


def restore(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=os.link)  # a build never edits a file in place


def temporaries(root: Path) -> list[str]:
    """What a killed build leaves: a new tree beside dist/, temporary files in it."""
    beside = [p.name for p in root.iterdir() if p.name.startswith(".dist.")]
    dist = root / "dist"
    inside = [n for n in os.listdir(dist) if n.startswith(TEMP_PREFIX)] if dist.is_dir() else []
    return sorted(beside + inside)


def killed(cfg: Path, mode: str, at: int, *options: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", KILLER, str(cfg), mode, str(at), *options],
        cwd=cfg.parent,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    """(config with v2 sources, pristine v1 dist, v1 snapshot, v2-over-v1 snapshot, files the write puts)."""
    base = tmp_path_factory.mktemp("inplace")
    proj = base / "proj"
    cfg = project(proj, tree(1), CONFIG)
    assert build(cfg, "-q").exit_code == 0
    pristine = base / "dist-v1"
    shutil.copytree(proj / "dist", pristine)
    set_sources(proj, 2)
    counted = killed(cfg, "count", 0)
    assert counted.returncode == 0, counted.stderr
    puts = int(counted.stdout.split()[-1])
    new, old = snapshot(proj / "dist"), snapshot(pristine)
    assert "personas/q/prompt.xml" in old and "personas/q/prompt.xml" not in new
    return cfg, pristine, old, new, puts


def test_a_rebuild_writes_only_what_changed(versions):
    _cfg, _pristine, old, new, puts = versions
    added = set(new) - set(old)
    # The new objects, the changed prompt copy, the index: nothing that was already there.
    assert puts == len(added) + 2, (puts, len(added))
    assert all(is_object(rel) for rel in added)


def test_the_rebuild_is_byte_identical_to_a_clean_build(versions, tmp_path):
    cfg, _pristine, old, new, _puts = versions
    clean = tmp_path / "clean"
    shutil.copytree(cfg.parent, clean, ignore=shutil.ignore_patterns("dist", ".skillc-cache"))
    assert build(clean / "skillc.yaml", "-q", "--no-cache").exit_code == 0
    fresh = snapshot(clean / "dist")
    assert {rel: new[rel] for rel in fresh} == fresh
    assert set(new) - set(fresh) == {rel for rel in old if is_object(rel)} - set(fresh)  # kept, not pruned


@pytest.mark.parametrize("mode", ["before", "after"])
def test_sigkill_at_any_file_of_the_write_leaves_the_old_build(versions, mode):
    cfg, pristine, old, new, puts = versions
    dist = cfg.parent / "dist"
    seed = int(os.environ.get("SKILLC_KILL_SEED", random.randrange(1 << 30)))
    # The first and the last files (the marker is current: the first is an object; the last is the
    # index), and some in between.
    points = sorted({1, puts - 1, puts, *random.Random(seed).sample(range(2, puts - 1), 3)})
    for at in points:
        restore(pristine, dist)
        done = killed(cfg, mode, at)
        assert done.returncode == -signal.SIGKILL, (at, done.stderr)
        got = snapshot(dist)
        state = served(got, old, new)
        # Killed before the index is renamed into place (even with it complete under its temporary
        # name): the old build, with some of the new objects beside it.
        assert state == "old", (seed, at, state)
        assert reader.open(dist).build_hash == reader.open(pristine).build_hash
        again = build(cfg, "-q")
        assert again.exit_code == 0, again.stderr
        assert snapshot(dist) == new, (seed, at)
        assert temporaries(cfg.parent) == []


@pytest.mark.parametrize("prune", [False, True])
def test_sigkill_just_after_the_commit_leaves_the_new_build(versions, prune):
    cfg, pristine, old, new, _puts = versions
    dist = cfg.parent / "dist"
    restore(pristine, dist)
    done = killed(cfg, "committed", 0, *(["--prune"] if prune else []))
    assert done.returncode == -signal.SIGKILL, done.stderr
    got = snapshot(dist)
    assert served(got, old, new) == "new" and got == new  # before the pruning: every object kept
    assert invoke("check", config=cfg).exit_code == 0
    assert build(cfg, "-q", *(["--prune"] if prune else [])).exit_code == 0
    assert (snapshot(dist) == new) is not prune


def test_a_reader_open_across_the_rebuild_answers_from_the_new_build(versions):
    cfg, pristine, _old, _new, _puts = versions
    dist = cfg.parent / "dist"
    restore(pristine, dist)
    d = reader.open(dist)
    first = d.build_hash
    assert "q" in d.personas()
    assert build(cfg, "-q").exit_code == 0
    assert d.build_hash != first and "zz-new" in {s.command for s in d.skills("p")}
    with pytest.raises(reader.UnknownPersona):
        d.catalog("q")  # a persona the new build dropped


def test_prune_after_the_commit_leaves_exactly_a_clean_build(versions, tmp_path):
    cfg, pristine, _old, new, _puts = versions
    dist = cfg.parent / "dist"
    restore(pristine, dist)
    d = reader.open(dist)
    gone = next(s.command for s in d.skills("p") if s.command == "s03")
    r = build(cfg, "-q", "--prune")
    assert r.exit_code == 0, r.stderr
    got = snapshot(dist)
    assert set(got) < set(new) and all(new[rel] == data for rel, data in got.items())
    assert invoke("check", config=cfg).exit_code == 0
    with pytest.raises(reader.UnknownSkill):  # the next call answers from the new build
        d.load("p", gone)
    # No folder is left empty by the pruning.
    assert all(any(p.iterdir()) for p in (dist / "objects").iterdir())
    assert sorted(p.name for p in (dist / "personas").iterdir()) == ["p"]


def test_unchanged_objects_keep_their_inodes(versions):
    cfg, pristine, old, _new, _puts = versions
    dist = cfg.parent / "dist"
    restore(pristine, dist)
    inodes = {rel: (dist / rel).stat().st_ino for rel in old if is_object(rel)}
    assert build(cfg, "-q").exit_code == 0
    assert {rel: (dist / rel).stat().st_ino for rel in inodes} == inodes


# --- ownership -------------------------------------------------------------------------------------


def small(root: Path) -> Path:
    files = {"skills/a/SKILL.md": skill_md(body="One.\n"), "personas/p/manifest.yaml": "name: P\n"}
    return project(root, files, CONFIG)


def test_temporary_files_of_a_killed_build_are_ours_and_removed(tmp_path):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    write_tree(tmp_path / "dist", {f"{TEMP_PREFIX}123-abc": "half an object"})
    (tmp_path / "skills/a/SKILL.md").write_text(skill_md(body="Two.\n"))
    r = build(cfg)
    assert r.exit_code == 0, r.stderr
    assert temporaries(tmp_path) == []
    assert invoke("check", config=cfg).exit_code == 0


def test_a_temporary_name_deeper_down_is_still_foreign(tmp_path):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    write_tree(tmp_path / "dist", {f"personas/{TEMP_PREFIX}1": "someone's\n"})
    r = build(cfg, "--no-cache")
    assert r.exit_code == 1 and "SKC704" in r.stderr
    assert (tmp_path / "dist/personas" / f"{TEMP_PREFIX}1").read_text() == "someone's\n"


def test_an_unmarked_output_of_an_older_skillc_is_updated_in_place(tmp_path):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    dist = tmp_path / "dist"
    (dist / ".skillc-dist").unlink()
    inode = (dist / "objects").stat().st_ino
    (tmp_path / "skills/a/SKILL.md").write_text(skill_md(body="Two.\n"))
    assert build(cfg).exit_code == 0
    assert (dist / ".skillc-dist").is_file() and (dist / "objects").stat().st_ino == inode
    assert invoke("check", config=cfg).exit_code == 0


@pytest.mark.parametrize("planted", ["objects", "personas", "objects/xx"])
def test_a_symlink_planted_at_a_folder_is_never_written_through(tmp_path, planted):
    proj, outside = tmp_path / "p", tmp_path / "outside"
    cfg = small(proj)
    assert build(cfg).exit_code == 0
    write_tree(outside, {"precious.txt": "keep\n"}, exact=True)
    dist = proj / "dist"
    (proj / "skills/a/SKILL.md").write_text(skill_md(body="Two.\n"))
    if planted == "objects/xx":
        # The folder of an object the next build writes.
        planted = f"objects/{_first_new_object_folder(cfg)}"
    fs_path = dist / planted
    if fs_path.exists():
        shutil.rmtree(fs_path)
    os.symlink(outside, fs_path)
    r = build(cfg, "--no-cache")
    assert r.exit_code == 0, r.stderr
    assert sorted(os.listdir(outside)) == ["precious.txt"]
    assert not fs_path.is_symlink()
    assert invoke("check", config=cfg).exit_code == 0


def _first_new_object_folder(cfg: Path) -> str:
    from skillc import pipeline

    result = pipeline.compile_project(cfg)
    assert isinstance(result, pipeline.Compiled) and result.artifacts is not None
    dist = cfg.parent / "dist"
    return next(rel.split("/")[1] for rel in sorted(result.artifacts.objects) if not (dist / rel).exists())


def test_a_directory_at_the_index_s_name_gets_a_new_tree(tmp_path):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    dist = tmp_path / "dist"
    (dist / INDEX).unlink()
    (dist / INDEX).mkdir()  # empty: no file of anyone's is in it
    r = build(cfg, "--no-cache")
    assert r.exit_code == 0, r.stderr
    assert (dist / INDEX).is_file() and invoke("check", config=cfg).exit_code == 0
