"""A rebuild from the previous build, held in memory, and the input files that changed.

`skillc build --watch` keeps its last build (`State`) and, when files change, reads, checks,
resolves and assembles again only the skills those files belong to: one SKILL.md parsed, one shard,
the shard table and the index encoded, the catalogs of the personas whose entry changed packed and
rendered again, a few objects written. Every other skill, pair, shard, catalog and object is the
previous build's.

It takes the edits an author makes while writing a skill: a SKILL.md (body or frontmatter) or one
of its resources edited in place. Anything else returns None and the caller builds in full: a file
added, removed, renamed or replaced by a link; a persona, overlay, exclusive body, config, template
or ignore file (also one in a skill's folder, where it is a resource too); a shadowed skill's file;
a skill whose `name`, `persona_exclusive` or `has_persona_overlay` changes; a change that brings
an error, or a document over the reader's bounds; an output another build wrote since. The result is byte for byte the whole build's:
tests/property/test_delta_sequences.py compares the two after random edit sequences.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..dataclass import dataclass, field, replace
from ..diagnostics import Diagnostic, has_errors
from ..diagnostics.policy import Policy
from ..fastjson import orjson
from ..format import layout as fmt
from ..format.shardtree import all_shards
from ..model import SKILL_MD_CAP, Artifacts, Config, Discovery, InputFile, Program, Resource, Skill
from ..output import assemble
from ..output.bounds import over_bounds
from ..output.write import WriteResult, write_delta
from ..project.ignorefiles import IGNORE_FILES
from ..stages.budget import Packing
from ..stages.buildhash import hash_lines, input_line
from ..stages.catalog import (
    CatalogParts,
    candidate,
    catalog_parts,
    catalog_skill,
    entry_cost,
    persona_catalog,
)
from ..stages.readinput import Entry, read_input
from ..stages.report import final_diagnostics
from ..stages.resolve import resolve_skill
from ..stages.skills import check_skill
from ..stages.split import plan
from ..stages.validate import settle
from .catalogrows import has, toggled
from .outcome import Summary

if TYPE_CHECKING:
    from ..format.shapes import IndexDoc, PersonaEntry
    from ..model import Resolved, SkillSource
    from ..stages.template import Template

SKILL_MD = -1  # the slot of a skill's SKILL.md among its files; a resource's is its index


@dataclass(frozen=True)
class State:
    """One build as `build --watch` rebuilds from it: what it was made of and what it wrote."""

    config: Config
    template: Template
    found: Discovery
    program: Program
    resolved: Resolved
    packings: Mapping[str, Packing]
    unordered: tuple[Diagnostic, ...]  # the diagnostics before --strict and ordering (pipeline)
    diagnostics: tuple[Diagnostic, ...]  # the report
    index: bytes  # the _index.json it wrote
    shards: Mapping[str, str]  # shard name -> object digest
    shard_refs: Mapping[str, frozenset[str]]  # shard name -> the objects its entries name
    objects: int  # how many objects the build has
    split: Any = None  # the template's split document (stages/split.py), None: it does not split
    requires: Mapping[str, Any] = field(default_factory=dict)  # the skills' requirements, by command

    @cached_property
    def document(self) -> IndexDoc:
        parsed: IndexDoc = orjson.loads(self.index)
        return parsed

    @cached_property
    def where(self) -> dict[str, tuple[str, int]]:
        """Absolute path of each file of a skill the build serves -> (command, slot)."""
        roots = [str(self.config.source_dir(i).resolve()) for i in range(len(self.config.sources))]
        found: dict[str, tuple[str, int]] = {}
        for src in self.found.skills:
            label = self.config.sources[src.source]
            base = os.path.join(roots[src.source], src.dir_rel[len(label) + 1 :])
            found[os.path.join(roots[src.source], src.skill_md.rel[len(label) + 1 :])] = (
                src.command,
                SKILL_MD,
            )
            for i, r in enumerate(src.resources):
                found[os.path.join(base, r.path)] = (src.command, i)
        return found

    @cached_property
    def positions(self) -> dict[str, int]:
        """command -> its place in found.skills."""
        return {src.command: i for i, src in enumerate(self.found.skills)}

    @cached_property
    def inputs_at(self) -> dict[str, int]:
        """An input's path -> its place in found.inputs."""
        return {f.rel: i for i, f in enumerate(self.found.inputs)}

    @cached_property
    def shard_commands(self) -> dict[str, list[str]]:
        return assemble.shard_commands(self.program.skills)

    @cached_property
    def hash_lines(self) -> list[bytes]:
        """Each input's line of the build hash, in found.inputs order."""
        return [input_line(f) for f in self.found.inputs]

    @cached_property
    def parts(self) -> CatalogParts:
        return catalog_parts(self.config, self.program, self.resolved, self.template)


