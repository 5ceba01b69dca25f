"""Personas: manifests checked, fallback chains, allowlists, overlays and exclusive skills."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from .. import diagnostics as dg
from ..dataclass import replace
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Discovery, Persona, PersonaSource, Skill
from ..names.paths import unsafe_values
from ..names.suggest import among_closest, did_you_mean
from . import schema
from .lint import lint_overlay
from .parse import control_characters, decode, parse_document

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DEFAULT_PERSONA = "default"


def personas(
    sources: tuple[PersonaSource, ...],
    skills: dict[str, Skill],
    diags: list[Diagnostic],
    named: set[str] | None = None,
) -> dict[str, Persona]:
    """named: collects every command a manifest's allowlist or an overlay names, known or not."""
    loaded = [p for p in (_persona(s, diags) for s in sources if s.manifest) if p is not None]
    if named is not None:
        named.update(c for p in loaded for c in p.allowlist or () if c != "*")
        named.update(command for s in sources for command, _file in s.overlays)
    if not loaded and not sources:
        return {
            DEFAULT_PERSONA: Persona(DEFAULT_PERSONA, DEFAULT_PERSONA, None, (), False, None, None, None, {})
        }
    by_id = {p.id: p for p in loaded}
    result: dict[str, Persona] = {}
    for p in loaded:
        chain = _chain(p, by_id, diags)
        allowlist = _allowlist(p, skills, diags)
        overlays = _overlays(p, next(s for s in sources if s.id == p.id), skills, diags)
        result[p.id] = replace(p, chain=chain, allowlist=allowlist, overlays=overlays)
    return dict(sorted(result.items()))


def _persona(src: PersonaSource, diags: list[Diagnostic]) -> Persona | None:
    if src.manifest is None:
        return None
    doc = parse_document(src.manifest, frontmatter="whole")
    diags.extend(doc.diagnostics)
    if doc.data is None:
        return None
    if not isinstance(doc.data, dict):
        diags.append(dg.error(doc.rel, Code.MANIFEST_INVALID, "manifest must be a mapping"))
        return None
    problems = schema.check(doc, doc.data, "persona", Code.MANIFEST_INVALID)
    problems = problems or unsafe_values(doc, _manifest_paths(doc.data))
    if not NAME.match(src.id):
        problems += (
            dg.error(doc.rel, Code.MANIFEST_INVALID, f"persona id {src.id!r} must match {NAME.pattern}"),
        )
    diags.extend(problems)
    if problems:
        return None
    data = doc.data
    skills = data.get("skills")
    return Persona(
        id=src.id,
        name=data["name"],
        fallback=data.get("fallback"),
        chain=(),
        unrestricted=bool(data.get("unrestricted_skills", False)),
        faction=data.get("faction"),
        allowlist=None if skills is None else tuple(skills),
        manifest_rel=doc.rel,
        overlays={},
        positions=doc.positions,
    )


def _manifest_paths(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], Any]]:
    """fallback and allowlist entries become directory and command paths."""
    values = [(("fallback",), data.get("fallback"))]
    return values + [(("skills", i), entry) for i, entry in enumerate(data.get("skills") or ())]


def _chain(p: Persona, by_id: dict[str, Persona], diags: list[Diagnostic]) -> tuple[str, ...]:
    chain: list[str] = []
    current = p
    while current.fallback:
        line, col = _at(current, "fallback")
        if current.fallback not in by_id:
            if current is p:
                diags.append(
                    dg.error(
                        _where(p),
                        Code.UNKNOWN_FALLBACK,
                        f"fallback {current.fallback!r} is not a persona{did_you_mean(current.fallback, by_id)}",
                        line,
                        col,
                    )
                )
            break
        if current.fallback == p.id or current.fallback in chain:
            if current is p or current.fallback == p.id:
                loop = " -> ".join([p.id, *chain, current.fallback])
                diags.append(
                    dg.error(_where(p), Code.FALLBACK_CYCLE, f"fallback cycle: {loop}", *_at(p, "fallback"))
                )
            break
        chain.append(current.fallback)
        current = by_id[current.fallback]
    return tuple(chain)


def _where(p: Persona) -> str:
    """The manifest a persona's diagnostics point at (only the implicit default persona has none)."""
    return p.manifest_rel or "."


def _at(p: Persona, key: str) -> tuple[int, int]:
    return p.positions.get(("v", key), (1, 1))


def _allowlist(p: Persona, skills: dict[str, Skill], diags: list[Diagnostic]) -> tuple[str, ...] | None:
    if p.allowlist is None or "*" in p.allowlist:
        return None
    positions = p.positions
    for i, command in enumerate(p.allowlist):
        if command not in skills:
            line, col = positions.get(("v", "skills", i), (1, 1))
            diags.append(
                dg.warning(
                    _where(p),
                    Code.ALLOWLIST_UNKNOWN,
                    f"allowlist names unknown command {command!r}{did_you_mean(command, skills)}",
                    line,
                    col,
                )
            )
    return tuple(sorted(c for c in p.allowlist if c in skills))


