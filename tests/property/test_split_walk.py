"""Property: a source walked, read and checked by two processes (discover_checked) is what one walk
gives: the same Discovery (skills, inputs, diagnostics, ignore files, each in its order) on random
trees of skills, sub-skills, hidden and ignored folders, resources and ignore files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.files import write_tree
from support.project import SRC_CONFIG, skill_md

from skillc.project import config as config_mod
from skillc.stages import discover as discover_mod
from skillc.stages.skills import check_skill, walk_checks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")

SETTINGS = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])

# Few names, so that twins (case, sanitized id, look-alike) and nesting happen often.
NAMES = st.sampled_from(["a", "A", "b", "b_c", "b-c", "p\u0430ste", "paste", ".h", "x", "deep"])
PATHS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
LEAVES = st.sampled_from(["SKILL.md", "skill.md", "notes.md", "run.log", ".gitignore", ".ignore"])
IGNORES = st.lists(st.sampled_from(["*.log", "x/", "!keep.log", "deep", "notes.md", "/a", "b*"]), max_size=3)


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    files: dict[str, str] = {}
    for folder, leaf in draw(st.lists(st.tuples(PATHS, LEAVES), min_size=1, max_size=14)):
        name = folder.rsplit("/", 1)[-1]
        if leaf in (".gitignore", ".ignore"):
            text = "\n".join(draw(IGNORES)) + "\n"
        elif leaf.lower() == "skill.md":
            text = skill_md(name.lower(), body=draw(st.sampled_from(["Do it.\n", ""])))
        else:
            text = "a resource\n"
        files[f"src/{folder}/{leaf}"] = text
    return files


@SETTINGS
@given(files=trees(), tops=st.integers(1, 3))
def test_a_split_walk_is_the_serial_walk(files: dict[str, str], tops: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        root = Path(tmp)
        write_tree(root, {"skillc.yaml": SRC_CONFIG, **files})
        (root / "personas").mkdir(exist_ok=True)
        cfg, _ = config_mod.load(root / "skillc.yaml")
        assert cfg is not None
        serial = discover_mod.discover(cfg)
        patch.setattr(discover_mod, "SPLIT_THRESHOLD", 1)
        patch.setattr(discover_mod, "_TOPS", tops)
        patch.setattr("os.cpu_count", lambda: 2)
        split, checked = discover_mod.discover_checked(cfg, walk_checks())
        assert split == serial
        by_key = {(s.source, s.command): s for s in split.skills}
        assert all(result == check_skill(by_key[key]) for key, result in checked.items() if key in by_key)
