"""The edit build: the build after some inputs changed, made from the last one, for `skillc build`
(from the cache, `edit_build`) and `build --watch` (from the last build it keeps, `rebuild`).

It learns what changed from discover, never from rules of its own: each change (a path that moved
since the recorded walk, walk.py, or that the watch reports) goes to discover, which names the
folder it walks alone as a whole walk would (`closed_folder`), walks it (`discover_under`) and
answers for the source and across sources (`source_notes`, `Across`). Its answer against the last
build's (carry.py) is the change: skills edited, added, removed. Anything else discover or a rule
across skills would say leaves the build to the cached build, which reports it.

Only those skills go through the stages, on the whole build's functions; the other entries are
their shards in the output, the catalogs that list a changed skill are packed again (first fit
resumed where the last packing provably stands, `budget.refit`), and the table, the index and the
build hash are made again. tests/property/test_incremental_sequences.py holds it to clean builds.
"""

from __future__ import annotations

import bisect
import os
import stat
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .. import fs
from ..dataclass import dataclass, replace
from ..diagnostics import Diagnostic, has_errors
from ..diagnostics.policy import Policy
from ..digests import sha256_hex
from ..errors import TemplateFailure
from ..fastjson import orjson
from ..format import layout as fmt
from ..model import Artifacts, Config, Persona, Program, Skill, SkillSource, Strategy
from ..names.paths import run_below
from ..output import assemble
from ..output.bounds import over_bounds
from ..output.write import WriteResult, write_delta
from ..stages import discover
from ..stages.budget import Packing, packed, refit
from ..stages.buildhash import hash_lines, input_line
from ..stages.catalog import (
    CatalogParts,
    Entries,
    candidate,
    candidate_of,
    catalog_skill,
    catalog_text,
    cost_of,
    entry_cost,
    entry_fields,
    frame,
    persona_catalog,
    row,
    skill_of,
)
from ..stages.personas import names_near
from ..stages.report import final_diagnostics
from ..stages.resolve import resolve_skill
from ..stages.seen import Seen
from ..stages.skills import check_skill
from ..stages.split import plan
from ..stages.validate import linked, names_read, settle, shares_name
from .carry import Carry, Catalog, load, load_catalog, new_catalog_id
from .carry import save as save_carry
from .outcome import Stats, Summary
from .quick import Early, same_output, signature_after
from .records import Record, Records, build_key, debris
from .walk import Stat, Walk, renewed, stamp_now

if TYPE_CHECKING:
    from ..format.shapes import IndexDoc, PersonaEntry, SkillDoc
    from ..model import Outcome
    from ..stages.template import Template


@dataclass(frozen=True)
class Edited:
    """A build made by editing the last one (written, or already current): what `skillc build` prints."""

    config: Config
    summary: Summary
    diagnostics: tuple[Diagnostic, ...]
    cache: Stats
    ok: ClassVar[bool] = True

    @property
    def output(self) -> Path:
        return self.config.root / self.config.output

    @property
    def output_rel(self) -> str:
        return self.config.output


class _Declined(Exception):
    """The edit build cannot make this build (the message says why): the cached build makes it."""


def edit_build(early: Early) -> tuple[Edited, WriteResult] | str:
    """The build after the changes `early` found, written and recorded; or why the cached build must
    make it (nothing written then). Before the config is loaded: the quick path has checked the
    bytes of the config and everything it reads, and the carry holds the config they make."""
    try:
        return _Recorded(early).build()
    except _Declined as declined:
        return str(declined)
    except TemplateFailure:  # the stages report it, with everything else
        return "the template failed"
    except OSError as exc:
        return f"cannot read or write: {exc}"
    except Exception as exc:  # a bug of skillc's: the cached build still makes the right build
        return f"internal error: {exc!r}"


def ahead(records: Records) -> Carry | None:
    """What an edit build of the recorded build reads first, its carry, read (and this module and
    the stages it uses imported) while the quick path waits for a child's lstats (quick_replay's
    `meanwhile`)."""
    record = records.record()
    return None if record is None else load(records.directory, records.signing_key, record.build_key)


@dataclass(frozen=True)
class Kept:
    """What `build --watch` keeps of its last build to rebuild from: the carry, its catalog rows and
    the index it wrote."""

    carry: Carry
    catalog: Catalog
    index: bytes


def kept(config_path: Path) -> Kept | None:
    """The last build as the cache recorded it, to rebuild from (None: the cache holds none)."""
    from .quick import records_for

    records = records_for(config_path)
    record = None if records is None else records.record()
    if records is None or record is None:
        return None
    carry = load(records.directory, records.signing_key, record.build_key)
    if carry is None or carry.config is None:
        return None
    catalog = load_catalog(records.directory, records.signing_key, carry)
    try:
        index = fs.read_regular(carry.config.root / carry.config.output / fmt.INDEX, fmt.MAX_INDEX_BYTES)
    except OSError:
        return None
    return Kept(carry, catalog, index) if catalog is not None and sha256_hex(index) == carry.index else None


@dataclass(frozen=True)
class Rebuilt:
    """A build `rebuild` made and wrote: what `build --watch` prints, and what it keeps next."""

    kept: Kept
    diagnostics: tuple[Diagnostic, ...]
    summary: Summary
    written: WriteResult
    output_rel: str


