"""targets/export.py: the files an export holds, per target and persona, on a small built dist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import build
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.targets import export, view

FILES = {
    "src/plain/SKILL.md": skill_md("plain", description='"Plain: with a colon"', body="Use $ARGUMENTS.\n"),
    "src/tool/SKILL.md": skill_md("tool", body="Run ${CLAUDE_SKILL_DIR}/scripts/go.\n"),
    "src/tool/scripts/go": "#!/bin/sh\n",
    "src/tool/references/r.md": "r\n",
    "src/manual/SKILL.md": skill_md("manual", **{"disable-model-invocation": True}),
    "src/model-only/SKILL.md": skill_md("model-only", **{"user-invocable": False}),
    "src/nobody/SKILL.md": skill_md("nobody", **{"disable-model-invocation": True, "user-invocable": False}),
    "src/wtu/SKILL.md": skill_md("wtu", when_to_use="When testing.", paths='["src/**"]'),
    "src/group/SKILL.md": skill_md("group"),
    "src/group/inner/SKILL.md": skill_md("inner"),
    "src/secret/SKILL.md": skill_md("secret", body="Not for you.\n", persona_exclusive="lead"),
    "src/secret/scripts/s": "secret\n",
    "src/over/SKILL.md": skill_md("over", has_persona_overlay=True),
    "personas/lead/manifest.yaml": "name: Lead\n",
    "personas/ops/manifest.yaml": "name: Ops\n",
    "personas/ops/skill-overlays/over.md": "Ops note.\n",
    "personas/lead-exclusive/secret.md": "The lead's body.\n",
}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> reader.Dist:
    root = tmp_path_factory.mktemp("export")
    cfg = project(root, FILES)
    (root / "src/tool/scripts/go").chmod(0o755)
    result = build(cfg)
    assert result.exit_code == 0, result.stderr
    return reader.open(root / "dist")


def files(dist: reader.Dist, target: str, persona: str = "lead") -> dict[str, export.File]:
    plan = export.plan(dist, target, [persona], per_persona=False)
    return {f.path: f for f in plan.files}


def front(data: bytes) -> dict[str, Any]:
    text = data.decode()
    assert text.startswith("---\n")
    loaded = yaml.safe_load(text.split("---\n", 2)[1])
    assert isinstance(loaded, dict)
    return loaded


def test_claude_code_gets_one_level_folders_and_its_fields(dist: reader.Dist) -> None:
    out = files(dist, "claude-code")
    assert ".claude/skills/group-inner/SKILL.md" in out  # flattened: one level
    assert front(out[".claude/skills/group-inner/SKILL.md"].data)["name"] == "inner"
    assert front(out[".claude/skills/manual/SKILL.md"].data)["disable-model-invocation"] is True
    assert front(out[".claude/skills/model-only/SKILL.md"].data)["user-invocable"] is False
    wtu = front(out[".claude/skills/wtu/SKILL.md"].data)
    assert wtu["when_to_use"] == "When testing." and wtu["paths"] == ["src/**"]
    assert "disable-model-invocation" not in front(out[".claude/skills/plain/SKILL.md"].data)


def test_frontmatter_reads_back_equal_for_every_skill_and_target(dist: reader.Dist) -> None:
    for target in ("claude-code", "codex", "gemini", "opencode"):
        for info in dist.skills("lead"):
            if not view.exported(target, info):
                continue
            path = f"{view.ROOTS[target]}/{view.folder(target, info.command)}/SKILL.md"
            assert front(files(dist, target)[path].data) == export.frontmatter(dist, target, info)


def test_other_targets_get_only_the_fields_they_read(dist: reader.Dist) -> None:
    for target in ("codex", "gemini", "opencode"):
        data = files(dist, target)[f"{view.ROOTS[target]}/wtu/SKILL.md"].data
        assert set(front(data)) == {"name", "description"}


def test_the_body_is_resolved_but_not_substituted(dist: reader.Dist) -> None:
    out = files(dist, "claude-code")
    assert out[".claude/skills/plain/SKILL.md"].data.endswith(b"Use $ARGUMENTS.\n")
    assert b"${CLAUDE_SKILL_DIR}/scripts/go" in out[".claude/skills/tool/SKILL.md"].data
    assert b"The lead's body." in out[".claude/skills/secret/SKILL.md"].data  # granted
    ops = files(dist, "claude-code", "ops")
    assert (
        b"<untrusted-data" in ops[".claude/skills/over/SKILL.md"].data
        and b"Ops note." in ops[".claude/skills/over/SKILL.md"].data
    )
    assert b"Not for you." in ops[".claude/skills/secret/SKILL.md"].data  # the stub
    assert ".claude/skills/secret/scripts/s" not in ops  # a stub gets no resources
    assert front(ops[".claude/skills/secret/SKILL.md"].data)["disable-model-invocation"] is True


def test_resources_keep_their_executable_bits(dist: reader.Dist) -> None:
    out = files(dist, "codex")
    assert out[".agents/skills/tool/scripts/go"].executable
    assert not out[".agents/skills/tool/references/r.md"].executable
    assert out[".agents/skills/tool/scripts/go"].data == b"#!/bin/sh\n"


def test_codex_gets_a_policy_file_and_loses_what_only_a_user_config_hides(dist: reader.Dist) -> None:
    plan = export.plan(dist, "codex", ["lead"], per_persona=False)
    out = {f.path for f in plan.files}
    assert ".agents/skills/manual/agents/openai.yaml" in out
    assert ".agents/skills/plain/agents/openai.yaml" not in out
    assert ".agents/skills/group/inner/SKILL.md" in out  # nested: Codex reads depth <= 6
    assert not any(p.startswith(".agents/skills/nobody/") for p in out)
    assert len(plan.warnings) == 1 and "'nobody'" in plan.warnings[0]
    policy = next(f for f in plan.files if f.path.endswith("manual/agents/openai.yaml"))
    assert yaml.safe_load(policy.data) == {"policy": {"allow_implicit_invocation": False}}


def test_gemini_and_opencode_get_project_settings(dist: reader.Dist) -> None:
    gemini = export.plan(dist, "gemini", ["lead"], per_persona=False).settings_file(".gemini/settings.json")
    assert gemini == {"skills": {"disabled": ["manual", "nobody"]}}
    opencode = export.plan(dist, "opencode", ["lead"], per_persona=False).settings_file("opencode.json")
    assert opencode is not None
    agent = opencode["agent"]["lead"]["permission"]["skill"]
    assert next(iter(agent)) == "*" and agent["*"] == "deny" and agent["plain"] == "allow"
    assert "manual" not in agent and opencode["permission"]["skill"] == {"manual": "deny", "nobody": "deny"}
    claude = export.plan(dist, "claude-code", ["lead"], per_persona=False)
    assert claude.export.settings == ()  # Claude Code reads the flags themselves


def test_the_export_owns_each_skills_top_folder_and_every_file_is_in_one(dist: reader.Dist) -> None:
    plan = export.plan(dist, "codex", ["lead"], per_persona=False)
    assert ".agents/skills/group" in plan.export.folders  # group/inner is inside it
    assert ".agents/skills/group/inner" not in plan.export.folders
    assert all(any(f.path.startswith(d + "/") for d in plan.export.folders) for f in plan.files)
    assert plan.export.about["personas"] == ["lead"] and plan.export.target == "codex"
    assert [f.path for f in plan.files] == sorted(f.path for f in plan.files)


def test_all_personas_puts_each_below_its_name(dist: reader.Dist) -> None:
    plan = export.plan(dist, "gemini", ["lead", "ops"], per_persona=True)
    paths = {f.path for f in plan.files}
    assert "lead/.gemini/skills/plain/SKILL.md" in paths and "ops/.gemini/skills/plain/SKILL.md" in paths
    assert {s.file for s in plan.export.settings} == {
        "lead/.gemini/settings.json",
        "ops/.gemini/settings.json",
    }


def test_the_plan_is_deterministic(dist: reader.Dist) -> None:
    one = export.plan(dist, "opencode", ["lead", "ops"], per_persona=True)
    two = export.plan(reader.open(dist.path), "opencode", ["lead", "ops"], per_persona=True)
    assert one == two


@pytest.mark.parametrize("target", ["claude-code", "gemini"])
def test_a_flattened_folder_that_clashes_is_left_out_and_the_folders_own_skill_keeps_it(
    tmp_path: Path, target: str
) -> None:
    cfg = project(
        tmp_path,
        {
            "src/a/SKILL.md": skill_md("a"),
            "src/a/b/SKILL.md": skill_md("b", description="The nested one."),
            "src/a-b/SKILL.md": skill_md(description="The folder's own."),
        },
    )
    assert build(cfg).exit_code == 0
    dist = reader.open(tmp_path / "dist")
    plan = export.plan(dist, target, ["default"], per_persona=False)
    root = view.ROOTS[target]
    assert b"The folder's own." in next(f.data for f in plan.files if f.path == f"{root}/a-b/SKILL.md")
    assert len(plan.warnings) == 1 and "'a/b' is left out: " in plan.warnings[0]
    assert "one folder, 'a-b', which is also 'a-b''s" in plan.warnings[0]
    listing = view.listing_for(dist, target, "default", view.budget_for(target, None, None))
    assert [e.skill.description for e in listing.entries if e.listed] == [
        "Does a thing.",
        "The folder's own.",
    ]
    left = next(e for e in listing.entries if not e.listed)
    assert left.command == "a/b" and left.reason.startswith(view.NOT_EXPORTED)
    assert "The nested one." not in listing.text and listing.text.count("The folder's own.") == 1
    assert export.plan(dist, "codex", ["default"], per_persona=False).warnings == ()  # nested there


# Any character but lone surrogates (no UTF-8 form): controls, C1, NEL, LS, PS, BOM, quotes, colons.
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["name", "description", "when_to_use", "metadata"]), _VALUES))
def test_any_field_value_reads_back_equal(fields: dict[str, Any]) -> None:
    assert (yaml.safe_load(export.yaml_fields(fields)) or {}) == fields


def test_claude_code_gets_the_priority_as_name_only_overrides_at_its_budget(dist: reader.Dist) -> None:
    budget = view.Budget(None, 120, ("plain", "over"))
    plan = export.plan(dist, "claude-code", ["lead"], per_persona=False, budget=budget)
    settings = plan.settings_file(".claude/settings.json")
    assert settings is not None
    overrides = settings["skillOverrides"]
    assert set(overrides.values()) == {"name-only"} and "plain" not in overrides
    listing = view.listing_for(dist, "claude-code", "lead", budget)
    assert {e.command for e in listing.entries if e.reason == "skillOverrides: name-only"} == set(overrides)
    roomy = export.plan(
        dist, "claude-code", ["lead"], per_persona=False, budget=view.Budget(None, 100_000, ("wtu",))
    )
    assert roomy.settings_file(".claude/settings.json") is None  # everything fits: no overrides


def test_codex_is_said_to_miss_skills_past_the_folders_it_scans() -> None:
    folders = {".agents", ".agents/skills", *(f".agents/skills/s{i:04}" for i in range(2_000))}
    warnings = export._codex_scan("codex", folders, [""])
    assert len(warnings) == 1 and ".agents/skills holds 2,001 folders" in warnings[0]
    assert export._codex_scan("codex", folders - {".agents/skills/s0000"}, [""]) == []
    assert export._codex_scan("opencode", folders, [""]) == []
