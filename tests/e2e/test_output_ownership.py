"""Where skillc writes: only an output it wrote itself, never .git or the cache, never through a symlink;
its lock and cache stay in the git-ignored cache directory; Ctrl-C and in-place edits of the output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import build, invoke
from support.files import snapshot, tree_digest, write_tree
from support.project import CONFIG, project, skill_md

from skillc import pipeline
from skillc.errors import OutputRefused
from skillc.format.layout import OUTPUT_MARKER, OUTPUT_MARKER_TEXT
from skillc.incremental import store as cachestore
from skillc.output import write

SKILLS = {"skills/a/SKILL.md": skill_md(), "skills/a/references/r.md": "ref\n"}


def state(root: Path) -> dict[str, str]:
    """Everything below root except the build cache (a failed build may still keep its memo)."""
    return {k: v for k, v in tree_digest(root).items() if ".skillc-cache" not in k.split("/")}


def with_output(output: str) -> str:
    return CONFIG.replace("output: dist", f"output: {output}")


# --- ownership ---------------------------------------------------------------------


def test_every_build_marks_its_output(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    assert (tmp_path / "dist" / OUTPUT_MARKER).read_bytes() == OUTPUT_MARKER_TEXT
    assert invoke("check", config=cfg).exit_code == 0


@pytest.mark.parametrize("cache_flag", [(), ("--no-cache",)])
def test_hand_written_directory_is_never_replaced(tmp_path, cache_flag):
    cfg = project(
        tmp_path, {**SKILLS, "docs/notes.md": "my notes\n", "docs/sub/x.txt": "x\n"}, with_output("docs")
    )
    before = tree_digest(tmp_path / "docs")
    r = build(cfg, *cache_flag)
    assert r.exit_code == 1 and r.exception is None
    d = r.one("SKC704")
    assert d.path == "docs" and ".skillc-dist" in d.message and "left untouched" in r.stderr
    assert tree_digest(tmp_path / "docs") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".docs")] == []


def test_empty_directory_is_fine_and_becomes_skillc_s(tmp_path):
    cfg = project(tmp_path, SKILLS, with_output("out"))
    (tmp_path / "out").mkdir()
    assert build(cfg).exit_code == 0
    assert (tmp_path / "out" / OUTPUT_MARKER).is_file()
    (tmp_path / "out" / "stray.md").write_text("x")  # a file skillc did not write: never removed (issue 17)
    assert build(cfg).exit_code == 1 and (tmp_path / "out" / "stray.md").exists()


def test_marker_with_other_content_is_not_a_marker(tmp_path):
    cfg = project(
        tmp_path, {**SKILLS, "out/.skillc-dist": "mine\n", "out/keep.md": "keep\n"}, with_output("out")
    )
    assert build(cfg).exit_code == 1
    assert (tmp_path / "out/keep.md").read_text() == "keep\n"


def test_output_of_an_older_skillc_without_marker_is_taken_over(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    (tmp_path / "dist" / OUTPUT_MARKER).unlink()
    assert build(cfg).exit_code == 0
    assert (tmp_path / "dist" / OUTPUT_MARKER).is_file()


def test_unmarked_output_with_extra_files_is_refused_even_with_an_index(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    (tmp_path / "dist" / OUTPUT_MARKER).unlink()
    (tmp_path / "dist" / "README.md").write_text("hand-written\n")
    assert build(cfg).one("SKC704")
    assert (tmp_path / "dist/README.md").exists()


def test_write_itself_refuses_an_unmarked_output(tmp_path):
    cfg = project(tmp_path, {**SKILLS, "dist/notes.md": "n\n"})
    result = pipeline.compile_project(cfg)
    with pytest.raises(OutputRefused):
        write.write(result.output, result.artifacts)
    assert (tmp_path / "dist/notes.md").read_text() == "n\n"


@pytest.mark.parametrize(
    "output, why",
    [
        (".git", ".git"),
        (".git/hooks", ".git"),
        ("sub/.git", ".git"),
        (".GIT", ".git"),
        (".skillc-cache", "cache"),
        (".skillc-cache/out", "cache"),
    ],
)
def test_reserved_outputs_are_refused(tmp_path, output, why):
    cfg = project(tmp_path, {**SKILLS, ".git/HEAD": "ref: refs/heads/main\n"}, with_output(output))
    before = state(tmp_path)
    r = build(cfg)
    assert r.exit_code == 1 and r.exception is None
    assert any(d.code == "SKC103" and why in d.message for d in r.diags), r.stderr
    assert state(tmp_path) == before
    assert invoke("check", config=cfg).exit_code == 1


@pytest.mark.parametrize("target", ["real-out", "outside"])
def test_symlinked_output_is_refused_without_debris(tmp_path, target):
    proj = tmp_path / "p"
    cfg = project(proj, SKILLS)
    dest = proj / "real-out" if target == "real-out" else tmp_path / "outside"
    dest.mkdir()
    os.symlink(dest, proj / "dist")
    before = state(tmp_path)
    r = build(cfg)
    assert r.exit_code == 1 and "SKC103" in r.codes(), r.stderr
    assert state(tmp_path) == before
    assert os.readlink(proj / "dist") == str(dest)


def test_output_below_a_symlinked_directory_is_refused(tmp_path):
    cfg = project(tmp_path, SKILLS, with_output("build/dist"))
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "build")
    r = build(cfg)
    assert r.exit_code == 1 and any("symlink" in d.message for d in r.find("SKC103"))
    assert list((tmp_path / "elsewhere").iterdir()) == []


# --- the lock and the cache ---------------------------------------------------------


def test_nothing_but_the_output_and_the_ignored_cache_is_written(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg, "--no-cache").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist", "skillc.yaml", "skills"]  # no lock file
    assert build(cfg).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".skillc-cache", "dist", "skillc.yaml", "skills"]
    assert (tmp_path / ".skillc-cache/.gitignore").read_text().splitlines()[-1] == "*"


def test_cache_ignores_itself_in_git(tmp_path):
    git = subprocess.run(["git", "--version"], capture_output=True)
    if git.returncode != 0:
        pytest.skip("git not installed")
    cfg = project(tmp_path, SKILLS)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert build(cfg).exit_code == 0
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    staged = subprocess.run(
        ["git", "-C", str(tmp_path), "diff", "--cached", "--name-only"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert not [p for p in staged if p.startswith(".skillc-cache")]
    assert "dist/.skillc-dist" in staged


@pytest.mark.parametrize("plant", ["symlink", "fifo", "file", "dangling symlink"])
def test_something_planted_at_the_cache_directory_is_never_used(tmp_path, plant):
    proj, outside = tmp_path / "p", tmp_path / "outside"
    cfg = project(proj, SKILLS)
    outside.mkdir()
    where = proj / ".skillc-cache"
    if plant == "symlink":
        os.symlink(outside, where)
    elif plant == "dangling symlink":
        os.symlink(outside / "nothing", where)
    elif plant == "fifo":
        os.mkfifo(where)
    else:
        where.write_text("x\n")
    for _ in range(2):
        r = build(cfg)
        assert r.exit_code == 0 and r.exception is None, r.stderr
    assert list(outside.iterdir()) == []
    assert (os.path.lexists(where) and not where.is_dir()) or where.is_symlink()
    assert invoke("check", config=cfg).exit_code == 0


def test_builds_of_one_output_share_a_lock_without_a_lock_file(tmp_path):
    project(tmp_path, SKILLS)
    with write.lock(tmp_path / "dist"):
        assert sorted(p.name for p in tmp_path.iterdir()) == ["skillc.yaml", "skills"]


@pytest.mark.parametrize(
    "name", ["head.json", "outputs.json", "report.json", "costs.json", "catalogs.json", "build.json"]
)
def test_symlinks_planted_at_cache_files_are_never_written_through(tmp_path, name):
    proj, outside = tmp_path / "p", tmp_path / "outside"
    cfg = project(proj, SKILLS)
    outside.mkdir()
    (proj / ".skillc-cache").mkdir()
    os.symlink(outside / "victim", proj / ".skillc-cache" / name)
    assert build(cfg).exit_code == 0
    assert list(outside.iterdir()) == []
    assert not (proj / ".skillc-cache" / name).is_symlink()  # replaced by a real file, atomically


def test_fifo_and_device_at_cache_files_are_not_read(tmp_path):
    cfg = project(tmp_path, SKILLS)
    (tmp_path / ".skillc-cache").mkdir()
    os.mkfifo(tmp_path / ".skillc-cache/head.json")
    os.mkfifo(tmp_path / ".skillc-cache/outputs.json")
    os.symlink("/dev/zero", tmp_path / ".skillc-cache/catalogs.json")
    for bucket in range(256):  # whichever bucket the skills fall in
        os.symlink("/dev/zero", tmp_path / f".skillc-cache/skill-{bucket:02x}.json")
    assert build(cfg).exit_code == 0
    assert build(cfg).exit_code == 0


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_key_file_is_read_only_when_regular_and_small(tmp_path, monkeypatch, kind):
    xdg = tmp_path / "xdg"
    (xdg / "skillc").mkdir(parents=True)
    key = xdg / "skillc/key"
    if kind == "fifo":
        os.mkfifo(key)
    elif kind == "device":
        os.symlink("/dev/zero", key)
    else:
        key.write_bytes(b"k" * (cachestore.KEY_CAP + 1))
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    assert cachestore.load_key() is None
    cfg = project(tmp_path / "p", SKILLS)
    assert build(cfg).exit_code == 0


def test_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "rel-cache")
    monkeypatch.chdir(tmp_path)
    assert cachestore.key_path() == home / ".cache/skillc/key"
    cfg = project(tmp_path / "p", SKILLS)
    assert build(cfg).exit_code == 0
    assert not (tmp_path / "rel-cache").exists() and (home / ".cache/skillc/key").is_file()


def test_planted_tmp_and_old_symlinks_are_removed_not_followed(tmp_path):
    proj, outside = tmp_path / "p", tmp_path / "outside"
    cfg = project(proj, SKILLS)
    write_tree(outside, {"precious.txt": "keep\n"}, exact=True)
    for name in (".dist.tmp-1", ".dist.old-1"):
        os.symlink(outside, proj / name)
    assert build(cfg).exit_code == 0
    assert (outside / "precious.txt").read_text() == "keep\n"
    assert not (proj / "dist").is_symlink()
    assert sorted(p.name for p in proj.iterdir() if p.name.startswith(".dist")) == []


# --- deep trees ------------------------------------------------------------------------


@pytest.fixture
def deep_cleanup(tmp_path):
    """pytest removes old temporary directories with shutil.rmtree, which recurses: never leave a deep tree."""
    yield
    from skillc import fs

    fs.remove_tree(tmp_path)


def deep(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        sub = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    os.close(os.open("leaf.md", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)


def test_a_deep_tree_in_the_old_output_is_cleaned_up(tmp_path, deep_cleanup):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    deep(tmp_path / "dist", 1500)  # shutil.rmtree recursed once per level
    for _ in range(2):
        r = build(cfg)
        assert r.exit_code == 1 and r.exception is None and "SKC704" in r.stderr  # foreign (issue 17)
    assert (tmp_path / "dist/d").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist")] == []


def test_a_deep_leftover_tmp_tree_does_not_break_later_builds(tmp_path, deep_cleanup):
    cfg = project(tmp_path, SKILLS)
    (tmp_path / ".dist.tmp-424242").mkdir()
    deep(tmp_path / ".dist.tmp-424242", 1500)
    assert build(cfg).exit_code == 0
    assert not (tmp_path / ".dist.tmp-424242").exists()


# --- Ctrl-C -------------------------------------------------------------------------------


def test_keyboard_interrupt_exits_130(tmp_path, monkeypatch):
    cfg = project(tmp_path, SKILLS)

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "build", interrupted)
    r = build(cfg)
    assert r.exit_code == 130 and "interrupted" in r.stderr and "Aborted" not in r.stderr


def test_sigint_during_a_real_build_exits_130_old_or_new(tmp_path):
    files = {f"skills/s{i:03d}/SKILL.md": skill_md(body=f"Body {i}.\n" * 50) for i in range(400)}
    cfg = project(tmp_path, files)
    assert build(cfg, "-q").exit_code == 0
    old = snapshot(tmp_path / "dist")
    for path in list(files)[::2]:
        (tmp_path / path).write_text(skill_md(body="Changed.\n"))
    outcomes = set()
    for delay in (0.3, 0.6, 0.9, 1.2):
        proc = subprocess.Popen(
            [sys.executable, "-m", "skillc", "build", "-q", "--no-cache", "--config", str(cfg)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1].decode()
        got = snapshot(tmp_path / "dist")
        # -2: the signal came after the build had finished, while the interpreter was shutting down
        # (it restores the default handler then); the output is the complete new one.
        assert proc.returncode in (0, 130) or (proc.returncode == -2 and got != old and not err), err
        assert "Traceback" not in err and "Aborted" not in err
        outcomes.add("old" if got == old else "new")
        assert got == old or invoke("check", config=cfg).exit_code == 0
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist")] == []
        if got != old:
            break
    assert outcomes


# --- the no-op cached build and the output -------------------------------------------------


def test_object_edited_in_place_with_mtime_restored_is_repaired(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    good = snapshot(tmp_path / "dist")
    obj = next(p for p in (tmp_path / "dist/objects").rglob("*") if p.is_file())
    st = obj.stat()
    data = bytearray(obj.read_bytes())
    data[0] ^= 0x20  # same size
    with open(obj, "r+b") as fh:  # in place: same inode
        fh.write(bytes(data))
    os.utime(obj, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert obj.stat().st_size == st.st_size and obj.stat().st_mtime_ns == st.st_mtime_ns
    # The no-op path checks the output by its folders, index, marker and persona files, not by
    # every object (docs/cache.md): an object edited in place is the documented limit.
    assert build(cfg).exit_code == 0
    assert invoke("check", config=cfg).exit_code == 1  # check reads every byte
    assert build(cfg, "--no-cache").exit_code == 0  # and a build without the cache repairs it
    assert snapshot(tmp_path / "dist") == good


def test_object_removed_by_hand_is_repaired(tmp_path):
    cfg = project(tmp_path, SKILLS)
    assert build(cfg).exit_code == 0
    good = snapshot(tmp_path / "dist")
    obj = next(p for p in (tmp_path / "dist/objects").rglob("*") if p.is_file())
    obj.unlink()
    assert build(cfg).exit_code == 0
    assert snapshot(tmp_path / "dist") == good


def test_project_inside_a_git_directory_cannot_write_there(tmp_path):
    cfg = project(tmp_path / ".git" / "proj", SKILLS)
    r = build(cfg)
    assert r.exit_code == 1 and any(".git" in d.message for d in r.find("SKC103"))
    assert not (tmp_path / ".git/proj/dist").exists()
