"""Discover: which directories are skills, which files their resources, which source wins."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project
from skillc.project import config as config_mod
from skillc.stages.discover import Outside, discover, walk


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


def test_a_link_out_of_the_project_is_refused_or_followed_by_the_walk(tmp_path: Path) -> None:
    (tmp_path / "out" / "x").mkdir(parents=True)
    (tmp_path / "out" / "x" / "SKILL.md").write_text(skill_md("x"), encoding="utf-8")
    (tmp_path / "p" / "src").mkdir(parents=True)
    (tmp_path / "p" / "src" / "x").symlink_to(tmp_path / "out" / "x")
    confine = str((tmp_path / "p").resolve())
    refused = walk(tmp_path / "p" / "src", "src", confine=confine, outside=Outside(note=" (codex: loads)"))
    assert refused.files == ()
    assert [d.format() for d in refused.diagnostics] == [
        "src/x:1:1: error[SKC302]: symlink resolves outside the project (codex: loads); "
        "`follow_symlinks: outside` follows it"
    ]
    followed = walk(tmp_path / "p" / "src", "src", confine=confine, outside=Outside(follow=True))
    assert [e.rel for e in followed.files] == ["x/SKILL.md"]
    assert [(d.severity.value, d.code) for d in followed.diagnostics] == [("warning", "SKC302")]
