"""Validate stage: Discovery -> Program. Each skill is checked on its own (skills.py), then the
personas against them (personas.py), then the links between skills; --skip-invalid applies here."""

from __future__ import annotations

from .. import diagnostics as dg
from ..dataclass import replace
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..diagnostics.policy import Policy, inline_ignores, refusal
from ..model import Discovery, Duplicates, Program, Skill, SkillSource
from ..targets.model import Issue
from ..targets.verdicts import suffix
from . import personas as personas_mod
from .skills import SkillChecks, check_skills


def validate(
    discovery: Discovery,
    checks: SkillChecks | None = None,
    *,
    skip_invalid: bool = False,
    policy: Policy | None = None,
    sources: tuple[str, ...] = (),
    targets: tuple[str, ...] = (),
    by_name: tuple[Duplicates, ...] | None = None,
) -> Program:
    """`checks` stands in for check_skills: the build cache passes a memoised one.

    skip_invalid: a skill with errors is left out, its errors reported as
    warnings, instead of failing the build.
    policy: the severity settings, applied to each skill's own diagnostics (with its inline
    ignores) before deciding whether it has errors: a lowered spec error keeps the skill.
    sources: the config's source labels: with skip_invalid, an entry below one that discover
    refused (a link out of the project, an unreadable folder) costs that entry, not the build.
    targets: the harnesses of `targets:`; skills sharing a `name` are reported for them.
    by_name: each source's `duplicates` rule when skills are kept by their id too (`frontmatter.names:
    lowercase-hyphens`, as V1 keys them): two skills with one id are duplicates.
    """
    diags: list[Diagnostic] = list(discovery.diagnostics)
    refused: dict[str, list[Diagnostic]] = {}
    if skip_invalid:
        diags, refused = _refused_entries(diags, sources, {src.dir_rel for src in discovery.skills})
    parsed, per_skill = _skills(discovery.skills, checks or check_skills)
    for src in discovery.skills:
        built = src.command in parsed  # one that could not be built never loses all its errors
        per_skill[src.command] = settle(src, per_skill[src.command], policy or Policy(), built)
    invalid = {c: ds for c, ds in per_skill.items() if dg.has_errors(ds)}
    replaced: dict[str, tuple[SkillSource, list[Diagnostic]]] = {}
    if skip_invalid and discovery.shadowed and invalid:
        replaced = _earlier_copies(discovery, invalid, (parsed, per_skill), checks or check_skills, policy)
    lost: dict[str, Diagnostic] = {}  # command -> why `duplicates: last-wins` left it out
    if by_name is not None:
        lost = _same_ids(parsed, invalid, per_skill, by_name)
        parsed = {c: s for c, s in parsed.items() if c not in lost}
    named: set[str] = {command for ex in discovery.exclusives for command, _file in ex.bodies}
    personas = personas_mod.personas(discovery.personas, parsed, diags, named)
    exclusive = personas_mod.exclusives(
        discovery, parsed, personas, diags, set(invalid) if skip_invalid else set()
    )
    if skip_invalid:
        diags, late = _late_errors(parsed, diags)
        for command, found in late.items():
            per_skill[command] = invalid[command] = per_skill.get(command, []) + found
    # Discovery's and the personas' diagnostics at their levels; each skill's were set by _settle.
    diags = (policy or Policy()).apply(diags)
    for command, found in per_skill.items():
        diags.extend(_as_warnings(found) if skip_invalid and command in invalid else found)
    for winner, found in replaced.values():
        diags.extend([*_as_warnings(found), _replaced(winner, parsed[winner.command].path)])
    diags.extend(lost.values())
    kept = {c: s for c, s in parsed.items() if c not in invalid}
    diags.extend((policy or Policy()).apply(shared_names(kept, targets)))
    for entry, found in refused.items():
        diags.extend(_as_warnings(found))
        invalid.setdefault(entry, found)
    if skip_invalid and invalid:  # (a copy replaced by an earlier one has its own: _replaced)
        diags.append(_left_out_summary(discovery, invalid, replaced))
    codes = tuple(
        (c, tuple(sorted({d.code for d in ds if d.severity is dg.Severity.ERROR})))
        for c, ds in sorted(invalid.items())
    )
    own = {c: tuple(per_skill[c]) for c in kept if per_skill[c]}
    left_out = tuple(sorted({*_left_out(discovery, invalid, replaced), *(d.path for d in lost.values())}))
    return Program(_link(kept), personas, exclusive, tuple(diags), codes, own, frozenset(named), left_out)


