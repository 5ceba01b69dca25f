"""Property: any sequence of edits, built with the cache after each step, gives the bytes and the
diagnostics of a clean build of the same sources into another folder.

A seeded random generator picks the steps: body and description edits, adds, deletes and renames
of skills, persona manifest and overlay changes, config and template changes, touches and no-ops;
and with sources given discovery rules drawn at random, the files those rules decide of.
A few seeds run in the normal suite; `SKILLC_INCREMENTAL_SEEDS=200` runs more.
"""

from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path

import pytest
from support.edits import DISCOVERY_STEPS, STEPS_BY_NAME, WRITING_STEPS, clean_build, drawn_rules
from support.files import REPO
from support.files import snapshot as dist_bytes

from skillc.format.layout import is_object
from skillc.fs import output_stat
from skillc.incremental import carry
from skillc.incremental.quick import records_for, same_output
from skillc.pipeline import build

sys.path.insert(0, str(REPO))
from bench.gen import generate

SEEDS = int(os.environ.get("SKILLC_INCREMENTAL_SEEDS", "2"))
STEPS = 8


def recorded_as_built(root: Path, got: dict[str, bytes], want: dict[str, bytes]) -> bool:
    """The build record, when it describes this output (a build that cannot vouch for its walk, a
    file saved in its clock tick, records nothing), lists the objects the build uses, with the stat
    data each file has, and says whether the output holds others: what the next `--prune` goes by
    (with nothing changed it replays when the output holds only the listed objects)."""
    records = records_for(root / "skillc.yaml")
    record = records.record() if records is not None else None
    if records is None or record is None or record.quick is None:
        return True
    outputs = records.packed_outputs()
    if outputs is None or not same_output(root / "dist", record.quick):
        return True
    now = {rel: output_stat(os.lstat(root / "dist" / rel)) for rel in outputs.names if rel in got}
    if now != {rel: outputs.get(rel) for rel in now}:
        return False
    used = {rel for rel in want if is_object(rel)}
    return {rel for rel in outputs.names if is_object(rel)} == used and record.quick.extra is bool(
        {rel for rel in got if is_object(rel)} - used
    )


def tighten(root: Path) -> None:
    """A budget that holds a few catalog entries: edit builds resume first fit (budget.refit)."""
    config = root / "skillc.yaml"
    config.write_text(re.sub(r"catalog_chars: \d+", "catalog_chars: 900", config.read_text()))


def at_the_edge(root: Path) -> None:
    """Each persona's budget about what its catalog costs whole (the last build's): an edit may make
    it fit whole, or no longer, and an edit build resumes a packing or packs anew (edit._Edit._kept)."""
    records = records_for(root / "skillc.yaml")
    record = records.record() if records is not None else None
    assert records is not None and record is not None
    made = carry.load(records.directory, records.signing_key, record.build_key)
    assert made is not None
    config = root / "skillc.yaml"
    budgets = "".join(f"    {pid}: {total + 40}\n" for pid, total in sorted(made.totals.items()))
    config.write_text(re.sub(r"(catalog_chars: \d+\n)", r"\1  personas:\n" + budgets, config.read_text()))
    build(config)


@pytest.mark.parametrize("budget", ["roomy", "tight", "edge"])
@pytest.mark.parametrize("targets", [False, True], ids=["plain", "targets"])
@pytest.mark.parametrize("seed", range(SEEDS))
def test_every_step_builds_what_a_clean_build_does(tmp_path, seed, targets, budget):
    """With `targets:` too: their reports compare skills' names across the tree. With a tight budget
    too: most skills are left out of the catalogs; at the edge: each catalog costs about its budget."""
    rng = random.Random(seed + (500 if targets else 0) + {"roomy": 0, "tight": 50, "edge": 70}[budget])
    root = tmp_path / "p"
    generate(root, 10, n_personas=3, seed=seed)
    if budget == "tight":
        tighten(root)
    if targets:
        config = root / "skillc.yaml"
        config.write_text(config.read_text() + "targets: [claude-code, codex, gemini, opencode]\n")
    build(root / "skillc.yaml")
    if budget == "edge":
        at_the_edge(root)
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
        assert not (result.cache and result.cache.declined.startswith("internal error")), where
        if written is None:  # the build failed, as the clean one did: the output was left alone
            assert not result.ok, where
            continue
        got = dist_bytes(root / "dist")
        assert {rel: got.get(rel) for rel in want} == want, where
        extra = got.keys() - want.keys()
        assert all(is_object(rel) for rel in extra) and not (prune and extra), where
        assert recorded_as_built(root, got, want), where
        if name == "nothing" and step and trail[-2] == "nothing":
            assert result.cache is not None and result.cache.replayed, where


