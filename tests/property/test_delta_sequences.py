"""Property: after any sequence of edits, `build --watch`'s delta builds (compiler/incremental/delta.py) leave
the bytes, the diagnostics and the object count of a clean build of the same sources.

Each step edits the tree, and the files whose stat data changed go to `delta.rebuild`, as the watch
hands it what its notifications name; a change the delta does not take (None) is built in full, as
the watch does. The steps are mostly what an author does while writing a skill (body, description,
flags, a resource and its executable bit, a body emptied, a frontmatter broken and mended, a touch),
sometimes anything else (adds, deletes, renames, personas, overlays, config, template). A few seeds
run in the normal suite; `SKILLC_DELTA_SEEDS=200` runs more.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from support.edits import STEPS_BY_NAME, WATCH_STEPS, clean_build
from support.files import REPO
from support.files import snapshot as dist_bytes

from skillc.format.layout import INDEX, is_object
from skillc.incremental.delta import State, rebuild, state_of
from skillc.pipeline import Compiled, build

sys.path.insert(0, str(REPO))
from bench.gen import generate

SEEDS = int(os.environ.get("SKILLC_DELTA_SEEDS", "4"))
# Appended to the generated config, one per seed in turn: none; targets (graded validation, names
# shared between skills) and suppressions that an emptied body makes used or unused (SKC107, and the
# marks of what they ignore); skip_invalid with a small budget (skills left out, catalogs that
# cut); names-only with priorities, at a budget that bites. --strict: tests/unit/test_delta.py.
SETTINGS = (
    "",
    "targets: [claude-code, codex, gemini, opencode]\n"
    "diagnostics:\n  SKC213: warning\n  per_path:\n    'skills/src-a/**': {SKC213: ignore}\n",
    "skip_invalid: true\nbudgets:\n  catalog_chars: 1500\n",
    "budgets:\n  catalog_chars: 2500\n  strategy: names-only\n  priority: ['audit-*', 'deploy-*']\n",
)
BUDGETS = "budgets:\n  catalog_chars: 30000\n"  # bench/gen.py's: a setting with its own replaces it
STEPS = 14
Stat = tuple[int, int, int, int]


def stats(root: Path) -> dict[Path, Stat]:
    """Every input's stat data, as the watch's snapshot compares it (the output left out)."""
    found = {}
    for path in root.rglob("*"):
        if path.is_file() and not {"dist", ".skillc-cache"} & set(path.relative_to(root).parts):
            st = path.stat()
            found[path.resolve()] = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
    return found


def full(root: Path) -> State | None:
    """A whole build, written, and the state the watch keeps of it (None when it failed)."""
    result, written = build(root / "skillc.yaml", cache=False, keep=True)
    if written is None or not isinstance(result, Compiled) or result.artifacts is None:
        return None
    return state_of(result, result.artifacts.files[INDEX])


def pick(rng: random.Random, broken: bool) -> str:
    """Mostly an author's edit of one skill; a broken frontmatter is mended soon (every build fails
    until it is, and the delta only ever starts from a build that did not)."""
    if broken and rng.random() < 0.5:
        return "frontmatter_broken"
    steps = WATCH_STEPS if rng.random() < 0.85 else STEPS_BY_NAME
    return rng.choice(sorted(steps))


@pytest.mark.parametrize("seed", range(SEEDS))
def test_every_delta_builds_what_a_clean_build_does(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "p"
    generate(root, 30, n_personas=4, seed=seed)
    config = root / "skillc.yaml"  # settings that change how diagnostics are made
    setting = SETTINGS[seed % len(SETTINGS)]
    text = config.read_text()
    config.write_text((text.replace(BUDGETS, "") if "budgets:" in setting else text) + setting)
    state = full(root)
    before = stats(root)
    trail: list[str] = []
    deltas = 0
    for _ in range(STEPS):
        name = pick(rng, broken="frontmatter_broken" in trail and trail.count("frontmatter_broken") % 2 == 1)
        trail.append(name)
        {**STEPS_BY_NAME, **WATCH_STEPS}[name](root, rng)
        now = stats(root)
        changed = sorted(p for p in before.keys() | now.keys() if before.get(p) != now.get(p))
        before = now
        done = rebuild(state, changed) if state is not None else None
        where = f"seed {seed}, steps {trail}, delta {done is not None}"
        want, diags = clean_build(root, tmp_path / "clean")
        if done is None:
            state = full(root)
            continue
        deltas += 1
        state = done.state
        assert tuple(d.format() for d in done.diagnostics) == diags, where
        got = dist_bytes(root / "dist")
        assert {rel: got.get(rel) for rel in want} == want, where
        assert all(is_object(rel) for rel in got.keys() - want.keys()), where
        assert done.summary.objects == sum(is_object(rel) for rel in want), where
    assert deltas, f"the delta took no step, so the sequence proves nothing of it: {trail}"
