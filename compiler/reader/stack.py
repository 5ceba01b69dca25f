"""Stack: several builds (tiers: bundled, user, project) answered as one build compiled from their
sources in that order would answer (docs/format.md §16).

A later tier wins per command; the shadowed skills are reported. Parent and children are those
of the union of commands; the catalog is packed again, over every tier's candidates, with the
first tier's template split, budget and strategy. Where that equality cannot hold (other persona
inputs, a first tier whose template does not split or that ranks by `budgets.priority`), the
stack is refused: CannotStack. A stack reads every shard of every tier before it answers a call
that needs a skill (tiers are small: a bundled set, a user's folder, a project's).
"""

from __future__ import annotations

from ..format.errors import CannotStack, FormatError, IntegrityError, UnknownSkill
from ..format.layout import sha256_hex
from ..format.split import entry_text, frame_text, relative
from .available import Machine
from .records import (
    PersonaContext,
    PersonaMeta,
    Resolution,
    Shadowed,
    SkillInfo,
    SkillMeta,
    Unavailable,
    label_of,
    persona_meta_of,
    skill_info_of,
    skill_meta_of,
)
from .view import View, _invoker, _text_arg, base_of, may_invoke

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from ..format.shapes import IndexDoc, ResolutionDoc, SkillDoc
    from .pack import Packed
    from .prompts import LoadedSkill, SubSkill

    Tier = tuple[int, View, "str | None"]  # its place in open()'s list, its build, its root


class _Merged:
    """The union of the tiers' skills: each command's winning entry and tier, and their links."""

    def __init__(self, tiers: Sequence[Tier]) -> None:
        self.winning: dict[str, tuple[int, SkillDoc]] = {}
        held: dict[str, list[int]] = {}
        for i, (_place, view, _root) in enumerate(tiers):
            for command, entry in view._all_skills().items():
                self.winning[command] = (i, entry)
                held.setdefault(command, []).append(i)
        self.commands = sorted(self.winning)
        self.children: dict[str, list[str]] = {}
        for command in self.commands:
            above = command.rsplit("/", 1)[0] if "/" in command else None
            if above is not None and above in self.winning:
                self.children.setdefault(above, []).append(command)
        self.shadowed = [
            Shadowed(c, tiers[i][0], tiers[held[c][-1]][0]) for c in self.commands for i in held[c][:-1]
        ]

    def parent(self, command: str) -> str | None:
        above = command.rsplit("/", 1)[0] if "/" in command else None
        return above if above is not None and above in self.winning else None