def rebuild(last: Kept, changed: Iterable[Path]) -> Rebuilt | None:
    """The build after `changed` (the paths the watch saw change), made from `last` and written;
    None when a whole build must make it (why is not said: the watch's whole build reports)."""
    from ..project.config import side_files

    try:
        edit = _Edit(last.carry, last.catalog)
        entries = [(str(path), path.is_dir() and not path.is_symlink()) for path in changed]
        if {where for where, _ in entries} & set(side_files(edit.config, last.carry.template[0])):
            return None  # the config side, which the carry holds as it was (a template in a skill's folder)
        made = edit.made(entries, (os.listdir, os.lstat))
    except (_Declined, TemplateFailure, OSError):
        return None
    config = edit.config
    if made.carry is not None and not write_delta(edit.dist, made.files, made.objects, last.index):
        return None
    carry = made.carry or last.carry
    index = made.files.get(fmt.INDEX, last.index)
    report = final_diagnostics(config, carry.counts[0] == 0, carry.unordered)
    written = WriteResult(made.carry is not None, 0)
    catalog = made.catalog or last.catalog
    return Rebuilt(Kept(carry, catalog, index), report, Summary(*carry.counts), written, config.output)


@dataclass(frozen=True)
class _Made:
    """An edit build made, not yet written."""

    carry: Carry | None  # the new carry; None: nothing changed, nothing to write
    catalog: Catalog | None  # the catalog rows, when they changed
    files: Mapping[str, bytes]  # the files to write into the output
    objects: frozenset[str]  # which of them are objects
    dropped: set[str]  # the objects the last build named that this one does not
    stats: Stats
    same_report: bool  # the diagnostics are the last build's
    build_hash: str = ""


@dataclass(frozen=True)
class _Changed:
    """What discover's answers say changed: skills edited (their new sources; the last build served
    them), added and removed, and each source's skill folders and hidden ones after."""

    edits: dict[str, SkillSource]
    added: dict[str, SkillSource]
    removed: dict[str, int]  # command -> its source
    folders: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]

    def __bool__(self) -> bool:
        return bool(self.edits or self.added or self.removed)


