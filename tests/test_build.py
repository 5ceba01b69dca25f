"""Whole-build properties: determinism, atomic no-op rebuilds, the committed example."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillc import schema
from skillc.pipeline import build, compile_project
from conftest import REPO, snapshot, run

GOLDEN_PROJECT = Path(__file__).parent / "golden" / "project"


def _copy_example(tmp_path: Path) -> Path:
    for name in ("skillc.yaml", "skills", "templates"):
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    return tmp_path / "skillc.yaml"


def test_building_twice_gives_identical_bytes(tmp_path: Path) -> None:
    config = _copy_example(tmp_path)
    build(config)
    first = snapshot(tmp_path / "dist")
    shutil.rmtree(tmp_path / "dist")
    build(config)
    assert snapshot(tmp_path / "dist") == first


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_shuffled_directory_listing_gives_identical_bytes(tmp_path: Path, seed: int) -> None:
    config = _copy_example(tmp_path)
    plain = compile_project(config).artifacts
    rng = random.Random(seed)

    def shuffled(path: str) -> list[str]:
        names = os.listdir(path)
        rng.shuffle(names)
        return names

    assert compile_project(config, listdir=shuffled).artifacts.files == plain.files


def test_output_ignores_mtime_hash_seed_and_locale(tmp_path: Path) -> None:
    config = _copy_example(tmp_path)
    build(config)
    first = snapshot(tmp_path / "dist")
    shutil.rmtree(tmp_path / "dist")
    for path in (tmp_path / "skills").rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
    env = {**os.environ, "PYTHONHASHSEED": "12345", "LC_ALL": "C", "LANG": "C"}
    proc = subprocess.run([sys.executable, "-m", "skillc", "build", "-q", "--config", str(config)],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(tmp_path / "dist") == first


def test_committed_example_dist_is_current() -> None:
    code, out = run("check", "--config", str(REPO / "skillc.yaml"))
    assert code == 0, out
    assert "is current" in out


def test_committed_index_matches_schema() -> None:
    data = json.loads((REPO / "dist" / "_index.json").read_text("utf-8"))
    assert schema.index_errors(data) == []


def test_schema_rejects_a_broken_index() -> None:
    data = json.loads((REPO / "dist" / "_index.json").read_text("utf-8"))
    data["format"] = 2
    first = next(iter(data["resolutions"].values()))
    next(iter(first.values()))["access"] = "maybe"
    errors = schema.index_errors(data)
    assert any(e.startswith("format") for e in errors)
    assert any("access" in e for e in errors)


def test_example_exercises_every_feature() -> None:
    result = compile_project(REPO / "skillc.yaml")
    assert result.ok
    program, res = result.program, {(r.persona, r.command): r for r in result.resolutions}
    assert {"aria-mk4", "aura-c", "vind", "throne", "paria", "paria-a", "paria-s", "paria-g", "paria-b", "paria-n", "forge"} <= set(program.personas)
    assert res[("paria-g", "mark-assessment")].via == "fallback:paria"
    assert res[("forge", "mark-assessment")].via == "unrestricted"
    assert res[("aria-mk4", "mark-assessment")].access == "stub"
    assert res[("paria-g", "threat-assessment")].overlay.endswith("paria-g/skill-overlays/threat-assessment.md")
    assert res[("paria-n", "threat-assessment")].overlay.endswith("personas/paria/skill-overlays/threat-assessment.md")
    assert program.skills["sven"].children == ("sven/implement", "sven/plan", "sven/review")
    assert program.skills["code-review"].flag("context") == "fork"
    assert res[("aria-mk4", "commit")].model is False and res[("aria-mk4", "commit")].user is True
    assert res[("aria-mk4", "project-conventions")].user is False
    assert program.skills["safety-rules"].flag("always") is True
    assert result.packings["vind"].left_out, "vind's small budget must truncate"
    assert "safety-rules" in result.packings["vind"].included
    assert ("aura-c", "fitting") not in res  # allowlist


def test_noop_rebuild_does_not_touch_dist(tmp_path: Path) -> None:
    config = _copy_example(tmp_path)
    _, first = build(config)
    index = tmp_path / "dist" / "_index.json"
    inode = index.stat().st_ino
    _, second = build(config)
    assert first.written and not second.written
    assert index.stat().st_ino == inode


def test_objects_of_earlier_builds_are_kept_until_prune(tmp_path: Path) -> None:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    config = tmp_path / "p" / "skillc.yaml"
    build(config)
    old = set(snapshot(tmp_path / "p" / "dist"))
    (tmp_path / "p" / "local" / "gamma" / "SKILL.md").write_text("---\ndescription: changed gamma\n---\nChanged.\n")
    build(config)
    after = set(snapshot(tmp_path / "p" / "dist"))
    assert old <= after  # nothing of the old build vanished: running readers keep working
    _, pruned = build(config, prune=True)
    assert pruned.pruned >= 1
    code, out = run("check", "--config", str(config))
    assert code == 0, out


def test_objects_are_never_rewritten(tmp_path: Path) -> None:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    config = tmp_path / "p" / "skillc.yaml"
    build(config)
    dist = tmp_path / "p" / "dist"
    inodes = {p: p.stat().st_ino for p in (dist / "objects").rglob("*") if p.is_file()}
    (tmp_path / "p" / "local" / "gamma" / "SKILL.md").write_text("---\ndescription: changed gamma\n---\nChanged.\n")
    build(config)
    for path, inode in inodes.items():
        moved = dist / path.relative_to(dist)
        assert moved.stat().st_ino == inode, "object was rewritten instead of linked"
