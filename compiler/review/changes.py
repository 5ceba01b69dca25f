"""The values a review is made of: one change between two builds, a persona's catalog before and
after, and the review itself (compare.py makes them, targets.py adds the harnesses' changes,
render.py prints them)."""

from __future__ import annotations

from ..dataclass import dataclass


@dataclass(frozen=True)
class Change:
    kind: str  # skill | frontmatter | resource | audit | persona | access | catalog | body
    subject: str  # the skill's command, or the persona's id for persona and catalog changes
    where: str  # a file a reviewer knows: the skill's SKILL.md, the persona's manifest or prompt
    field: str  # which field, resource path or property changed
    old: str | None
    new: str | None
    capability: bool = False
    personas: tuple[str, ...] = ()  # the personas this change holds for (empty: build-wide)
    diff: tuple[str, ...] = ()  # unified diff lines, for text


@dataclass(frozen=True)
class PersonaSummary:
    persona: str
    chars: tuple[int | None, int | None]  # catalog characters before, after
    headroom: tuple[int | None, int | None]  # budget minus catalog characters, before, after
    added: tuple[str, ...]  # skills newly in the catalog
    removed: tuple[str, ...]  # skills no longer in the catalog
    newly_cut: tuple[str, ...]  # skills the budget now leaves out


@dataclass(frozen=True)
class Review:
    changes: tuple[Change, ...]
    personas: tuple[PersonaSummary, ...]

    @property
    def capability_changes(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.capability)
