"""skillc never refuses a skill that every selected target loads: over the harness fixtures.

For each target alone, and for all four together, the `fields`, `discovery` and `names` trees of
tests/harness/fixtures.py are built with `targets:` set; every skill the target's recorded golden
lists (tests/harness/golden/<cli>@<version>/) must come through without an error on its files.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import build

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))

import fixtures
import record

CLIS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}
FIXTURES = ("fields", "discovery", "names")


def listed_folders(cli: str, fixture: str) -> set[str]:
    """The folders (below the fixture's root) of the skills the real CLI listed for the model."""
    golden = json.loads(record.golden_path(cli, fixture, None).read_text(encoding="utf-8"))
    prefix = f"<project>/{fixtures.ROOTS[cli][0]}/"
    return {folder for entry in golden["skills"] if entry["listed"] and (folder := _folder(entry, prefix))}


def _folder(entry: dict[str, object], prefix: str) -> str | None:
    if "command" in entry:  # Claude Code: the command is the folder
        return str(entry["command"])
    where = str(entry.get("file") or entry.get("location") or "")
    if where.startswith("r0/"):  # Codex: its short root alias
        return where[3:].removesuffix("/SKILL.md")
    return where[len(prefix) :].removesuffix("/SKILL.md") if where.startswith(prefix) else None  # built-ins


def _selections() -> Iterator[tuple[str, ...]]:
    yield from ((t,) for t in CLIS)
    yield tuple(CLIS)


@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("targets", list(_selections()), ids=lambda t: "+".join(t))
def test_every_skill_the_selected_targets_list_builds(
    tmp_path: Path, targets: tuple[str, ...], fixture: str
) -> None:
    project, outside = tmp_path / "p", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    getattr(fixtures, fixture)(project, ["skills"], outside)
    config = project / "skillc.yaml"
    config.write_text(
        f"sources: [skills]\nfollow_symlinks: outside\ntargets: [{', '.join(targets)}]\n", encoding="utf-8"
    )
    result = build(config, "--skip-invalid")
    assert result.exception is None, result.stderr
    # Every target of the selection lists it: skillc must not refuse it (a warning may say why).
    loaded = set.intersection(*(listed_folders(CLIS[t], fixture) for t in targets))
    assert loaded, "the goldens list something"
    refused = {d.path for d in result.diags if d.severity == "error"}
    left_out = " ".join(d.message for d in result.find("SKC314"))
    for folder in sorted(loaded):
        assert not any(path.startswith(f"skills/{folder}/") or path == f"skills/{folder}" for path in refused)
        assert f" {folder}," not in f" {left_out.split(': ', 1)[-1]},", (folder, left_out)
    # And the build holds it: the output has no fewer skills than the intersection.
    assert "SKC315" not in result.codes()


def test_the_goldens_are_read_as_folders() -> None:
    """The property is only as good as its reading of the goldens."""
    assert {"colon", "dmi-zero", "dmi-maybe", "no-desc", "long1600"} <= listed_folders("claude", "fields")
    assert "no-desc" not in listed_folders("codex", "fields")
    assert "link-outside" in listed_folders("gemini", "discovery")
    assert "depth8/d/d/d/d/d/d/d" in listed_folders("opencode", "discovery")
