"""The issue's "done when", live: `skillc export`, then the real CLI, lists what skillc predicts.

Opt-in like test_harness_live.py (SKILLC_HARNESS=1, the CLIs from install.sh). Each case exports
the conformance project (exports.py) for one target and persona into a fresh project, runs the CLI
there (run.py: offline, throwaway HOME), and asserts that the CLI listed exactly the skills `skillc
catalog --format json` marks `listed`, that Codex's and Claude Code's listing text equals its
`text` at that budget, and that the run still equals its committed golden.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conform
import exports
import record
import run
from test_export_goldens import CASES

pytestmark = pytest.mark.skipif(
    os.environ.get("SKILLC_HARNESS") != "1", reason="live harness runs: SKILLC_HARNESS=1"
)


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[exports.Key, Path]:
    """Each conformance project built once (exports.KEYS: the main one with and without its
    priority, and the odd one)."""
    return {key: exports.built(tmp_path_factory.mktemp("export-source"), key) for key in exports.KEYS}


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_the_cli_lists_what_skillc_predicts(
    configs: dict[exports.Key, Path], tmp_path: Path, cli: str, fixture: str, budget: int | None
) -> None:
    config = configs[conform.key_of(fixture)]
    if not run.installed(cli):
        pytest.fail(f"{cli} is not installed: run tests/harness/install.sh first")
    text = record.live(cli, fixture, budget)
    doc = conform.prediction(config, cli, conform.persona_of(fixture), budget, tmp_path / "project")
    assert conform.differences(cli, json.loads(text), doc) == []
    assert text == record.golden_path(cli, fixture, budget).read_text(encoding="utf-8")
