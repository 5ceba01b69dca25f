"""Reads the harness goldens and the fixture trees back into target Skills, for the rule tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from skillc.targets.model import Skill

HARNESS = Path(__file__).resolve().parent.parent / "harness"
sys.path.insert(0, str(HARNESS))

import fixtures  # noqa: E402 - tests/harness is scripts, not a package


def golden(cli: str, name: str) -> dict[str, Any]:
    folder = next((HARNESS / "golden").glob(f"{cli}@*"))
    return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def fixture_skills(fixture: str, root: str, tmp: Path) -> list[Skill]:
    """Writes the fixture as run.py does and reads every SKILL.md under `root`, any depth."""
    project, outside = tmp / "project", tmp / "outside"
    project.mkdir(parents=True)
    outside.mkdir(parents=True)
    fixtures.FIXTURES[fixture](project, [root], outside)
    base = project / root
    found = [Path(d) / "SKILL.md" for d, _, files in os.walk(base, followlinks=True) if "SKILL.md" in files]
    return [_read(path, base) for path in sorted(found)]


def _frontmatter(front: str) -> dict[str, Any]:
    """YAML, with the Agent Skills client guide's fallback: a value holding ": " is one string."""
    try:
        return yaml.safe_load(front) or {}
    except yaml.YAMLError:
        lines = [_quote_colon_value(line) for line in front.splitlines()]
        return yaml.safe_load("\n".join(lines)) or {}


def _quote_colon_value(line: str) -> str:
    key, sep, value = line.partition(": ")
    if sep and not line.startswith(" ") and ": " in value:
        return f"{key}: {json.dumps(value)}"
    return line


def _read(path: Path, base: Path) -> Skill:
    _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
    meta = _frontmatter(front)
    paths = meta.get("paths") or ()
    return Skill(
        folder="" if path.parent == base else path.parent.relative_to(base).as_posix(),
        name=meta.get("name"),
        description=meta.get("description"),
        when_to_use=meta.get("when_to_use"),
        body=body,
        disable_model_invocation=meta.get("disable-model-invocation"),
        user_invocable=meta.get("user-invocable"),
        paths=tuple(paths),
        root=str(base),
    )
