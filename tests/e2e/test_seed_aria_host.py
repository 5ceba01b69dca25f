"""ARIA's skill loader (seed 000) as a host of the Python reader, end to end.

A tree laid out as ARIA lays it out (`.claude/skills/`, `personas/<id>/manifest.yaml`,
`personas/<id>/skill-overlays/`, `personas/<id>-exclusive/`) is built with the CLI, and a small
host does what the seed's loader does at run time: it takes `persona_context` from the build,
decides exclusivity by the seed's rule (the persona, its fallback, or `unrestricted_skills`),
looks for the overlay at `skill_overlay_path` then `overlay_fallback_path`, and serves the skill.
Every persona x skill pair of its decisions is held to what the reader serves, and the seed's
four overlay examples and its variant table are checked as the seed writes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest
from support.cli import run
from support.files import write_tree
from support.project import skill_md
from support.seeds import ARIA_TABLE, aria_manifests

from skillc import reader

OVERLAID = ("fitting", "mission-brief", "price", "route", "threat-assessment")  # the seed's table


def aria_tree(root: Path) -> None:
    files: dict[str, str] = {
        "skillc.yaml": "sources: [.claude/skills]\npersonas: personas\n",
        ".claude/skills/mark-assessment/SKILL.md": skill_md(
            "mark-assessment",
            body="Mark assessment is a PARIA skill; switch persona to use it.\n",
            persona_exclusive="paria",
        ),
        "personas/paria-exclusive/mark-assessment.md": "# Mark assessment\nSize up the mark for $ARGUMENTS.\n",
        ".claude/skills/market-orders/SKILL.md": skill_md("market-orders", body="List market orders.\n"),
        "personas/_shared/skill-loading.md": "# Skill Loading System\n",  # the seed's own doc: not a persona
        "personas/paria-g/skill-overlays/threat-assessment.md": "# Threat Assessment - PARIA-G Overlay\n",
    }
    for name in OVERLAID:
        files[f".claude/skills/{name}/SKILL.md"] = skill_md(
            name, body=f"Base {name}.\n", has_persona_overlay=True
        )
        files[f"personas/paria/skill-overlays/{name}.md"] = (
            f"# {name} - PARIA Overlay\n\n> Loaded when active persona is paria. Supplements base skill.\n"
        )
    write_tree(root, files | aria_manifests(ARIA_TABLE))


class Served(NamedTuple):
    access: bool
    overlay: str | None
    body: str


class AriaHost:
    """The seed's loading process, steps 1-3, with the reader for what the build decided."""

    def __init__(self, dist: reader.Dist, project: Path) -> None:
        self.dist, self.project = dist, project

    def invoke(self, persona: str, name: str) -> Served:
        ctx = self.dist.persona_context(persona)
        fields = self.dist.skill_meta(name).frontmatter
        exclusive = fields.get("persona_exclusive")
        # 1. Exclusivity: the persona, its fallback, or unrestricted_skills grants access
        access = exclusive is None or exclusive in (ctx.persona, ctx.fallback) or ctx.unrestricted_skills
        # 3. Overlay: the primary path, then the fallback path, then none
        overlay = None
        if fields.get("has_persona_overlay") and access:
            for folder in (ctx.skill_overlay_path, ctx.overlay_fallback_path):
                if folder is not None and (self.project / folder / f"{name}.md").is_file():
                    overlay = f"{folder}/{name}.md"
                    break
        # 2. The skill: the user typed /name (a stub is what a persona without access gets)
        return Served(access, overlay, self.dist.load(persona, name, by="user").body)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> AriaHost:
    project = tmp_path_factory.mktemp("aria")
    aria_tree(project)
    code, out = run("build", "--config", str(project / "skillc.yaml"))
    assert code == 0, out
    return AriaHost(reader.open(project / "dist"), project)


def test_persona_context_is_the_seed_s_record(host: AriaHost) -> None:
    ctx = host.dist.persona_context
    assert ctx("paria") == reader.PersonaContext("paria", None, False, "personas/paria/skill-overlays", None)
    assert ctx("paria-g") == reader.PersonaContext(
        "paria-g", "paria", False, "personas/paria-g/skill-overlays", "personas/paria/skill-overlays"
    )
    assert ctx("aria-mk4").overlay_fallback_path is None
    assert ctx("forge").unrestricted_skills is True and ctx("forge").fallback is None
    with pytest.raises(reader.UnknownPersona):
        ctx("_shared")


@pytest.mark.parametrize(
    ("persona", "access"),
    [("paria", True), ("paria-g", True), ("paria-s", True), ("aria-mk4", False), ("forge", True)],
)
def test_the_variant_matching_table(host: AriaHost, persona: str, access: bool) -> None:
    served = host.invoke(persona, "mark-assessment")
    assert served.access is access
    body = "# Mark assessment\nSize up the mark for $ARGUMENTS.\n"
    assert served.body == (
        body if access else "Mark assessment is a PARIA skill; switch persona to use it.\n"
    )
    if not access:  # the model never gets a stub: only the user's /mark-assessment shows it
        with pytest.raises(reader.NotInvocable):
            host.dist.load(persona, "mark-assessment")


@pytest.mark.parametrize(
    ("persona", "overlay"),
    [
        ("paria", "personas/paria/skill-overlays/threat-assessment.md"),  # example 1
        ("paria-s", "personas/paria/skill-overlays/threat-assessment.md"),  # example 2: the fallback's
        ("paria-g", "personas/paria-g/skill-overlays/threat-assessment.md"),  # example 3: the variant's own
        ("aria-mk4", None),  # example 4: none, base skill only
    ],
)
def test_the_four_overlay_examples(host: AriaHost, persona: str, overlay: str | None) -> None:
    served = host.invoke(persona, "threat-assessment")
    assert served.overlay == overlay
    if overlay is None:
        assert served.body == "Base threat-assessment.\n"
    else:
        assert served.body.startswith("Base threat-assessment.\n")
        assert f'<untrusted-data source="{overlay}">' in served.body


def test_the_host_and_the_build_agree_on_every_pair(host: AriaHost) -> None:
    for persona in host.dist.personas():
        for name in host.dist.all_commands():
            served = host.invoke(persona, name)
            built = host.dist.resolution(persona, name)
            assert served.access == (built.access != "stub"), (persona, name)
            assert served.overlay == built.overlay, (persona, name)
    assert sorted(host.dist.personas()) == sorted(ARIA_TABLE)
