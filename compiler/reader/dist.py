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
from .records import Tier
from .view import View, identity_of, index_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from ..format.shapes import IndexDoc
    from .available import _Everywhere
    from .prompts import LoadedSkill
    from .records import (
        PersonaContext,
        PersonaMeta,
        Resolution,
        Shadowed,
        SkillInfo,
        SkillMeta,
        Unavailable,
    )
    from .stack import Stack
    from .view import Identity

    Env = Mapping[str, str] | _Everywhere | None


def open(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str] | Tier], *, root: str | None = None
) -> Dist:
    """Open a dist/ directory, or a stack of them: reads and validates each top-level index
    (FormatError if unusable).

    A list is a stack of builds (tiers), lowest precedence first (bundled, user, project): the
    handle answers as one build compiled from their sources in that order would (docs/format.md
    §16), or the open is refused (CannotStack). An item is a path, or a Tier (optional: it may be
    missing on this machine; root: the folder its build's paths are relative to here). `root`
    gives a single build's root.
    """
    if isinstance(path, (str, os.PathLike)):
        return Dist([_Tier(_absolute(path), optional=False, root=_root(root))])
    if root is not None:
        raise ArgumentType("root: give each Tier of a stack its own root")
    if not isinstance(path, (list, tuple)) or not path:
        raise ArgumentType(f"path must be a str, an os.PathLike or a non-empty list of them, not {path!r}")
    tiers = []
    for item in path:
        try:
            tier = item if isinstance(item, Tier) else Tier(**item) if isinstance(item, dict) else Tier(item)
        except TypeError as exc:  # a dict with other keys than Tier's
            raise ArgumentType(f"a tier: {exc}") from None
        if not isinstance(tier.optional, bool):
            raise ArgumentType(f"Tier.optional must be a bool, not {type(tier.optional).__name__}")
        tiers.append(_Tier(_absolute(tier.path), optional=tier.optional, root=_root(tier.root)))
    return Dist(tiers)


def pinned(path: str | os.PathLike[str]) -> Dist:
    """A handle on the build its folder holds now that never looks for a newer one: it serves that
    build whole (a rebuild never rewrites an object) until `--prune` removes its objects, then
    DistRebuilt. Not the readers' API (a handle follows its folder, docs/format.md §6.4):
    `skillc serve` keeps a connection and a cursor on one build and looks for rebuilds itself
    (serve/builds.py)."""
    return Dist([_Tier(_absolute(path), optional=False, fixed=True)])


