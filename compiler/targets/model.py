"""The values the target rules take and return: a skill as a harness reads it, and its listing."""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class Skill:
    """One SKILL.md as a harness sees it, after the caller has read its frontmatter.

    `folder` is the skill folder relative to its root, with `/` ("plain", "group/inner");
    `root` is the root folder as the harness names it (an absolute path, or an alias).
    Fields the file does not set are None; flags keep the raw frontmatter value (str, bool,
    int or None) because each harness reads them its own way.
    """

    folder: str
    name: str | None
    description: str | None
    when_to_use: str | None = None
    body: str = ""
    disable_model_invocation: object = None
    user_invocable: object = None
    paths: tuple[str, ...] = ()
    root: str = ""
    allow_implicit_invocation: bool = True  # Codex: agents/openai.yaml policy


class Status(enum.Enum):
    FULL = "full"  # listed with its whole description
    CUT = "cut"  # listed with a shortened description
    DROPPED = "dropped"  # listed without its description
    NOT_LISTED = "not-listed"  # loaded, but not in the model's listing
    SKIPPED = "skipped"  # not loaded at all


@dataclass(frozen=True)
class Entry:
    skill: Skill
    command: str
    name: str
    listed: bool
    description: str | None  # as shown, or None when the listing shows none
    status: Status
    reason: str = ""


@dataclass(frozen=True)
class Listing:
    text: str
    entries: tuple[Entry, ...]  # the project's skills, as the harness reads them
    builtins: tuple[str, ...] = ()  # names of the harness's own skills the listing also shows
