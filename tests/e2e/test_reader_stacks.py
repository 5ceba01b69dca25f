"""Stacks of builds (docs/format.md §16): each strategy's catalog packed over the tiers is the one
the compiler packs for one build of their sources; tiers built with `skillc build SOURCE -o
OUTPUT`; an optional tier that appears while the handle is open."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import build, run
from support.files import write_tree
from support.project import skill_md
from support.stacks import stack_and_one, tier_skills

from skillc import reader

BASE = """\
format: 1
sources: [skills]
output: dist
budgets:
  catalog_chars: {budget}
  strategy: {strategy}
diagnostics:
  SKC219: warning
"""
LABELLED = skill_md("Shown <Skill> & Co", description="A skill whose name is a label.")


@pytest.mark.parametrize("strategy", ["drop", "shorten", "names-only"])
@pytest.mark.parametrize("budget", [300, 900, 5000])
def test_a_stack_packs_as_one_build_of_its_sources(tmp_path: Path, strategy: str, budget: int) -> None:
    bundled = {
        **tier_skills("skills", 5, long=True),
        "skills/user-1/SKILL.md": skill_md(description="Shadowed."),
        "skills/shown/SKILL.md": LABELLED,  # the stack renders its label, as the compiler does
    }
    user = tier_skills("user", 6, long=strategy != "drop")
    config = BASE.format(budget=budget, strategy=strategy)
    tiers, one_dist = stack_and_one(tmp_path, config, bundled, user)
    stack = reader.open(tiers)
    one = reader.open(one_dist)
    everywhere = reader.EVERYWHERE
    assert stack.catalog("default", env=everywhere) == one.catalog("default", env=everywhere)
    if budget == 5000:
        assert "<name>Shown &lt;Skill&gt; &amp; Co</name>" in stack.catalog("default", env=everywhere)
    assert stack.persona_meta("default") == one.persona_meta("default")
    assert stack.skills("default", env=everywhere) == one.skills("default", env=everywhere)
    assert stack.shadowed() == [reader.Shadowed("user-1", 0, 1)]
    with pytest.raises(reader.ArgumentType):
        stack.catalog("default", root="/x")  # each tier has its own
    assert stack.load("default", "user-1").body == one.load("default", "user-1").body


def test_an_optional_tier_joins_when_it_is_built(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "app",
        {"skillc.yaml": BASE.format(budget=5000, strategy="drop"), **tier_skills("skills", 2)},
    )
    assert build(tmp_path / "app" / "skillc.yaml").exit_code == 0
    mine = tmp_path / "home" / "skills"
    d = reader.open(
        [
            tmp_path / "app" / "dist",
            reader.Tier(tmp_path / "home" / "dist", optional=True, root=str(tmp_path / "home")),
        ]
    )
    assert d.all_commands() == ["skills-0", "skills-1"] and d.shadowed() == []
    write_tree(mine, {"made-now/SKILL.md": skill_md(description="Written by the model at run time.")})
    assert run("build", str(mine), "-o", str(tmp_path / "home" / "dist"))[0] == 0
    loaded = d.load("default", "made-now")  # the next call
    assert loaded.body == f"Base directory for this skill: {tmp_path}/home/skills/made-now\n\nDo the thing.\n"
    assert f"<location>{tmp_path}/home/skills/made-now/SKILL.md</location>" in d.catalog("default")
    assert len(d.paths) == 2 and d.path == d.paths[0]


def test_open_checks_its_tiers(tmp_path: Path) -> None:
    with pytest.raises(reader.ArgumentType):
        reader.open([])
    with pytest.raises(reader.ArgumentType):
        reader.open([tmp_path], root="/x")  # each tier has its own root
    with pytest.raises(reader.FormatError, match="none of the builds"):
        reader.open([reader.Tier(tmp_path / "a", optional=True), reader.Tier(tmp_path / "b", optional=True)])
    with pytest.raises(reader.FormatError):
        reader.open([reader.Tier(tmp_path / "a")])
    with pytest.raises(reader.FormatError, match="none of the builds"):
        reader.open([{"path": tmp_path / "a", "optional": True}])  # a tier given as a dict


def test_build_source_o_output_uses_no_config_and_no_cache(tmp_path: Path) -> None:
    write_tree(tmp_path / "mine", {"skills/a/SKILL.md": skill_md(), "skillc.yaml": "not: [a, config"})
    code, out = run("build", str(tmp_path / "mine" / "skills"), "-o", str(tmp_path / "out"))
    assert code == 0, out
    assert not (tmp_path / "mine" / ".skillc-cache").exists() and not (tmp_path / ".skillc-cache").exists()
    d = reader.open(tmp_path / "out")
    assert d.skill_meta("a").path == "skills/a/SKILL.md" and d.index["config"]["sources"] == ["skills"]
    again = run("build", str(tmp_path / "mine" / "skills"), "-o", str(tmp_path / "out"))
    assert again[0] == 0 and reader.open(tmp_path / "out").build_hash == d.build_hash  # the same bytes
    assert run("build", str(tmp_path / "mine" / "skills"))[0] == 2
    assert (
        run("build", "--config", str(tmp_path / "x.yaml"), str(tmp_path / "mine"), "-o", str(tmp_path / "o"))[
            0
        ]
        == 2
    )
