"""Golden test: a small source tree in, the exact expected dist/ out, byte for byte.

Regenerate after an intended output change with UPDATE_GOLDEN=1 and review
the diff of tests/golden/expected like any other code change.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from support.dist import expand
from support.files import GOLDEN, snapshot

from skillc.pipeline import build


def test_golden_dist_matches_byte_for_byte(tmp_path: Path) -> None:
    shutil.copytree(GOLDEN / "project", tmp_path / "project")
    result, written = build(tmp_path / "project" / "skillc.yaml")
    assert written is not None, [d.format() for d in result.diagnostics]
    got = snapshot(tmp_path / "project" / "dist")
    expected_dir = GOLDEN / "expected"
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(tmp_path / "project" / "dist", expected_dir)
    expected = snapshot(expected_dir)
    assert sorted(got) == sorted(expected)
    for rel in expected:
        assert got[rel] == expected[rel], rel
    expand(expected_dir)  # every file of the golden build holds to its schema


def test_golden_diagnostics(tmp_path: Path) -> None:
    shutil.copytree(GOLDEN / "project", tmp_path / "project")
    result, _ = build(tmp_path / "project" / "skillc.yaml")
    assert [d.format() for d in result.diagnostics] == [
        "local/gamma/SKILL.md:1:1: warning[SKC305]: command 'gamma' from this source overrides base/gamma/SKILL.md",
        "skillc.yaml:1:1: warning[SKC601]: persona 'pilot-x' catalog over its budget of 500 characters "
        "(strategy drop): 1 skill(s) left out (beta)",
    ]