class _Edit:
    """One edit build from the last build (`carry`), step by step; every step may decline."""

    def __init__(self, carry: Carry, catalog: Catalog | None = None) -> None:
        if carry.config is None:
            raise _Declined("a config the carry cannot hold")
        self.carry, self.config = carry, carry.config
        self.found = carry.found
        self.dist = self.config.root / self.config.output
        self.policy = Policy(self.config.severities, self.config.path_severities)
        self.ids = tuple(carry.personas)
        self.digits = fmt.shard_digits(carry.counts[0])
        self.docs: dict[str, dict[str, Any]] = {}  # shard name -> its document, as read
        self.totals: dict[str, int] = {}  # persona -> its catalog's candidates' cost, for those repacked
        self.given = catalog
        self.read_catalog: Catalog | None = None
        self.walked: list[tuple[int, str]] = []  # the folders discover walked again (`made`)
        self.measured = 0  # catalog rows made again
        self.least: tuple[Catalog | None, int] = (None, 0)  # `_least`'s, for the catalog it was made for
        self._dirs: dict[int, set[str]] = {}

    # --- what changed, as discover says ------------------------------------------------------------

    @cached_property
    def roots(self) -> list[tuple[str, int]]:
        """Where each source is (as discover walks it, and as the watch names it: its real path), and
        the personas folder (-1), the deepest first: a source nested in another owns its paths."""
        config = self.config
        found = [(str(config.source_dir(i)), i) for i in range(len(config.sources))]
        if config.personas:
            found.append((str(config.root / config.personas), -1))
        found += [(os.path.realpath(where), i) for where, i in found]
        return sorted(set(found), key=lambda root: len(root[0]), reverse=True)

    def units(self, entries: Iterable[tuple[str, bool]]) -> list[tuple[int, str]]:
        """The folders discover walks again for changed entries (where, whether a folder): for
        each, the folder `closed_folder` names, none below another."""
        found: set[tuple[int, str]] = set()
        for where, folder in entries:
            index, rel = self._place(where)
            if index not in self._dirs:
                self._dirs[index] = set(self.found.folders[index][0])
            found.add((index, discover.closed_folder(rel, folder, self._dirs[index])))
        return [(i, u) for i, u in sorted(found) if not any(j == i and _below(u, v) for j, v in found)]

    def _place(self, where: str) -> tuple[int, str]:
        for root, index in self.roots:
            if where.startswith(root + "/"):
                if index < 0:
                    raise _Declined("a file of the personas")
                return index, where[len(root) + 1 :]
        raise _Declined("a path outside the sources")

    def changed(self, units: list[tuple[int, str]], lister: tuple[Any, Any]) -> _Changed:
        """Discover's answer below each unit against the last build's there."""
        config, found = self.config, self.found
        folders = list(found.folders)
        edits: dict[str, SkillSource] = {}
        added: dict[str, SkillSource] = {}
        removed: dict[str, int] = {}
        for index, unit in units:
            dirs, hidden = folders[index]
            label = config.sources[index]
            _unchanged, old = _replaced(dirs, unit, ())
            self._quiet(_at(label, unit), {_at(_at(label, c), n) for c in old for n in discover.SKILL_FILES})
            part = discover.discover_under(config, index, unit, lister)
            if part is None or part.read or part.problems or part.loose or part.linked:
                raise _Declined("discover reports something there, or walks it only with its source")
            new = {discover.folder_of(config, src): src for src in part.skills}
            now_dirs, old = _replaced(dirs, unit, new)
            for folder, src in new.items():
                if folder not in old:
                    added[src.command] = src
                elif self._differs(src.command, src):
                    edits[src.command] = src
            removed.update((discover.command_at(config, index, d), index) for d in old - new.keys())
            folders[index] = (now_dirs, _replaced(hidden, unit, part.hidden)[0])
        for index, (dirs, hidden) in enumerate(found.folders):
            if folders[index] != (dirs, hidden) and discover.source_notes(
                config, index, dirs, list(hidden)
            ) != discover.source_notes(config, index, folders[index][0], list(folders[index][1])):
                raise _Declined("what discover says of a source changes")
        if edits or added or removed:
            across = discover.Across(
                [discover.command_at(config, i, d) for i, (dirs, _) in enumerate(folders) for d in dirs]
            )
            if any(across.moved(c, c in added) for c in (*added, *removed)):
                raise _Declined("a command another folder has, or one like another")
            if any(across.touches(c) for c in edits):
                raise _Declined("a skill discover says more of with other skills")
        return _Changed(edits, added, removed, tuple(folders))

    def _quiet(self, folder: str, skill_files: set[str]) -> None:
        """Decline unless the last build's discover said nothing of its own below `folder` but of
        its skills (`skill_files`: their SKILL.md files, which the set of skills decides of: an
        override, a look-alike), read no ignore file there, and no other walked root lies below it."""
        below = folder + "/"
        labels = [*self.config.sources, *([self.config.personas] if self.config.personas else [])]
        if any(label.startswith(below) for label in labels):
            raise _Declined("a source inside the folder")
        if any(rel.startswith(below) for rel in self.found.ignore_files):
            raise _Declined("an ignore file")
        said = (d.path for d in self.found.diagnostics if d.path == folder or d.path.startswith(below))
        if any(path not in skill_files for path in said):
            raise _Declined("discover reported something there")

    def _differs(self, command: str, src: SkillSource) -> bool:
        """Whether a skill discover found again is not the one the last build served: other files,
        other bytes or modes, other problems."""
        entry = self._entry(command)
        label = self.config.sources[src.source]
        if entry is None or entry["source"] != label:
            raise _Declined("a skill the last build did not serve")
        if src.skill_md.rel != entry["path"]:
            raise _Declined("a SKILL.md of another name")  # what discover says of the set may name it
        was = [entry["path"], *_resources(entry)]
        now = {f.rel: input_line(f).decode() for f in _files_of(src)}
        return (
            sorted(was) != sorted(now)
            or any(self._line(rel) != now[rel] for rel in was)
            or src.problems != self.found.problems.get(command, ())
        )

    def _line(self, rel: str) -> str:
        """The input's line of the last build hash (buildhash.input_line, as text)."""
        lines = self.found.lines
        at = _line_place(lines, rel)
        end = lines.index("\n", at) + 1 if at < len(lines) else at
        return lines[at:end] if lines.startswith(rel + "\0", at) else ""

    def _entry(self, command: str) -> SkillDoc | None:
        shard = fmt.shard_of(command, self.digits)
        if shard not in self.carry.shards:
            return None
        entry: SkillDoc | None = self._doc(shard)["skills"].get(command)
        return entry

    def _doc(self, shard: str) -> dict[str, Any]:
        """A shard's document as the last build wrote it, checked against its digest."""
        if shard not in self.docs:
            digest_ = self.carry.shards.get(shard)
            if digest_ is None:
                raise _Declined("a shard is not the recorded one")
            self.docs[shard] = orjson.loads(self._object(digest_))
        return self.docs[shard]

    def _object(self, digest_: str) -> bytes:
        data = fs.read_regular(self.dist / fmt.object_path(digest_), 1 << 40, follow=False)
        if sha256_hex(data) != digest_:
            raise _Declined("an object in the output was changed")  # the cached build writes it again
        return data

    # --- the stages, for the changed skills only ---------------------------------------------------

    def made(self, entries: Iterable[tuple[str, bool]], lister: tuple[Any, Any]) -> _Made:
        """The build after the changed entries, made up to its first write."""
        self.totals, self.measured = {}, 0
        self.walked = self.units(entries)
        changed = self.changed(self.walked, lister)
        if not changed:  # saved without a change, or touched: the last build stands
            stats = Stats(replayed=True, unread=not self.walked, quick=True)
            return _Made(None, None, {}, frozenset(), set(), stats, True)
        return self._rebuild(changed)

    def _rebuild(self, changed: _Changed) -> _Made:
        carry, config = self.carry, self.config
        skills = carry.counts[0] + len(changed.added) - len(changed.removed)
        if fmt.shard_digits(skills) != self.digits:
            raise _Declined("a shard name of another length")
        self._alone(changed)
        checked = {
            c: self._checked(src, c in changed.edits)
            for c, src in sorted({**changed.edits, **changed.added}.items())
        }
        program = Program({c: one.skill for c, one in checked.items()}, carry.personas, carry.exclusive, ())
        outcomes = {c: resolve_skill(program, c).outcomes for c in checked}
        texts, catalog = self._catalogs(changed, checked, outcomes)
        out = assemble.Objects()
        last: IndexDoc = orjson.loads(self._index())
        personas: dict[str, PersonaEntry] = dict(last["personas"])
        persona_files = assemble.index_objects(last)  # the last build's
        split = orjson.loads(self._object(last["split"])) if texts and last["split"] else None
        for pid, (text, packing) in texts.items():
            assert catalog is not None  # catalogs made again come with their rows (`_catalogs`)
            planned = plan(split, pid, text, packing, _Rows(catalog.rows).__getitem__)
            personas[pid] = assemble.persona_entry(
                carry.personas[pid], text, packing, carry.template[1], out, planned
            )
        shards, refs = self._shards(changed, checked, outcomes, out)
        before = set(out.objects)
        root = assemble.table(shards, out)
        nodes = {rel.rsplit("/", 1)[1] for rel in out.objects - before}
        lines = self._lines(changed)
        build_hash = hash_lines(config, carry.template[0], [lines.encode()])
        now = {**dict.fromkeys(changed.removed), **{c: one.skill for c, one in checked.items()}}
        document = assemble.index_after(config, build_hash, personas, root, last, now, self._object, out)
        new_index = assemble.encode(document)
        out.files[fmt.INDEX] = new_index
        art = Artifacts(out.files, frozenset(out.objects), build_hash, frozenset(out.documents))
        if over_bounds(art, config.config_rel):
            raise _Declined("an over-bounds document")
        unordered = self._spliced(carry.unordered, self._diagnostics(changed, checked, texts))
        report = final_diagnostics(config, skills == 0, unordered)
        if has_errors(report):  # --strict made a new warning one: the cached build reports it
            raise _Declined("an error in the report")
        live = set(refs) | set(shards.values()) | nodes | assemble.index_objects(document)
        # Every object the last build used, less those this one uses: what it leaves over (`_record`)
        used = (
            persona_files
            | carry.refs.keys()
            | set(carry.shards.values())
            | assemble.table_nodes(carry.shards)
        )
        problems = {c: p for c, p in self.found.problems.items() if c not in changed.removed}
        problems.update((c, src.problems) for c, src in (*changed.edits.items(), *changed.added.items()))
        found = replace(
            self.found,
            lines=lines,
            problems={c: p for c, p in problems.items() if p},
            folders=changed.folders,
        )
        early = self._spliced(carry.early, self._problems(changed))
        new = replace(
            carry,
            key="",  # the build key, which the cache's fingerprint makes (`_Recorded`)
            index=sha256_hex(new_index),
            found=found,
            anchors=self._anchors(changed, checked),
            own={c: d for c, d in _owned(carry.own, checked).items() if c not in changed.removed},
            shards=shards,
            refs=refs,
            packings={**carry.packings, **{pid: p.diagnostics for pid, (_, p) in texts.items()}},
            included={**carry.included, **{pid: list(p.included) for pid, (_, p) in texts.items()}},
            totals={**carry.totals, **self.totals},
            unordered=unordered,
            early=early,
            counts=(skills, carry.counts[1], len(live), carry.counts[3]),
            catalog=carry.catalog if catalog is None else new_catalog_id(),
        )
        stats = Stats(len(checked), 0, self.measured, len(texts), edited=True)
        same = unordered == carry.unordered and (skills == 0) == (carry.counts[0] == 0)
        return _Made(new, catalog, out.files, frozenset(out.objects), used - live, stats, same, build_hash)

    def _index(self) -> bytes:
        """The output's index, when it is the one the last build wrote."""
        index = fs.read_regular(self.dist / fmt.INDEX, fmt.MAX_INDEX_BYTES, follow=False)
        if sha256_hex(index) != self.carry.index:
            raise _Declined("the output's index is not the recorded one")
        return index

    def _alone(self, changed: _Changed) -> None:
        """Decline unless adding or removing each skill changes no other skill's entry and no
        diagnostic but its own, as each rule across skills says: validate's links and shared names,
        the personas' lookups (and --skip-invalid, which leaves skills out by the set)."""
        moved = [*changed.added, *changed.removed]
        if moved and self.config.skip_invalid:
            raise _Declined("settings that read the set of skills")
        everyone = {c for dirs, _hidden in changed.folders for c in dirs} if moved else set()
        for command in changed.removed:
            entry = self._entry(command)
            if entry is None or entry["source"] != self.config.sources[changed.removed[command]]:
                raise _Declined("a folder that held no served skill")
            if entry["frontmatter"].get("persona_exclusive") or entry["frontmatter"].get(
                "has_persona_overlay"
            ):
                raise _Declined("a removed skill that reached beyond itself")
            self._unique(command, entry["name"])
        for command in moved:
            if linked(everyone - {command}, command):
                raise _Declined("a parent or child skill")
            if names_near(self.carry.lookups, everyone - {command}, command):
                raise _Declined("a persona names the skill, or one like it")

    def _checked(self, src: SkillSource, edit: bool) -> _Checked:
        """A skill found again (`edit`) or new, checked as validate checks it; declined when the
        change reaches beyond the skill (its `name`, its persona flags) or brings an error."""
        command = src.command
        skill, found = check_skill(src)
        if skill is None:
            raise _Declined("a skill that does not parse")
        served = self._served(command) if edit else None
        if served is None:
            if skill.flag("persona_exclusive") or skill.flag("has_persona_overlay"):
                raise _Declined("a new skill that reaches beyond itself")
            self._unique(command, skill.name)
        elif _reach(served) != _reach(skill):
            raise _Declined("the edit reaches beyond the skill")
        else:
            skill = replace(skill, parent=served.parent, children=served.children)
        settled = tuple(settle(src, [*src.problems, *found], self.policy, True))
        if has_errors(settled):
            raise _Declined("a skill with an error")
        return _Checked(src, skill, self.carry.own.get(command, ()), settled)

    def _served(self, command: str) -> Skill | None:
        """The skill as the last build served it, from its entry (what `_reach` compares)."""
        entry = self._entry(command)
        if entry is None:
            return None
        line, col = self.carry.name_at(command)
        return Skill(
            command=command,
            name=entry["name"],
            description=entry["description"],
            source=self.config.sources.index(entry["source"]),
            path=entry["path"],
            dir_rel=entry["path"].rpartition("/")[0],
            body="",
            fields=entry["frontmatter"],
            resources=(),
            parent=entry["parent"],
            children=tuple(entry["children"]),
            anchors={"name": (line, col)} if line else {},
        )

    def _unique(self, command: str, name: str) -> None:
        """A skill added or removed shares its `name` with no other skill, when a rule reads names
        (validate.names_read)."""
        if names_read(self.config) and shares_name(self.catalog.names, command, name):
            raise _Declined("a name another skill has")

    def _diagnostics(
        self, changed: _Changed, checked: dict[str, _Checked], texts: dict[str, tuple[str, Packing]]
    ) -> list[tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]]:
        """Each change to the report before ordering: the checked skills' own, the removed ones',
        the repacked catalogs'."""
        changes = [(one.old, one.new) for one in checked.values()]
        changes += [(self.carry.own.get(c, ()), ()) for c in changed.removed]
        changes += [
            (tuple(self.policy.apply(self.carry.packings[pid])), tuple(self.policy.apply(p.diagnostics)))
            for pid, (_, p) in texts.items()
        ]
        return changes

    def _problems(self, changed: _Changed) -> list[tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]]:
        """Each skill's problems (discover's) out of the build key's diagnostics and in again."""
        was = self.found.problems
        changes = [(was.get(c, ()), src.problems) for c, src in changed.edits.items()]
        changes += [((), src.problems) for src in changed.added.values()]
        return changes + [(was.get(c, ()), ()) for c in changed.removed]

    @staticmethod
    def _spliced(
        diags: tuple[Diagnostic, ...], changes: list[tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]]
    ) -> tuple[Diagnostic, ...]:
        """`diags` with each change's old diagnostics taken out and its new ones put in (the same
        tuple when nothing changes); declined when an old one is not there to take out."""
        if all(old == new for old, new in changes):
            return diags
        counted = Counter(diags)
        for old, new in changes:
            counted.subtract(old)
            counted.update(new)
        if min(counted.values(), default=0) < 0:
            raise _Declined("diagnostics that are not the recorded ones")
        return tuple(counted.elements())

    def _lines(self, changed: _Changed) -> str:
        """The build hash's input lines, in path order: the changed skills' files' put in place of
        theirs (a skill's files are its folder's run of lines, less its children's)."""
        touched: dict[str, str | None] = {}
        for command in (*changed.edits, *changed.removed):
            entry = self._entry(command)
            assert entry is not None
            touched.update((rel, None) for rel in (entry["path"], *_resources(entry)))
        for src in (*changed.edits.values(), *changed.added.values()):
            touched.update((f.rel, input_line(f).decode()) for f in _files_of(src))
        return _patched(self.found.lines, touched)

    def _anchors(self, changed: _Changed, checked: dict[str, _Checked]) -> dict[str, tuple[int, int]]:
        anchors = {c: at for c, at in self.carry.anchors.items() if c not in changed.removed}
        for command in changed.added:
            at = checked[command].skill.anchors.get("name", (0, 0))
            if at != self.carry.anchor:
                anchors[command] = at
        return anchors

    def _shards(
        self,
        changed: _Changed,
        checked: dict[str, _Checked],
        outcomes: dict[str, Mapping[str, Outcome]],
        out: assemble.Objects,
    ) -> tuple[dict[str, str], dict[str, int]]:
        """Every shard's digest, and the entries' references, with the changed skills' entries."""
        shards, refs = dict(self.carry.shards), Counter(self.carry.refs)
        commands = sorted({*checked, *changed.removed})
        for shard in sorted({fmt.shard_of(c, self.digits) for c in commands}):
            doc = dict(self._doc(shard)) if shard in shards else assemble.shard_document(shard, {})
            entries: dict[str, Any] = dict(doc["skills"])  # a copy: the last build's, as read, stands
            for command in (c for c in commands if fmt.shard_of(c, self.digits) == shard):
                if command in entries:
                    refs.subtract(assemble.entry_refs(entries.pop(command)))
                if command in checked:
                    skill = checked[command].skill
                    entries[command] = assemble.skill_entry(
                        self.config, skill, outcomes[command], self.ids, out
                    )
            doc["skills"] = dict(sorted(entries.items()))  # in command order, as assembly makes them
            if doc["skills"]:
                shards[shard] = out.put_document(assemble.encode(doc))
            else:
                del shards[shard]
        refs.update(out.refs)
        return dict(sorted(shards.items())), {d: n for d, n in refs.items() if n > 0}

    # --- catalogs -----------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The catalog rows the last build left, read when a catalog or a name list changes."""
        if self.given is not None:
            return self.given
        if self.read_catalog is None:
            self.read_catalog = self._load_catalog()
            if self.read_catalog is None:
                raise _Declined("no catalog rows")
        return self.read_catalog

    def _load_catalog(self) -> Catalog | None:
        return None

    @cached_property
    def template(self) -> Template:
        """The catalog template, loaded when a catalog is rendered again (Jinja2 is imported then,
        unless it is a built-in's: stages/builtins.py)."""
        from ..stages.template import load_template

        template, problems = load_template(self.config)
        if template is None or problems or template.source != self.carry.template[0]:
            raise _Declined("a template that does not load as it did")
        return template

    def _catalogs(
        self, changed: _Changed, checked: dict[str, _Checked], outcomes: dict[str, Mapping[str, Outcome]]
    ) -> tuple[dict[str, tuple[str, Packing]], Catalog | None]:
        """The repacked personas' catalogs, and the catalog rows when any changed (a new Catalog:
        the last build's stands for a build that declines later)."""
        touched: set[str] = set()
        listed_now = {c: {pid for pid in self.ids if _model(outcomes[c].get(pid))} for c in checked}
        for command, one in checked.items():
            entry = self._entry(command) if command in changed.edits else None
            was = set() if entry is None else {pid for pid in self.ids if _listed(entry, pid)}
            served = self._served(command) if entry is not None else None
            touched |= was ^ listed_now[command]
            if served is None or entry_fields(served) != entry_fields(one.skill):
                touched |= was | listed_now[command]
        for command in changed.removed:
            entry = self._entry(command)
            assert entry is not None
            touched.update(pid for pid in self.ids if _listed(entry, pid))
        named = bool(self.config.targets and (changed.added or changed.removed))
        if not touched and not named:  # no catalog lists them, or lists them as they were
            return {}, None
        last = self.catalog
        rows, listed = dict(last.rows), {pid: list(cs) for pid, cs in last.listed.items()}
        for command in (*checked, *changed.removed):
            wanted = listed_now.get(command, set())
            for pid in self.ids:
                at = bisect.bisect_left(listed[pid], command)
                there = at < len(listed[pid]) and listed[pid][at] == command
                if there and pid not in wanted:
                    del listed[pid][at]
                elif pid in wanted and not there:
                    listed[pid].insert(at, command)
            if wanted:
                rows[command] = row(checked[command].skill, self._candidate(checked[command].skill))
                self.measured += 1
            else:
                rows.pop(command, None)
        names = dict(last.names)
        if named:  # the names the next add or removal compares with
            names.update((c, one.skill.name) for c, one in checked.items())
            for command in changed.removed:
                names.pop(command, None)
        catalog = Catalog(dict(sorted(rows.items())), listed, names)
        personas = [pid for pid in self.ids if pid in touched]
        return self._render(catalog, personas, last, [*checked, *changed.removed]), catalog

    def _candidate(self, skill: Skill) -> Any:
        template = self.template
        return candidate(skill, entry_cost(catalog_skill(skill, template), template), template, self.config)

    def _render(
        self, catalog: Catalog, personas: list[str], last: Catalog, changing: list[str]
    ) -> dict[str, tuple[str, Packing]]:
        """Each persona's catalog: the last packing kept where it provably stands, else packed again."""
        program = Program(_Rows(catalog.rows), self.carry.personas, self.carry.exclusive, ())
        made: dict[str, tuple[str, Packing]] = {}
        parts: CatalogParts | None = None
        entries: Entries = {}  # shared: most personas list most skills
        for pid in personas:
            persona = self.carry.personas[pid]
            kept_packing = self._kept(catalog, persona, last, changing)
            if kept_packing is not None:
                packing, self.totals[pid] = kept_packing
                made[pid] = (catalog_text(program, persona, self.template, packing, entries), packing)
                continue
            if parts is None:  # made once, when a catalog is packed again
                candidates = {c: candidate_of(c, r) for c, r in catalog.rows.items()}
                parts = CatalogParts({}, candidates, catalog.listed)
            made[pid] = persona_catalog(self.config, program, persona, self.template, parts, entries)
            self.totals[pid] = sum(c.cost for c in made[pid][1].candidates)
        return made

    def _kept(
        self, catalog: Catalog, persona: Persona, last: Catalog, changing: list[str]
    ) -> tuple[Packing, int] | None:
        """The packing of `persona`'s catalog made from the last one (budget.refit: first fit resumed
        at the first skill that changed for it), and what its candidates cost together; None when
        that does not make pack's packing: another strategy or priorities, an always-on skill
        changed, entries that fit whole, or a truncation notice that costs another length."""
        config, pid = self.config, persona.id
        included, was = self.carry.included.get(pid), self.carry.totals.get(pid)
        if config.budget_strategy is not Strategy.DROP or config.budget_priority:
            return None
        if included is None or was is None:
            return None
        rows, listed, before = catalog.rows, catalog.listed[pid], last.listed[pid]
        total, since = was, None
        for command in changing:
            now = candidate_of(command, rows[command]) if _has(listed, command) else None
            then = candidate_of(command, last.rows[command]) if _has(before, command) else None
            if (now and now.always) or (then and then.always):
                return None  # always-on: ranked first, and its cost is taken before any other's
            if (now or then) and (since is None or command < since):
                since = command
            total += (now.cost if now else 0) - (then.cost if then else 0)
        budget = config.budget_for(pid)
        frame_cost = frame(self.template, persona, budget)
        # Both packings were made into the room left with the notice reserved: the entries did not
        # and do not fit whole (pack's `over`), and the notice costs what it did.
        room, reserved = budget - frame_cost(0), frame_cost(len(listed))
        if was <= room or total <= room or frame_cost(len(before)) != reserved:
            return None
        costs = {c: cost_of(rows[c]) for c in (*included, *changing) if c in rows}
        mine = [(c, *costs[c]) for c in included if c in costs]  # a removed one is past `start`
        least = self._least(catalog)
        chosen = refit(
            budget - reserved, mine, listed, since, lambda c: costs.get(c) or cost_of(rows[c]), least
        )
        left = list(listed)  # in command order, as `chosen`: each chosen one taken out where it is
        for command in reversed(chosen):
            at = bisect.bisect_left(left, command)
            if at == len(left) or left[at] != command:
                return None  # not listed: never so, but pack would say what it means
            del left[at]
        first = rows[listed[0]][2] if listed else pid
        fixed = frame_cost(0) + sum(
            cost for cost, always in map(cost_of, map(rows.__getitem__, chosen)) if always
        )
        packing = packed(
            pid,
            budget,
            chosen,
            tuple(left),
            fixed,
            strategy=Strategy.DROP,
            descriptions={},
            verbose=config.verbose,
            where=config.config_rel or first,
            first=first,
        )
        return packing, total

    def _least(self, catalog: Catalog) -> int:
        """No row costs less (a bound for budget.refit), made once for every persona."""
        if self.least[0] is not catalog:
            self.least = (catalog, min((cost_of(r)[0] for r in catalog.rows.values()), default=0))
        return self.least[1]


