"""Resolve stage: every persona x skill, exactly as ARIA's loader decides at run time.

1. Exclusivity: access on a match of the persona, its fallback chain, or
   `unrestricted_skills`; a match loads the redirect body, no match the stub.
2. Overlay: primary persona path, then each fallback's, then none; a found
   overlay is appended inside an <untrusted-data> block.
3. Visibility flags for the model and the user.
"""

from __future__ import annotations

from .lint import wrap_overlay
from .model import Persona, Program, Resolution, Skill


def resolve(program: Program) -> tuple[Resolution, ...]:
    """All resolutions, ordered by persona then command."""
    return tuple(
        resolve_one(program, persona, program.skills[command])
        for persona in program.personas.values()
        for command in visible_commands(program, persona)
    )


def visible_commands(program: Program, persona: Persona) -> tuple[str, ...]:
    if persona.allowlist is None:
        return tuple(sorted(program.skills))
    return tuple(c for c in sorted(persona.allowlist) if c in program.skills)


def resolve_one(program: Program, persona: Persona, skill: Skill) -> Resolution:
    trace: list[str] = []
    access, via = _access(persona, skill, trace)
    body = skill.body
    if access == "granted":
        rel, body = program.exclusive_bodies.get((skill.flag("persona_exclusive"), skill.command), ("", skill.body))
        trace.append(f"redirect: body loaded from {rel}")
    elif access == "stub":
        trace.append(f"stub: body is the unavailability notice in {skill.path}")
    overlay = _overlay(program, persona, skill, access, trace)
    if overlay:
        body = body + ("\n" if body else "") + wrap_overlay(*overlay)
    model, user = _flags(skill, access, trace)
    return Resolution(
        persona=persona.id, command=skill.command, access=access, via=via, body=body,
        overlay=overlay[0] if overlay else None, model=model, user=user, trace=tuple(trace),
    )


def _access(persona: Persona, skill: Skill, trace: list[str]) -> tuple[str, str | None]:
    owner = skill.flag("persona_exclusive")
    if owner is None:
        trace.append("exclusivity: persona_exclusive not set; open to every persona")
        return "open", None
    if owner == persona.id:
        trace.append(f"exclusivity: persona_exclusive {owner!r} matches the persona: granted")
        return "granted", "persona"
    if owner in persona.chain:
        trace.append(f"exclusivity: persona_exclusive {owner!r} matches fallback {owner!r}: granted")
        return "granted", f"fallback:{owner}"
    if persona.unrestricted:
        trace.append(f"exclusivity: persona_exclusive {owner!r}; persona has unrestricted_skills: granted")
        return "granted", "unrestricted"
    chain = ", ".join(persona.chain) or "none"
    trace.append(f"exclusivity: persona_exclusive {owner!r} matches neither {persona.id!r} nor fallbacks ({chain}), not unrestricted: stub")
    return "stub", None


def _overlay(program: Program, persona: Persona, skill: Skill, access: str, trace: list[str]) -> tuple[str, str] | None:
    if not skill.flag("has_persona_overlay"):
        trace.append("overlay: has_persona_overlay not set; base body only")
        return None
    if access == "stub":
        trace.append("overlay: not applied to a stub")
        return None
    for step, pid in enumerate((persona.id, *persona.chain)):
        owner = program.personas.get(pid)
        hit = owner.overlays.get(skill.command) if owner else None
        label = "primary" if step == 0 else "fallback"
        base = owner.manifest_rel.rsplit("/", 1)[0] if owner and owner.manifest_rel else f"personas/{pid}"
        where = f"{base}/skill-overlays/{skill.command}.md"
        if hit:
            trace.append(f"overlay: {label} {where}: found, appended as untrusted data")
            return hit
        trace.append(f"overlay: {label} {where}: not found")
    trace.append("overlay: none found; base body only")
    return None


def _flags(skill: Skill, access: str, trace: list[str]) -> tuple[bool, bool]:
    user = skill.flag("user-invocable", True)
    reasons = [
        reason for reason, hit in (
            ("disable-model-invocation: true", skill.flag("disable-model-invocation", False)),
            ("user_invocable_only: true", skill.flag("user_invocable_only", False)),
            ("the persona only gets the stub", access == "stub"),
        ) if hit
    ]
    model = not reasons
    trace.append("model: may invoke, listed in the catalog" if model else f"model: hidden ({'; '.join(reasons)})")
    trace.append("user: slash command" if user else "user: hidden from the slash menu (user-invocable: false)")
    return model, user
