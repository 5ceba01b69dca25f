"""Resolve stage: every persona x skill, exactly as ARIA's loader decides at run time.

1. Exclusivity: access on a match of the persona, its fallback chain, or
   `unrestricted_skills`; a match loads the redirect body, no match the stub.
2. Overlay: primary persona path, then each fallback's, then none; a found
   overlay is appended inside an <untrusted-data> block.
3. Visibility flags for the model and the user.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dataclass import dataclass
from ..model import Access, Outcome, Persona, Program, Resolved, Skill, SkillResolutions
from .lint import wrap_overlay

_STUB_REASON = "the persona only gets the stub"
_OPEN_LINE = "exclusivity: persona_exclusive not set; open to every persona"
_NO_OVERLAY_LINE = "overlay: has_persona_overlay not set; base body only"


@dataclass(frozen=True)
class Facts:
    """What resolution reads from one skill that no persona changes.

    Computed once per skill rather than once per persona x skill pair: at
    10,000 skills and 12 personas that is 10,000 instead of 120,000 reads of
    the same five frontmatter flags and the same trace lines.
    """

    owner: str | None  # persona_exclusive
    overlay: bool  # has_persona_overlay
    model: bool  # the model may invoke it, unless the persona gets a stub
    user: bool
    model_line: str  # the trace line for `model` when the body is not a stub
    stub_model_line: str  # ... and when it is
    user_line: str
    # The whole trace when no persona can change anything (open, no overlay):
    # one tuple shared by every persona's resolution of this skill.
    open_trace: tuple[str, ...] | None


def skill_facts(skill: Skill) -> Facts:
    owner = skill.flag("persona_exclusive")
    overlay = bool(skill.flag("has_persona_overlay"))
    user = skill.flag("user-invocable", True)
    reasons = tuple(
        reason
        for reason, hit in (
            ("disable-model-invocation: true", skill.flag("disable-model-invocation", False)),
            ("user_invocable_only: true", skill.flag("user_invocable_only", False)),
        )
        if hit
    )
    model_line = _model_line(reasons)
    user_line = "user: slash command" if user else "user: hidden from the slash menu (user-invocable: false)"
    open_trace = None
    if owner is None and not overlay:
        open_trace = (_OPEN_LINE, _NO_OVERLAY_LINE, model_line, user_line)
    return Facts(
        owner,
        overlay,
        not reasons,
        user,
        model_line,
        _model_line((*reasons, _STUB_REASON)),
        user_line,
        open_trace,
    )


def _model_line(reasons: tuple[str, ...]) -> str:
    return (
        f"model: hidden ({'; '.join(reasons)})"
        if reasons
        else "model: may invoke; a catalog candidate (see catalog)"
    )


def resolve(program: Program) -> Resolved:
    """Every skill's resolutions, in command order.

    A skill no persona can change (open, no overlay: most of them) is resolved once for every
    persona; any other once per persona that sees it. Nothing is memoised: a key covering what an
    outcome reads costs as much to compute as the outcome (bench/RESULTS.md has the figures).
    """
    seen_by = _visibility(program)
    return {
        command: SkillResolutions(command, _outcomes(program, program.skills[command], seen_by(command)))
        for command in sorted(program.skills)
    }


def resolve_skill(program: Program, command: str) -> SkillResolutions:
    """One skill's resolutions, as resolve() makes them: `build --watch` resolves an edited skill alone."""
    return SkillResolutions(
        command, _outcomes(program, program.skills[command], _visibility(program)(command))
    )


def _visibility(program: Program) -> Callable[[str], tuple[str, ...]]:
    """command -> the ids of the personas that see it, in persona order."""
    everyone = tuple(program.personas)
    lists = {p.id: frozenset(p.allowlist) for p in program.personas.values() if p.allowlist is not None}
    if not lists:
        return lambda command: everyone
    return lambda command: tuple(pid for pid in everyone if pid not in lists or command in lists[pid])


def _outcomes(program: Program, skill: Skill, ids: tuple[str, ...]) -> dict[str, Outcome]:
    facts = skill_facts(skill)
    if facts.open_trace is not None:  # no persona changes it: one outcome, shared by every persona
        return dict.fromkeys(ids, resolve_one(program, None, skill, facts))
    return {pid: resolve_one(program, program.personas[pid], skill, facts) for pid in ids}


def resolve_one(program: Program, persona: Persona | None, skill: Skill, facts: Facts) -> Outcome:
    """One persona's outcome; `persona` may be None only for a skill no persona changes."""
    if facts.open_trace is not None:  # most skills: the same answer for every persona
        return Outcome(Access.OPEN, None, skill.body, None, facts.model, facts.user, facts.open_trace)
    assert persona is not None
    trace: list[str] = []
    access, via = _access(persona, facts.owner, trace)
    body = skill.body
    if access is Access.GRANTED and facts.owner is not None:
        rel, body = program.exclusive_bodies.get((facts.owner, skill.command), ("", skill.body))
        trace.append(f"redirect: body loaded from {rel}")
    elif access is Access.STUB:
        trace.append(f"stub: body is the unavailability notice in {skill.path}")
    overlay = _overlay(program, persona, skill, facts.overlay, access, trace)
    if overlay:
        body = body + ("\n" if body else "") + wrap_overlay(*overlay)
    stub = access is Access.STUB
    trace.append(facts.stub_model_line if stub else facts.model_line)
    trace.append(facts.user_line)
    return Outcome(
        access,
        via,
        body,
        overlay[0] if overlay else None,
        facts.model and not stub,
        facts.user,
        tuple(trace),
    )


def _access(persona: Persona, owner: str | None, trace: list[str]) -> tuple[Access, str | None]:
    if owner is None:
        trace.append(_OPEN_LINE)
        return Access.OPEN, None
    if owner == persona.id:
        trace.append(f"exclusivity: persona_exclusive {owner!r} matches the persona: granted")
        return Access.GRANTED, "persona"
    if owner in persona.chain:
        trace.append(f"exclusivity: persona_exclusive {owner!r} matches fallback {owner!r}: granted")
        return Access.GRANTED, f"fallback:{owner}"
    if persona.unrestricted:
        trace.append(f"exclusivity: persona_exclusive {owner!r}; persona has unrestricted_skills: granted")
        return Access.GRANTED, "unrestricted"
    chain = ", ".join(persona.chain) or "none"
    trace.append(
        f"exclusivity: persona_exclusive {owner!r} matches neither {persona.id!r} nor fallbacks ({chain}), not unrestricted: stub"
    )
    return Access.STUB, None


def _overlay(
    program: Program, persona: Persona, skill: Skill, wanted: bool, access: Access, trace: list[str]
) -> tuple[str, str] | None:
    if not wanted:
        trace.append(_NO_OVERLAY_LINE)
        return None
    if access is Access.STUB:
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