class _Recorded(_Edit):
    """`skillc build`'s edit build: from what the last build left in the cache, after the quick
    path's check of the recorded walk (`early`), written and recorded as a whole build would be."""

    def __init__(self, early: Early) -> None:
        record = early.records.record()
        if record is None or record.quick is None or early.walk is None or early.changes is None:
            raise _Declined("no record or walk")
        self.records, self.record, self.walk, self.changes = early.records, record, early.walk, early.changes
        self.directory = early.records.directory
        carry = early.ahead
        if not isinstance(carry, Carry) or carry.key != record.build_key:
            carry = load(self.directory, early.records.signing_key, record.build_key)
        if carry is None:
            raise _Declined("no carry for the recorded build")
        super().__init__(carry)

    def _load_catalog(self) -> Catalog | None:
        return load_catalog(self.directory, self.records.signing_key, self.carry)

    def build(self) -> tuple[Edited, WriteResult]:
        self._output()
        made, walk = self._made_and_walked()
        carry = made.carry
        if carry is not None:
            key = build_key(self.records.fingerprint, made.build_hash, self.config, carry.early)
            carry = replace(carry, key=key)
            if not write_delta(self.dist, made.files, made.objects, self._index()):
                raise _Declined("another build wrote the output")
        self._record(made, carry, walk)
        final = carry or self.carry
        report = final_diagnostics(self.config, final.counts[0] == 0, final.unordered)
        stats = made.stats
        return Edited(self.config, Summary(*final.counts), report, stats), WriteResult(stats.edited, 0)

    def _made_and_walked(self) -> tuple[_Made, Walk]:
        """The build made, and the walk renewed where it read: after a stamp later than every path
        it lists or reads (walk.py). A path found as new as the stamp (saved in its clock tick, or
        while the build read) is listed and read again after a later stamp."""
        newest = self.changes.newest
        for _attempt in range(3):
            stamp = self._stamp(newest)
            entries, relisted = self._entries(stamp)
            newest = max((st[1] for st, _names in relisted.values()), default=0)
            if newest >= stamp:
                continue
            seen = Seen()
            made = self.made(entries, (seen.listdir, seen.lstat))
            newest = max(seen.stats[1::3], default=0)
            if newest >= stamp:
                continue
            units = [_at(str(self.config.source_dir(i)), unit) for i, unit in self.walked]
            walk = renewed(self.walk, self.changes, units, seen, relisted, stamp)
            if walk is None:
                raise _Declined("a walk that cannot be recorded")
            return made, walk
        raise _Declined("inputs that change while the build reads them")

    def _output(self) -> None:
        """Decline unless the output is as the last build left it."""
        quick = self.record.quick
        assert quick is not None
        if (
            str(self.dist.resolve()) != self.record.dist
            or debris(self.dist)
            or not same_output(self.dist, quick)
        ):
            raise _Declined("the output is not the one recorded")

    def _stamp(self, newest: int) -> int:
        """A file-system time stamp later than `newest` (a ctime). Taken before what changed is listed
        or read, it makes the stat data recorded for them safe (walk.py): a change after sets a
        ctime the next check sees. A path saved within the clock's last tick has the stamp's ctime,
        so the stamp is taken again until the clock moves on."""
        for wait in (0.0, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032):
            time.sleep(wait)
            stamp = stamp_now(self.directory)
            if stamp is None:
                raise _Declined("no file-system stamp")
            if stamp > newest:
                return stamp
        raise _Declined("a file changed while the build started")

    def _entries(self, stamp: int) -> tuple[list[tuple[str, bool]], dict[str, tuple[Stat, list[str]]]]:
        """The entries that changed: each file that moved, and each entry a moved folder gained or
        lost (listed again after `stamp`, and stat'ed before it is listed, as discover's walk is)."""
        walk, changes = self.walk, self.changes
        entries: list[tuple[str, bool]] = []
        relisted: dict[str, tuple[Stat, list[str]]] = {}
        folders = [walk.tops[i][1] for i in changes.roots]
        for at in changes.moved:
            where = walk.where(walk.paths[at])
            if at not in changes.now:
                continue  # gone: the folder that held it lists it no more
            if stat.S_ISDIR(walk.stats[3 * at]):
                folders.append(where)
            else:
                entries.append((where, False))
        for where in folders:
            listing = walk.listing(where)
            if listing is None:
                continue  # no walk lists it: a folder discover left out
            try:
                is_root = any(where == top for _label, top in walk.tops)
                st = os.stat(where) if is_root else os.lstat(where)
                if not stat.S_ISDIR(st.st_mode):
                    entries.append((where, False))
                    continue
                names = os.listdir(where)
            except OSError:
                entries.append((where, True))
                continue
            relisted[where] = ((st.st_mode, st.st_ctime_ns, st.st_ino), names)
            for name in set(names) ^ set(listing):
                entries.append((f"{where}/{name}", self._is_folder(f"{where}/{name}")))
        return entries, relisted

    def _is_folder(self, where: str) -> bool:
        """Whether an entry is a folder: now, or as the walk recorded it when it is gone."""
        try:
            return stat.S_ISDIR(os.lstat(where).st_mode)
        except OSError:
            rel = self.walk.inside(where)
            at = bisect.bisect_left(self.walk.paths, rel)
            found = at < len(self.walk.paths) and self.walk.paths[at] == rel
            return found and stat.S_ISDIR(self.walk.stats[3 * at])

    def _record(self, made: _Made, carry: Carry | None, walk: Walk) -> None:
        """Record the build with the walk renewed; a build that wrote nothing keeps the last build's
        files (the carry, the output's record, the report) and records only the walk."""
        record, quick = self.record, self.record.quick
        assert quick is not None
        if carry is None:
            self.records.save(replace(record, inputs=walk.id), None, None, walk)
            return
        ours = self.records.packed_outputs()
        try:  # written, then the lock released: a build that ran meanwhile may have written another
            index = fs.read_regular(self.dist / fmt.INDEX, fmt.MAX_INDEX_BYTES, follow=False)
        except OSError:
            return
        if ours is None or sha256_hex(index) != carry.index:
            return  # the next build finds an output it did not record, and builds
        # The record lists the last build's objects and no other: those this one drops go.
        unused = ours.drop(map(fmt.object_path, made.dropped))
        for rel in made.files:
            ours.put(rel, fs.output_stat(os.lstat(self.dist / rel)))
        new_quick = replace(
            signature_after(self.dist, quick, made.files, ours.get), extra=quick.extra or bool(unused)
        )
        kept_report = record.report_key if made.same_report else None
        new_record = Record(
            carry.key, record.head_key, record.dist, *carry.counts, walk.id, new_quick, kept_report
        )
        # Before head.json names its key; the catalog rows whole when they changed.
        if not save_carry(self.directory, self.records.signing_key, carry, made.catalog):
            return
        report = (
            None
            if made.same_report
            else final_diagnostics(self.config, carry.counts[0] == 0, carry.unordered)
        )
        self.records.save(new_record, ours, report, walk)


