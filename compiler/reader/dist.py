"""Dist: the handle an application holds on a build, and every call it makes on it.

Standard library only. It never imports yaml, jinja2 or jsonschema and never looks at skill
sources: everything it returns was decided at build time and is read from `_index.json` and
hash-checked, validated object files (view.py reads them). A handle answers from the newest build
in its folder: each call looks at `_index.json` once (its device, inode, size and times), and when
another index is there, reads it and answers from that build from then on; one call never mixes
two builds (docs/format.md §6.4).

    from skillc import reader
    dist = reader.open("dist")
    dist.catalog("paria-g")
    dist.load("paria-g", "threat-assessment", args="Jita").body
"""

from __future__ import annotations

import os

from ..format.errors import ArgumentType, FormatError
from ..format.layout import INDEX
from .view import View, identity_of, index_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from ..format.shapes import IndexDoc
    from .prompts import LoadedSkill
    from .records import PersonaMeta, Resolution, SkillInfo, SkillMeta
    from .view import Identity


def open(path: str | os.PathLike[str]) -> Dist:
    """Open a dist/ directory: reads and validates its top-level index (FormatError if unusable)."""
    return Dist([_Tier(_absolute(path), optional=False)])


def _absolute(path: object) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentType(f"path must be a str or os.PathLike, not {type(path).__name__}")
    try:
        return os.path.abspath(os.fspath(path))  # resolved once: a later chdir() changes nothing
    except OSError as exc:  # a relative path, and the current directory was removed
        raise FormatError(f"{os.fspath(path)!r}: cannot resolve: {exc.strerror or exc}") from None


class _Tier:
    """One build folder of a handle: the view of the build its index names now (None: an optional
    tier that does not exist here), and what that index was (its identity and bytes)."""

    def __init__(self, path: str, *, optional: bool) -> None:
        self.path, self.optional = path, optional
        self.view: View | None = None
        self.identity: Identity | None = None
        self._data: bytes | None = None
        self._take(index_at(path, missing_ok=optional))

    def _take(self, found: tuple[IndexDoc, bytes, Identity] | None) -> bool:
        """Serve the index found (None: none); whether the view changed."""
        if found is None:
            changed = self.view is not None
            self.view, self.identity, self._data = None, None, None
            return changed
        doc, data, self.identity = found
        if data == self._data:  # the same bytes (a rebuild that changed nothing): the same view
            return False
        self.view, self._data = View(self.path, doc), data
        return True

    def check(self, force: bool = False) -> bool:
        """Look at the index once; move to a newer build if one is there. Whether the view changed.

        Unless `force`, an index whose identity is the one last read is taken as unchanged
        without reading it. An index that cannot be read or checked now leaves the view as it is
        (that is no newer build), and so does a missing one for a tier that is not optional."""
        if not force:
            try:
                now = identity_of(os.stat(os.path.join(self.path, INDEX)))
            except FileNotFoundError:
                return self._take(None) if self.optional else False
            except (OSError, ValueError):
                return False
            if now == self.identity:
                return False
        try:
            found = index_at(self.path, missing_ok=True)
        except FormatError:
            if not force:
                self.identity = now  # read once: it is read again when it changes again
            return False
        if found is None and not self.optional:
            return False
        return self._take(found)


class Dist:
    """The handle: every call looks at the build folder once and answers from the build there."""

    def __init__(self, tiers: list[_Tier]) -> None:
        self._tiers = tiers

    def _now(self) -> View:
        """The view this call answers from, after one look at the index."""
        tier = self._tiers[0]
        tier.check()
        assert tier.view is not None  # a required tier always has one
        return tier.view

    def refresh(self) -> bool:
        """Read the index now, whatever its identity says; whether a newer build is served."""
        return self._tiers[0].check(force=True)

    @property
    def path(self) -> str:
        """The absolute path of the build folder."""
        return self._tiers[0].path

    @property
    def index(self) -> IndexDoc:
        """The index of the build served now."""
        return self._now().index

    @property
    def build_hash(self) -> str:
        return self._now().build_hash

    def personas(self) -> list[str]:
        return self._now().personas()

    def catalog(self, persona: str) -> str:
        """The persona's precomputed tier-1 catalog fragment."""
        return self._now().catalog(persona)

    def skills(self, persona: str) -> list[SkillInfo]:
        return self._now().skills(persona)

    def commands(self, persona: str) -> list[str]:
        """Slash commands the user may type for this persona."""
        return self._now().commands(persona)

    def load(
        self,
        persona: str,
        command: str,
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
    ) -> LoadedSkill:
        """The skill as the persona sees it, `args` substituted; `params` gives values for
        `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` (else they stay).
        `by` is who invokes it, "model" (a tool call) or "user" (a slash command): NotInvocable
        when the build says that invoker may not."""
        return self._now().load(persona, command, args, params=params, by=by)

    def resources(self, persona: str, command: str, kind: str | None = None) -> list[str]:
        """Resource paths of a skill; kind filters by top directory (scripts, references, assets)."""
        return self._now().resources(persona, command, kind)

    def resource(self, persona: str, command: str, path: str) -> bytes:
        """The bytes of one resource; only paths listed in the index are served."""
        return self._now().resource(persona, command, path)

    def missing_requirements(
        self,
        persona: str,
        command: str,
        env: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] | None = None,
    ) -> list[str]:
        """sven's availability guards, checked on this machine: ['bin:docker', 'env:TOKEN'].

        A variable is missing when unset or empty in `env` (default: the process environment);
        a program when no directory of env's PATH holds it (`which` replaces that search). A
        stub persona gets [] (the stub needs nothing).
        """
        return self._now().missing_requirements(persona, command, env, which)

    def materialize(
        self,
        persona: str,
        command: str,
        dest: str | os.PathLike[str],
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
    ) -> Path:
        """Write the resolved skill folder into dest, as a workspace mounts a skill into a task folder.

        SKILL.md holds the resolved body (arguments and params substituted, `${CLAUDE_SKILL_DIR}`
        = dest); every resource follows with its executable bit. dest must be
        missing or empty; nothing is ever written outside it. Returns dest. `by` as for load().
        """
        return self._now().materialize(persona, command, dest, args, params=params, by=by)

    def all_commands(self) -> list[str]:
        return self._now().all_commands()

    def skill_meta(self, command: str) -> SkillMeta:
        return self._now().skill_meta(command)

    def read_object(self, digest: str) -> bytes:
        """The bytes of one object of this build, hash-checked: for tools (diff, audit) that hold a
        digest from `skill_meta`, `resolution` or `ResourceMeta`."""
        return self._now().read_object(digest)

    def persona_meta(self, persona: str) -> PersonaMeta:
        return self._now().persona_meta(persona)

    def resolution(self, persona: str, command: str) -> Resolution:
        return self._now().resolution(persona, command)
