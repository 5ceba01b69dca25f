"""The committed goldens, checked without the CLIs: one per case of record.MATRIX, well formed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import record

CASES = [(cli, fixture, budget) for cli, cases in record.MATRIX.items() for fixture, budget in cases]


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_every_case_has_a_golden_with_the_pinned_version(cli: str, fixture: str, budget: int | None) -> None:
    golden = json.loads(record.golden_path(cli, fixture, budget).read_text(encoding="utf-8"))
    assert golden["cli"] == f"{cli}@{record.VERSIONS[cli]}"
    assert (golden["fixture"], golden["budget"]) == (fixture, budget)
    assert isinstance(golden["skills"], list)


def test_no_golden_is_left_over_from_a_case_that_is_gone() -> None:
    expected = {record.golden_path(*case) for case in CASES}
    assert set(record.GOLDEN.glob("*/*.json")) == expected


def test_goldens_hold_no_machine_paths() -> None:
    for path in record.GOLDEN.glob("*/*.json"):
        text = path.read_text(encoding="utf-8")
        assert "/tmp/skh-" not in text and str(Path.home()) + "/" not in text, path
