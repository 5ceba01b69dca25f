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
from support.cli import run
from support.dist import expand
from support.files import GOLDEN_PROJECT, REPO, snapshot
from support.project import skill_md, src_project

from skillc.format import layout as fmt
from skillc.output import verify
from skillc.pipeline import build, compile_project


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
    proc = subprocess.run(
        [sys.executable, "-m", "skillc", "build", "-q", "--config", str(config)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert snapshot(tmp_path / "dist") == first


def test_committed_example_dist_is_current() -> None:
    code, out = run("check", "--config", str(REPO / "skillc.yaml"))
    assert code == 0, out
    assert "is current" in out


def test_committed_dist_matches_every_schema() -> None:
    view = expand(REPO / "dist")  # asserts each file against its schema
    assert view["skills"] and view["personas"]


def test_schema_rejects_a_broken_shard() -> None:
    index = json.loads((REPO / "dist" / "_index.json").read_text("utf-8"))
    table = json.loads((REPO / "dist" / fmt.object_path(index["shards"])).read_text("utf-8"))
    assert not verify.dist_errors(table, "shard-table")
    digest = next(iter(table["shards"].values()))
    shard = json.loads((REPO / "dist" / fmt.object_path(digest)).read_text("utf-8"))
    shard["format"] = 1
    entry = next(iter(shard["skills"].values()))
    (entry["default"] or next(r for r in entry["exceptions"].values() if r))["access"] = "maybe"
    errors = verify.dist_errors(shard, "shard")
    assert any(e.startswith("format") for e in errors)
    assert any("access" in e for e in errors)


def test_example_exercises_every_feature() -> None:
    result = compile_project(REPO / "skillc.yaml")
    assert result.ok
    program, res = result.program, {(r.persona, r.command): r for r in result.resolutions}
    assert {
        "aria-mk4",
        "aura-c",
        "vind",
        "throne",
        "paria",
        "paria-a",
        "paria-s",
        "paria-g",
        "paria-b",
        "paria-n",
        "forge",
    } <= set(program.personas)
    assert res[("paria-g", "mark-assessment")].via == "fallback:paria"
    assert res[("forge", "mark-assessment")].via == "unrestricted"
    assert res[("aria-mk4", "mark-assessment")].access == "stub"
    assert res[("paria-g", "threat-assessment")].overlay.endswith(
        "paria-g/skill-overlays/threat-assessment.md"
    )
    assert res[("paria-n", "threat-assessment")].overlay.endswith(
        "personas/paria/skill-overlays/threat-assessment.md"
    )
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
    (tmp_path / "p" / "local" / "gamma" / "SKILL.md").write_text(
        "---\ndescription: changed gamma\n---\nChanged.\n"
    )
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
    (tmp_path / "p" / "local" / "gamma" / "SKILL.md").write_text(
        "---\ndescription: changed gamma\n---\nChanged.\n"
    )
    build(config)
    for path, inode in inodes.items():
        moved = dist / path.relative_to(dist)
        assert moved.stat().st_ino == inode, "object was rewritten instead of linked"


def test_each_outcome_has_its_own_type(tmp_path: Path) -> None:
    from skillc.pipeline import Compiled, ConfigFailed, Replayed

    bad = tmp_path / "bad" / "skillc.yaml"
    bad.parent.mkdir()
    bad.write_text("format: 1\nsources: 5\n")
    failed, written = build(bad)
    assert isinstance(failed, ConfigFailed) and written is None and not failed.ok
    cfg = src_project(tmp_path / "ok", {"skills/a/SKILL.md": skill_md("a")})
    first, _ = build(cfg)
    assert isinstance(first, Compiled) and first.ok and first.artifacts is not None
    again, written = build(cfg)
    assert isinstance(again, Replayed) and again.summary == first.summary and not written.written
    assert isinstance(compile_project(cfg), Compiled)


def test_parallel_check_gives_the_same_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillc.stages import skills

    files = {f"src/s{i}/SKILL.md": skill_md(f"s{i}", body=f"Body {i}.\n") for i in range(12)}
    files["src/bad/SKILL.md"] = "---\nname: [\n---\n"
    files["src/s3/references/r.md"] = "ref\n"
    cfg = src_project(tmp_path, files)
    serial = compile_project(cfg)
    monkeypatch.setattr(skills, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(skills, "_CHUNK", 3)
    parallel = compile_project(cfg)
    assert serial.diagnostics == parallel.diagnostics and serial.diagnostics
    assert serial.artifacts.files == parallel.artifacts.files and len(parallel.program.skills) == 12
    assert parallel.program.skills["s3"].resources  # reattached after the pool
