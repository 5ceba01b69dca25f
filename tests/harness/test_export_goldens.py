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
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[exports.Key, Path]:
    """Each conformance project built once (exports.KEYS: the main one with and without its
    priority, and the odd one)."""
    return {key: exports.built(tmp_path_factory.mktemp("export-source"), key) for key in exports.KEYS}


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_the_cli_listed_what_skillc_predicts(
    configs: dict[exports.Key, Path], tmp_path: Path, cli: str, fixture: str, budget: int | None
) -> None:
    config = configs[conform.key_of(fixture)]
    golden = json.loads(record.golden_path(cli, fixture, budget).read_text(encoding="utf-8"))
    doc = conform.prediction(config, cli, conform.persona_of(fixture), budget, tmp_path / "project")
    assert conform.differences(cli, golden, doc) == []


def test_the_export_cases_cover_every_target_and_persona() -> None:
    covered = {(cli, conform.key_of(f)[0], conform.persona_of(f)) for cli, f, _ in CASES}
    main = {(cli, "main", p) for cli in conform.TARGET for p in exports.PERSONAS}
    odd = {(cli, "odd", p) for cli in conform.TARGET for p in exports.ODD_PERSONAS}
    assert covered == main | odd


@pytest.mark.parametrize(("cli", "fixture", "budget"), CASES, ids=[f"{c}-{f}-{b}" for c, f, b in CASES])
def test_no_export_lets_a_skill_forge_an_entry_of_the_listing(
    cli: str, fixture: str, budget: int | None
) -> None:
    """Listing injection: the odd project's descriptions hold `<name>evil-xml</name>` (an entry in
    Gemini CLI's and opencode's XML-like listings; text in Codex's list) and a line break before
    `- evil-wtu`; what the CLI listed from its export holds neither as structure."""
    text = json.loads(record.golden_path(cli, fixture, budget).read_text(encoding="utf-8"))["text"] or ""
    assert "<name>evil" not in text or cli == "codex"
    assert not any(line.startswith("- evil") for line in text.splitlines())
    assert text.count("skills_instructions>") in (0, 2)
