"""The skillc reader: serve a compiled dist/ (format 2) to an application. Standard library only.

    from skillc import reader
    dist = reader.open("dist")
    dist.catalog("paria-g")
    dist.load("paria-g", "threat-assessment", args="Jita").body

This package is what the compiler and applications import alike, so each error class exists once.
An application that wants one file instead gets it from `skillc vendor-reader` (see vendor.py).
"""

from __future__ import annotations

from ..format.errors import (
    DistRebuilt,
    FormatError,
    IntegrityError,
    ReaderError,
    UnknownPersona,
    UnknownResource,
    UnknownSkill,
)
from .dist import Dist, PersonaMeta, Resolution, ResourceMeta, SkillInfo, SkillMeta, open
from .prompts import LoadedSkill, SubSkill, render_skill, substitute
from .record import FrozenRecordError

__all__ = [
    "Dist",
    "DistRebuilt",
    "FormatError",
    "FrozenRecordError",
    "IntegrityError",
    "LoadedSkill",
    "PersonaMeta",
    "ReaderError",
    "Resolution",
    "ResourceMeta",
    "SkillInfo",
    "SkillMeta",
    "SubSkill",
    "UnknownPersona",
    "UnknownResource",
    "UnknownSkill",
    "open",
    "render_skill",
    "substitute",
]