def _earlier_copies(
    discovery: Discovery,
    invalid: dict[str, list[Diagnostic]],
    checked: tuple[dict[str, Skill], dict[str, list[Diagnostic]]],
    checks: SkillChecks,
    policy: Policy | None,
) -> dict[str, tuple[SkillSource, list[Diagnostic]]]:
    """A command whose served copy is left out for its errors is served by the latest copy an
    earlier source holds that has none (as a loader that skips a broken file finds the copy below
    it): that copy's skill and diagnostics take the command's place in `checked`, and the command
    leaves `invalid`. Returns each replaced copy with its diagnostics (they are reported left out)."""
    parsed, per_skill = checked
    served = {src.command: src for src in discovery.skills}
    replaced: dict[str, tuple[SkillSource, list[Diagnostic]]] = {}
    for older in reversed(discovery.shadowed):  # the latest source first, per command
        command = older.command
        if command not in invalid or command in replaced or not older.readable:
            continue
        skill, found = checks([older])[0]
        settled = settle(older, [*older.problems, *found], policy or Policy(), skill is not None)
        if skill is None or dg.has_errors(settled):
            continue
        replaced[command] = (served[command], invalid.pop(command))
        parsed[command], per_skill[command] = skill, settled
    return replaced


def _same_ids(
    parsed: dict[str, Skill],
    invalid: dict[str, list[Diagnostic]],
    per_skill: dict[str, list[Diagnostic]],
    duplicates: tuple[Duplicates, ...],
) -> dict[str, Diagnostic]:
    """Skills kept by their id too (V1): of two with one id, the later (by source, then command)
    stays when its source says `duplicates: last-wins`, and each other one is left out with a
    warning (returned, by command); else each later one has an error (SKC306, in `per_skill` and
    `invalid`: --skip-invalid leaves it out)."""
    groups: dict[str, list[Skill]] = {}
    for command, skill in parsed.items():
        if command not in invalid:
            groups.setdefault(skill.name, []).append(skill)
    lost: dict[str, Diagnostic] = {}
    for name, group in groups.items():
        order = sorted(group, key=lambda s: (s.source, s.command))
        if len(order) < 2:
            continue
        last = order[-1]
        if duplicates[last.source] is Duplicates.LAST_WINS:
            for skill in order[:-1]:
                lost[skill.command] = dg.warning(
                    skill.path,
                    Code.OVERRIDDEN,
                    f"left out: {last.path} has the same id ({name!r}) and comes later (duplicates: last-wins)",
                    *skill.anchors.get("name", (1, 1)),
                )
            continue
        for skill in order[1:]:
            said = dg.error(
                skill.path,
                Code.COLLISION,
                f"skill {skill.command!r} has the id {name!r} of {order[0].command!r} ({order[0].path}); "
                "`duplicates: last-wins` on the source keeps the later",
                *skill.anchors.get("name", (1, 1)),
            )
            per_skill[skill.command] = invalid[skill.command] = [*per_skill[skill.command], said]
    return lost


def _replaced(winner: SkillSource, instead: str) -> Diagnostic:
    return dg.warning(
        winner.skill_md.rel,
        Code.SKIPPED_INVALID,
        f"left out because it has errors (--skip-invalid): the copy of {winner.command!r} in {instead} "
        "is built instead",
    )


