"""Exhaustion: inputs built to crash or stall the compiler, each class in a child process so a crash
(a segfault kills the interpreter) fails the test instead of the test run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.project import SRC_CONFIG, skill_md
from support.project import src_project as project

DEEP = {
    "flow sequences": "[" * 50_000,
    "flow mappings": "{a: " * 50_000,
    "block sequences": "- " * 50_000 + "x",
    "complex keys": "? " * 50_000 + "x",
}


def _build(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillc", "--config", str(config), "build"],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("deep", DEEP.values(), ids=DEEP.keys())
@pytest.mark.parametrize("where", ["skill", "manifest", "redirect", "config"])
def test_deep_nesting_is_a_diagnostic_not_a_crash(tmp_path: Path, deep: str, where: str) -> None:
    files = {"src/a/SKILL.md": skill_md("a")}
    config = SRC_CONFIG
    if where == "skill":
        files["src/a/SKILL.md"] = skill_md("a", metadata="\n  " + deep)
    elif where == "manifest":
        files["personas/p/manifest.yaml"] = f"name: P\nallowlist:\n  {deep}\n"
    elif where == "redirect":
        files["src/a/SKILL.md"] = skill_md("a", persona_exclusive="p")
        files["personas/p/manifest.yaml"] = "name: P\n"
        files["personas/p-exclusive/a.md"] = f"---\nx:\n  {deep}\n---\nbody\n"
    else:
        config = f"format: 1\nsources: [src]\npersonas: personas\noutput: dist\nx:\n  {deep}\n"
    cfg = project(tmp_path, files, config)
    done = _build(cfg)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "nesting deeper than 32 levels" in done.stdout + done.stderr


def test_a_shard_over_the_readers_bound_is_refused_naming_its_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.cli import run

    from skillc import reader
    from skillc.format import layout

    monkeypatch.setattr(layout, "MAX_INDEX_BYTES", 4096)
    big = "x" * 5000
    cfg = project(tmp_path, {"src/big/SKILL.md": skill_md("big", metadata=f"\n  note: {big}")})
    code, out = run("--config", str(cfg), "build")
    assert code == 1
    assert "SKC720" in out and "src/big/SKILL.md" in out and "big (" in out
    assert not (tmp_path / "dist").exists()
    # Below the bound, the same build is written and its reader serves it.
    monkeypatch.setattr(layout, "MAX_INDEX_BYTES", 16 << 20)
    assert run("--config", str(cfg), "build")[0] == 0
    assert reader.open(tmp_path / "dist").skill_meta("big").name == "big"


@pytest.mark.parametrize("shape", ["[{}]", "- {}", "{{a: {}}}"])
def test_the_pre_scan_limit_is_the_graph_limit(shape: str) -> None:
    from skillc.stages.parse import load_yaml
    from skillc.stages.yamlgraph import MAX_DEPTH

    def nested(levels: int) -> str:
        if shape.startswith("-"):
            return "k:\n" + "".join("  " * i + "-\n" for i in range(levels)) + "  " * levels + "x\n"
        opening, closing = (
            ("[" * levels, "]" * levels) if shape.startswith("[") else ("{a: " * levels, "}" * levels)
        )
        return f"k: {opening}x{closing}\n"

    # The scalar inside counts as a level too: MAX_DEPTH - 1 collections below the root are the most.
    for levels, ok in ((MAX_DEPTH - 1, True), (MAX_DEPTH, False), (MAX_DEPTH + 2, False)):
        data, _, diags = load_yaml(nested(levels), "x", 0)
        assert (data is not None) is ok, (levels, diags)
        assert ok or "nesting deeper" in diags[0].message
