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
from support.project import SRC_CONFIG
from support.trees import trees

from skillc.project import config as config_mod
from skillc.stages import discover as discover_mod
from skillc.stages.skills import check_skill, walk_checks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the split walk forks")

SETTINGS = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])


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
