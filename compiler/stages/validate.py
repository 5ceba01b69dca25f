"""Validate stage: Discovery -> Program (typed skills and personas, all checks)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Discovery, Document, Persona, PersonaSource, Program, Skill, SkillSource
from ..paths import unsafe_reason
from . import frontmatter, schema
from .lint import lint_overlay
from .parse import control_characters, decode, parse_document

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
DEFAULT_PERSONA = "default"
SVEN_KEYS = ("always", "requires_bins", "requires_env", "user_invocable_only")


def validate(
    discovery: Discovery, checks: SkillChecks | None = None, *, skip_invalid: bool = False
) -> Program:
    """`checks` stands in for check_skills: the build cache passes a memoised one.

    skip_invalid: a skill with errors is left out, its errors reported as
    warnings, instead of failing the build.
    """
    diags: list[Diagnostic] = list(discovery.diagnostics)
    parsed, per_skill = _skills(discovery.skills, checks or check_skills)
    invalid = {c: ds for c, ds in per_skill.items() if dg.has_errors(ds)}
    personas = _personas(discovery.personas, parsed, diags)
    exclusive = _exclusives(discovery, parsed, personas, diags, set(invalid) if skip_invalid else set())
    if skip_invalid:
        diags, late = _late_errors(parsed, diags)
        for command, found in late.items():
            per_skill[command] = invalid[command] = per_skill.get(command, []) + found
    for command, found in per_skill.items():
        diags.extend(_as_warnings(found) if skip_invalid and command in invalid else found)
    kept = {c: s for c, s in parsed.items() if c not in invalid}
    if skip_invalid and invalid:
        diags.append(_left_out_summary(discovery, invalid))
    codes = tuple(
        (c, tuple(sorted({d.code for d in ds if d.severity is dg.Severity.ERROR})))
        for c, ds in sorted(invalid.items())
    )
    return Program(_link(kept), personas, exclusive, tuple(diags), codes if skip_invalid else ())


# --- skills -----------------------------------------------------------------

SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]
SkillChecks = Callable[[Sequence[SkillSource]], list[SkillResult]]
# Below this many files a process pool costs more than it saves (start-up, pickling).
PARALLEL_THRESHOLD = 1500
_CHUNK = 200


def check_skills(sources: Sequence[SkillSource]) -> list[SkillResult]:
    """check_skill over many files, on every core when there are enough of them; same results in order."""
    workers = min(os.cpu_count() or 1, 8)
    if len(sources) < PARALLEL_THRESHOLD or workers < 2:
        return [check_skill(src) for src in sources]
    # Resources are not read by the check: keep their bytes out of the pipes.
    bare = [replace(src, resources=()) for src in sources]
    try:
        with ProcessPoolExecutor(workers, mp_context=_fork_context()) as pool:
            results = list(pool.map(check_skill, bare, chunksize=_CHUNK))
    except (OSError, BrokenProcessPool):  # no processes here (sandbox, limits): do it in this one
        return [check_skill(src) for src in sources]
    return [
        (None if sk is None else replace(sk, resources=src.resources), d)
        for (sk, d), src in zip(results, sources, strict=False)
    ]


def _fork_context() -> Any:
    import multiprocessing

    # fork: the workers start with the compiler already imported; elsewhere the platform default.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def check_skill(src: SkillSource) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
    """One SKILL.md on its own (parse, schema, name rules): a pure function of src."""
    diags: list[Diagnostic] = []
    return _skill(src, diags), tuple(diags)


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
    return [replace(d, severity=dg.Severity.WARNING) for d in diags]


def _left_out_summary(discovery: Discovery, invalid: dict[str, list[Diagnostic]]) -> Diagnostic:
    names = sorted(invalid)
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    where = next((s.skill_md.rel for s in discovery.skills if s.command == names[0]), names[0])
    return dg.warning(
        where,
        Code.SKIPPED_INVALID,
        f"{len(names)} skill(s) left out because they have errors (--skip-invalid): {shown}",
    )


def _skill(src: SkillSource, diags: list[Diagnostic]) -> Skill | None:
    doc = parse_document(src.skill_md)
    diags.extend(doc.diagnostics)
    if doc.data is None:
        return None
    data = _merge_sven(doc, dict(doc.data), diags)
    text = decode(src.skill_md)[0] or ""
    data, normalised = frontmatter.normalise(doc, data, text)
    diags.extend(normalised)
    problems = schema.check(doc, data, "frontmatter", Code.FRONTMATTER_SCHEMA) + _name_rules(doc, data)
    # knowledge entries are handed to the model as documents to read: no escaping paths.
    problems = problems or _unsafe_paths(
        doc, [(("knowledge", i), k) for i, k in enumerate(data.get("knowledge") or ())]
    )
    diags.extend(problems)
    diags.extend(_unknown_fields(doc, data))
    dirname = frontmatter.normal_name(src.command.rsplit("/", 1)[-1])
    name = frontmatter.normal_name(data["name"]) if isinstance(data.get("name"), str) else None
    # An invalid name has its own error already; a mismatch is reported only for a valid one.
    if name is not None and name != dirname and frontmatter.valid_name(data["name"]):
        line, col = doc.pos("name")
        diags.append(
            dg.error(
                doc.rel,
                Code.NAME_MISMATCH,
                f"name {data['name']!r} does not match its directory {dirname!r}",
                line,
                col,
            )
        )
        return None
    if "name" not in data and len(dirname) > MAX_NAME:
        # The directory name becomes the skill's name, so the spec's limit applies to it.
        diags.append(
            dg.error(
                doc.rel,
                Code.BAD_DIRECTORY_NAME,
                f"directory name is {len(dirname)} characters long; a skill name "
                f"(the directory's, when the frontmatter gives none) is at most {MAX_NAME}",
            )
        )
        return None
    if "name" not in data and not frontmatter.valid_name(dirname):
        diags.append(
            dg.warning(
                doc.rel,
                Code.BAD_DIRECTORY_NAME,
                f"directory {dirname!r} is not a valid skill name and the frontmatter gives none",
            )
        )
    if problems:
        return None
    if not doc.body:
        diags.append(dg.warning(doc.rel, Code.EMPTY_BODY, "SKILL.md has no body", doc.body_line, 1))
    if name is not None:
        data["name"] = name
    fields = _normalise(
        {k: v for k, v in data.items() if k in schema.properties("frontmatter") and k != "sven"}
    )
    return Skill(
        command=src.command,
        name=name or dirname,
        description=data["description"],
        source=src.source,
        path=src.skill_md.rel,
        dir_rel=src.dir_rel,
        body=doc.body,
        fields=fields,
        resources=src.resources,
        parent=None,
        children=(),
        anchors={key: doc.pos(key) for key in fields},
        origin=src.origin,
    )


def _name_rules(doc: Document, data: dict[str, Any]) -> tuple[Diagnostic, ...]:
    """The spec's name rule (as skills-ref checks it) and a description that is not blank."""
    found = []
    name = data.get("name")
    if isinstance(name, str):
        found += [
            dg.error(
                doc.rel,
                Code.FRONTMATTER_SCHEMA,
                f"name: {p}" if p.startswith("is ") else f"name: {name!r} {p}",
                *doc.pos("name"),
            )
            for p in frontmatter.name_problems(frontmatter.normal_name(name))
        ]
    description = data.get("description")
    if isinstance(description, str) and description and not description.strip():
        found.append(
            dg.error(doc.rel, Code.FRONTMATTER_SCHEMA, "description: is blank", *doc.pos("description"))
        )
    return tuple(found)