def warm(state: State) -> State:
    """The state with everything a first rebuild would make already made: the watch does it before it
    waits, so that the first edit is as quick as the next."""
    for name in ("where", "positions", "inputs_at", "shard_commands", "hash_lines", "parts"):
        getattr(state, name)
    return state


class Built(Protocol):
    """A whole build as the pipeline made it and kept what it was made from (`pipeline.Compiled`,
    `keep=True`): what a State is made of."""

    @property
    def config(self) -> Config: ...
    @property
    def template(self) -> Template | None: ...
    @property
    def found(self) -> Discovery | None: ...
    @property
    def program(self) -> Program: ...
    @property
    def resolved(self) -> Resolved: ...
    @property
    def packings(self) -> Mapping[str, Packing]: ...
    @property
    def artifacts(self) -> Artifacts | None: ...
    @property
    def unordered(self) -> tuple[Diagnostic, ...]: ...  # the diagnostics before --strict and ordering
    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]: ...  # the report


def state_of(result: Built, index: bytes) -> State | None:
    """The state of a build that was written (`index`: its _index.json), or None when it cannot be one
    (no template, no artifacts, errors)."""
    art, found, template = result.artifacts, result.found, result.template
    if art is None or found is None or template is None or has_errors(result.diagnostics):
        return None
    document: IndexDoc = orjson.loads(index)
    read = _node_reader(art.files)
    shards = all_shards(document["shards"], read, fmt.INDEX)
    refs = {name: _shard_refs(art.files[fmt.object_path(digest)]) for name, digest in shards.items()}
    return State(
        result.config,
        template,
        found,
        result.program,
        result.resolved,
        result.packings,
        result.unordered,
        result.diagnostics,
        index,
        shards,
        refs,
        len(art.objects),
        _document(art, document["split"]),
        (_document(art, document["requires"]) or {}).get("requires", {}),
    )


def _document(art: Artifacts, digest: str | None) -> Any:
    return None if digest is None else orjson.loads(art.files[fmt.object_path(digest)])


@dataclass(frozen=True)
class Rebuilt:
    """A delta build, written: what `build --watch` prints, and the state to rebuild from next."""

    state: State
    written: WriteResult
    summary: Summary

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.state.diagnostics

    @property
    def output_rel(self) -> str:
        return self.state.config.output


def rebuild(state: State, changed: Iterable[Path]) -> Rebuilt | None:
    """The build after `changed` (absolute paths), written; None when a whole build must run."""
    edits = _edits(state, changed)
    if edits is None:
        return None
    if not edits:  # saved without a change: the output is current
        return Rebuilt(state, WriteResult(False, 0), _summary(state))
    made = _delta(state, edits)
    if made is None:
        return None
    new, files, objects = made
    dist = state.config.root / state.config.output
    if not write_delta(dist, files, objects, state.index):
        return None
    return Rebuilt(new, WriteResult(True, 0), _summary(new))


def _summary(state: State) -> Summary:
    program = state.program
    return Summary(len(program.skills), len(program.personas), state.objects, len(program.left_out))


# --- reading what changed ---------------------------------------------------------------------------


def _edits(state: State, changed: Iterable[Path]) -> dict[str, dict[int, InputFile]] | None:
    """command -> slot -> the file as it is now, for files whose bytes or mode changed."""
    edits: dict[str, dict[int, InputFile]] = {}
    for path in changed:
        if _reaches_every_skill(state, path):
            return None
        hit = state.where.get(str(path))
        if hit is None:
            return None
        command, slot = hit
        src = state.found.skills[state.positions[command]]
        old = src.skill_md if slot == SKILL_MD else src.resources[slot].file
        cap = SKILL_MD_CAP if slot == SKILL_MD else state.config.max_resource_bytes
        now = _read(str(path), old.rel, cap)
        if now is None:
            return None
        if now.data != old.data or now.executable != old.executable:
            edits.setdefault(command, {})[slot] = now
    return edits


