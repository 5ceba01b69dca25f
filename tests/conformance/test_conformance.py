"""The conformance suite (tests/conformance/) run through the Python reader, and held fresh."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import generate, runner
from skillc.reader import vendor

CASES: list[dict[str, Any]] = json.loads(runner.CASES.read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    got = runner.run_case(case, tmp_path)
    for c, outcome in zip(case["calls"], got, strict=False):
        assert outcome == c["expect"], f"{c['call']} {c.get('args')}"
    assert len(got) == len(case["calls"])


def test_the_single_file_reader_conforms(tmp_path: Path) -> None:
    """The reader `skillc vendor-reader` writes gives the same outcomes as the package."""
    (tmp_path / "skillc_reader.py").write_text(vendor.bundle(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("skillc_reader", tmp_path / "skillc_reader.py")
    assert spec is not None and spec.loader is not None
    api = importlib.util.module_from_spec(spec)
    sys.modules["skillc_reader"] = api  # the records' classes look their module up by name
    try:
        spec.loader.exec_module(api)
        for i, case in enumerate(CASES):
            got = runner.run_case(case, tmp_path / str(i), api=api)
            assert got == [c["expect"] for c in case["calls"]], case["name"]
    finally:
        del sys.modules["skillc_reader"]


def test_names_are_unique() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))


def _tree(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file below root: its mode bits and bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[path.relative_to(root).as_posix()] = (path.stat().st_mode & 0o111, path.read_bytes())
    return out


def test_suite_is_fresh(tmp_path: Path) -> None:
    """The committed builds and cases are what the generator makes now (else: run generate.py)."""
    generate.generate(tmp_path)
    fresh, committed = tmp_path / "cases.json", runner.CASES
    assert filecmp.cmp(fresh, committed, shallow=False), "stale: run python tests/conformance/generate.py"
    assert _tree(tmp_path / "builds") == _tree(runner.BUILDS), "stale builds: run generate.py"
    assert os.path.getsize(committed) < 700_000, "keep the committed suite small"