@dataclass(frozen=True)
class _Checked:
    """A skill found again or new, checked: its source, the skill (linked as the last build linked
    it), its settled diagnostics before (none for a new one) and now."""

    src: SkillSource
    skill: Skill
    old: tuple[Diagnostic, ...]
    new: tuple[Diagnostic, ...]


def _reach(skill: Skill) -> tuple[Any, ...]:
    """What other skills and the personas read of a skill: the rest is the skill's own."""
    return (
        skill.name,
        skill.anchors.get("name"),
        skill.flag("persona_exclusive"),
        skill.flag("has_persona_overlay"),
    )


def _owned(
    own: Mapping[str, tuple[Diagnostic, ...]], checked: Mapping[str, _Checked]
) -> dict[str, tuple[Diagnostic, ...]]:
    """`Program.own` with the checked skills' diagnostics."""
    new = dict(own)
    for command, one in checked.items():
        if one.new:
            new[command] = one.new
        else:
            new.pop(command, None)
    return new


def _resources(entry: SkillDoc) -> list[str]:
    """The paths of a served skill's resources, as its shard entry names them."""
    folder = entry["path"].rpartition("/")[0]
    return [f"{folder}/{r['path']}" for r in entry["resources"]]


def _files_of(src: SkillSource) -> tuple[Any, ...]:
    """A skill's input files: its SKILL.md (when it could be read), then its resources."""
    return ((src.skill_md,) if src.readable else ()) + tuple(r.file for r in src.resources)