def _root(root: object) -> str | None:
    if root is not None and not isinstance(root, str):
        raise ArgumentType(f"root must be a str or None, not {type(root).__name__}")
    return root


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

    def __init__(self, path: str, *, optional: bool, root: str | None = None, fixed: bool = False) -> None:
        self.path, self.optional, self.root = path, optional, root
        self.fixed = fixed  # never looks again (`pinned`)
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
        self.view, self._data = View(self.path, doc, self.root), data
        return True

    def check(self, force: bool = False) -> bool:
        """Look at the index once; move to a newer build if one is there. Whether the view changed.

        Unless `force`, an index whose identity is the one last read is taken as unchanged
        without reading it. An index that cannot be read or checked now leaves the view as it is
        (that is no newer build), and so does a missing one for a tier that is not optional."""
        if self.fixed:
            return False
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
    """The handle: every call looks at each build folder once and answers from the builds there:
    one build's view, or the stack of the tiers present."""

    def __init__(self, tiers: list[_Tier]) -> None:
        self._tiers = tiers
        self._stack: Stack | None = None
        self._engine()  # a stack that cannot be one is refused at open

    def _now(self) -> View | Stack:
        """What this call answers from, after one look at each index."""
        for tier in self._tiers:
            tier.check()
        return self._engine()

    def _engine(self) -> View | Stack:
        present = [(i, t.view, t.root) for i, t in enumerate(self._tiers) if t.view is not None]
        if not present:
            raise FormatError(f"none of the builds is there: {', '.join(t.path for t in self._tiers)}")
        if len(present) == 1:
            return present[0][1]
        views = [view for _i, view, _root in present]
        if self._stack is None or [v for _i, v, _r in self._stack.tiers] != views:
            from .stack import Stack  # only a stack: one build's calls do without

            self._stack = None  # a stack refused leaves none behind
            self._stack = Stack(present)
        return self._stack

    def refresh(self) -> bool:
        """Read each index now, whatever its identity says; whether a newer build is served."""
        moved = [tier.check(force=True) for tier in self._tiers]
        return any(moved)

    @property
    def path(self) -> str:
        """The absolute path of the build folder (of a stack: its first tier's)."""
        return self._tiers[0].path

    @property
    def paths(self) -> tuple[str, ...]:
        """The absolute path of each build folder, in the order open() was given them."""
        return tuple(t.path for t in self._tiers)

    def shadowed(self) -> list[Shadowed]:
        """The skills a later tier hides, each with its tier and the tier that hides it (places in
        the list open() was given), in command order; none for one build."""
        now = self._now()
        return [] if isinstance(now, View) else now.shadowed()

    @property
    def index(self) -> IndexDoc:
        """The index of the build served now."""
        return self._now().index

    @property
    def build_hash(self) -> str:
        return self._now().build_hash

    def personas(self) -> list[str]:
        return self._now().personas()

    def catalog(
        self,
        persona: str,
        env: Env = None,
        which: Callable[[str], str | None] | None = None,
        *,
        root: str | None = None,
    ) -> str:
        """The persona's tier-1 catalog, as the build rendered it but for the entries of the
        skills whose requirements `env` lacks (default: the process environment; EVERYWHERE:
        none left out). The budget's choice is kept: nothing the budget left out comes back.
        `root`: the folder the build's paths are relative to here, for this call (one build; a
        stack's tiers have theirs): its locations are then absolute."""
        now = self._now()
        if root is None:
            return now.catalog(persona, env, which)
        if not isinstance(now, View):
            raise ArgumentType("root: a stack's tiers each have their root (reader.Tier(path, root=...))")
        return now.catalog(persona, env, which, root)

    def skills(
        self, persona: str, env: Env = None, which: Callable[[str], str | None] | None = None
    ) -> list[SkillInfo]:
        """Every skill the persona sees, in command order, but those `env` lacks requirements for."""
        return self._now().skills(persona, env, which)

    def commands(
        self, persona: str, env: Env = None, which: Callable[[str], str | None] | None = None
    ) -> list[str]:
        """Slash commands the user may type for this persona (of the skills `env` may run)."""
        return self._now().commands(persona, env, which)

    def unavailable(
        self, persona: str, env: Env = None, which: Callable[[str], str | None] | None = None
    ) -> list[Unavailable]:
        """The skills the persona sees that `env` lacks requirements for, and what it lacks: what
        catalog(), skills() and commands() leave out for that environment."""
        return self._now().unavailable(persona, env, which)

    def load(
        self,
        persona: str,
        command: str,
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
        base: str | None = None,
    ) -> LoadedSkill:
        """The skill as the persona sees it, `args` substituted; `params` gives values for
        `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` (else they stay).
        `by` is who invokes it, "model" (a tool call) or "user" (a slash command): NotInvocable
        when the build says that invoker may not. `base` is the skill's folder on this machine
        (default: under its build's root, when open() was given one): the body then begins with
        Claude Code's `Base directory for this skill:` line, and `${CLAUDE_SKILL_DIR}` is it."""
        return self._now().load(persona, command, args, params=params, by=by, base=base)

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

    def persona_context(self, persona: str) -> PersonaContext:
        """ARIA's persona_context: the persona, its fallback, `unrestricted_skills`, and the overlay
        folders of the persona and of its fallback in the build's personas folder."""
        return self._now().persona_context(persona)
