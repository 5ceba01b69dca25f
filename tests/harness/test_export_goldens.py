"""skillc's prediction for its own exports, held to what the real CLIs listed (goldens, no CLI needed).

For every export case of record.MATRIX: the CLI listed exactly the skills `skillc catalog --format
json` marks `listed`, and for Codex and Claude Code its listing text is the prediction's `text`.
test_export_live.py checks the same against the CLIs themselves (SKILLC_HARNESS=1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conform
import exports
import record

CASES = [
    (cli, fixture, budget)
    for cli, cases in record.MATRIX.items()
    for fixture, budget in cases
    if fixture.startswith("export-")
]


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Path]:
    """The conformance project built once per priority (the variants' configs differ only there)."""
    return {p: exports.built(tmp_path_factory.mktemp("export-source"), p) for p in ((), exports.PRIORITY)}


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_the_cli_listed_what_skillc_predicts(
    configs: dict[tuple[str, ...], Path], tmp_path: Path, cli: str, fixture: str, budget: int | None
) -> None:
    config = configs[conform.priority_of(fixture)]
    golden = json.loads(record.golden_path(cli, fixture, budget).read_text(encoding="utf-8"))
    doc = conform.prediction(config, cli, conform.persona_of(fixture), budget, tmp_path / "project")
    assert conform.differences(cli, golden, doc) == []


def test_the_export_cases_cover_every_target_and_persona() -> None:
    covered = {(cli, conform.persona_of(fixture)) for cli, fixture, _ in CASES}
    assert covered == {(cli, p) for cli in conform.TARGET for p in exports.PERSONAS}
