"""The skillc reader: serve a compiled dist/ (format 3) to an application. Standard library only.

    from skillc import reader
    dist = reader.open("dist")
    dist.catalog("paria-g")
    dist.load("paria-g", "threat-assessment", args="Jita").body

This package is what the compiler and applications import alike, so each error class exists once.
An application that wants one file instead gets it from `skillc vendor-reader` (see vendor.py).
"""

from __future__ import annotations

from ..format.errors import (
    ArgumentType,
    CannotSplit,
    CannotStack,
    DistRebuilt,
    FormatError,
    IntegrityError,
    NotInvocable,
    ReaderError,
    UnknownPersona,
    UnknownResource,
    UnknownSkill,
)
from .available import EVERYWHERE
from .dist import Dist, open
from .record import FrozenRecordError
from .records import (
    PersonaContext,
    PersonaMeta,
    Resolution,
    ResourceMeta,
    Shadowed,
    SkillInfo,
    SkillMeta,
    Tier,
    Unavailable,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .prompts import KnowledgeDoc, LoadedSkill, SubSkill, render_skill, substitute

_PROMPTS = frozenset({"KnowledgeDoc", "LoadedSkill", "SubSkill", "render_skill", "substitute"})


def __getattr__(name: str) -> object:
    """The tool-result names, imported on first use: open() and catalog() do without them."""
    if name in _PROMPTS:
        from . import prompts

        return getattr(prompts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EVERYWHERE",
    "ArgumentType",
    "CannotSplit",
    "CannotStack",
    "Dist",
    "DistRebuilt",
    "FormatError",
    "FrozenRecordError",
    "IntegrityError",
    "KnowledgeDoc",
    "LoadedSkill",
    "NotInvocable",
    "PersonaContext",
    "PersonaMeta",
    "ReaderError",
    "Resolution",
    "ResourceMeta",
    "Shadowed",
    "SkillInfo",
    "SkillMeta",
    "SubSkill",
    "Tier",
    "Unavailable",
    "UnknownPersona",
    "UnknownResource",
    "UnknownSkill",
    "open",
    "render_skill",
    "substitute",
]
