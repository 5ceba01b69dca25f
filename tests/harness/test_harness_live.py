"""The live comparison: the real CLIs, run now, still produce the committed goldens.

Opt-in (it needs the CLIs from tests/harness/install.sh and about two minutes): SKILLC_HARNESS=1.
The recording and the comparison are the same code (record.py), so a difference means the CLI
behaves differently from when its goldens were recorded: re-record with a moved pin, never by hand.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import record
import run

# skillc's exports are run by test_export_live.py, which also compares them with the prediction.
CASES = [
    (cli, fixture, budget)
    for cli, cases in record.MATRIX.items()
    for fixture, budget in cases
    if not fixture.startswith("export-")
]

pytestmark = pytest.mark.skipif(
    os.environ.get("SKILLC_HARNESS") != "1", reason="live harness runs: SKILLC_HARNESS=1"
)


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_live_output_equals_golden(cli: str, fixture: str, budget: int | None) -> None:
    if not run.installed(cli):
        pytest.fail(f"{cli} is not installed: run tests/harness/install.sh first")
    golden = record.golden_path(cli, fixture, budget)
    assert record.live(cli, fixture, budget) == golden.read_text(encoding="utf-8")