def _overlays(
    p: Persona, src: PersonaSource, skills: dict[str, Skill], diags: list[Diagnostic]
) -> dict[str, Any]:
    overlays: dict[str, Any] = {}
    for command, file in src.overlays:
        text, problems = decode(file)
        diags.extend(problems)
        if text is None:
            continue
        if command not in skills:
            diags.append(
                dg.warning(
                    file.rel,
                    Code.OVERLAY_NO_SKILL,
                    f"overlay for {command!r}, which is not a skill{did_you_mean(command, skills)}",
                )
            )
            continue
        if not skills[command].flag("has_persona_overlay"):
            diags.append(
                dg.warning(
                    file.rel,
                    Code.OVERLAY_IGNORED,
                    f"skill {command!r} does not set has_persona_overlay; overlay ignored",
                )
            )
            continue
        diags.extend(control_characters(file.rel, text, 1))
        diags.extend(lint_overlay(file.rel, text))
        overlays[command] = (file.rel, text)
    return overlays


# --- exclusive skills -------------------------------------------------------


def exclusives(
    discovery: Discovery,
    skills: dict[str, Skill],
    personas: dict[str, Persona],
    diags: list[Diagnostic],
    gone: set[str],
) -> dict[tuple[str, str], tuple[str, str]]:
    """gone: skills left out for their errors (--skip-invalid): a body for one is not another error."""
    bodies: dict[tuple[str, str], tuple[str, str]] = {}
    for ex in discovery.exclusives:
        if ex.persona not in personas:
            diags.append(
                dg.error(
                    ex.dir_rel,
                    Code.EXCLUSIVE_UNKNOWN_PERSONA,
                    f"exclusive skills for unknown persona {ex.persona!r}{did_you_mean(ex.persona, personas)}",
                )
            )
            continue
        for command, file in ex.bodies:
            owner = skills.get(command)
            if owner is None and command in gone:
                diags.append(
                    dg.warning(
                        file.rel,
                        Code.EXCLUSIVE_NO_SKILL,
                        f"skill {command!r} was left out for its errors; body unused",
                    )
                )
                continue
            if owner is None or owner.flag("persona_exclusive") != ex.persona:
                diags.append(
                    dg.error(
                        file.rel,
                        Code.EXCLUSIVE_NO_SKILL,
                        f"no skill {command!r} with persona_exclusive: {ex.persona}"
                        + ("" if owner is not None else did_you_mean(command, skills)),
                    )
                )
                continue
            doc = parse_document(file, frontmatter="optional")
            diags.extend(doc.diagnostics)
            strange = sorted(k for k in doc.data or {} if k not in schema.properties("frontmatter"))
            if doc.body_line > 1 and strange:
                diags.append(_dropped_block(file.rel, doc.body_line, strange[0]))
            if doc.data is not None:
                bodies[(ex.persona, command)] = (file.rel, doc.body)
    for skill in skills.values():
        _check_exclusive(skill, personas, bodies, diags)
    return dict(sorted(bodies.items()))


def _dropped_block(rel: str, body_line: int, key: str) -> Diagnostic:
    """A redirect body's leading `---` mapping is dropped as frontmatter. A copy of a SKILL.md's
    frontmatter (name, description, ...) is expected there; a key no SKILL.md has (`section:`) says
    the author meant text, which would otherwise vanish without a word."""
    return dg.warning(
        rel,
        Code.REDIRECT_FRONTMATTER,
        f"lines 1-{body_line - 1} are a '---' block read as frontmatter and left out of the body, but "
        f"{key!r} is no frontmatter field; to keep them as text, start the file with a blank line",
    )


def _check_exclusive(
    skill: Skill,
    personas: dict[str, Persona],
    bodies: dict[tuple[str, str], tuple[str, str]],
    diags: list[Diagnostic],
) -> None:
    owner = skill.flag("persona_exclusive")
    if owner is None:
        return
    line, col = skill.anchors.get("persona_exclusive", (1, 1))
    if owner not in personas:
        diags.append(
            dg.error(
                skill.path,
                Code.EXCLUSIVE_TO_UNKNOWN,
                f"persona_exclusive names unknown persona {owner!r}{did_you_mean(str(owner), personas)}",
                line,
                col,
            )
        )
    elif (owner, skill.command) not in bodies:
        diags.append(
            dg.error(
                skill.path,
                Code.EXCLUSIVE_NO_BODY,
                f"exclusive skill has no body at {owner}-exclusive/{skill.command}.md",
                line,
                col,
            )
        )


def names_near(lookups: Collection[str], commands: Collection[str], command: str) -> bool:
    """Whether a skill `command` added or taken away changes what the personas report
    (`Program.lookups`: every command a persona names): a persona names it, or names a command
    that is no skill and to which it is close enough for a "did you mean" (the edit build asks).
    `commands`: every other skill's."""
    others = set(commands)
    return command in lookups or any(among_closest(word, command, others) for word in set(lookups) - others)