def _left_out(
    discovery: Discovery,
    invalid: dict[str, list[Diagnostic]],
    replaced: dict[str, tuple[SkillSource, list[Diagnostic]]],
) -> tuple[str, ...]:
    """Every SKILL.md (or entry, for one discover refused) found and not built, by its path."""
    paths = {src.command: src.skill_md.rel for src in discovery.skills}
    found = {paths.get(c) or _entry_path(c, ds) for c, ds in invalid.items()}
    found.update(winner.skill_md.rel for winner, _ in replaced.values())
    return tuple(sorted(found.union(discovery.dropped)))


def _entry_path(entry: str, diags: list[Diagnostic]) -> str:
    return diags[0].path if diags else entry


def shared_names(skills: dict[str, Skill], targets: tuple[str, ...]) -> list[Diagnostic]:
    """One warning per skill whose `name` an earlier skill (in command order) already has, when
    `targets:` are selected: skillc keys skills by command, but the harnesses that key them by name
    keep only one of the two (Gemini CLI the later, opencode either), and Codex lists both."""
    if not targets:
        return []
    first: dict[str, Skill] = {}
    found = []
    for command in sorted(skills):
        skill = skills[command]
        owner = first.setdefault(skill.name, skill)
        if owner is skill:
            continue
        line, col = skill.anchors.get("name", (1, 1))
        found.append(
            dg.warning(
                skill.path,
                Code.TARGET_DIFFERS,
                f"skill {command!r} has the name {skill.name!r} of {owner.command!r} ({owner.path})"
                f"{suffix(Issue.SAME_NAME, targets)}. Give each skill its own name",
                line,
                col,
            )
        )
    return found


def _skills(
    sources: tuple[SkillSource, ...], checks: SkillChecks
) -> tuple[dict[str, Skill], dict[str, list[Diagnostic]]]:
    """Every skill checked completely: its files' problems and its frontmatter's, together."""
    parsed: dict[str, Skill] = {}
    per_skill: dict[str, list[Diagnostic]] = {}
    readable = [src for src in sources if src.readable]
    checked = {src.command: result for src, result in zip(readable, checks(readable), strict=False)}
    for src in sources:
        found = list(src.problems)
        skill = None
        if src.command in checked:
            skill, more = checked[src.command]
            found.extend(more)
        per_skill[src.command] = found
        if skill is not None:
            parsed[src.command] = skill
    return parsed, per_skill


def settle(src: SkillSource, found: list[Diagnostic], policy: Policy, built: bool) -> list[Diagnostic]:
    """One skill's diagnostics at their levels: the config's, then its own `# skillc: ignore[...]`."""
    inline: dict[str, tuple[int, int]] = {}
    refused: list[Diagnostic] = []
    for code, line, col in inline_ignores(src.skill_md.data) if b"skillc:" in src.skill_md.data else ():
        why = refusal(code, "ignore")
        if why:
            refused.append(
                dg.error(src.skill_md.rel, Code.SEVERITY_REFUSED, f"skillc: ignore: {why}", line, col)
            )
        else:
            inline.setdefault(code, (line, col))
    if not built and not dg.has_errors(found):
        # Never a silent drop: a SKILL.md that gives no skill says so, whatever else it said.
        found = [
            *found,
            dg.error(src.skill_md.rel, Code.NOT_BUILT, "not built: this SKILL.md gives no skill"),
        ]
    if inline:
        found = found + _unused_inline(src.skill_md.rel, inline, found)
    if not inline and not policy.codes and not policy.paths:
        return found + refused
    leveled = policy.apply(found, frozenset(inline))
    if built or dg.has_errors(leveled) or not dg.has_errors(found):
        return leveled + refused
    # Every error was lowered, but the skill could not be built (a directory name over the spec's
    # 64 characters cannot be an id): it stays out, and its errors say why the setting cannot hold.
    return [
        replace(d, message=f"{d.message} (not lowered: the skill cannot be built with it)")
        if d.severity is dg.Severity.ERROR
        else d
        for d in found
    ] + refused


