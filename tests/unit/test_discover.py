"""Discover: which directories are skills, which files their resources, which source wins."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project
from skillc.project import config as config_mod
from skillc.stages.discover import discover


def test_discover_commands_nesting_resources_and_ignores(tmp_path: Path) -> None:
    cfg_path = src_project(
        tmp_path,
        {
            "src/sven/SKILL.md": skill_md("sven"),
            "src/sven/scripts/helper.sh": "echo hi\n",
            "src/sven/plan/SKILL.md": skill_md("plan"),
            "src/sven/plan/notes.md": "plan notes\n",
            "src/deep/er/still/SKILL.md": skill_md("still"),
            "src/.git/y/SKILL.md": skill_md("y"),
            "src/.hidden/z/SKILL.md": skill_md("z"),
        },
    )
    cfg, _ = config_mod.load(cfg_path)
    found = discover(cfg)
    assert [s.command for s in found.skills] == ["deep/er/still", "sven", "sven/plan"]
    sven = found.skills[1]
    assert [r.path for r in sven.resources] == ["scripts/helper.sh"]  # plan/notes.md belongs to the sub-skill
    assert [r.path for r in found.skills[2].resources] == ["notes.md"]


def test_later_source_wins_with_a_warning(tmp_path: Path) -> None:
    cfg = "sources: [a, b]\n"
    result = compile_project(
        src_project(
            tmp_path,
            {
                "a/x/SKILL.md": skill_md("x", body="from a\n"),
                "b/x/SKILL.md": skill_md("x", body="from b\n"),
            },
            config=cfg,
        )
    )
    assert result.program.skills["x"].body == "from b\n"
    assert [d.format() for d in result.diagnostics] == [
        "b/x/SKILL.md:1:1: warning[SKC305]: command 'x' from this source overrides a/x/SKILL.md"
    ]
