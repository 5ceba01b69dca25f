"""What a real CLI listed for an export (a golden, or a live run) next to skillc's prediction of it.

The prediction is `skillc catalog --target T --persona P --format json` on the same build, with
`--project` naming the export's folder and the run's budget; its text is normalised the way run.py
normalises the CLI's output (the project folder becomes `<project>`). The issue's "done when": the
CLI lists exactly the skills the prediction marks `listed`, and for Codex and Claude Code the
listing text is the prediction's `text`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import exports
from click.testing import CliRunner

from skillc.cli import cli as skillc_cli

TARGET = {"claude": "claude-code", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}
EXACT_TEXT = ("claude", "codex")


def persona_of(fixture: str) -> str:
    return exports.variant(fixture.removeprefix("export-"))[0]


def key_of(fixture: str) -> exports.Key:
    """Which built project (exports.KEYS) the export fixture exports."""
    return exports.variant(fixture.removeprefix("export-"))[1]


def prediction(config: Path, cli: str, persona: str, budget: int | None, project: Path) -> dict[str, Any]:
    """`skillc catalog --format json` for the export of `persona` into `project` (in this process)."""
    argv = ["catalog", "--config", str(config), "--target", TARGET[cli], "--persona", persona]
    argv += ["--format", "json", "--project", str(project)]
    if budget is not None:
        argv += ["--window" if cli == "codex" else "--chars", str(budget)]
    result = CliRunner().invoke(skillc_cli, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    doc["text"] = doc["text"].replace(str(project.absolute()), "<project>")
    return doc


def predicted_listed(cli: str, doc: dict[str, Any]) -> set[str]:
    """The skills the prediction lists, and the harness's own built-ins it lists (`builtins`)."""
    key = "command" if cli == "claude" else "name"  # Claude Code lists a skill by its command
    return {skill[key] for skill in doc["skills"] if skill["listed"]} | set(doc.get("builtins", ()))


def cli_listed(cli: str, result: dict[str, Any]) -> set[str]:
    """What the CLI listed. Gemini CLI's `skills list` leaves its built-ins out, so they are
    taken from the model's prompt (`text`), as the prediction names them."""
    key = "command" if cli == "claude" else "name"
    listed = {skill[key] for skill in result["skills"] if skill.get("listed")}
    if cli == "gemini":
        listed |= set(re.findall(r"<name>(.*?)</name>", result["text"] or "")) - {
            s[key] for s in result["skills"]
        }
    return listed


def differences(cli: str, result: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    """What the CLI did that skillc did not predict (empty when they agree)."""
    found, expected = cli_listed(cli, result), predicted_listed(cli, doc)
    out = []
    if found != expected:
        out.append(
            f"listed by the CLI only: {sorted(found - expected)}; predicted only: {sorted(expected - found)}"
        )
    if cli in EXACT_TEXT and result["text"] != doc["text"]:
        out.append(f"text differs:\n--- CLI\n{result['text']}\n--- skillc\n{doc['text']}")
    return out
