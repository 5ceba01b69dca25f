"""The TypeScript seeds' loaders at run time, through the TypeScript reader (issue 41).

Each seed's tree (tests/support/seeds.py: 001 V1, 002 the three-tier agent, 004 Pegasus) is laid out
as its document lays it out and built by skillc as its developer would build it; a small host in
TypeScript (readers/typescript/test/hosts/, compiled by the package's build) does what the seed's
loader does at run time, under node, and prints what each step returned. These tests hold that
to the seed's document.

They need node and the TypeScript package built (tests/support/tsreader.py), else they are skipped;
and the seeds' trees (tests/support/seeds.py), which come with main together with the compiler that
builds them (issue 39): on a branch without them they are skipped too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import tsreader
from support.cli import invoke, run
from support.files import REPO

if not (REPO / "tests" / "support" / "seeds.py").exists():
    pytest.skip("the seeds' trees (tests/support/seeds.py) are not on this branch", allow_module_level=True)
from support import seeds  # after the skip: the module is not on every branch

HOSTS = tsreader.BUILD / "test" / "hosts"


@pytest.fixture(scope="module")
def node() -> str:
    return tsreader.node()


def _host(node: str, name: str, *args: str | Path) -> Any:
    """What the host printed (JSON)."""
    return tsreader.run_json(node, [HOSTS / f"{name}.js", *args])


def _build(config: Path, monkeypatch: pytest.MonkeyPatch, seed: seeds.Seed) -> None:
    """`skillc build` with a config, from the project, HOME the seed's."""
    for key, value in seed.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(seed.root)
    result = invoke("build", config=config)
    assert result.exit_code == 0, result.stderr


def _tier(source: Path, output: Path) -> None:
    """A tier built with no config: `skillc build SOURCE -o OUTPUT`."""
    code, out = run("build", str(source), "-o", str(output))
    assert code == 0, out


def _narrowed(seed: seeds.Seed, sources: list[str], name: str) -> Path:
    """The seed's config with only these sources: the config of one tier of a stack."""
    config = yaml.safe_load(seed.config.read_text())
    config["sources"] = sources
    path = seed.root / name
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


# --- 001 V1 -----------------------------------------------------------------------------------------


def test_v1_registry_views_and_activation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, node: str) -> None:
    seed = seeds.v1(tmp_path)
    (seed.root / "workDir/skills/repo-survey/scripts/survey.sh").chmod(0o755)  # the mount keeps the bit
    _build(seed.config, monkeypatch, seed)
    out = _host(node, "v1", seed.root)
    registry = {s["id"]: s for s in out["registry"]}
    assert sorted(registry) == sorted(seeds.V1_SEES)
    for ident, (command, _label, description, resources) in seeds.V1_SEES.items():
        assert (registry[ident]["command"], registry[ident]["description"]) == (command, description)
        assert registry[ident]["resources"] == resources
    # each agent's allowlist is a view: undefined and ["*"] all, [] none, else the ids listed
    ids = [s["id"] for s in out["registry"]]
    assert out["views"] == {
        "planner": ids,
        "reviewer": [],
        "helper": ids,
        "editor": [i for i in ids if i in ("safe-edit", "test-first-fix")],
    }
    # the prompt: name, description, location; never a body
    prompt = out["prompt"]["planner"]
    for ident, (command, _label, description, _resources) in seeds.V1_SEES.items():
        location = seed.root / (
            "workDir/skills/SKILL.md" if command == "skills" else f"workDir/skills/{command}/SKILL.md"
        )
        assert f"- {ident}: {description} ({location})" in prompt
    assert "Edit with care." not in prompt and out["prompt"]["reviewer"] == ""

    first, again, hidden, other = out["activations"]
    assert first["risk"] == "risky" and again["risk"] == "safe"  # repeated in the same task: safe
    assert first["instructions"] == "Edit with care.\n" and first["mountPath"] == "private:/.skills/safe-edit"
    assert first["folderStructure"] == seeds.V1_SEES["safe-edit"][3]
    mount = Path(first["disk"])
    assert mount == seed.root / "workDir" / "private" / "task-1" / ".skills" / "safe-edit"
    assert sorted(p.relative_to(mount).as_posix() for p in mount.rglob("*") if p.is_file()) == [
        "SKILL.md",
        "examples/SKILL.md",
        "references/guide.md",
    ]
    assert (mount / "SKILL.md").read_text().endswith("\n---\n\nEdit with care.\n")
    assert again["mount"] == first["mount"]  # the second activation wrote nothing
    assert hidden["error"] and hidden["visible"] == out["views"]["editor"]  # not in the editor's view
    assert other["risk"] == "risky"  # another task: its own consent, its own mount
    script = Path(other["disk"]) / "scripts" / "survey.sh"
    assert "task-2" in other["disk"] and os.access(script, os.X_OK)
    assert out["afterEnd"]["risk"] == "risky"  # the task ended: its consents went with it


# --- 002 the three-tier agent ------------------------------------------------------------------------


