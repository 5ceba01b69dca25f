"""Resolve: which persona sees which skill, through which route."""

from __future__ import annotations

from pathlib import Path

from support.project import skill_md, src_project

from skillc.pipeline import compile_project


def test_allowlist_limits_visibility(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/a/SKILL.md": skill_md("a"),
                "src/b/SKILL.md": skill_md("b"),
                "personas/p/manifest.yaml": "name: P\nskills: [a]\n",
                "personas/q/manifest.yaml": "name: Q\nskills: []\n",
                "personas/r/manifest.yaml": "name: R\nskills: ['*']\n",
            },
        )
    )
    visible = {(r.persona, r.command) for r in result.resolutions}
    assert visible == {("p", "a"), ("r", "a"), ("r", "b")}


def test_fallback_chains_grant_through_every_level(tmp_path: Path) -> None:
    result = compile_project(
        src_project(
            tmp_path,
            {
                "src/x/SKILL.md": skill_md("x", persona_exclusive="root"),
                "personas/root-exclusive/x.md": "real x\n",
                "personas/root/manifest.yaml": "name: Root\n",
                "personas/mid/manifest.yaml": "name: Mid\nfallback: root\n",
                "personas/leaf/manifest.yaml": "name: Leaf\nfallback: mid\n",
            },
        )
    )
    leaf = next(r for r in result.resolutions if r.persona == "leaf")
    assert (leaf.access, leaf.via, leaf.body) == ("granted", "fallback:root", "real x\n")
    assert result.program.personas["leaf"].chain == ("mid", "root")


def test_no_personas_means_one_default_persona(tmp_path: Path) -> None:
    result = compile_project(
        src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config="sources: [src]\n")
    )
    assert list(result.program.personas) == ["default"]
    assert result.artifacts.files["personas/default/prompt.xml"].startswith(b"<available_skills>")
