"""Property: any sequence of edits, built with the cache after each step, gives the bytes and the
diagnostics of a clean build of the same sources into another folder.

A seeded random generator picks the steps: body and description edits, adds, deletes and renames
of skills, persona manifest and overlay changes, config and template changes, touches and no-ops.
A few seeds run in the normal suite; `SKILLC_INCREMENTAL_SEEDS=200` runs more.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support.files import REPO
from support.files import snapshot as dist_bytes

from skillc.format.layout import is_object
from skillc.pipeline import build

sys.path.insert(0, str(REPO))
from bench.gen import generate

SEEDS = int(os.environ.get("SKILLC_INCREMENTAL_SEEDS", "2"))
STEPS = 8
BUILTIN = REPO / "compiler" / "templates" / "catalog.xml.j2"


@pytest.fixture(autouse=True)
def own_key(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))


def skills(root: Path) -> list[Path]:
    return sorted(root.glob("skills/**/SKILL.md"))


def leaves(root: Path) -> list[Path]:
    """Skill folders holding no other skill: removing or renaming one moves nothing else."""
    return [p.parent for p in skills(root) if not any(p.parent.glob("*/SKILL.md"))]


def body_edit(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    target.write_text(target.read_text() + f"\nStep {rng.random()}.\n")


def description_edit(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    text = target.read_text()
    target.write_text(
        re.sub(r"^description: \"?", lambda m: f"{m[0]}Now {rng.randint(0, 99)}. ", text, count=1, flags=re.M)
    )


def add_skill(root: Path, rng: random.Random) -> None:
    name = f"late-{rng.randint(0, 10**6)}"
    new = root / "skills" / rng.choice(["src-a", "src-b"]) / name / "SKILL.md"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text(f"---\nname: {name}\ndescription: Added at a step.\n---\nNew {name}.\n")


def delete_skill(root: Path, rng: random.Random) -> None:
    shutil.rmtree(rng.choice(leaves(root)))


def rename_skill(root: Path, rng: random.Random) -> None:
    old = rng.choice(leaves(root))
    new = old.with_name(f"{old.name}-r{rng.randint(0, 999)}")
    old.rename(new)
    text = (new / "SKILL.md").read_text()
    (new / "SKILL.md").write_text(
        re.sub(rf"^name: {re.escape(old.name)}$", f"name: {new.name}", text, count=1, flags=re.M)
    )


def persona_edit(root: Path, rng: random.Random) -> None:
    manifest = rng.choice(sorted(root.glob("personas/*/manifest.yaml")))
    text = manifest.read_text()
    manifest.write_text(
        re.sub(r"^name: (.*)$", lambda m: f"{m[0]} {rng.randint(0, 9)}", text, count=1, flags=re.M)
    )


def overlay_edit(root: Path, rng: random.Random) -> None:
    overlays = sorted(root.glob("personas/*/skill-overlays/**/*.md"))
    if overlays and rng.random() < 0.7:
        target = rng.choice(overlays)
        target.write_text(target.read_text() + "\nAlso this, at a step.\n")
        return
    persona = rng.choice(sorted(p.parent for p in root.glob("personas/*/manifest.yaml")))
    command = rng.choice(leaves(root)).name
    target = persona / "skill-overlays" / f"{command}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("An overlay added at a step.\n")


def config_edit(root: Path, rng: random.Random) -> None:
    config = root / "skillc.yaml"
    text = config.read_text()
    config.write_text(re.sub(r"catalog_chars: \d+", f"catalog_chars: {rng.choice([800, 3000, 30000])}", text))


def template_edit(root: Path, rng: random.Random) -> None:
    """The project's own template: its first appearance replaces the built-in one."""
    local = root / "templates" / "catalog.xml.j2"
    if not local.exists():
        local.parent.mkdir(exist_ok=True)
        local.write_text(BUILTIN.read_text())
    local.write_text(local.read_text() + f"<!-- step {rng.randint(0, 99)} -->\n")


def touch(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def nothing(root: Path, rng: random.Random) -> None:
    pass


STEPS_BY_NAME: dict[str, Callable[[Path, random.Random], None]] = {
    f.__name__: f
    for f in (
        body_edit,
        description_edit,
        add_skill,
        delete_skill,
        rename_skill,
        persona_edit,
        overlay_edit,
        config_edit,
        template_edit,
        touch,
        nothing,
    )
}


def clean_build(root: Path, where: Path) -> tuple[dict[str, bytes], tuple[str, ...]]:
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, where, ignore=shutil.ignore_patterns("dist", ".skillc-cache"))
    result, _ = build(where / "skillc.yaml", cache=False)
    files = dist_bytes(where / "dist") if (where / "dist").exists() else {}
    return files, tuple(d.format() for d in result.diagnostics)


@pytest.mark.parametrize("seed", range(SEEDS))
def test_every_step_builds_what_a_clean_build_does(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "p"
    generate(root, 10, n_personas=3, seed=seed)
    build(root / "skillc.yaml")
    trail: list[str] = []
    for step in range(STEPS):
        name = rng.choice(sorted(STEPS_BY_NAME))
        trail.append(name)
        STEPS_BY_NAME[name](root, rng)
        prune = rng.random() < 0.5
        result, written = build(root / "skillc.yaml", prune=prune)
        want, diags = clean_build(root, tmp_path / "clean")
        where = f"seed {seed}, steps {trail}"
        assert tuple(d.format() for d in result.diagnostics) == diags, where
        if written is None:  # the build failed, as the clean one did: the output was left alone
            assert not result.ok, where
            continue
        got = dist_bytes(root / "dist")
        assert {rel: got.get(rel) for rel in want} == want, where
        extra = got.keys() - want.keys()
        assert all(is_object(rel) for rel in extra) and not (prune and extra), where
        if name == "nothing" and step and trail[-2] == "nothing":
            assert result.cache is not None and result.cache.replayed, where
