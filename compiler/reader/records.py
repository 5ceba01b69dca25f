"""The records the reader returns (but the tool results of prompts.py): frozen, compared by value;
what a skill is shown as (`label_of`), which the records and the tool results carry; and the
records made from a build's documents, one way for a View and a Stack alike.

Each is built with `record.dataclass`, not the standard library's (cold start: record.py says why).
"""

from __future__ import annotations

from .record import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Any

    from ..format.shapes import PersonaMetaDoc, ResolutionDoc, SkillDoc


@dataclass(frozen=True)
class SkillInfo:
    command: str
    name: str
    description: str
    access: str
    model: bool
    user: bool
    in_catalog: bool
    argument_hint: str | None
    context: str
    label: str = ""  # what the skill is shown as: its frontmatter `name` as written, else `name`


@dataclass(frozen=True)
class ResourceMeta:
    path: str
    sha256: str
    size: int
    executable: bool


@dataclass(frozen=True)
class SkillMeta:
    command: str
    name: str
    description: str
    source: str
    path: str
    frontmatter: dict[str, Any]
    body_sha256: str
    resources: tuple[ResourceMeta, ...]
    parent: str | None
    children: tuple[str, ...]
    label: str = ""  # what the skill is shown as: its frontmatter `name` as written, else `name`


@dataclass(frozen=True)
class PersonaMeta:
    id: str
    name: str
    faction: str | None
    fallback: str | None
    chain: tuple[str, ...]
    unrestricted: bool
    allowlist: tuple[str, ...] | None
    budget: int
    catalog_chars: int
    included: tuple[str, ...]
    left_out: tuple[str, ...]
    shortened: tuple[str, ...] = ()  # descriptions the budget shortened (strategy shorten / names-only)


@dataclass(frozen=True)
class Resolution:
    access: str
    via: str | None
    overlay: str | None
    model: bool
    user: bool
    in_catalog: bool
    body_sha256: str


@dataclass(frozen=True)
class Unavailable:
    """A skill an environment lacks requirements for, and what it lacks (`bin:NAME`, `env:NAME`)."""

    command: str
    missing: tuple[str, ...]


@dataclass(frozen=True)
class Shadowed:
    """A skill of a tier that a later tier's skill of the same command hides: `tier` and `by` are
    their places in the list given to open()."""

    command: str
    tier: int
    by: int


@dataclass(frozen=True)
class Tier:
    """One build of a stack, as open() is given it: its folder; whether it may be missing on this
    machine (then it is left out until it is there); the folder its build's paths are relative to
    here, which makes locations absolute."""

    path: str | os.PathLike[str]
    optional: bool = False
    root: str | None = None


@dataclass(frozen=True)
class PersonaContext:
    """ARIA's `persona_context`: the persona, its fallback, whether it may have every exclusive
    skill, and where its skill overlays are (and its fallback's), in the build's personas folder."""

    persona: str
    fallback: str | None
    unrestricted_skills: bool
    skill_overlay_path: str | None
    overlay_fallback_path: str | None


def label_of(skill: SkillDoc) -> str:
    """What a skill is shown as (docs/format.md §7): its frontmatter `name` as written when it is a
    non-empty string (a display name such as `Sven Plan`), else the entry's `name`."""
    written = skill["frontmatter"].get("name")
    return written if isinstance(written, str) and written else skill["name"]


def skill_info_of(command: str, skill: SkillDoc, r: ResolutionDoc, in_catalog: bool) -> SkillInfo:
    """A skill as a persona sees it (`r`, its resolution), for skills() and catalog()."""
    fm = skill["frontmatter"]
    return SkillInfo(
        command,
        skill["name"],
        skill["description"],
        r["access"],
        r["model"],
        r["user"],
        in_catalog,
        fm.get("argument-hint"),
        fm.get("context", "inline"),
        label_of(skill),
    )


def skill_meta_of(command: str, s: SkillDoc, parent: str | None, children: Sequence[str]) -> SkillMeta:
    """A skill's metadata; its parent and children are those of the build (or of a stack's union)."""
    resources = tuple(
        ResourceMeta(r["path"], r["sha256"], r["size"], r["executable"]) for r in s["resources"]
    )
    return SkillMeta(
        command,
        s["name"],
        s["description"],
        s["source"],
        s["path"],
        dict(s["frontmatter"]),
        s["body"],
        resources,
        parent,
        tuple(children),
        label_of(s),
    )


def persona_meta_of(
    persona: str,
    m: PersonaMetaDoc,
    catalog_chars: int,
    included: Sequence[str],
    left_out: Sequence[str],
    shortened: Sequence[str],
) -> PersonaMeta:
    """A persona's metadata; its catalog (size, included, left out, shortened) is the build's or,
    for a stack, the one packed again over every tier."""
    return PersonaMeta(
        persona,
        m["name"],
        m["faction"],
        m["fallback"],
        tuple(m["chain"]),
        m["unrestricted"],
        None if m["allowlist"] is None else tuple(m["allowlist"]),
        m["budget"],
        catalog_chars,
        tuple(included),
        tuple(left_out),
        tuple(shortened),
    )
