"""Skills: one SKILL.md checked on its own (parse, schema, name rules, normalisations), a pure
function of its source, spread over the cores for large trees."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import diagnostics as dg
from ..dataclass import fields, replace
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code, lowerable
from ..model import Document, FrontmatterRules, Names, Skill, SkillSource
from ..names.paths import unsafe_values
from ..names.suggest import did_you_mean
from ..targets.model import Issue, Verdict
from ..targets.verdicts import any_verdict, suffix, tolerated
from . import frontmatter, schema
from .parse import parse_text

SVEN_KEYS = ("always", "requires_bins", "requires_env", "user_invocable_only")

SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]
SkillChecks = Callable[[Sequence[SkillSource]], list[SkillResult]]
# Below this many files a process pool costs more than it saves (start-up, pickling).
PARALLEL_THRESHOLD = 1500
# SKILL.md files per chunk: small enough that the processes finish together (the last chunk is the
# wait), large enough that claiming one costs nothing (one 4-byte read).
_CHUNK = 100


def check_skills(sources: Sequence[SkillSource]) -> list[SkillResult]:
    """check_skill over many files, on every core when there are enough of them; same results in order."""
    workers = min(os.cpu_count() or 1, 8)
    if len(sources) < PARALLEL_THRESHOLD or workers < 2:
        return [check_skill(src) for src in sources]
    try:
        if _forks():
            return _shared(workers, sources)
    except OSError:  # no processes here (sandbox, limits): do it in this one
        return [check_skill(src) for src in sources]
    packed = _in_pool(workers, sources)
    if packed is None:
        return [check_skill(src) for src in sources]
    return [_unpack(result, src) for result, src in zip(packed, sources, strict=True)]


def checked_first(done: Mapping[tuple[int, str], SkillResult]) -> SkillChecks:
    """check_skills for the skills not in `done` (by source index and command: what a split walk
    checked as it read them, discover.discover_checked); the same results, in order."""

    def checks(sources: Sequence[SkillSource]) -> list[SkillResult]:
        rest = iter(check_skills([s for s in sources if (s.source, s.command) not in done]))
        return [done[key] if (key := (s.source, s.command)) in done else next(rest) for s in sources]

    return checks


def walk_checks() -> tuple[
    Callable[[SkillSource], SkillResult],
    Callable[[SkillSource], Packed],
    Callable[[Packed, SkillSource], SkillResult],
]:
    """What discover's split walk checks with (discover.Checks): here, in a forked helper (a Packed
    row, as the check stage's helpers send), and a helper's row made a result here."""
    return check_skill, _pack, _unpack


def _forks() -> bool:
    """Whether the workers are forked: where `fork` is one of multiprocessing's start methods (every
    platform but Windows; _fork_context picks it there too), without importing multiprocessing."""
    return hasattr(os, "fork")


def _shared(workers: int, sources: Sequence[SkillSource]) -> list[SkillResult]:
    """This process and workers - 1 forked ones, each checking the next chunk as it is free
    (workers.share): the forked ones read the sources from the memory they share with this one and
    send back Packed rows; this one's own chunks need no packing."""
    global _FORKED
    ranges = _ranges(len(sources))
    _FORKED = sources
    try:
        from . import workers as worker  # processes: not for the few files of an edit build

        mine, theirs = worker.share(
            len(ranges),
            workers - 1,
            lambda k: [check_skill(sources[i]) for i in ranges[k]],
            lambda k: _check_range(ranges[k]),
            # a helper's rows become Skills as they arrive, between this process's own chunks
            lambda k, rows: [_unpack(p, sources[i]) for p, i in zip(rows, ranges[k], strict=True)],
        )
    finally:
        _FORKED = ()
    results: list[SkillResult] = []
    for k, indices in enumerate(ranges):
        if k in mine:
            results.extend(mine[k])
        elif k in theirs:
            results.extend(theirs[k])
        else:  # its worker died: checked here, where an error in the check shows itself
            results.extend(check_skill(sources[i]) for i in indices)
    return results


