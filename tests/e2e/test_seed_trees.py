"""The five seed systems' trees (tests/support/seeds.py), each laid out as its seed document lays
it out and built with the config its developer would write: the build holds what the seed's own
loader would see, read through the Python reader (issue 39)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import seeds
from support.cli import Run, invoke

from skillc import reader


def _built(seed: seeds.Seed, monkeypatch: pytest.MonkeyPatch) -> tuple[Run, reader.Dist]:
    for key, value in seed.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(seed.root)  # diagnostics name paths from the project
    result = invoke("build", config=seed.config)
    assert result.exit_code == 0, result.stderr
    assert not [d for d in result.diags if d.severity == "error"], result.stderr
    return result, reader.open(seed.dist)


AS_BUILT = reader.EVERYWHERE  # what the build holds, whatever this machine has


def _by(dist: reader.Dist, persona: str, command: str) -> str:
    """An invoker the build lets load the pair: the model, else the user (the reader holds a load
    to who may invoke; these tests read what the build holds for the pair)."""
    return "model" if dist.resolution(persona, command).model else "user"


def test_aria(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.aria(tmp_path), monkeypatch)
    assert built.diags == ()
    assert dist.personas() == sorted(seeds.ARIA_PERSONAS)
    for persona, commands in seeds.ARIA_SEES.items():
        for command, (access, holds, overlay) in commands.items():
            loaded = dist.load(persona, command, by=_by(dist, persona, command))
            assert (loaded.access, loaded.overlay) == (access, overlay), (persona, command)
            assert holds in loaded.body, (persona, command)
    assert (
        "mark-assessment" not in dist.commands("aria-mk4", env=AS_BUILT)
        or dist.load("aria-mk4", "mark-assessment", by="user").files == ()
    )


def test_v1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.v1(tmp_path), monkeypatch)
    registry = {s.name: s for s in dist.skills("default", env=AS_BUILT)}  # V1 keys its skills by id
    assert sorted(registry) == sorted(seeds.V1_SEES)
    for ident, (command, label, description, resources) in seeds.V1_SEES.items():
        skill = registry[ident]
        assert (skill.command, skill.label, skill.description) == (command, label, description)
        assert dist.resources("default", command) == resources
    assert "some-pkg" not in " ".join(dist.all_commands())  # node_modules: never walked
    # what V1 skips or replaces is said, never dropped silently
    lost = built.one("SKC305")
    assert lost.path == "workDir/skills/test-first-fix/SKILL.md" and "duplicates: last-wins" in lost.message
    assert any(d.path == "workDir/skills/no-description/SKILL.md" for d in built.find("SKC204"))
    assert "(2 left out)" in built.stderr


def test_ts_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.ts_agent(tmp_path), monkeypatch)
    assert built.diags == () or {d.code for d in built.diags} == {"SKC305"}
    assert dist.all_commands() == sorted(seeds.TS_AGENT_SEES)
    for command, (description, fields, resources) in seeds.TS_AGENT_SEES.items():
        meta = dist.skill_meta(command)
        assert meta.description == description
        assert {key: meta.frontmatter[key] for key in fields} == fields
        assert dist.resources("default", command) == resources
    assert dist.skill_meta("my-skill").source == ".agent/skills"  # the project tier wins


def test_ts_agent_without_a_user_tier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.ts_agent(tmp_path, user_tier=False), monkeypatch)
    assert "notes" not in dist.all_commands() and "SKC308" not in built.codes()


def test_sven(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.sven(tmp_path), monkeypatch)
    listed = {s.command: s for s in dist.skills("default", env=AS_BUILT)}
    assert sorted(listed) == sorted(seeds.SVEN_SEES)
    for command, (label, description, source) in seeds.SVEN_SEES.items():
        assert (listed[command].label, listed[command].description) == (label, description), command
        assert dist.skill_meta(command).source == source, command
    loaded = dist.load("default", "sven")
    assert [(c.command, c.label) for c in loaded.sub_skills] == seeds.SVEN_SUB_SKILLS
    assert loaded.render().startswith('<skill_content command="sven" name="Sven Methodology">')
    assert loaded.files == ("scripts/helper.sh",)
    assert dist.skill_meta("sven").frontmatter["always"] is True  # from the sven: block
    review = listed["sven/review"]
    assert (review.model, review.user) == (False, True)  # user_invocable_only
    assert dist.missing_requirements("default", "sven/review", env={"PATH": ""}) == [
        "bin:sven-lint-39",
        "env:SVEN_TOKEN_39",
    ]
    # the broken project copy of git-workflow is left out, named, and hides nothing
    assert any(d.path == ".claude/skills/git-workflow/SKILL.md" for d in built.find("SKC314"))


def test_pegasus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built, dist = _built(seeds.pegasus(tmp_path), monkeypatch)
    listed = {s.command: s for s in dist.skills("default", env=AS_BUILT)}
    assert sorted(listed) == sorted(seeds.PEGASUS_SEES)
    prompt = dist.catalog("default", env=AS_BUILT)
    assert prompt.startswith("Available skills:\n")
    for command, (description, in_prompt, user) in seeds.PEGASUS_SEES.items():
        skill = listed[command]
        assert (skill.description, skill.in_catalog, skill.user) == (description, in_prompt, user), command
        assert (f"- {command}: {description}" in prompt) is in_prompt, command
    assert dist.skill_meta("code-review").source == "data/skills"  # the user's copy wins
    assert dist.load("default", "code-review").context == "fork"
    assert built.one("SKC214").path == "skills/summarize/SKILL.md"  # the first paragraph, said