def _reaches_every_skill(state: State, path: Path) -> bool:
    """An ignore file or a template file is also a resource when it lies in a skill's folder, but
    editing it changes what the walk keeps or every catalog: only a whole build can say."""
    if path.name in IGNORE_FILES:
        return True
    folder = state.config.template.parent
    names = [line.split(b"\0")[0].decode() for line in state.template.source.splitlines()]
    return path.resolve() in {(folder / name).resolve() for name in names} | {state.config.template.resolve()}


def _read(path: str, rel: str, cap: int) -> InputFile | None:
    """The file as discover reads it (`discover.read_input`: a regular file, never through a link,
    at most `cap` bytes), or None for anything discover would report or skip."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    problems: list[Diagnostic] = []
    entry = Entry(rel, path, bool(st.st_mode & 0o111), (st.st_dev, st.st_ino))
    found = read_input(entry, rel, cap, problems)
    return None if problems else found


# --- the stages, for the edited skills only ---------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """One edited skill, checked before and after."""

    new_src: SkillSource
    skill: Skill  # the new one, linked like the old one
    old_diags: tuple[Diagnostic, ...]  # its settled diagnostics, as validate reported them
    new_diags: tuple[Diagnostic, ...]


def _delta(
    state: State, edits: dict[str, dict[int, InputFile]]
) -> tuple[State, dict[str, bytes], frozenset[str]] | None:
    policy = Policy(state.config.severities, state.config.path_severities)
    checked = {}
    for command in sorted(edits):
        one = _check(state, command, edits[command], policy)
        if one is None:
            return None
        checked[command] = one
    program = _program(state, checked)
    if program is None:
        return None
    resolved = dict(state.resolved)
    for command in checked:
        resolved[command] = resolve_skill(program, command)
    parts, personas = _catalog_parts(state, program, resolved, checked)
    texts = {
        pid: persona_catalog(state.config, program, program.personas[pid], state.template, parts)
        for pid in personas
    }
    packings = {**state.packings, **{pid: packing for pid, (_, packing) in texts.items()}}
    unordered = _unordered(state, checked, texts, policy)
    if unordered is None:
        return None
    found = _discovery(state, checked)
    return _assemble(state, _Made(found, program, resolved, packings, texts, checked, unordered, parts))


def _program(state: State, checked: dict[str, Checked]) -> Program | None:
    """The program with the edited skills, and their diagnostics in place of their old ones."""
    skills = dict(state.program.skills)
    for command, one in checked.items():
        skills[command] = one.skill
    diags = spliced(state.program.diagnostics, [(one.old_diags, one.new_diags) for one in checked.values()])
    if diags is None:
        return None
    return replace(state.program, skills=skills, diagnostics=diags, own=owned(state.program.own, checked))


def owned(
    own: Mapping[str, tuple[Diagnostic, ...]], checked: Mapping[str, Checked]
) -> dict[str, tuple[Diagnostic, ...]]:
    """`Program.own` with the edited skills' diagnostics."""
    new = dict(own)
    for command, one in checked.items():
        if one.new_diags:
            new[command] = one.new_diags
        else:
            new.pop(command, None)
    return new


def _unordered(
    state: State, checked: dict[str, Checked], texts: dict[str, tuple[str, Packing]], policy: Policy
) -> tuple[Diagnostic, ...] | None:
    """The build's diagnostics before --strict and ordering (pipeline._back's), the edited skills'
    and the repacked catalogs' replaced."""
    changes = [(one.old_diags, one.new_diags) for one in checked.values()]
    changes += [
        (tuple(policy.apply(state.packings[pid].diagnostics)), tuple(policy.apply(packing.diagnostics)))
        for pid, (_, packing) in texts.items()
    ]
    return spliced(state.unordered, changes)


def spliced(
    diags: tuple[Diagnostic, ...], changes: list[tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]]
) -> tuple[Diagnostic, ...] | None:
    """`diags` with each change's old diagnostics taken out and its new ones put in (the same tuple
    when nothing changes); None when an old one is not there to take out."""
    if all(old == new for old, new in changes):
        return diags
    counted = Counter(diags)
    for old, new in changes:
        counted.subtract(old)
        counted.update(new)
    if min(counted.values(), default=0) < 0:
        return None  # not the diagnostics the build reported: build in full rather than guess
    return tuple(counted.elements())