# What a worker sends back for one SKILL.md: the Skill's fields but its resources (the parent holds
# them) as a plain tuple, the diagnostics, and the digest of the SKILL.md bytes, which the worker
# hashed for Skill.origin and the parent would otherwise hash again for the build hash. A tuple,
# not a Skill: the parent builds each Skill once, with its resources, instead of unpickling one and
# copying it with replace().
Packed = tuple[tuple[Any, ...] | None, tuple[Diagnostic, ...], str]
_PACKED_FIELDS = tuple(f.name for f in fields(Skill) if f.name != "resources")
# Where the resources go back among Skill's fields: the parent builds each Skill positionally.
_RESOURCES_AT = [f.name for f in fields(Skill)].index("resources")
# The sources the workers forked from this process check: a forked worker finds them here, in the
# memory it shares with the parent until written, so no SKILL.md crosses a pipe. Set only while they run.
_FORKED: Sequence[SkillSource] = ()


def _in_pool(workers: int, sources: Sequence[SkillSource]) -> list[Packed] | None:
    """Where processes are spawned, not forked: they start empty, so the sources travel, without
    the resources the check never reads. None when no pool can run here (sandbox, limits)."""
    # Imported here: a forked build never needs them (concurrent.futures, logging, multiprocessing).
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from . import workers as worker

    context = _fork_context()
    try:
        pool = ProcessPoolExecutor(
            workers, mp_context=context, initializer=worker.start, initargs=(os.getpid(),)
        )
    except OSError:
        return None
    try:
        chunks = pool.map(_check_many, _chunks([replace(src, resources=()) for src in sources]))
        results = [packed for chunk in chunks for packed in chunk]
    except (OSError, BrokenProcessPool):
        worker.stop(pool)
        return None
    except BaseException:  # Ctrl-C above all: kill the workers now, never wait for their chunks
        worker.stop(pool)
        raise
    pool.shutdown()
    return results


