"""The values the target rules take and return: a skill as a harness reads it, and its listing."""

from __future__ import annotations

import enum

from ..dataclass import dataclass


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
    injection: str = ""  # what the export neutralised in it (targets/injection.py), or ""


@dataclass(frozen=True)
class Listing:
    text: str
    entries: tuple[Entry, ...]  # the project's skills, as the harness reads them
    builtins: tuple[str, ...] = ()  # names of the harness's own skills the listing also shows


class Issue(enum.Enum):
    """A frontmatter or folder trait that harnesses read differently (graded validation)."""

    UNQUOTED_COLON = "unquoted-colon"  # `description: Use when: x`: a YAML error, read as one string
    FLAG_SPELLING = "flag-spelling"  # disable-model-invocation / user-invocable not a YAML boolean
    NO_DESCRIPTION = "no-description"
    EMPTY_DESCRIPTION = "empty-description"  # `description: ""`
    NO_NAME = "no-name"
    NAME_MISMATCH = "name-mismatch"  # `name` differs from the folder
    NAME_PATTERN = "name-pattern"  # `name` outside the spec's lowercase letters, digits, single hyphens
    NAME_LENGTH = "name-length"  # `name` over the spec's 64 characters
    LONG_DESCRIPTION = "long-description"  # over the spec's 1,024 characters
    LONG_COMPATIBILITY = "long-compatibility"  # over the spec's 500 characters (no harness reads it)
    LINK_OUTSIDE = "link-outside"  # a skill folder reached through a symlink out of the project
    MODEL_INVOCATION_OFF = "model-invocation-off"  # disable-model-invocation: true
    HIDDEN_FOLDER = "hidden-folder"  # <root>/.x/SKILL.md: a skill folder whose name starts with a dot
    SAME_NAME = "same-name"  # two skills of one build share a `name` (different commands)


class Verdict(enum.Enum):
    """What a harness does with a skill that has an Issue; the value is how a diagnostic says it."""

    LOADS = "loads"  # loads and lists it anyway
    CUTS = "cuts"  # loads it, shortened
    IGNORES = "ignores it"  # loads it, without the effect the field asks for
    HONOURS = "honours it"  # does what the field asks (not an issue for this harness)
    UNLISTED = "loads, does not list"  # discovered, never in the model's listing
    SKIPS = "skips"  # does not load the skill

    @property
    def tolerates(self) -> bool:
        """The skill is there for the model or the user, as the author wrote it or close to it."""
        return self in (Verdict.LOADS, Verdict.CUTS, Verdict.IGNORES, Verdict.HONOURS)


Verdicts = dict[Issue, Verdict]