def _check(state: State, command: str, files: dict[int, InputFile], policy: Policy) -> Checked | None:
    """The skill with its new files, checked as validate checks it; None when the change reaches
    beyond the skill (its name, exclusivity, overlay flag) or brings an error."""
    served = state.program.skills.get(command)
    if served is None:  # left out of the build (it had errors)
        return None
    if served.path != state.found.skills[state.positions[command]].skill_md.rel:
        return None  # an earlier source's copy, served for this one left out (validate._earlier_copies)
    return check_edit(served, state.program.own.get(command, ()), _with(state, command, files), policy)


def check_edit(
    served: Skill, old_diags: tuple[Diagnostic, ...], new_src: SkillSource, policy: Policy
) -> Checked | None:
    """A served skill (`served`, with its settled diagnostics) checked again from its new files; None
    when the change reaches beyond the skill or brings an error. The edit build (edit.py) shares it."""
    new, found = check_skill(new_src)
    if new is None or _reach(served) != _reach(new):
        return None
    new_diags = settle(new_src, [*new_src.problems, *found], policy, True)
    if has_errors(new_diags):
        return None
    linked = replace(new, parent=served.parent, children=served.children)
    return Checked(new_src, linked, old_diags, tuple(new_diags))


def _with(state: State, command: str, files: dict[int, InputFile]) -> SkillSource:
    old_src = state.found.skills[state.positions[command]]
    return replace(
        old_src,
        skill_md=files.get(SKILL_MD, old_src.skill_md),
        resources=tuple(Resource(r.path, files.get(i, r.file)) for i, r in enumerate(old_src.resources)),
    )


def _reach(skill: Skill) -> tuple[Any, ...]:
    """What other skills and the personas read of a skill: the rest is the skill's own."""
    return (
        skill.name,
        skill.anchors.get("name"),
        skill.flag("persona_exclusive"),
        skill.flag("has_persona_overlay"),
    )


def _discovery(state: State, checked: dict[str, Checked]) -> Discovery:
    skills = list(state.found.skills)
    inputs = list(state.found.inputs)
    for command, one in checked.items():
        skills[state.positions[command]] = one.new_src
        for file in files_of(one.new_src):
            inputs[state.inputs_at[file.rel]] = file
    return replace(state.found, skills=tuple(skills), inputs=tuple(inputs))


def files_of(src: SkillSource) -> tuple[InputFile, ...]:
    """A served skill's input files: its SKILL.md, then its resources."""
    return (src.skill_md, *(r.file for r in src.resources))


def _catalog_parts(
    state: State, program: Program, resolved: Resolved, checked: dict[str, Checked]
) -> tuple[CatalogParts, list[str]]:
    """The catalog parts with the edited skills' entries, and the personas whose catalog they change."""
    parts = state.parts
    entries, candidates = dict(parts.entries), dict(parts.candidates)
    listed = dict(parts.listed)
    touched: set[str] = set()
    for command in checked:
        skill = program.skills[command]
        entry = catalog_skill(skill, state.template)
        made = candidate(skill, entry_cost(entry, state.template), state.template, state.config)
        same = entry == parts.entries[command] and made == parts.candidates.get(command, made)
        entries[command] = entry
        candidates[command] = made  # looked up only for the personas that list it
        for pid in program.personas:
            now = resolved[command].outcomes.get(pid)
            was = has(listed[pid], command)
            wanted = now is not None and now.model
            if was != wanted:
                listed[pid] = toggled(listed[pid], command, wanted)
            if (was or wanted) and (was != wanted or not same):
                touched.add(pid)
    new = CatalogParts(entries, candidates, listed)
    return new, [pid for pid in program.personas if pid in touched]


# --- assembly ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Made:
    """The stages' results for a delta build, before assembly."""

    found: Discovery
    program: Program
    resolved: Resolved
    packings: dict[str, Packing]
    texts: dict[str, tuple[str, Packing]]  # the repacked personas' catalogs
    checked: dict[str, Checked]
    unordered: tuple[Diagnostic, ...]
    parts: CatalogParts