def _unused_inline(rel: str, inline: dict[str, tuple[int, int]], found: list[Diagnostic]) -> list[Diagnostic]:
    """An inline ignore that names a code the skill does not have suppresses nothing: SKC107 at it,
    as ruff reports an unused `noqa` (`ignore[SKC107]` itself is how a skill keeps one anyway)."""
    had = {d.code for d in found}
    return [
        dg.warning(
            rel,
            Code.UNUSED_SUPPRESSION,
            f"skillc: ignore[{code}] suppresses nothing: this skill has no {code}",
            *at,
        )
        for code, at in inline.items()
        if code not in had and code != Code.UNUSED_SUPPRESSION
    ]


def _refused_entries(
    diags: list[Diagnostic], sources: tuple[str, ...], skill_dirs: set[str]
) -> tuple[list[Diagnostic], dict[str, list[Diagnostic]]]:
    """Errors discover reported on an entry below a source and did not read (so nothing of it is in
    the build): with --skip-invalid, that entry is left out like a skill with errors, by its name
    below the source. Errors on a source itself, the config or the personas still fail the build;
    errors in a discovered skill's folder are that skill's (see _late_errors)."""
    rest: list[Diagnostic] = []
    refused: dict[str, list[Diagnostic]] = {}
    for d in diags:
        src = next((s for s in sources if d.path.startswith(s + "/")), None)
        if d.severity is not dg.Severity.ERROR or src is None or _in_skill(d.path, skill_dirs):
            rest.append(d)
        else:
            refused.setdefault(d.path[len(src) + 1 :], []).append(d)
    return rest, refused


def _in_skill(path: str, skill_dirs: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:i]) in skill_dirs for i in range(1, len(parts)))


def _link(skills: dict[str, Skill]) -> dict[str, Skill]:
    """Parent and children among the skills that made it."""
    # Group by parent once: scanning every command per skill is quadratic (18 s at 10,000).
    kids: dict[str, list[str]] = {}
    for c in skills:
        if "/" in c:
            kids.setdefault(c.rsplit("/", 1)[0], []).append(c)
    result: dict[str, Skill] = {}
    for command, p in skills.items():
        parent = command.rsplit("/", 1)[0] if "/" in command else None
        children = tuple(sorted(kids.get(command, ())))
        parent = parent if parent in skills else None
        # Most skills have neither: keep the object (dataclasses.replace costs 15 us a call).
        same = p.parent == parent and p.children == children
        result[command] = p if same else replace(p, parent=parent, children=children)
    return result


def _late_errors(
    skills: dict[str, Skill], diags: list[Diagnostic]
) -> tuple[list[Diagnostic], dict[str, list[Diagnostic]]]:
    """Errors found on a skill after parsing (persona_exclusive checks): the skill's, too."""
    by_path = {s.path: c for c, s in skills.items()}
    rest: list[Diagnostic] = []
    late: dict[str, list[Diagnostic]] = {}
    for d in diags:
        owner = by_path.get(d.path) if d.severity is dg.Severity.ERROR else None
        if owner is None:
            rest.append(d)
        else:
            late.setdefault(owner, []).append(d)
    return rest, late


def _as_warnings(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [
        d if d.severity is dg.Severity.SUPPRESSED else replace(d, severity=dg.Severity.WARNING) for d in diags
    ]


def _left_out_summary(
    discovery: Discovery,
    invalid: dict[str, list[Diagnostic]],
    replaced: dict[str, tuple[SkillSource, list[Diagnostic]]],
) -> Diagnostic:
    names = sorted(invalid)
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    # At the first one's SKILL.md; one discover refused (a link out of the project) has no skill:
    # at its first error, which names the file (its name alone is no path).
    first = invalid[names[0]]
    where = next(((s.skill_md.rel, 1, 1) for s in discovery.skills if s.command == names[0]), None)
    path, line, col = where or ((first[0].path, first[0].line, first[0].col) if first else (names[0], 1, 1))
    more = (
        f"; {len(replaced)} more replaced by an earlier source's copy: {', '.join(sorted(replaced))}"
        if replaced
        else ""
    )
    return dg.warning(
        path,
        Code.SKIPPED_INVALID,
        f"{len(names)} skill(s) left out because they have errors (--skip-invalid): {shown}{more}",
        line,
        col,
    )