def _ts_agent_tiers(seed: seeds.Seed, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three builds: the bundled set with the agent's config, the user's and the project's."""
    _build(_narrowed(seed, ["src/_bundled_skills"], "bundled.yaml"), monkeypatch, seed)
    if (seed.home / ".agent" / "skills").is_dir():
        _tier(seed.home / ".agent" / "skills", seed.home / ".agent" / "dist")
    _tier(seed.root / ".agent" / "skills", seed.root / ".agent" / "dist")


def test_ts_agent_three_tiers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, node: str) -> None:
    seed = seeds.ts_agent(tmp_path)
    _ts_agent_tiers(seed, monkeypatch)
    out = _host(node, "ts-agent", seed.root, seed.home, seed.root)
    assert out["names"] == sorted(seeds.TS_AGENT_SEES)
    tier1 = out["tier1"]
    assert tier1.startswith("<available_skills>\n") and tier1.endswith("</available_skills>\n")
    locations = {
        "greet": seed.root / "src/_bundled_skills/greet/SKILL.md",
        "my-skill": seed.root / ".agent/skills/my-skill/SKILL.md",  # the project's copy wins
        "notes": seed.home / ".agent/skills/notes/SKILL.md",
    }
    for command, (description, _fields, _resources) in seeds.TS_AGENT_SEES.items():
        assert (
            f"<name>{command}</name>\n<description>{description}</description>\n"
            f"<location>{locations[command]}</location>"
        ) in tier1
    assert out["shadowed"] == [{"command": "my-skill", "tier": 0, "by": 2}]
    # tier 2: the skill's instructions, after Claude Code's line naming its folder (the tier's root)
    base = f"Base directory for this skill: {locations['my-skill'].parent}\n\n"
    assert out["tier2"]["my-skill"].startswith(base + "# My Skill\n")
    assert (
        out["tier2"]["greet"] == f"Base directory for this skill: {locations['greet'].parent}\n\nSay hello.\n"
    )
    assert out["unknown"] is None
    assert out["tier3"] == {c: r for c, (_d, _f, r) in seeds.TS_AGENT_SEES.items()}
    assert out["references"] == []  # the bundled my-skill's references went with it
    assert out["resource"] == "console.log('run')\n"
    assert out["traversal"] == [None] * 5  # `..`, absolute, not listed: nothing is read
    assert out["source"] == seeds.TS_AGENT_SEES["my-skill"][0]


def test_ts_agent_without_a_user_tier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, node: str) -> None:
    seed = seeds.ts_agent(tmp_path, user_tier=False)
    _ts_agent_tiers(seed, monkeypatch)
    out = _host(node, "ts-agent", seed.root, seed.home, seed.root)
    assert out["names"] == ["greet", "my-skill"] and "notes" not in out["tier1"]
    assert out["shadowed"] == [{"command": "my-skill", "tier": 0, "by": 2}]  # places in the list given


# --- 004 Pegasus ---------------------------------------------------------------------------------------


def test_pegasus_prompt_tools_commands_and_runtime_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, node: str
) -> None:
    seed = seeds.pegasus(tmp_path)
    _build(_narrowed(seed, ["skills"], "builtin.yaml"), monkeypatch, seed)
    _tier(seed.root / "data" / "skills", seed.root / "data" / "dist")
    out = _host(node, "pegasus", seed.root, sys.executable, "-m", "skillc")

    prompt = out["prompt"]
    assert "Available skills:\n" in prompt and "Use the use_skill tool" in prompt
    for command, (description, in_prompt, _user) in seeds.PEGASUS_SEES.items():
        assert (f"- {command}: {description}\n" in prompt) is in_prompt, command
    assert out["commands"] == sorted(c for c, (_d, _p, user) in seeds.PEGASUS_SEES.items() if user)
    assert out["shadowed"] == [{"command": "code-review", "tier": 0, "by": 1}]  # data/skills > skills

    used = out["useSkill"]
    assert used["review"] == {"success": True, "result": {"taskId": "task-1", "status": "spawned"}}
    assert out["submitted"][0] == "Review PR #42 the team's way.\n"  # context: fork, $ARGUMENTS
    assert used["commit"] == {"success": False, "error": 'Skill "commit" is invoked by the user only'}
    assert used["conventions"]["result"].startswith("# Project Conventions\n")  # user-invocable: false
    assert used["summarize"]["result"].endswith("Keep it short.\n\n\nARGUMENTS: the report")
    assert used["unknown"] == {"success": False, "error": 'Skill "deploy" not found'}

    sent = out["send"]
    assert sent["commit"]["kind"] == "user-message"
    assert sent["commit"]["content"].startswith("[Skill: commit]\n\nCreate a git commit")
    assert sent["review"] == {"kind": "task", "content": "task-2"}
    assert out["submitted"][1] == "Review PR #42 the team's way.\n"
    assert sent["conventions"] == {"kind": "message", "content": "/project-conventions"}  # not a command
    assert sent["help"] == {"kind": "message", "content": "/help"}

    created = out["created"]  # written by the model, built, served by the reader already open
    assert created["moved"] is True
    assert "- release-notes: Use when writing release notes from the git log.\n" in created["prompt"]
    assert created["useSkill"] == {"success": True, "result": "Write notes for v2.1.\n"}
    assert created["send"]["content"] == "[Skill: release-notes]\n\nWrite notes for v2.1.\n"