class Stack:
    """Present tiers, the first the base, answered as one build (docs/format.md §16)."""

    def __init__(self, tiers: Sequence[Tier]) -> None:
        self.tiers = tuple(tiers)
        self.base = tiers[0][1]
        _refused(self.tiers)
        self._model: _Merged | None = None
        self._packs: dict[str, tuple[Packed, str]] = {}

    # -- the build as one --------------------------------------------------------------------

    @property
    def index(self) -> IndexDoc:
        return self.base.index

    @property
    def build_hash(self) -> str:
        """A digest of the tiers' build hashes, each with its place in the list open() was given."""
        lines = "".join(f"{place}\t{view.build_hash}\n" for place, view, _root in self.tiers)
        return sha256_hex(("skillc stack\n" + lines).encode("utf-8"))

    def personas(self) -> list[str]:
        return self.base.personas()

    def _merged(self) -> _Merged:
        if self._model is None:
            self._model = _Merged(self.tiers)
        return self._model

    def _visible(self, persona: str, command: str) -> tuple[int, SkillDoc, ResolutionDoc] | None:
        found = self._merged().winning.get(command)
        if found is None:
            return None
        r = View._visible(found[1], persona)
        return None if r is None else (found[0], found[1], r)

    def _resolved(self, persona: str, command: str) -> tuple[int, SkillDoc, ResolutionDoc]:
        self.base._entry(persona)
        _text_arg(command, "command")
        found = self._visible(persona, command)
        if found is None:
            raise self._unknown(persona, command)
        return found

    def _invocable(self, persona: str, command: str, by: str) -> tuple[int, SkillDoc, ResolutionDoc]:
        """As View._invocable, over the union: (tier, entry, resolution) of a pair `by` may invoke."""
        found = self._resolved(persona, command)
        may_invoke(persona, command, by, found[2])
        return found

    def _unknown(self, persona: str, command: str) -> UnknownSkill:
        """As View._unknown, over the union: the stack's catalog, the union's children."""
        from ..format.nearby import MAX_SUGGESTIONS, normal, parent, ranked, words

        model = self._merged()
        candidates = {normal(command)}
        if persona != "*":
            candidates |= words(self._packed(persona)[1])
        above = parent(normal(command))
        candidates.update(model.children.get(above, ()) if above in model.winning else ())
        suggestions = [
            near
            for near in ranked(command, candidates)
            if near in model.winning and (persona == "*" or self._visible(persona, near) is not None)
        ][:MAX_SUGGESTIONS]
        return UnknownSkill(persona, command, lambda: self._seen(persona), suggestions)

    def _seen(self, persona: str) -> list[str]:
        model = self._merged()
        return [c for c in model.commands if persona == "*" or self._visible(persona, c) is not None]

    def shadowed(self) -> list[Shadowed]:
        return list(self._merged().shadowed)

    # -- the catalog, packed again -----------------------------------------------------------

    def _packed(self, persona: str) -> tuple[Packed, str]:
        """The persona's packing over the union's candidates, and the catalog it renders (the
        locations as the builds wrote them)."""
        found = self._packs.get(persona)
        if found is None:
            found = self._packs[persona] = self._pack(persona)
        return found

    def _pack(self, persona: str) -> tuple[Packed, str]:
        from .pack import STRATEGIES, Candidate, fit

        meta = self.base._meta(persona)
        strategy, budget = meta["strategy"], meta["budget"]
        if strategy not in STRATEGIES:
            raise CannotStack(
                f"the first tier packs persona {persona!r} by strategy {strategy!r}, unknown here"
            )
        split, model = self.base.split(), self._merged()
        frames = split["frames"][persona]
        candidates = []
        for command in model.commands:
            found = self._visible(persona, command)
            if found is None or not found[2]["model"]:
                continue
            entry = found[1]
            text = self._entry(split, entry, command, None)
            bare = len(self._entry(split, entry, command, None, "")) if strategy == "names-only" else -1
            always = entry["frontmatter"].get("always") is True
            candidates.append(Candidate(command, always, len(text), entry["description"], bare))

        def render(packed: Packed) -> str:
            return self._render(split, frames, packed, persona, lambda c: None, set())

        return fit(budget, candidates, lambda n: sum(map(len, frame_text(frames, n))), strategy, render)

    def _entry(
        self, split: Any, entry: SkillDoc, command: str, root: str | None, description: str | None = None
    ) -> str:
        path = entry["path"]
        location = root.rstrip("/") + "/" + path if root is not None and relative(path) else path
        values = {
            "command": command,
            "name": entry["name"],
            "label": label_of(entry),
            "description": entry["description"] if description is None else description,
            "location": location,
        }
        pattern = split["always" if entry["frontmatter"].get("always") is True else "entry"]
        return entry_text(pattern, values, split["markup"])[0]

    def _render(
        self,
        split: Any,
        frames: Any,
        packed: Packed,
        persona: str,
        root: Callable[[int], str | None],
        drop: set[str],
    ) -> str:
        included, left_out, descriptions = packed
        head, tail = frame_text(frames, len(left_out))
        winning = self._merged().winning
        parts = [head]
        for command in included:
            if command not in drop:
                i, entry = winning[command]
                parts.append(self._entry(split, entry, command, root(i), descriptions.get(command)))
        return "".join(parts) + tail

    def catalog(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> str:
        """The stack's catalog for `env` (§16.3, §17): packed over every tier, the entries of the
        skills `env` lacks requirements for left out, each location under its tier's root."""
        machine = Machine(env, which)
        self.base._entry(persona)
        packed, text = self._packed(persona)
        drop = {c for c in packed[0] if self._lacks(machine, c)}
        rooted = any(root is not None for _place, _view, root in self.tiers)
        if not drop and not rooted:
            return text
        split = self.base.split()
        frames = split["frames"][persona]
        return self._render(split, frames, packed, persona, lambda i: self.tiers[i][2], drop)

    def _lacks(self, machine: Machine, command: str) -> list[str]:
        """What `machine` lacks of the command's requirements, by its winning tier's list."""
        if machine.everything:
            return []
        i, _entry = self._merged().winning[command]
        needs = self.tiers[i][1]._requires().get(command)
        return [] if needs is None else machine.missing(needs["bins"], needs["env"])

    # -- the calls, over the union -----------------------------------------------------------

    def skills(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[SkillInfo]:
        machine = Machine(env, which)
        self.base._meta(persona)
        included = set(self._packed(persona)[0][0])
        out = []
        for command in self._merged().commands:
            found = self._visible(persona, command)
            if found is None:
                continue
            _i, skill, r = found
            if r["access"] != "stub" and self._lacks(machine, command):
                continue
            out.append(skill_info_of(command, skill, r, command in included))
        return out

    def commands(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[str]:
        return [s.command for s in self.skills(persona, env, which) if s.user]

    def unavailable(
        self, persona: str, env: object = None, which: Callable[[str], str | None] | None = None
    ) -> list[Unavailable]:
        machine = Machine(env, which)
        self.base._entry(persona)
        out = []
        for command in self._merged().commands:
            found = self._visible(persona, command)
            if found is None or found[2]["access"] == "stub":
                continue
            missing = self._lacks(machine, command)
            if missing:
                out.append(Unavailable(command, tuple(missing)))
        return out

    def all_commands(self) -> list[str]:
        return list(self._merged().commands)

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
        from .prompts import loaded

        who = _invoker(by)
        _text_arg(base, "base", optional=True)
        i, skill, r = self._invocable(persona, command, who)
        _place, view, root = self.tiers[i]
        body = view._text(r["body"])
        folder = base if base is not None else base_of(skill["path"], root)
        children = lambda: self._sub_skills(persona, command)  # noqa: E731 (read after the body)
        knowledge = view.index["knowledge"]
        return loaded(persona, command, skill, r, body, children, args, params, folder, knowledge)

    def _sub_skills(self, persona: str, command: str) -> tuple[SubSkill, ...]:
        from .prompts import SubSkill

        out = []
        for child in self._merged().children.get(command, ()):
            found = self._visible(persona, child)
            if found is not None and found[2]["model"]:
                out.append(SubSkill(child, found[1]["name"], found[1]["description"], label_of(found[1])))
        return tuple(out)

    def _tier(self, persona: str, command: str) -> View:
        """The view of the tier whose skill the pair is, once the stack found it (its view answers
        the rest of the call from the same entry)."""
        return self.tiers[self._resolved(persona, command)[0]][1]

    def resources(self, persona: str, command: str, kind: str | None = None) -> list[str]:
        _text_arg(kind, "kind", optional=True)
        return self._tier(persona, command).resources(persona, command, kind)

    def resource(self, persona: str, command: str, path: str) -> bytes:
        _text_arg(path, "path")
        return self._tier(persona, command).resource(persona, command, path)

    def missing_requirements(
        self,
        persona: str,
        command: str,
        env: object = None,
        which: Callable[[str], str | None] | None = None,
    ) -> list[str]:
        Machine(env, which)  # its arguments checked first, as a view checks them
        return self._tier(persona, command).missing_requirements(persona, command, env, which)  # type: ignore[arg-type]

    def materialize(
        self,
        persona: str,
        command: str,
        dest: Any,
        args: str | Sequence[str] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        by: str = "model",
    ) -> Path:
        who = _invoker(by)
        i = self._invocable(persona, command, who)[0]
        return self.tiers[i][1].materialize(persona, command, dest, args, params=params, by=who)

    def skill_meta(self, command: str) -> SkillMeta:
        _text_arg(command, "command")
        model = self._merged()
        found = model.winning.get(command)
        if found is None:
            raise self._unknown("*", command)
        return skill_meta_of(command, found[1], model.parent(command), model.children.get(command, ()))

    def read_object(self, digest: str) -> bytes:
        """The object from the last tier that has it (objects are named by their bytes: any
        tier's copy is the same)."""
        import os

        _text_arg(digest, "digest")
        if not (len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
            raise FormatError(f"{digest!r} is not a sha256 digest")
        from ..format.layout import object_path

        for _place, view, _root in reversed(self.tiers):
            if os.path.lexists(os.path.join(view.path, *object_path(digest).split("/"))):
                return view.read_object(digest)
        raise IntegrityError(f"object {digest}: in none of the stack's builds")

    def persona_context(self, persona: str) -> PersonaContext:
        return self.base.persona_context(persona)

    def persona_meta(self, persona: str) -> PersonaMeta:
        m = self.base._meta(persona)
        (included, left_out, descriptions), text = self._packed(persona)
        return persona_meta_of(persona, m, len(text), included, left_out, sorted(descriptions))

    def resolution(self, persona: str, command: str) -> Resolution:
        _i, _skill, r = self._resolved(persona, command)
        in_catalog = command in self._packed(persona)[0][0]
        return Resolution(r["access"], r["via"], r["overlay"], r["model"], r["user"], in_catalog, r["body"])


def _refused(tiers: Sequence[Tier]) -> None:
    """CannotStack where the stack cannot answer as one build compiled from the tiers' sources
    (docs/format.md §16.2), checked in this order."""
    place, base, _root = tiers[0]
    ids = sorted(base.index["personas"])
    for other_place, view, _ in tiers[1:]:
        theirs = sorted(view.index["personas"])
        if theirs != ids:
            raise CannotStack(
                f"tier {other_place} ({view.path}) has personas {', '.join(theirs) or 'none'}; tier {place} "
                f"({base.path}) has {', '.join(ids) or 'none'}: builds with other personas do not stack"
            )
        if view.index["personas_hash"] != base.index["personas_hash"]:
            raise CannotStack(
                f"tier {other_place} ({view.path}) was built from other persona files than tier {place} "
                f"({base.path}): their manifests, overlays or exclusive bodies differ"
            )
    if base.index["config"]["priority"]:
        raise CannotStack(
            f"tier {place} ({base.path}) ranks its catalog by budgets.priority, which a stack cannot apply "
            "to the other tiers' skills"
        )
    split = base.split()
    unsplit = [] if split is None else [pid for pid, f in split["frames"].items() if f is None]
    if split is None or unsplit:
        which = "" if split is None else f" for {', '.join(unsplit)}"
        raise CannotStack(
            f"tier {place} ({base.path}): its catalog template does not split into frame and entries{which} "
            "(SKC603), so the other tiers' skills cannot be rendered into its catalog"
        )
