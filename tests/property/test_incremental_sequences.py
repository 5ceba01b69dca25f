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
import sys
from pathlib import Path

import pytest
from support.edits import STEPS_BY_NAME, WRITING_STEPS, clean_build
from support.files import REPO
from support.files import snapshot as dist_bytes
from support.forks import split_lstats

from skillc.format.layout import is_object
from skillc.fs import output_stat
from skillc.incremental import carry
from skillc.incremental.quick import _records, same_output
from skillc.pipeline import build

sys.path.insert(0, str(REPO))
from bench.gen import generate

SEEDS = int(os.environ.get("SKILLC_INCREMENTAL_SEEDS", "2"))
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
STEPS = 8


def recorded_as_built(root: Path, got: dict[str, bytes], want: dict[str, bytes]) -> bool:
    """The build record, when it describes this output (a build that cannot vouch for its walk, a
    file saved in its clock tick, records nothing), lists the objects the build uses, with the stat
    data each file has, and says whether the output holds others: what the next `--prune` goes by
    (with nothing changed it replays when the output holds only the listed objects)."""
    records = _records(root / "skillc.yaml")
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
    it fit whole, or no longer, and an edit build resumes a packing or packs anew (edit._kept)."""
    records = _records(root / "skillc.yaml")
    record = records.record() if records is not None else None
    assert records is not None and record is not None
    made = carry.load(records.directory, records.signing_key, record.build_key)
    assert made is not None
    config = root / "skillc.yaml"
    budgets = "".join(f"    {pid}: {total + 40}\n" for pid, total in sorted(made.totals.items()))
    config.write_text(re.sub(r"(catalog_chars: \d+\n)", r"\1  personas:\n" + budgets, config.read_text()))
    build(config)


@pytest.mark.parametrize(
    "split", [False, pytest.param(True, marks=LINUX)], ids=["one process", "a child's lstats"]
)
@pytest.mark.parametrize("budget", ["roomy", "tight", "edge"])
@pytest.mark.parametrize("targets", [False, True], ids=["plain", "targets"])
@pytest.mark.parametrize("seed", range(SEEDS))
def test_every_step_builds_what_a_clean_build_does(tmp_path, monkeypatch, seed, targets, budget, split):
    """With `targets:` too: their reports compare skills' names across the tree. With a tight budget
    too: most skills are left out of the catalogs; at the edge: each catalog costs about its budget.
    With the lstats split with a forked child too, as they are from 8,192 paths on: the edit build
    is then made while the child takes them, on the guess that the first change found is the only
    one (edit._guessed), which the steps that change more prove wrong."""
    if split:
        split_lstats(monkeypatch)
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


@pytest.mark.parametrize(
    "split", [False, pytest.param(True, marks=LINUX)], ids=["one process", "a child's lstats"]
)
@pytest.mark.parametrize("journal", ["kept", "short"])
@pytest.mark.parametrize("tight", [False, True], ids=["roomy", "tight"])
@pytest.mark.parametrize("seed", range(SEEDS))
def test_writing_a_skill_step_by_step_builds_what_a_clean_build_does(
    tmp_path, monkeypatch, seed, tight, journal, split
):
    """What an author does between two builds (edit.py's edit builds take most of it): bodies,
    descriptions, flags that move a skill in or out of catalogs, resources and their modes, a
    frontmatter broken and mended, touches. Each build is compared with a clean one, and at least
    one step of a sequence was an edit build. The edit builds keep a journal of the carry (carry.py);
    with "short" it is written whole again whenever it holds more than one line, two references or
    one catalog row. With a child's lstats, the edit is made on the guess of the first file found
    moved (edit._guessed)."""
    if split:
        split_lstats(monkeypatch)
    if journal == "short":
        monkeypatch.setattr(carry, "LIMITS", (1, 2, 1))
    kept: list[str] = []  # the carry files each build wrote
    real_write = carry.write_signed
    monkeypatch.setattr(
        carry, "write_signed", lambda d, name, *a: kept.append(name) or real_write(d, name, *a)
    )
    written_by_edits: set[str] = set()
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
        del kept[:]
        broken = any("name: [" in p.read_text() for p in root.glob("skills/**/SKILL.md"))
        broken_for = broken_for + 1 if broken else 0
        result, written = build(root / "skillc.yaml")
        if result.cache and result.cache.edited:
            written_by_edits.update(kept)
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
    # Kept, the edit builds wrote their journal and never the carry whole (short, each of the two
    # may come first: a description edit after a description edit of one skill keeps a journal of
    # one line, one reference and one row; tests/unit/test_carry.py holds the limits themselves).
    if journal == "kept" and written_by_edits:
        assert carry.EDITS in written_by_edits and carry.NAME not in written_by_edits, trail