@pytest.mark.parametrize("tight", [False, True], ids=["roomy", "tight"])
@pytest.mark.parametrize("seed", range(SEEDS))
def test_writing_a_skill_step_by_step_builds_what_a_clean_build_does(tmp_path, seed, tight):
    """What an author does between two builds (edit.py's edit builds take most of it): bodies,
    descriptions, flags that move a skill in or out of catalogs, resources and their modes, a
    frontmatter broken and mended, touches. Each build is compared with a clean one, and at least
    one step of a sequence was an edit build."""
    rng = random.Random(1000 + seed + (50 if tight else 0))
    root = tmp_path / "p"
    generate(root, 12, n_personas=3, seed=seed)
    if tight:
        tighten(root)
    # A suppression an emptied body makes used or unused (SKC107, and the marks of what it ignores)
    config = root / "skillc.yaml"
    config.write_text(
        config.read_text() + "diagnostics:\n  per_path:\n    'skills/src-a/**': {SKC213: ignore}\n"
    )
    build(root / "skillc.yaml")
    trail: list[str] = []
    edited = 0
    broken_for = 0  # steps the tree has held a frontmatter that does not parse
    for _ in range(STEPS + 4):
        name = rng.choice([*sorted(WRITING_STEPS), "body_edit", "description_edit"])
        if broken_for >= 3:  # an author mends a typo before long; until then every build fails
            name = "frontmatter_broken"
        trail.append(name)
        WRITING_STEPS[name](root, rng)
        broken = any("name: [" in p.read_text() for p in root.glob("skills/**/SKILL.md"))
        broken_for = broken_for + 1 if broken else 0
        result, written = build(root / "skillc.yaml")
        want, diags = clean_build(root, tmp_path / "clean")
        where = f"seed {seed}, steps {trail}"
        assert tuple(d.format() for d in result.diagnostics) == diags, where
        assert not (result.cache and result.cache.declined.startswith("internal error")), where
        edited += bool(result.cache and result.cache.edited)
        if written is None:
            assert not result.ok, where
            continue
        got = dist_bytes(root / "dist")
        assert {rel: got.get(rel) for rel in want} == want, where
        assert all(is_object(rel) for rel in got.keys() - want.keys()), where
        assert recorded_as_built(root, got, want), where
        assert result.summary is not None and result.summary.objects == len(
            [rel for rel in want if is_object(rel)]
        ), where
    assert edited, trail


@pytest.mark.parametrize("seed", range(SEEDS * 3))
def test_discovery_rules_every_step_builds_what_a_clean_build_does(tmp_path, seed):
    """Sources with discovery rules drawn at random (support.edits.drawn_rules), and steps that put
    and take the files those rules decide of (a vendored or too deep SKILL.md, a case twin, a SKILL.md
    at a source's root) among the others: edit builds ask discover, which knows every rule."""
    rng = random.Random(2000 + seed)
    root = tmp_path / "p"
    generate(root, 10, n_personas=3, seed=seed)
    rules = drawn_rules(root, rng)
    build(root / "skillc.yaml")
    steps = {**STEPS_BY_NAME, **WRITING_STEPS, **DISCOVERY_STEPS}
    trail: list[str] = []
    for _ in range(STEPS + 4):
        name = rng.choice([*sorted(DISCOVERY_STEPS) * 3, *sorted(steps)])
        trail.append(name)
        steps[name](root, rng)
        result, written = build(root / "skillc.yaml")
        want, diags = clean_build(root, tmp_path / "clean")
        where = f"seed {seed}, rules\n{rules}steps {trail}"
        assert tuple(d.format() for d in result.diagnostics) == diags, where
        assert not (result.cache and result.cache.declined.startswith("internal error")), where
        if written is None:
            assert not result.ok, where
            continue
        got = dist_bytes(root / "dist")
        assert {rel: got.get(rel) for rel in want} == want, where
        assert all(is_object(rel) for rel in got.keys() - want.keys()), where
        assert recorded_as_built(root, got, want), where
