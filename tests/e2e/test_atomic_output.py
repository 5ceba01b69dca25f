"""Output atomicity: failed, killed and concurrent builds never leave a mixed dist/.

A rebuild writes its new objects into the existing dist/ before it renames the index over the old
one, so a build stopped midway leaves the old build served with some new objects beside it
(`support.files.served`); tests/e2e/test_inplace_write.py kills it at chosen steps of that write."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import build, invoke
from support.files import served, snapshot, tree_digest, write_tree
from support.project import project, skill_md

from skillc import pipeline, reader
from skillc.format.layout import TEMP_PREFIX
from skillc.output import write as write_mod

CONFIG = "format: 1\nsources: [skills]\noutput: dist\nbudgets:\n  catalog_chars: 1000000\n"
KILLS = 12


def small(tmp_path: Path) -> Path:
    return project(
        tmp_path,
        {
            "skills/a/SKILL.md": skill_md(body="Version one.\n"),
            "skills/a/references/r.md": "ref one\n",
            "skills/b/SKILL.md": skill_md(),
        },
        CONFIG,
    )


def leftovers(root: Path) -> list[str]:
    """A new tree beside dist/, or temporary files in it: what a build stopped midway leaves."""
    dist = root / "dist"
    inside = [n for n in os.listdir(dist) if n.startswith(TEMP_PREFIX)] if dist.is_dir() else []
    return sorted([p.name for p in root.iterdir() if p.name.startswith(".dist.")] + inside)


# --- failed builds ------------------------------------------------------------


@pytest.mark.parametrize(
    "breakage",
    [
        {"skills/a/SKILL.md": "no frontmatter\n"},
        {"skills/a/SKILL.md": skill_md(description="d" * 1025)},
        {"skills/c/SKILL.md": b"\xff\xfe"},
        {"skills/a/references/big.bin": b"x" * (1024 * 1024 + 1)},  # over resources.max_bytes
        {"templates/catalog.xml.j2": "{% macro entry(s) %}{{ s.command }"},
    ],
)
def test_failed_build_leaves_previous_dist_byte_identical(tmp_path, breakage):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    before, shape = snapshot(tmp_path / "dist"), tree_digest(tmp_path / "dist")
    write_tree(tmp_path, {"skills/b/SKILL.md": skill_md(body="Changed.\n"), **breakage}, exact=True)
    if "templates/catalog.xml.j2" in breakage:
        cfg.write_text(CONFIG + "template: templates/catalog.xml.j2\n")
    r = build(cfg)
    assert r.exit_code == 1 and r.exception is None, r.stderr
    assert "left untouched" in r.stderr
    assert snapshot(tmp_path / "dist") == before
    assert tree_digest(tmp_path / "dist") == shape
    assert leftovers(tmp_path) == []


def test_failed_first_build_creates_nothing(tmp_path):
    cfg = project(tmp_path, {"skills/a/SKILL.md": "broken\n"}, CONFIG)
    assert build(cfg).exit_code == 1
    assert not (tmp_path / "dist").exists() and leftovers(tmp_path) == []


def test_write_error_midway_leaves_previous_dist(tmp_path, monkeypatch):
    cfg = small(tmp_path)
    assert build(cfg).exit_code == 0
    before = snapshot(tmp_path / "dist")
    (tmp_path / "skills/b/SKILL.md").write_text(skill_md(body="Changed too.\n"))
    (tmp_path / "skills/a/SKILL.md").write_text(skill_md(body="Version two.\n"))
    result = pipeline.compile_project(cfg)
    assert result.ok
    calls = {"n": 0}
    real = write_mod._put

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(write_mod, "_put", failing)
    with pytest.raises(OSError):
        write_mod.write(result.output, result.artifacts)
    monkeypatch.undo()
    got = snapshot(tmp_path / "dist")
    # The old build, whole, with the one new object written before the failure beside it.
    assert {rel: got[rel] for rel in before} == before and len(got) == len(before) + 1
    assert leftovers(tmp_path) == []
    assert invoke("check", config=cfg).exit_code == 1
    assert build(cfg).exit_code == 0 and invoke("check", config=cfg).exit_code == 0


def test_stale_temp_directories_are_recovered(tmp_path):
    cfg = small(tmp_path)
    write_tree(
        tmp_path, {".dist.tmp-99999/_index.json": "half", ".dist.tmp-99999/objects/ab/x": "y"}, exact=True
    )
    assert build(cfg).exit_code == 0
    assert leftovers(tmp_path) == []
    assert invoke("check", config=cfg).exit_code == 0


# --- SIGKILL at random moments -------------------------------------------------


def big_tree(version: int) -> dict[str, str]:
    files: dict[str, str] = {}
    for i in range(300):
        # v2 changes two thirds of the skills, drops one and adds one.
        v = version if i % 3 else 1
        if version == 2 and i == 7:
            continue
        files[f"skills/s{i:03d}/SKILL.md"] = skill_md(
            description=f"Skill {i} v{v}.", body=f"Body {i} v{v}.\n" * 20
        )
        files[f"skills/s{i:03d}/references/r.md"] = f"reference {i} v{v}\n" * 20
    if version == 2:
        files["skills/zz-new/SKILL.md"] = skill_md(description="New in v2.")
    return files


def set_sources(root: Path, version: int) -> None:
    shutil.rmtree(root / "skills", ignore_errors=True)
    write_tree(root, big_tree(version), exact=True)


def restore(src: Path, dst: Path) -> None:
    # Hard links are enough: a build never edits a file in place (and if it did,
    # the pristine copy would change and the snapshot comparison would fail).
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=os.link)


def spawn(cfg: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "skillc", "build", "-q", "--config", str(cfg)],
        cwd=cfg.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    """(project with v2 sources, pristine v1 dist, v1 snapshot, v2-over-v1 snapshot, build seconds)."""
    base = tmp_path_factory.mktemp("kill")
    proj = base / "proj"
    cfg = project(proj, big_tree(1), CONFIG)
    assert build(cfg, "-q").exit_code == 0
    pristine = base / "dist-v1"
    shutil.copytree(proj / "dist", pristine)
    set_sources(proj, 2)
    started = time.perf_counter()
    done = spawn(cfg)
    assert done.wait(timeout=60) == 0, done.stderr.read()
    seconds = time.perf_counter() - started
    new = snapshot(proj / "dist")
    old = snapshot(pristine)
    assert old != new and set(old) - set(new) == set()  # objects of v1 are kept without --prune
    return cfg, pristine, old, new, seconds


def test_sigkill_leaves_old_or_new_dist(versions):
    cfg, pristine, old, new, seconds = versions
    dist = cfg.parent / "dist"
    seed = int(os.environ.get("SKILLC_KILL_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    outcomes = []
    for i in range(KILLS):
        restore(pristine, dist)
        proc = spawn(cfg)
        # Stratified delays cover the whole run: start-up, compile, write, commit.
        time.sleep(seconds * 1.6 * (i + rng.random()) / KILLS)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
        got = snapshot(dist)
        state = served(got, old, new)
        assert state, f"kill {i} (seed {seed}) left a mixed dist/: {len(got)} files"
        # "+tmp": killed while writing a file, or a new tree next to dist/.
        outcomes.append(state + ("+tmp" if leftovers(cfg.parent) else ""))
        again = build(cfg, "-q")
        assert again.exit_code == 0, again.stderr
        assert snapshot(dist) == new and leftovers(cfg.parent) == []
    print(f"SIGKILL outcomes (seed {seed}): {outcomes}")
    assert "old" in outcomes, outcomes


# --- concurrency ----------------------------------------------------------------


def test_two_builds_at_once(versions, tmp_path):
    cfg, pristine, _old, new, _seconds = versions
    dist = cfg.parent / "dist"
    for _ in range(2):  # two rounds: the race differs run to run
        restore(pristine, dist)
        procs = [spawn(cfg), spawn(cfg)]
        codes = [p.wait(timeout=60) for p in procs]
        for p in procs:
            p.stderr.close()
        assert codes == [0, 0]
        assert snapshot(dist) == new
        assert leftovers(cfg.parent) == []
        assert invoke("check", config=cfg).exit_code == 0
    d = reader.open(dist)
    assert len(d.skills("default")) == 300
    assert all(d.load("default", s.command).body for s in d.skills("default")[:20])


def test_second_build_waits_for_the_lock(tmp_path):
    cfg = small(tmp_path)
    dist = tmp_path / "dist"
    with write_mod.lock(dist):
        proc = spawn(cfg)
        time.sleep(1.5)
        assert proc.poll() is None, "build did not wait for the lock"
        assert not dist.exists()
    assert proc.wait(timeout=30) == 0
    proc.stderr.close()
    assert invoke("check", config=cfg).exit_code == 0