def _ranges(count: int) -> list[range]:
    from .workers import MAX_CHUNKS

    size = max(_CHUNK, -(-count // MAX_CHUNKS))
    return [range(i, min(i + size, count)) for i in range(0, count, size)]


def _chunks(sources: Sequence[SkillSource]) -> list[Sequence[SkillSource]]:
    return [sources[i : i + _CHUNK] for i in range(0, len(sources), _CHUNK)]


def _check_range(indices: range) -> list[Packed]:
    """In a forked worker: check the sources at these indices of the parent's list."""
    return [_pack(_FORKED[i]) for i in indices]


def _check_many(sources: Sequence[SkillSource]) -> list[Packed]:
    return [_pack(src) for src in sources]


def _pack(src: SkillSource) -> Packed:
    skill, diags = check_skill(src)
    row = None if skill is None else tuple(getattr(skill, name) for name in _PACKED_FIELDS)
    return row, diags, src.skill_md.digest


def _unpack(packed: Packed, src: SkillSource) -> SkillResult:
    row, diags, digest = packed
    # cached_property keeps its value in the instance's __dict__: the parent adopts the worker's hash.
    vars(src.skill_md).setdefault("digest", digest)
    if row is None:
        return None, diags
    values: tuple[Any, ...] = (*row[:_RESOURCES_AT], src.resources, *row[_RESOURCES_AT:])
    return Skill(*values), diags


def _fork_context() -> Any:
    import multiprocessing

    # fork: the workers start with the compiler already imported; elsewhere the platform default.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def check_skill(src: SkillSource) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
    """One SKILL.md on its own (parse, schema, name rules): a pure function of src."""
    diags: list[Diagnostic] = []
    return _skill(src, diags), tuple(diags)


def _skill(src: SkillSource, diags: list[Diagnostic]) -> Skill | None:
    targets = src.targets
    colon = suffix(Issue.UNQUOTED_COLON, targets) if tolerated(Issue.UNQUOTED_COLON, targets) else None
    text, doc = parse_text(src.skill_md, colon_fallback=colon)
    diags.extend(doc.diagnostics)
    if doc.data is None:
        return None
    data = _merge_sven(doc, dict(doc.data), diags)
    data, normalised = frontmatter.normalise(doc, data, text)
    diags.extend(normalised)
    data, read = frontmatter.harness_values(doc, data, text, targets, src.rules.description_fallback)
    diags.extend(read)
    problems = (
        _schema(doc, data, targets)
        + _name_rules(doc, data, targets)
        + _spec_limits(doc, data, targets)
        + _extensions(doc, data, src.rules)
    )
    # knowledge entries are handed to the model as documents to read: no escaping paths.
    if all(lowerable(p.code) for p in problems):  # the types are sound: the paths can be checked
        problems += unsafe_values(
            doc, [(("knowledge", i), k) for i, k in enumerate(data.get("knowledge") or ())]
        )
    diags.extend(problems)
    diags.extend(_unknown_fields(doc, data, src.rules))
    dirname = frontmatter.normal_name(src.command.rsplit("/", 1)[-1])
    written = frontmatter.normal_name(data["name"]) if isinstance(data.get("name"), str) else None
    named = "name" in data
    name = _identity(src, doc, (data.get("name"), written, dirname), diags)
    if name is None:
        return None  # no id the format can hold: not built, whatever the settings say
    # Spec-conformance errors (codes.CONFORMANCE) still give a skill: the settings may lower them,
    # and validate leaves the skill out when they stay errors.
    if any(not lowerable(p.code) for p in problems):
        return None
    if not doc.body:
        diags.append(dg.warning(doc.rel, Code.EMPTY_BODY, "SKILL.md has no body", doc.body_line, 1))
    diags.extend(_invocation(doc, data, targets, dirname, named))
    if targets:  # the label, when there is one: it is what a harness lists
        diags.extend(_injection(doc, data, targets, src.command, written or name))
    if written:
        data["name"] = written  # the label, kept as written: Skill.label and the readers read it
    else:
        data.pop("name", None)  # `name: ""` is no label
    known = schema.properties("frontmatter").union(field for field, _ in src.rules.extensions)
    fields = _normalise({k: v for k, v in data.items() if k in known and k != "sven"})
    return Skill(
        command=src.command,
        name=name,
        description=data["description"],
        source=src.source,
        path=src.skill_md.rel,
        dir_rel=src.dir_rel,
        body=doc.body,
        fields=fields,
        resources=src.resources,
        parent=None,
        children=(),
        # doc.pos(key), its first step inline: every top-level key of flat frontmatter has its own
        anchors={key: doc.positions.get(("v", key)) or doc.pos(key) for key in fields},
        origin=src.origin,
    )


def _identity(
    src: SkillSource, doc: Document, names: tuple[Any, str | None, str], diags: list[Diagnostic]
) -> str | None:
    """The skill's id (`Skill.name`) from its written name and its folder's: a valid written name,
    else the folder's name (the written one is a label, SKC219); with `frontmatter.names:
    lowercase-hyphens`, the written name (else the folder's) made an id. None, with an error, when
    there is no id the format can hold."""
    given, written, dirname = names  # as read, normalised, and the folder's
    valid = written is not None and not frontmatter.name_problems(written)
    if valid and written != dirname:
        # Claude Code's command is the folder and `name` a label; the others list it by name.
        grade = dg.warning if tolerated(Issue.NAME_MISMATCH, src.targets) else dg.error
        diags.append(
            grade(
                doc.rel,
                Code.NAME_MISMATCH,
                f"name {given!r} does not match its directory {dirname!r}"
                + suffix(Issue.NAME_MISMATCH, src.targets),
                *doc.pos("name"),
            )
        )
    if src.rules.names is Names.LOWERCASE_HYPHENS:
        made = lowercase_hyphens(written or dirname)
        if not made:
            what = f"name {written!r}" if written else f"directory name {dirname!r}"
            diags.append(
                dg.error(
                    doc.rel,
                    Code.FRONTMATTER_SCHEMA,
                    f"{what} gives no id (frontmatter.names: lowercase-hyphens keeps only a-z, 0-9 "
                    "and hyphens); give the skill a name with some",
                    *doc.pos("name"),
                )
            )
            return None
        return made
    if valid and written is not None:
        return written
    labelled = " and its frontmatter name is a label" if written else " and the frontmatter gives none"
    if len(dirname) > frontmatter.MAX_NAME:
        # The directory name becomes the skill's name, so the spec's limit applies to it.
        diags.append(
            dg.error(
                doc.rel,
                Code.BAD_DIRECTORY_NAME,
                f"directory name is {len(dirname)} characters long; a skill name (the directory's, "
                f"when the frontmatter gives none or a label) is at most {frontmatter.MAX_NAME}",
            )
        )
        return None
    if not frontmatter.valid_name(dirname):
        diags.append(
            dg.warning(
                doc.rel,
                Code.BAD_DIRECTORY_NAME,
                f"directory {dirname!r} is not a valid skill name{labelled}",
            )
        )
    return dirname


def lowercase_hyphens(name: str) -> str:
    """`frontmatter.names: lowercase-hyphens`: a name made an id as V1's `sanitizeSkillName`
    makes it: lowercased, each run of characters other than a-z and 0-9 one hyphen, no hyphen at
    either end (`Repo Survey Deluxe` -> `repo-survey-deluxe`; `Überblick` -> `berblick`)."""
    return _NOT_ID.sub("-", name.lower()).strip("-")


_NOT_ID = re.compile(r"[^a-z0-9]+")


def _injection(
    doc: Document, data: dict[str, Any], targets: tuple[str, ...], command: str, name: str
) -> tuple[Diagnostic, ...]:
    """Listing injection: text the selected harnesses' listings would read as markup, one warning
    per text, at it, naming each harness and what `skillc export` does (targets/injection.py)."""
    from ..targets import injection  # a harness's rules: only when targets are selected

    description = data.get("description") if isinstance(data.get("description"), str) else None
    found = injection.findings(targets, name, description, command)
    out = []
    for field in ("name", "description", "folder"):
        hits = [f for f in found if f.field == field]
        if not hits:
            continue
        where = doc.pos(field) if field in data else (1, 1)
        names = ", ".join(f.target for f in hits)
        what = "its folder's name" if field == "folder" else field
        remedy = "escapes it" if hits[0].remedy == injection.ESCAPED else "leaves the skill out"
        message = (
            f"{what} holds {hits[0].sample!r}, markup that the listing of {names} prints as it is, "
            f"where the model reads it as the listing's own structure (entries of their own); "
            f"`skillc export --target` {remedy} ({names})"
        )
        out.append(dg.warning(doc.rel, Code.LISTING_INJECTION, message, *where))
    return tuple(out)


def _name_rules(doc: Document, data: dict[str, Any], targets: tuple[str, ...]) -> tuple[Diagnostic, ...]:
    """The spec's name rule (as skills-ref checks it) and a description that is not blank. A name
    that breaks the rule is the skill's label, its id the folder's name (SKC219, conformance: the
    build is what the sources say, only less portable); a warning where every selected target
    loads such a skill."""
    found = []
    name = data.get("name")
    if isinstance(name, str) and name:  # an empty one is the schema's error
        problems = frontmatter.name_problems(frontmatter.normal_name(name))
        for issue in (Issue.NAME_LENGTH, Issue.NAME_PATTERN):
            mine = [p for p in problems if p.startswith("is ") == (issue is Issue.NAME_LENGTH)]
            if not mine:
                continue
            grade = dg.warning if tolerated(issue, targets) else dg.error
            text = f"name: {name!r} " + "; ".join(mine)
            found.append(
                grade(
                    doc.rel,
                    Code.NAME_NOT_ID,
                    f"{text}: it is the skill's label, not its id{suffix(issue, targets)}",
                    *doc.pos("name"),
                )
            )
    description = data.get("description")
    if isinstance(description, str) and description and not description.strip():
        found.append(
            dg.error(doc.rel, Code.FRONTMATTER_SCHEMA, "description: is blank", *doc.pos("description"))
        )
    return tuple(found)


# The Agent Skills spec's length limits: conformance (SKC216), so a project may lower them; a
# schema cannot say that, so they are checked here rather than as maxLength.
SPEC_LIMITS = {"description": 1024, "compatibility": 500}


_LIMIT_ISSUES = {"description": Issue.LONG_DESCRIPTION, "compatibility": Issue.LONG_COMPATIBILITY}


def _spec_limits(
    doc: Document, data: dict[str, Any], targets: tuple[str, ...] = ()
) -> tuple[Diagnostic, ...]:
    """Errors, or warnings when every selected target loads such a skill (cut, for Codex)."""
    return tuple(
        (dg.warning if tolerated(_LIMIT_ISSUES[key], targets) else dg.error)(
            doc.rel,
            Code.SPEC_LIMIT,
            f"{key}: is {len(value)} characters long; the limit is {limit}"
            + suffix(_LIMIT_ISSUES[key], targets),
            *doc.pos(key),
        )
        for key, limit in SPEC_LIMITS.items()
        if isinstance(value := data.get(key), str) and len(value) > limit
    )


def _schema(doc: Document, data: dict[str, Any], targets: tuple[str, ...]) -> tuple[Diagnostic, ...]:
    """The schema's errors; with targets selected, a missing or empty description is said once,
    with what each target does with such a skill."""
    value = data.get("description")
    if not targets or not (value is None or value == ""):
        return schema.check(doc, data, "frontmatter", Code.FRONTMATTER_SCHEMA)
    issue = Issue.NO_DESCRIPTION if value is None else Issue.EMPTY_DESCRIPTION
    what = "is required" if value is None else "is empty"
    where = doc.pos("description") if "description" in data else doc.pos()
    said = dg.error(doc.rel, Code.FRONTMATTER_SCHEMA, f"description: {what}{suffix(issue, targets)}", *where)
    return (said, *schema.check(doc, {**data, "description": "-"}, "frontmatter", Code.FRONTMATTER_SCHEMA))


def _invocation(
    doc: Document, data: dict[str, Any], targets: tuple[str, ...], dirname: str, named: bool
) -> list[Diagnostic]:
    """Who can invoke the skill, and where a selected harness reads it otherwise."""
    found = []
    model_off = data.get("disable-model-invocation") is True
    if model_off and data.get("user-invocable") is False:
        found.append(
            dg.warning(
                doc.rel,
                Code.UNINVOKABLE,
                "disable-model-invocation: true and user-invocable: false: hidden from the model and "
                "from the user, no one can invoke this skill",
                *doc.pos("user-invocable"),
            )
        )
    if model_off and any_verdict(Issue.MODEL_INVOCATION_OFF, targets, Verdict.IGNORES):
        # Codex reads agents/openai.yaml instead (golden policy: implicit-off), which export writes.
        codex = (
            "; for Codex, `skillc export` writes its agents/openai.yaml policy" if "codex" in targets else ""
        )
        found.append(
            dg.warning(
                doc.rel,
                Code.TARGET_DIFFERS,
                "disable-model-invocation: true: only the user may invoke it, but a selected harness "
                f"reading this SKILL.md lists it for the model anyway"
                f"{suffix(Issue.MODEL_INVOCATION_OFF, targets)}{codex}",
                *doc.pos("disable-model-invocation"),
            )
        )
    if not named and any_verdict(Issue.NO_NAME, targets, Verdict.SKIPS):
        found.append(
            dg.warning(
                doc.rel,
                Code.TARGET_DIFFERS,
                f"no name: skillc names it after its folder, a selected harness skips it"
                f"{suffix(Issue.NO_NAME, targets)}. Add name: {dirname}",
                *doc.pos(),
            )
        )
    return found


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


def _extensions(doc: Document, data: dict[str, Any], rules: FrontmatterRules) -> tuple[Diagnostic, ...]:
    """The project's declared extension fields (`frontmatter.extensions`), held to their schemas."""
    return tuple(
        d
        for field, text in rules.extensions
        if text and field in data
        for d in schema.check_declared(doc, field, data[field], text)
    )


def _unknown_fields(doc: Document, data: dict[str, Any], rules: FrontmatterRules) -> list[Diagnostic]:
    known = schema.properties("frontmatter").union(field for field, _ in rules.extensions)
    return [
        dg.warning(
            doc.rel,
            Code.UNKNOWN_FIELD,
            f"unknown frontmatter field {key!r}{did_you_mean(key, known)}",
            *doc.key_pos(key),
        )
        for key in data
        if key not in known
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