class _Files:
    """What a delta build writes: the files of each assembly step, gathered."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.objects: set[str] = set()
        self.documents: set[str] = set()

    def take(self, out: assemble.Objects) -> None:
        for rel in out.files:
            self.files[rel] = out.files[rel]
        self.objects.update(out.objects)
        self.documents.update(out.documents)


def _assemble(state: State, made: _Made) -> tuple[State, dict[str, bytes], frozenset[str]] | None:
    config, program = state.config, made.program
    written = _Files()
    personas: dict[str, PersonaEntry] = dict(state.document["personas"])
    for pid, (text, packing) in made.texts.items():
        out = assemble.Objects()
        planned = plan(state.split, pid, text, packing, program.skills.__getitem__)
        personas[pid] = assemble.persona_entry(
            program.personas[pid], text, packing, state.template.suffix, out, planned
        )
        written.take(out)
    shards, refs = _shards(state, made, written)
    out = assemble.Objects()
    root = assemble.table(shards, out)
    nodes = frozenset(out.objects)
    written.take(out)
    lines, digest = _build_hash(state, made.checked)
    requires = assemble.requirements_after(state.requires, {c: program.skills[c] for c in made.checked})
    out = assemble.Objects()
    rest = {**state.document, "requires": assemble.requires_object(requires, out)}  # the rest as it was
    written.take(out)
    document = assemble.index_document(config, digest, personas, root, rest)
    index = assemble.encode(document)
    written.files[fmt.INDEX] = index
    art = Artifacts(written.files, frozenset(written.objects), digest, frozenset(written.documents))
    if over_bounds(art, config.config_rel):
        return None  # the whole build reports them, with everything else
    same = made.unordered is state.unordered
    report = state.diagnostics if same else final_diagnostics(config, not program.skills, made.unordered)
    if has_errors(report):  # --strict made a new warning one: the whole build fails, writing nothing
        return None
    every = set().union(*refs.values(), nodes, (fmt.object_path(d) for d in shards.values()))
    every.update(fmt.object_path(d) for d in assemble.index_objects(document))
    new = State(
        config,
        state.template,
        made.found,
        program,
        made.resolved,
        made.packings,
        made.unordered,
        report,
        index,
        shards,
        refs,
        len(every),
        state.split,
        requires,
    )
    # What a delta leaves as it was (the same files, skills and shards), or made for this build,
    # goes into the new state's cached_property slots.
    kept = {k: v for k, v in vars(state).items() if k in _CARRIED}
    vars(new).update(kept, parts=made.parts, hash_lines=lines)
    return new, written.files, frozenset(written.objects)


_CARRIED = ("where", "positions", "inputs_at", "shard_commands")


def _shards(state: State, made: _Made, written: _Files) -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """Every shard's digest and the objects it names, the edited skills' shards made again."""
    program = made.program
    shards, refs = dict(state.shards), dict(state.shard_refs)
    ids = tuple(program.personas)
    digits = fmt.shard_digits(len(program.skills))
    for name in sorted({fmt.shard_of(c, digits) for c in made.checked}):
        out = assemble.Objects()
        commands = state.shard_commands[name]
        shards[name] = assemble.shard(state.config, program, made.resolved, ids, name, commands, out)
        refs[name] = frozenset(out.objects - out.documents)
        written.take(out)
    return shards, refs


def _build_hash(state: State, checked: dict[str, Checked]) -> tuple[list[bytes], str]:
    """The build hash's input lines with the edited files', and the hash."""
    lines = list(state.hash_lines)
    for one in checked.values():
        for file in files_of(one.new_src):
            lines[state.inputs_at[file.rel]] = input_line(file)
    return lines, hash_lines(state.config, state.template.source, lines)


# --- reading the first state's shards ---------------------------------------------------------------


def _node_reader(files: Mapping[str, bytes]) -> Any:
    def read(digest: str, prefix: str) -> Any:
        return orjson.loads(files[fmt.object_path(digest)])

    return read


def _shard_refs(data: bytes) -> frozenset[str]:
    """The objects a shard's entries name: bodies, resolved bodies, resources."""
    found: set[str] = set()
    for entry in orjson.loads(data)["skills"].values():
        found.add(entry["body"])
        found.update(r["sha256"] for r in entry["resources"])
        for res in (entry["default"], *entry["exceptions"].values()):
            if res is not None:
                found.add(res["body"])
    return frozenset(fmt.object_path(d) for d in found)