def _merge_sven(doc: Document, data: dict[str, Any], diags: list[Diagnostic]) -> dict[str, Any]:
    """sven nests its harness flags under `sven:`; fold them into the top level."""
    block = data.get("sven")
    if not isinstance(block, dict):
        return data
    for key in SVEN_KEYS:
        if key in block:
            if key in data and data[key] != block[key]:
                line, col = doc.key_pos("sven", key)
                diags.append(
                    dg.error(
                        doc.rel, Code.FRONTMATTER_SCHEMA, f"sven.{key} contradicts top-level {key}", line, col
                    )
                )
            data.setdefault(key, block[key])
    return data


def _unknown_fields(doc: Document, data: dict[str, Any]) -> list[Diagnostic]:
    return [
        dg.warning(doc.rel, Code.UNKNOWN_FIELD, f"unknown frontmatter field {key!r}", *doc.key_pos(key))
        for key in data
        if key not in schema.properties("frontmatter")
    ]


def _normalise(fields: dict[str, Any]) -> dict[str, Any]:
    for key in ("allowed-tools", "disallowed-tools"):
        if isinstance(fields.get(key), str):
            fields[key] = split_tools(fields[key])
    if isinstance(fields.get("arguments"), str):  # Claude Code: a space-separated string or a list
        fields["arguments"] = fields["arguments"].split()
    if isinstance(fields.get("paths"), str):  # a comma-separated string or a list
        fields["paths"] = [p.strip() for p in fields["paths"].split(",") if p.strip()]
    return dict(sorted(fields.items()))


def split_tools(text: str) -> list[str]:
    """Space- (spec) or comma- (Pegasus) separated, keeping `Bash(git add:*)` whole."""
    out, cur, depth = [], "", 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth <= 0 and (ch.isspace() or ch == ","):
            if cur:
                out.append(cur)
            cur, depth = "", 0
        else:
            cur += ch
    return out + ([cur] if cur else [])


# --- personas ---------------------------------------------------------------


def _personas(
    sources: tuple[PersonaSource, ...], skills: dict[str, Skill], diags: list[Diagnostic]
) -> dict[str, Persona]:
    loaded = [p for p in (_persona(s, diags) for s in sources if s.manifest) if p is not None]
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
    problems = problems or _unsafe_paths(doc, _manifest_paths(doc.data))
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


def _unsafe_paths(doc: Document, values: list[tuple[tuple[Any, ...], Any]]) -> tuple[Diagnostic, ...]:
    """The config's path rules (SKC103) for path-like values in frontmatter and manifests."""
    found = []
    for key, value in values:
        reason = unsafe_reason(value) if isinstance(value, str) and value != "*" else None
        if reason:
            where = ".".join(map(str, key))
            found.append(dg.error(doc.rel, Code.UNSAFE_PATH, f"{where}: {value!r} {reason}", *doc.pos(*key)))
    return tuple(found)


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
                        f"fallback {current.fallback!r} is not a persona",
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
                    f"allowlist names unknown command {command!r}",
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
                dg.warning(file.rel, Code.OVERLAY_NO_SKILL, f"overlay for {command!r}, which is not a skill")
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


def _exclusives(
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
                    f"exclusive skills for unknown persona {ex.persona!r}",
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
                        f"no skill {command!r} with persona_exclusive: {ex.persona}",
                    )
                )
                continue
            doc = parse_document(file, frontmatter="optional")
            diags.extend(doc.diagnostics)
            if doc.data is not None:
                bodies[(ex.persona, command)] = (file.rel, doc.body)
    for skill in skills.values():
        _check_exclusive(skill, personas, bodies, diags)
    return dict(sorted(bodies.items()))


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
                f"persona_exclusive names unknown persona {owner!r}",
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
