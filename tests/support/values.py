"""Hand-built stage values for the unit tests: nothing here reads or writes the disk.

Each builder gives the plainest valid value and takes keywords for what a test changes, so a test
states only what it is about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from skillc.dataclass import replace
from skillc.diagnostics import Diagnostic
from skillc.model import (
    Config,
    Discovery,
    ExclusiveSource,
    InputFile,
    Persona,
    PersonaSource,
    Program,
    Skill,
    SkillSource,
)
from skillc.stages.template import Template


def skill(
    command: str, body: str = "Do the thing.\n", description: str = "Does a thing.", **fields: Any
) -> Skill:
    """A checked skill under skills/; `fields` are its other frontmatter fields (`a__b` spells `a-b`)."""
    name = command.rsplit("/", 1)[-1]
    return Skill(
        command=command,
        name=name,
        description=description,
        source=0,
        path=f"skills/{command}/SKILL.md",
        dir_rel=f"skills/{command}",
        body=body,
        # validate() keeps the spec's frontmatter fields, sorted: the description is one of them
        fields=dict(
            sorted(
                {"description": description, **{k.replace("__", "-"): v for k, v in fields.items()}}.items()
            )
        ),
        resources=(),
        parent=None,
        children=(),
    )


def persona(
    pid: str,
    *,
    chain: tuple[str, ...] = (),
    unrestricted: bool = False,
    allowlist: tuple[str, ...] | None = None,
    overlays: Mapping[str, str] | None = None,
    faction: str | None = None,
) -> Persona:
    """A loaded persona; `chain` is its fallback chain (nearest first), `overlays` command -> text."""
    return Persona(
        id=pid,
        name=pid.title(),
        fallback=chain[0] if chain else None,
        chain=chain,
        unrestricted=unrestricted,
        faction=faction,
        allowlist=allowlist,
        manifest_rel=f"personas/{pid}/manifest.yaml",
        overlays={c: (f"personas/{pid}/skill-overlays/{c}.md", t) for c, t in (overlays or {}).items()},
    )


def program(
    skills: Iterable[Skill],
    personas: Iterable[Persona],
    exclusive_bodies: Mapping[tuple[str, str], str] | None = None,
) -> Program:
    """A Program; `exclusive_bodies` maps (persona, command) to the redirect body."""
    bodies = {
        (pid, c): (f"personas/{pid}-exclusive/{c}.md", text)
        for (pid, c), text in (exclusive_bodies or {}).items()
    }
    return Program(
        skills={s.command: s for s in sorted(skills, key=lambda s: s.command)},
        personas={p.id: p for p in personas},
        exclusive_bodies=bodies,
        diagnostics=(),
    )


def config(**changes: Any) -> Config:
    """A config that was never on disk: its root does not exist, and nothing here reads it."""
    base = Config(
        root=Path("/nonexistent/project"),
        config_rel="skillc.yaml",
        sources=("skills",),
        personas="personas",
        output="dist",
        template=Path("/nonexistent/project/catalog.txt.j2"),
        template_rel="catalog.txt.j2",
        strict=False,
        catalog_chars=1000,
        persona_budgets=(),
        max_resource_bytes=1 << 20,
        config_bytes=b"sources: [skills]\npersonas: personas\n",
    )
    return replace(base, **changes)


def _entry(skill: dict[str, Any]) -> str:
    return f"- {skill['command']}: {skill['description']}\n"


def _render(*, persona: dict[str, Any], skills: list[dict[str, Any]], omitted: int, budget: int) -> str:
    more = f"({omitted} more)\n" if omitted else ""
    return f"Skills for {persona['name']}:\n" + "".join(map(_entry, skills)) + more


def template() -> Template:
    """A plain-text catalog template in Python (no Jinja, no file): a header line and one line a skill."""
    return Template(render=_render, entry=_entry, suffix=".txt", source=b"plain", markup=False)


def skill_source(command: str, text: str, source: int = 0) -> SkillSource:
    """A SKILL.md as discovery hands it on (under skills/)."""
    return SkillSource(
        command, source, f"skills/{command}", InputFile(f"skills/{command}/SKILL.md", text.encode()), ()
    )


def persona_source(
    pid: str, manifest: str | None, overlays: Mapping[str, str] | None = None
) -> PersonaSource:
    """A persona directory: its manifest text (None: no manifest) and its overlays, command -> text."""
    return PersonaSource(
        pid,
        f"personas/{pid}",
        None if manifest is None else InputFile(f"personas/{pid}/manifest.yaml", manifest.encode()),
        tuple(
            (c, InputFile(f"personas/{pid}/skill-overlays/{c}.md", t.encode()))
            for c, t in sorted((overlays or {}).items())
        ),
    )


def exclusive_source(pid: str, bodies: Mapping[str, str]) -> ExclusiveSource:
    """A `<persona>-exclusive/` directory: command -> redirect body."""
    return ExclusiveSource(
        pid,
        f"personas/{pid}-exclusive",
        tuple(
            (c, InputFile(f"personas/{pid}-exclusive/{c}.md", t.encode())) for c, t in sorted(bodies.items())
        ),
    )


def discovery(
    skills: Iterable[SkillSource],
    personas: Iterable[PersonaSource] = (),
    exclusives: Iterable[ExclusiveSource] = (),
    diagnostics: tuple[Diagnostic, ...] = (),
) -> Discovery:
    """A Discovery of those sources (its `inputs`, only the build hash's concern, left empty)."""
    return Discovery(
        tuple(sorted(skills, key=lambda s: s.command)), tuple(personas), tuple(exclusives), (), diagnostics
    )


def codes(diagnostics: Iterable[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics]