def _listed(entry: SkillDoc, pid: str) -> bool:
    """Whether the last build listed the skill in `pid`'s catalog: its model may invoke it."""
    exceptions = entry["exceptions"]
    res = exceptions[pid] if pid in exceptions else entry["default"]
    return res is not None and bool(res["model"])


def _model(outcome: Outcome | None) -> bool:
    return outcome is not None and outcome.model


def _has(commands: list[str], command: str) -> bool:
    """Whether `commands` (in command order) holds `command`."""
    at = bisect.bisect_left(commands, command)
    return at < len(commands) and commands[at] == command


def _at(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if rel else folder


def _below(rel: str, folder: str) -> bool:
    """Whether `rel` lies strictly below `folder` ("": the root, above every other)."""
    return rel.startswith(folder + "/") if folder else bool(rel)


def _replaced(items: tuple[str, ...], folder: str, new: Iterable[str]) -> tuple[tuple[str, ...], set[str]]:
    """Sorted `items` with `folder` and the items below it replaced by `new` (each `folder` or
    below it), sorted; and the items replaced. They lie among items[at:end]: from where `folder`
    sorts to the end of the run below it (a sibling "folder-x" sorts in between)."""
    if not folder:
        return tuple(sorted(new)), set(items)
    at = bisect.bisect_left(items, folder)
    _start, end = run_below(items, folder)
    region = items[at:end]
    old = {item for item in region if item == folder or item.startswith(folder + "/")}
    kept = [item for item in region if item not in old]
    return (*items[:at], *sorted([*kept, *new]), *items[end:]), old


def _line_place(lines: str, rel: str) -> int:
    """Where `rel`'s line is, or goes, among the "\\n"-ended lines in path order: a binary search of
    the text, not of its lines split out."""
    line = rel + "\0"
    lo, hi = 0, len(lines)
    while lo < hi:
        start = lines.rfind("\n", lo, (lo + hi) // 2) + 1 or lo  # the line around the middle
        end = lines.index("\n", start)
        if line <= lines[start : end + 1]:
            hi = start
        else:
            lo = end + 1
    return lo


def _patched(lines: str, changes: Mapping[str, str | None]) -> str:
    """The input lines ("\\n"-ended, in path order) with each input's line of `changes` put in its
    place, in place of the one there, or taken out (None); in one pass."""
    pieces: list[str] = []
    at = 0
    for rel in sorted(changes):
        start = max(at, _line_place(lines, rel))
        end = lines.index("\n", start) + 1 if lines.startswith(rel + "\0", start) else start
        pieces += (lines[at:start], changes[rel] or "")
        at = end
    pieces.append(lines[at:])
    return "".join(pieces)


class _Rows(Mapping[str, Skill]):
    """The listed skills as the catalog reads them, made from their rows when asked."""

    def __init__(self, rows: Mapping[str, list[Any]]) -> None:
        self._rows = rows

    def __getitem__(self, command: str) -> Skill:
        return skill_of(command, self._rows[command])

    def __iter__(self) -> Any:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
