"""An edit build: `skillc build` after skills were edited, added or removed, made from what the last
build left (incremental/carry.py) instead of from every input.

The quick path's one lstat of every recorded path (manifest.py `changes`) names the files
and folders whose stat data moved and the paths that are gone. When each moved file is a SKILL.md
or a resource of a skill the last build served, each folder whose entries changed gained or lost
skill folders only, and nothing else moved but folders that list what they listed, this reads the
changed files and the new folders alone and does for their skills what `build --watch`'s delta
builds do (delta.py): checks each skill again (`delta.check_edit`: declined when the change reaches
beyond the skill or brings an error), discovers and checks a new one (`discover.discover_skill`),
resolves them, packs and renders again the catalogs of the personas whose listing changed, puts
their entries into their shards or takes them out (the other entries are read back from the shard
objects in the output), and makes the table, the index and the build hash again. It writes with
`write.write_delta` and records the build in the cache as a full build would: the next no-op is
quick, the next edit starts from this one.

Anything else returns the reason, and the cached build runs (docs/cache.md lists the cases).
tests/property/test_incremental_sequences.py compares its results with clean builds.

A build is made (`_Edit.made`: up to its first write) and then written and recorded
(`_Edit.commit`). The quick path makes it while a forked child takes the lstats, on the guess
that the first change found is the only one: a source folder that moved (a skill added or
removed there), else the file or folder found moved (`ahead`, `_guessed`); `edit_build` writes
that one when the lstats bear the guess out.
"""

from __future__ import annotations

import bisect
import contextlib
import operator
import os
import stat
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .. import fs
from ..dataclass import dataclass, replace
from ..diagnostics import Diagnostic, has_errors
from ..diagnostics.policy import Policy
from ..digests import digest, sha256_hex
from ..errors import TemplateFailure
from ..fastjson import orjson
from ..format import layout as fmt
from ..model import (
    SKILL_MD_CAP,
    Artifacts,
    Config,
    InputFile,
    Persona,
    Program,
    Resource,
    Skill,
    SkillSource,
    Strategy,
)
from ..names.confusables import skeleton
from ..names.paths import nfc, sanitize_command, sanitize_joined
from ..names.suggest import among_closest
from ..output import assemble
from ..output.bounds import over_bounds
from ..output.write import WriteResult, write_delta
from ..project.ignorefiles import IGNORE_FILES
from ..stages.budget import Candidate, Packing, packed, refit
from ..stages.buildhash import hash_lines, input_line
from ..stages.catalog import (
    CatalogParts,
    Entries,
    candidate,
    catalog_skill,
    catalog_text,
    entry_cost,
    frame,
    persona_catalog,
)
from ..stages.readinput import Entry, read_input
from ..stages.report import final_diagnostics
from ..stages.resolve import resolve_skill
from ..stages.skills import check_skill
from ..stages.split import plan
from ..stages.validate import settle
from .carry import (
    Carry,
    Catalog,
    Journal,
    Row,
    commands_after,
    load,
    load_catalog,
    patched_lines,
    save_edit,
)
from .catalogrows import has, toggled
from .delta import SKILL_MD, Checked, check_edit, files_of, owned, spliced
from .manifest import Changes, Manifest
from .outcome import Stats, Summary
from .quick import Early, left_to_exit, same_output, signature_after
from .records import Outputs, Record, Records, build_key, debris
from .snapshot import CannotVouch, Stat, _fs_now, _scan, stat_data

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


@dataclass(frozen=True)
class _Ahead:
    """What `ahead` read of the recorded build `key`."""

    key: str
    carry: Carry | None
    catalog: Catalog | None
    outputs: Outputs | None
    # Each root whose stat data moved (where the walk names it): its recorded entries and its
    # entries now, as `_moved` takes them (a skill added to or removed from a source)
    listings: dict[str, tuple[tuple[list[str], str], tuple[list[str], str]]]
    # A file-system stamp taken before those listings (None: none could be taken): they vouch for
    # the folders recorded with an older ctime (`_Edit._listed`)
    listed: int | None
    # The edit build made on the guess that the change found first is the only one, not yet
    # written (`_guessed`); the edit build writes it if the lstats then bear the guess out
    guessed: _Guessed | None = None


def ahead(records: Records, manifest: Manifest, guess: Changes) -> _Ahead | None:
    """Read what an edit build of the recorded build reads first (its carry, its catalog rows and
    its output's record), and list the roots whose stat data moved, before it asks: the quick path
    does it while a forked child takes the rest of the lstats, once it knows something changed
    (lstats.look). The catalog rows are read for every edit build, though a body edit needs none:
    they are a description edit's, an add's and a delete's largest read. Then the edit build of
    `guess` is made (`_guessed`): the change found first, as the only one."""
    record = records.record()
    if record is None:
        return None
    key, directory = record.build_key, records.directory
    carry = load(directory, records.signing_key, key)
    catalog = None if carry is None else load_catalog(directory, records.signing_key, carry)
    listings: dict[str, tuple[tuple[list[str], str], tuple[list[str], str]]] = {}
    listed = _fs_now(directory)  # before the listings
    for where in manifest.moved_roots():  # as `changes` stat'ed them before this
        recorded = manifest.entries(where)
        if recorded is not None:
            with contextlib.suppress(OSError, CannotVouch):  # the edit build tells
                listings[where] = (recorded, _scan(where))
    read = _Ahead(key, carry, catalog, records.packed_outputs(), listings, listed)
    return replace(read, guessed=_guessed(records, manifest, read, guess))


@dataclass(frozen=True)
class _Guessed:
    """An edit build made while the lstats ran, on a guess at what they will find (`guess`: a
    source folder that moved, for a skill added or removed; else the one file or folder found
    moved). `edit` writes `made` when the lstats find just that, and nothing gone but the paths
    below a skill folder removed (`stands`), each moved before `stamp`, a file-system time taken
    before the guess listed or read anything (`_Ahead.listed`). (The lstats may take a path after
    the guess read it: one that moved in between would be recorded as it is now, and vouch for
    bytes newer than those built.)"""

    guess: Changes
    stamp: int
    edit: _Edit
    made: _Made

    def stands(self, changes: Changes) -> bool:
        removed = [at for _i, _c, at in self.made.moved.removed]
        return (
            changes.folders == self.guess.folders
            and changes.files == self.guess.files
            and all(any(_below(w, at) for at in removed) for w in changes.gone)
            and changes.newest < self.stamp
        )


def _guessed(records: Records, manifest: Manifest, read: _Ahead, guess: Changes) -> _Guessed | None:
    """The edit build of `guess`, made but not written while the forked child takes the lstats:
    this process has the time then, and after the lstats it would make it alone while the other
    core waits. A skill added or removed is the likeliest reason a source folder moved, a body or
    a description edited the likeliest reason a file did; what else moved, the lstats tell
    (`_Guessed.stands`)."""
    if read.listed is None:
        return None
    try:
        edit = _Edit(Early(records, manifest=manifest, changes=guess, ahead=read))
        return _Guessed(guess, read.listed, edit, edit.made())
    except Exception:  # declined, or a bug: the edit build after the lstats makes it, or says why not
        return None


def _unguessed(early: Early) -> Early:
    """`early` for an edit build made after the lstats, without what a guess made before them may
    have changed: the catalog rows read ahead, which an edit build changes in place (`_catalogs`),
    are read again. A guess that did not stand, or failed midway, may have changed them; without a
    stamp (`_Ahead.listed` None) no guess was made."""
    read = early.ahead
    if not isinstance(read, _Ahead) or read.catalog is None or read.listed is None:
        return early
    return replace(early, ahead=replace(read, catalog=None, guessed=None))


class _Declined(Exception):
    """The edit build cannot make this build (the message says why): the cached build makes it."""


def edit_build(early: Early) -> tuple[Edited, WriteResult] | str:
    """The build after the files `early.changes` names, written and recorded; or why the cached build
    must make it (nothing written then). Before the config is loaded: the quick path has checked
    the bytes of the config and everything it reads, and the carry holds the config they make."""
    try:
        guessed = early.ahead.guessed if isinstance(early.ahead, _Ahead) else None
        if (
            guessed is not None
            and early.changes is not None
            and guessed.edit.records is early.records
            and guessed.stands(early.changes)
        ):
            left_to_exit(guessed.edit)
            return guessed.edit.commit(guessed.made, early.changes)
        edit = _Edit(_unguessed(early))
        left_to_exit(edit)
        return edit.commit(edit.made(), edit.changes)
    except _Declined as declined:
        return str(declined)
    except TemplateFailure:  # the stages report it, with everything else
        return "the template failed"
    except OSError as exc:
        return f"cannot read or write: {exc}"
    except Exception as exc:  # a bug of skillc's: the cached build still makes the right build
        return f"internal error: {exc!r}"


@dataclass(frozen=True)
class _Skill:
    """One edited skill: the entry the last build gave it, and its files now."""

    command: str
    shard: str
    entry: SkillDoc
    files: dict[int, InputFile]


@dataclass(frozen=True)
class _Moved:
    """What the folders whose stat data moved hold now: the skill folders added and removed (source
    index, command, where), each such folder's entries, and every path below the added ones."""

    added: tuple[tuple[int, str, str], ...]
    removed: tuple[tuple[int, str, str], ...]
    relisted: dict[str, tuple[list[str], str]]
    paths: tuple[tuple[str, Stat, tuple[list[str], str] | None], ...]  # where, stat data, a folder's entries


@dataclass(frozen=True)
class _Changed:
    """Everything an edit build makes again: skills edited, added (checked) and removed (their entry)."""

    edits: dict[str, _Skill]
    added: dict[str, Checked]
    removed: dict[str, SkillDoc]
    moved: _Moved

    def checked(self, edited: dict[str, Checked]) -> dict[str, Checked]:
        return {**edited, **self.added}

    @property
    def count(self) -> int:
        return len(self.added) - len(self.removed)


@dataclass(frozen=True)
class _Made:
    """An edit build made, not yet written: what `_Edit.commit` writes and records."""

    key: str  # its build key
    # The carry, the catalog rows when they changed, and the report when it is not the recorded
    # one (as `_Edit._record` takes them); None: nothing changed, nothing to write
    written: tuple[Carry, Catalog | None, tuple[Diagnostic, ...] | None] | None
    files: Mapping[str, bytes]  # the files to write into the output
    objects: frozenset[str]  # which of them are objects
    index: bytes  # the output's index as the last build left it (write_delta writes only over it)
    dropped: set[str]  # the objects the last build named that this one does not
    moved: _Moved
    unordered: tuple[Diagnostic, ...]
    counts: tuple[int, int, int]
    stats: Stats


class _Edit:
    """One edit build, step by step; every step may decline (`_Declined`)."""

    def __init__(self, early: Early) -> None:
        record = early.records.record()
        manifest, changes = early.manifest, early.changes
        if record is None or record.quick is None or manifest is None or changes is None:
            raise _Declined("no record or walk")
        self.records, self.record, self.manifest, self.changes = early.records, record, manifest, changes
        self.directory = early.records.directory
        read = early.ahead  # from the same records: of this record's build, unless the cache moved on
        self.read_ahead = read if isinstance(read, _Ahead) and read.key == record.build_key else None
        carry = (
            self.read_ahead.carry
            if self.read_ahead
            else load(self.directory, early.records.signing_key, record.build_key)
        )
        if carry is None:
            raise _Declined("no carry for the recorded build")
        if carry.config is None:
            raise _Declined("a config the carry cannot hold")
        self.carry, self.config = carry, carry.config
        self.dist = self.config.root / self.config.output
        self.policy = Policy(self.config.severities, self.config.path_severities)
        self.ids = tuple(carry.personas)
        self.digits = fmt.shard_digits(carry.counts[0])
        self.docs: dict[str, dict[str, Any]] = {}  # shard name -> its document, as read
        self.totals: dict[str, int] = {}  # persona -> its catalog's candidates' cost, for those repacked

    def made(self) -> _Made:
        """The build, made up to its first write."""
        index = self._output()
        moved = self._moved()
        stamp = self._stamp(moved)
        edits = self._edits(stamp)
        gone = [w for w in self.changes.gone if not any(_below(w, at) for _i, _c, at in moved.removed)]
        if gone:
            raise _Declined("a file removed")
        if len(moved.added) > 1:
            raise _Declined("more than one skill added")  # each is held to the others' commands too
        added = {command: self._added(i, command) for i, command, _at in moved.added}
        removed = {command: self._removed(i, command) for i, command, _at in moved.removed}
        if not edits and not added and not removed:  # saved without a change: the recorded build
            # Neither the config nor the template was parsed; a file touched was read (`unread`).
            stats = Stats(replayed=True, unread=not self.changes.files, quick=True)
            carry = self.carry
            return _Made(
                self.record.build_key,
                None,
                {},
                frozenset(),
                index,
                set(),
                moved,
                carry.unordered,
                carry.counts,
                stats,
            )
        return self._rebuild(_Changed(edits, added, removed, moved), index)

    def commit(self, made: _Made, changes: Changes) -> tuple[Edited, WriteResult]:
        """Write the build `made` (nothing, for one that changed nothing) and record it with the
        walk as the lstats found it (`changes`: the ones it was made for, or a guess's that the
        lstats bore out: `_Guessed`)."""
        self.changes = changes
        if made.written is not None and not write_delta(self.dist, made.files, made.objects, made.index):
            raise _Declined("another build wrote the output")
        self._record(made.key, made.written, made.dropped, made.files, made.moved)
        return self._result(made.unordered, made.counts, made.stats)

    # --- what changed ------------------------------------------------------------------------------

    def _stamp(self, moved: _Moved) -> int:
        """A file-system time stamp later than the ctime of every path that moved or is new. Taken
        before they are read, it makes the stat data recorded for them safe (snapshot.py): a change
        after sets a ctime the next check sees. A file saved within the clock's last tick has the
        stamp's ctime, so the stamp is taken again until the clock moves on (a coarse clock ticks in
        milliseconds)."""
        times = [os.lstat(p).st_ctime_ns for p in (*self.changes.files, *self.changes.folders)]
        return self._after(max([*times, *(st[2] for _w, st, _e in moved.paths)], default=0))

    def _after(self, newest: int) -> int:
        """A file-system stamp later than `newest` (a ctime), taken again until the clock moves on."""
        for wait in (0.0, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032):
            time.sleep(wait)
            stamp = _fs_now(self.directory)
            if stamp is None:
                raise _Declined("no file-system stamp")
            if stamp > newest:
                return stamp
        raise _Declined("a file changed while the build started")

    def _output(self) -> bytes:
        """The output's index, when the output is as the last build left it."""
        quick = self.record.quick
        assert quick is not None
        if (
            str(self.dist.resolve()) != self.record.dist
            or debris(self.dist)
            or not same_output(self.dist, quick)
        ):
            raise _Declined("the output is not the one recorded")
        index = fs.read_regular(self.dist / fmt.INDEX, fmt.MAX_INDEX_BYTES, follow=False)
        if sha256_hex(index) != self.carry.index:
            raise _Declined("the output's index is not the recorded one")
        return index

    def _moved(self) -> _Moved:
        """The skill folders added and removed: each folder whose stat data moved is listed again,
        and may gain or lose folders only (a file added, removed or renamed is discover's)."""
        relisted: dict[str, tuple[list[str], str]] = {}
        added: list[tuple[int, str, str]] = []
        removed: list[tuple[int, str, str]] = []
        stamp, listed = self._listed()
        for where in self.changes.folders:
            if where in listed:
                recorded, now = listed[where]
            else:
                recorded, now = self._listing(where)
            # name -> kind: dicts, not sets of pairs (a pair's hash is made anew; a name's is kept)
            before, after = dict(zip(*recorded, strict=True)), dict(zip(*now, strict=True))
            if before == after:
                continue  # the recorded entries stand, with the folder's new stat data
            relisted[where] = now
            index, folder = self._folder(where)
            for name, kind in _differing(before, after):
                if kind != "d":
                    raise _Declined("a file added, removed or renamed")
                if not name.isascii():  # discover names it by its NFC form: left to discover
                    raise _Declined("a folder name that is not ASCII")
                command = f"{folder}/{name}" if folder else name
                (removed if before.get(name) == kind else added).append((index, command, f"{where}/{name}"))
        paths = [row for _i, _c, at in added for row in _tree(at, stamp)]
        return _Moved(tuple(added), tuple(removed), relisted, tuple(paths))

    def _listed(self) -> tuple[int, dict[str, tuple[tuple[list[str], str], tuple[list[str], str]]]]:
        """A file-system stamp taken before the folders are listed, later than the ctime each moved
        folder is recorded with (`changes`), and the listings read ahead after it. As the walk's
        (snapshot.py), so the record vouches for a listing: an entry made after it moves its folder
        to a ctime the next check sees, even within the clock's tick of the recorded one."""
        ahead = self.read_ahead
        if ahead and ahead.listed is not None and self.changes.newest < ahead.listed:
            return ahead.listed, ahead.listings
        return self._after(self.changes.newest), {}

    def _listing(self, where: str) -> tuple[tuple[list[str], str], tuple[list[str], str]]:
        """A folder's recorded entries and its entries now (names and kinds)."""
        recorded = self.manifest.entries(where)
        if recorded is None:
            raise _Declined("a folder the walk did not record")
        try:
            return recorded, _scan(where)
        except CannotVouch:
            raise _Declined("a name that is not UTF-8") from None

    def _folder(self, where: str) -> tuple[int, str]:
        """A walked folder as a source's index and its path below the source ("" for its root)."""
        for i in self._roots:
            root = str(self.config.source_dir(i))
            if where == root:
                return i, ""
            if where.startswith(root + "/") and where.isascii():
                return i, where[len(root) + 1 :]
        raise _Declined("a folder outside the sources, or a name that is not ASCII")

    @cached_property
    def _roots(self) -> list[int]:
        """The sources, the deepest root first: a source nested in another owns its own paths."""
        count = len(self.config.sources)
        return sorted(range(count), key=lambda i: len(str(self.config.source_dir(i))), reverse=True)

    def _edits(self, stamp: int) -> dict[str, _Skill]:
        """command -> the skill with the files whose bytes or mode changed."""
        edits: dict[str, _Skill] = {}
        for where in self.changes.files:
            if where.rsplit("/", 1)[-1] in IGNORE_FILES:  # its rules reach other files, other skills
                raise _Declined("an ignore file")
            label, rest = self._rel(where)
            command, shard, entry = self._owner(label, rest)
            slot, cap = self._slot(entry, f"{label}/{command}", rest[len(command) + 1 :])
            rel = f"{label}/{rest}"
            now = _read(where, rel, cap, stamp)
            if self._line(rel) != input_line(now).decode():
                edits.setdefault(command, _Skill(command, shard, entry, {})).files[slot] = now
        return edits

    def _owner(self, label: str, rest: str) -> tuple[str, str, SkillDoc]:
        """The served skill of source `label` whose folder holds `rest` (a command is its folder below
        the source: the deepest that is one), its shard and its entry there."""
        folder = rest
        while "/" in folder:
            folder = folder.rsplit("/", 1)[0]
            shard = fmt.shard_of(folder, self.digits)
            entry = self._doc(shard)["skills"].get(folder) if shard in self.carry.shards else None
            if entry is not None:
                if entry["source"] != label:  # served from another source: this one's is shadowed
                    break
                return folder, shard, entry
        raise _Declined("a file outside every served skill")

    def _slot(self, entry: SkillDoc, dir_rel: str, inside: str) -> tuple[int, int]:
        """Which of the skill's files `inside` (its path in the skill's folder) is: SKILL_MD, or a
        resource's place in its entry; and the cap discover reads it with."""
        if f"{dir_rel}/{inside}" == entry["path"]:
            return SKILL_MD, SKILL_MD_CAP
        for i, r in enumerate(entry["resources"]):
            if inside == r["path"]:
                return i, self.config.max_resource_bytes
        # Not one of its files now: discover would say whether it is one (an excluded or hidden file).
        raise _Declined("a file that is no input of the skill")

    def _rel(self, where: str) -> tuple[str, str]:
        """A walked path as the inputs name it: the source's label, and the path below the source."""
        for i in self._roots:
            root = str(self.config.source_dir(i)) + "/"
            if where.startswith(root):
                rest = where[len(root) :]
                return self.config.sources[i], rest if rest.isascii() else nfc(rest)
        raise _Declined("a file outside the sources")  # a persona's file, an overlay, an exclusive body

    def _line(self, rel: str) -> str:
        """The input's line of the last build hash (buildhash.input_line, as text)."""
        lines = self.carry.lines
        head = rel + "\0"
        at = 0 if lines.startswith(head) else lines.find("\n" + head) + 1
        if at == 0 and not lines.startswith(head):
            raise _Declined(
                "a file that is no input"
            )  # no input of the last build (excluded, ignored, shadowed)
        return lines[at : lines.index("\n", at) + 1]

    def _doc(self, shard: str) -> dict[str, Any]:
        """A shard's document as the last build wrote it, checked against its digest."""
        if shard not in self.docs:
            digest_ = self.carry.shards.get(shard)
            if digest_ is None:
                raise _Declined("a shard is not the recorded one")
            data = self._object(digest_)
            self.docs[shard] = orjson.loads(data)
        return self.docs[shard]

    def _split(self, last: IndexDoc) -> Any:
        """The last build's split document (the template and personas are as they were)."""
        digest_ = last["split"]
        return None if digest_ is None else orjson.loads(self._object(digest_))

    def _requires(self, last: IndexDoc) -> dict[str, Any]:
        """The last build's requirements, by command."""
        digest_ = last["requires"]
        return {} if digest_ is None else dict(orjson.loads(self._object(digest_))["requires"])

    def _object(self, digest_: str) -> bytes:
        data = fs.read_regular(self.dist / fmt.object_path(digest_), 1 << 40, follow=False)
        if sha256_hex(data) != digest_:
            raise _Declined(
                "an object in the output was changed"
            )  # damaged since: the cached build writes it again
        return data

    # --- the stages, for the edited skills only ----------------------------------------------------

    def _rebuild(self, changed: _Changed, index: bytes) -> _Made:
        carry, config = self.carry, self.config
        skills = carry.counts[0] + changed.count
        if fmt.shard_digits(skills) != self.digits:
            raise _Declined("a shard name of another length")
        edited = {command: self._check(one) for command, one in sorted(changed.edits.items())}
        checked = changed.checked(edited)
        program = Program({c: one.skill for c, one in checked.items()}, carry.personas, carry.exclusive, ())
        outcomes = {c: resolve_skill(program, c).outcomes for c in checked}
        texts, catalog = self._catalogs(changed, checked, outcomes)
        out = assemble.Objects()
        last: IndexDoc = orjson.loads(index)
        personas: dict[str, PersonaEntry] = dict(last["personas"])
        persona_files = assemble.index_objects(last)  # the last build's
        split = self._split(last) if texts else None
        for pid, (text, packing) in texts.items():
            assert catalog is not None  # a catalog rendered again: its rows were read
            planned = plan(split, pid, text, packing, _Rows(catalog.rows).__getitem__)
            personas[pid] = assemble.persona_entry(
                carry.personas[pid], text, packing, carry.template[1], out, planned
            )
        shards, refs, touched = self._shards(changed, checked, outcomes, out)
        before = set(out.objects)
        root = assemble.table(shards, out)
        nodes = {_digest_of(rel) for rel in out.objects - before}
        lines, changed_lines = self._lines(changed, checked)
        build_hash = hash_lines(config, carry.template[0], [lines.encode()])
        gone: dict[str, Skill | None] = dict.fromkeys(changed.removed)
        requires = assemble.requirements_after(
            self._requires(last), {**gone, **{c: one.skill for c, one in checked.items()}}
        )
        rest = {**last, "requires": assemble.requires_object(requires, out)}  # the rest as it was
        document = assemble.index_document(config, build_hash, personas, root, rest)
        new_index = assemble.encode(document)
        out.files[fmt.INDEX] = new_index
        art = Artifacts(out.files, frozenset(out.objects), build_hash, frozenset(out.documents))
        if over_bounds(art, config.config_rel):
            raise _Declined("an over-bounds document")
        unordered = self._unordered(changed, checked, texts)
        report = final_diagnostics(config, skills == 0, unordered)
        if has_errors(report):  # --strict made a new warning one: the cached build reports it
            raise _Declined("an error in the report")
        # The recorded report is final_diagnostics of the carry's: with the same input, it is kept.
        same_report = unordered == carry.unordered and (skills == 0) == (carry.counts[0] == 0)
        live = set(refs) | set(shards.values()) | nodes
        live.update(assemble.index_objects(document))
        # Every object the last build used, less those this one uses: what it leaves over (`_record`)
        dropped = (
            persona_files
            | carry.refs.keys()
            | set(carry.shards.values())
            | assemble.table_nodes(carry.shards)
        ) - live
        counts = (skills, carry.counts[1], len(live))
        key = build_key(self.records.fingerprint, build_hash, config, carry.early)
        sources = config.sources  # each command a source gained or lost, as a journal holds it
        found = {f"{sources[i]}\0{c}": True for i, c, _at in changed.moved.added}
        found.update({f"{sources[i]}\0{c}": False for i, c, _at in changed.moved.removed})
        new = replace(
            carry,
            key=key,
            index=sha256_hex(new_index),
            lines=lines,
            anchors=self._anchors(changed),
            own={c: d for c, d in owned(carry.own, checked).items() if c not in changed.removed},
            problems={c: d for c, d in carry.problems.items() if c not in changed.removed},
            shards=shards,
            refs=refs,
            packings={**carry.packings, **{pid: p.diagnostics for pid, (_, p) in texts.items()}},
            included={**carry.included, **{pid: list(p.included) for pid, (_, p) in texts.items()}},
            totals={**carry.totals, **self.totals},
            unordered=unordered,
            counts=counts,
            commands=commands_after(carry.commands, found),
            journal=self._journal(
                changed, checked, catalog, changed_lines, {d: refs.get(d, 0) for d in touched}, found
            ),
        )
        checks = sum(SKILL_MD in one.files for one in changed.edits.values()) + len(changed.added)
        measured = sum(catalog is not None and c in catalog.rows for c in checked)
        stats = Stats(checks, 0, measured, len(texts), edited=True)
        written = (new, catalog, None if same_report else report)
        objects = frozenset(out.objects)
        return _Made(
            key, written, out.files, objects, index, dropped, changed.moved, unordered, counts, stats
        )

    def _anchors(self, changed: _Changed) -> dict[str, tuple[int, int]]:
        anchors = {c: at for c, at in self.carry.anchors.items() if c not in changed.removed}
        for command, one in changed.added.items():
            at = one.skill.anchors.get("name", (0, 0))
            if at != self.carry.anchor:
                anchors[command] = at
        return anchors

    def _journal(
        self,
        changed: _Changed,
        checked: dict[str, Checked],
        catalog: Catalog | None,
        lines: dict[str, str | None],
        refs: dict[str, int],
        commands: dict[str, bool],
    ) -> Journal:
        """The carry's journal with this build's changes: the input lines and references it changed,
        the catalog rows of the skills it checked or removed when a catalog changed (with the
        personas listing each), with `targets:` the names of the skills added or removed, and the
        commands added to or removed from a source (`commands`)."""
        journal = self.carry.journal
        if journal is None:
            raise _Declined("a carry without a journal")  # never read so: one a full build made
        rows: dict[str, tuple[Row | None, list[str]]] = {}
        if catalog is not None:
            for command in (*checked, *changed.removed):
                listing = [pid for pid in self.ids if has(catalog.listed[pid], command)]
                rows[command] = (catalog.rows.get(command), listing)
        names: dict[str, str | None] = {}
        if self.config.targets:
            names = {c: one.skill.name for c, one in changed.added.items()}
            names.update(dict.fromkeys(changed.removed))
        return journal.then(lines, refs, rows, names, commands)

    def _served(self, one: _Skill) -> Skill:
        """The skill as the last build served it, from its entry (what delta.check_edit compares)."""
        entry = one.entry
        line, col = self.carry.name_at(one.command)
        return Skill(
            command=one.command,
            name=entry["name"],
            description=entry["description"],
            source=self.config.sources.index(entry["source"]),
            path=entry["path"],
            dir_rel=f"{entry['source']}/{one.command}",
            body="",  # not compared: the edited skill's body is its new one
            fields=entry["frontmatter"],
            resources=(),
            parent=entry["parent"],
            children=tuple(entry["children"]),
            anchors={"name": (line, col)} if line else {},
        )

    # --- skills added and removed ------------------------------------------------------------------

    @cached_property
    def commands(self) -> dict[str, set[str]]:
        """Source label -> every command discover found there (served or overridden), as the carry
        keeps them (carry.commands_of): this build's adds and removals go into them (`_rebuild`)."""
        return {label: set(found) for label, found in self.carry.commands.items()}

    def _alone(self, command: str) -> None:
        """Decline unless adding or removing `command` changes no other skill's entry and no
        diagnostic but its own: no parent or child skill, no persona naming it or a command close
        enough for a "did you mean" to name it, no look-alike or same-id command, no --skip-invalid.
        (With `targets:`, `_unique` holds its `name` to no other skill's.)"""
        config, carry = self.config, self.carry
        if config.skip_invalid:
            raise _Declined("settings that read the set of skills")
        everyone = set().union(*self.commands.values()) - {command}
        # Every other command, "\0"-separated (no command holds one): each question below is one
        # search of a string in C, not a call per command.
        joined = "\0" + "\0".join(everyone) + "\0"
        parts = command.split("/")
        if any("/".join(parts[:i]) in everyone for i in range(1, len(parts))) or f"\0{command}/" in joined:
            raise _Declined("a parent or child skill")
        if command in carry.lookups:
            raise _Declined("a persona names the skill")
        # A name no skill has is reported with the commands closest to it ("did you mean"): the
        # change must not add the command to those, or take it from them.
        for word in carry.lookups - everyone:
            if among_closest(word, command, everyone):
                raise _Declined("a persona names a skill like it")
        if (
            f"\0{command.casefold()}\0" in joined.casefold()
            or f"\0{sanitize_command(command)}\0" in sanitize_joined(joined)
            or f"\0{skeleton(command)}\0" in skeleton(joined)
        ):
            raise _Declined("a command that looks like another")

    def _added(self, index: int, command: str) -> Checked:
        """A new skill folder, discovered and checked as discover and validate do."""
        label = self.config.sources[index]
        if any(command in cmds for cmds in self.commands.values()):
            raise _Declined("a command another source has")
        if not self.commands[label]:
            raise _Declined("the first skill of a source")  # its SKC313 goes
        self._alone(command)
        from ..stages.discover import discover_skill  # here: an edit that adds nothing does not walk

        found = discover_skill(self.config, index, command)
        if found is None:
            raise _Declined("a new folder discover would report or leave out")
        src, read = found
        if any(_below(f"{label}/{rel}", f"{label}/{command}") for rel in read):
            raise _Declined("a new ignore file")
        skill, diags = check_skill(src)
        if skill is None or skill.flag("persona_exclusive") or skill.flag("has_persona_overlay"):
            raise _Declined("a new skill that reaches beyond itself, or does not parse")
        _unlabelled(skill)
        self._unique(command, skill.name)
        settled = tuple(settle(src, [*src.problems, *diags], self.policy, True))
        if has_errors(settled):
            raise _Declined("a new skill with an error")
        return Checked(src, skill, (), settled)

    def _removed(self, index: int, command: str) -> SkillDoc:
        """A removed skill folder: the entry of the skill the last build served from it."""
        label = self.config.sources[index]
        shard = fmt.shard_of(command, self.digits)
        entry = self._doc(shard)["skills"].get(command) if shard in self.carry.shards else None
        if entry is None or entry["source"] != label:
            raise _Declined("a folder that held no served skill")
        if any(command in cmds for lb, cmds in self.commands.items() if lb != label):
            raise _Declined("a command another source has")
        if not self.commands[label] - {command}:
            raise _Declined("the last skill of a source")
        if entry["frontmatter"].get("persona_exclusive") or entry["frontmatter"].get("has_persona_overlay"):
            raise _Declined("a removed skill that reached beyond itself")
        self._alone(command)
        self._unique(command, entry["name"])
        own = {entry["path"], *(f"{label}/{command}/{r['path']}" for r in entry["resources"])}
        if set(self._lines_below(f"{label}/{command}/")) != own:
            raise _Declined("a removed folder that held more than its skill's files")
        return dict(entry)  # type: ignore[return-value]

    def _lines_below(self, prefix: str) -> list[str]:
        """The inputs (their rel) below a folder (`prefix`, ending in "/"): sorted, so together."""
        lines = self.carry.lines
        at = 0 if lines.startswith(prefix) else lines.find("\n" + prefix) + 1
        found = []
        while 0 <= at < len(lines) and lines.startswith(prefix, at):
            end = lines.index("\n", at)
            found.append(lines[at:end].partition("\0")[0])
            at = end + 1
        return found

    def _check(self, one: _Skill) -> Checked:
        """The skill checked again from its files now (as delta.check_edit checks the watch's edits).
        An unchanged resource's bytes are its object in the output, which the entry names."""
        served = self._served(one)
        resources = tuple(
            Resource(
                r["path"],
                one.files.get(i)
                or InputFile(f"{served.dir_rel}/{r['path']}", self._object(r["sha256"]), r["executable"]),
            )
            for i, r in enumerate(one.entry["resources"])
        )
        own = self.carry.own.get(one.command, ())
        md = one.files.get(SKILL_MD)
        if md is None:  # resources alone: the check reads the SKILL.md only, so its result stands
            body = self._object(one.entry["body"]).decode("utf-8")
            src = SkillSource(
                one.command, served.source, served.dir_rel, InputFile(served.path, b""), resources
            )
            return Checked(src, replace(served, body=body, resources=resources), own, own)
        src = SkillSource(
            one.command,
            served.source,
            served.dir_rel,
            md,
            resources,
            problems=self.carry.problems.get(one.command, ()),
            targets=tuple(t.name for t in self.config.targets),
        )
        made = check_edit(served, own, src, self.policy)
        if made is None:
            raise _Declined("the edit reaches beyond the skill, or brings an error")
        _unlabelled(made.skill)
        return made

    def _catalogs(
        self,
        changed: _Changed,
        checked: dict[str, Checked],
        outcomes: dict[str, Mapping[str, Outcome]],
    ) -> tuple[dict[str, tuple[str, Packing]], Catalog | None]:
        """The repacked personas' catalogs, and the catalog rows when any changed."""
        touched: set[str] = set()
        for command, one in checked.items():
            edit = changed.edits.get(command)
            same = edit is not None and _row_fields(self._served(edit)) == _row_fields(one.skill)
            for pid in self.ids:
                was = edit is not None and _listed(edit.entry, pid)
                now = _model(outcomes[command].get(pid))
                if (was or now) and (was != now or not same):
                    touched.add(pid)
        for entry in changed.removed.values():
            touched.update(pid for pid in self.ids if _listed(entry, pid))
        named = self.config.targets and (changed.added or changed.removed)
        if not touched and not named:  # no catalog lists it, or lists it as it was
            return {}, None
        if named:  # the names the next add or removal compares with
            names = self.catalog.names
            names.update((c, one.skill.name) for c, one in changed.added.items())
            for command in changed.removed:
                names.pop(command, None)
        catalog = self.catalog
        rows, listed = catalog.rows, catalog.listed  # this build's alone (`_unguessed`): changed in place
        # What the last build's packings were made of, for the catalogs it may keep (`_kept`)
        changing = [*checked, *changed.removed]
        last = _Last(
            {c: rows.get(c) for c in changing},
            {pid: {c for c in changing if has(listed[pid], c)} for pid in self.ids},
            {pid: len(listed[pid]) for pid in self.ids},
        )
        for command, one in checked.items():
            wanted = [pid for pid in self.ids if _model(outcomes[command].get(pid))]
            for pid in self.ids:
                if has(listed[pid], command) != (pid in wanted):
                    listed[pid] = toggled(listed[pid], command, pid in wanted)
            if wanted:
                rows[command] = self._row(one.skill)
            else:
                rows.discard(command)
        for command in changed.removed:
            for pid in self.ids:
                if has(listed[pid], command):
                    listed[pid] = toggled(listed[pid], command, False)
            rows.discard(command)
        return self._render(catalog, [pid for pid in self.ids if pid in touched], last), catalog

    @cached_property
    def catalog(self) -> Catalog:
        """The catalog rows the last build left, read when a catalog or a name list changes."""
        taken = self.read_ahead
        catalog = (
            taken.catalog
            if taken and taken.catalog
            else load_catalog(self.directory, self.records.signing_key, self.carry)
        )
        if catalog is None:
            raise _Declined("no catalog rows")
        return catalog

    def _unique(self, command: str, name: str) -> None:
        """With `targets:`, a skill added or removed shares its `name` with no other skill: the
        report says which skills share one (validate.shared_names)."""
        if not self.config.targets:
            return
        names = self.catalog.names
        if any(other == name for c, other in names.items() if c != command):
            raise _Declined("a name another skill has")

    @cached_property
    def template(self) -> Template:
        """The catalog template, loaded when a catalog is rendered again (Jinja2 is imported then,
        unless it is a built-in's: stages/builtins.py)."""
        from ..stages.template import load_template

        template, problems = load_template(self.config)
        if template is None or problems or template.source != self.carry.template[0]:
            raise _Declined("a template that does not load as it did")
        return template

    def _row(self, skill: Skill) -> Row:
        made = candidate(
            skill, entry_cost(catalog_skill(skill, self.template), self.template), self.template, self.config
        )
        return [skill.name, made.description, made.path, made.always, made.cost, made.bare_cost]

    def _render(self, catalog: Catalog, personas: list[str], last: _Last) -> dict[str, tuple[str, Packing]]:
        """Each persona's catalog: the last packing kept where it provably stands, else packed again."""
        program = Program(_Rows(catalog.rows), self.carry.personas, self.carry.exclusive, ())
        made: dict[str, tuple[str, Packing]] = {}
        parts: CatalogParts | None = None
        entries: Entries = {}  # shared: most personas list most skills
        for pid in personas:
            persona = self.carry.personas[pid]
            kept = self._kept(catalog, persona, last)
            if kept is not None:
                made[pid], self.totals[pid] = (
                    (catalog_text(program, persona, self.template, kept[0], entries), kept[0]),
                    kept[1],
                )
                continue
            if parts is None:  # made once, when a catalog is packed again
                candidates = {
                    c: Candidate(c, always, cost, path, description, bare)
                    for c, (_name, description, path, always, cost, bare) in catalog.rows.items()
                }
                parts = CatalogParts({}, candidates, catalog.listed)
            made[pid] = persona_catalog(self.config, program, persona, self.template, parts, made=entries)
            self.totals[pid] = sum(c.cost for c in made[pid][1].candidates)
        return made

    @cached_property
    def _least(self) -> int:
        """No catalog row costs less (a bound for budget.refit: the rows are read by then)."""
        return self.catalog.rows.least_cost()

    def _kept(self, catalog: Catalog, persona: Persona, last: _Last) -> tuple[Packing, int] | None:
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
        rows, listed = catalog.rows, catalog.listed[pid]
        total, since = was, None
        for command, before in last.rows.items():
            now = has(listed, command)
            then = before if command in last.listed[pid] else None  # its row when this catalog listed it
            if (now and rows.numbers(command)[1]) or (then is not None and then[3]):
                return None  # always-on: ranked first, and its cost is taken before any other's
            if (now or then is not None) and (since is None or command < since):
                since = command
            total += (rows.numbers(command)[0] if now else 0) - (then[4] if then is not None else 0)
        budget = config.budget_for(pid)
        frame_cost = frame(self.template, persona, budget)
        # Both packings were made into the room left with the notice reserved: the entries did not
        # and do not fit whole (pack's `over`), and the notice costs what it did.
        room, reserved = budget - frame_cost(0), frame_cost(len(listed))
        if was <= room or total <= room or frame_cost(last.counts[pid]) != reserved:
            return None
        mine = [(c, *rows.numbers(c)) for c in included if c in rows]  # a removed one is past `start`
        chosen = refit(budget - reserved, mine, listed, since, rows.costs().__getitem__, self._least)
        left = list(listed)  # in command order, as `chosen`: each chosen one taken out where it is
        for command in reversed(chosen):
            at = bisect.bisect_left(left, command)
            if at == len(left) or left[at] != command:
                return None  # not listed: never so, but pack would say what it means
            del left[at]
        left_out = tuple(left)
        first = rows[listed[0]][2] if listed else pid
        fixed = frame_cost(0) + sum(cost for cost, always in map(rows.numbers, chosen) if always)
        packing = packed(
            pid,
            budget,
            chosen,
            left_out,
            fixed,
            strategy=Strategy.DROP,
            descriptions={},
            verbose=config.verbose,
            where=config.config_rel or first,
            first=first,
        )
        return packing, total

    def _shards(
        self,
        changed: _Changed,
        checked: dict[str, Checked],
        outcomes: dict[str, Mapping[str, Outcome]],
        out: assemble.Objects,
    ) -> tuple[dict[str, str], dict[str, int], set[str]]:
        """Every shard's digest, and the entries' references, with the changed skills' entries; and
        the objects whose references they change."""
        shards, refs = dict(self.carry.shards), Counter(self.carry.refs)
        touched: set[str] = set()
        names = {fmt.shard_of(c, self.digits) for c in (*checked, *changed.removed)}
        for shard in sorted(names):
            doc = self._doc(shard) if shard in shards else assemble.shard_document(shard, {})
            entries: dict[str, Any] = doc["skills"]
            for command in sorted(
                c for c in (*checked, *changed.removed) if fmt.shard_of(c, self.digits) == shard
            ):
                if command in entries:
                    gone = assemble.entry_refs(entries.pop(command))
                    refs.subtract(gone)
                    touched.update(gone)
                if command in checked:
                    entries[command] = assemble.skill_entry(
                        self.config, checked[command].skill, outcomes[command], self.ids, out
                    )
            doc["skills"] = dict(sorted(entries.items()))  # in command order, as assembly makes them
            if doc["skills"]:
                shards[shard] = out.put_document(assemble.encode(doc))
            else:
                del shards[shard]
        refs.update(out.refs)
        touched.update(out.refs)
        return dict(sorted(shards.items())), {d: n for d, n in refs.items() if n > 0}, touched

    def _lines(self, changed: _Changed, checked: dict[str, Checked]) -> tuple[str, dict[str, str | None]]:
        """The build hash's input lines: the edited files' replaced, the added skills' put in, the
        removed skills' taken out; in path order. And each changed input's line (None: gone): the
        lines are the last build's with those applied as a journal's are (carry.patched_lines)."""
        lines = self.carry.lines
        touched: dict[str, str | None] = {}
        for one in changed.edits.values():
            for file in one.files.values():
                self._line(file.rel)  # one of the last build's inputs, or declined
                touched[file.rel] = input_line(file).decode()
        # The lines are in path order: a removed skill's are together, one run.
        for i, command, _at in changed.moved.removed:
            prefix = f"{self.config.sources[i]}/{command}/"
            at = 0 if lines.startswith(prefix) else lines.find("\n" + prefix) + 1
            while lines.startswith(prefix, at):
                touched[lines[at : lines.index("\0", at)]] = None
                at = lines.index("\n", at) + 1
        for c in changed.added:
            for f in files_of(checked[c].new_src):
                touched[f.rel] = input_line(f).decode()
        return patched_lines(lines, touched), touched

    def _unordered(
        self, changed: _Changed, checked: dict[str, Checked], texts: dict[str, tuple[str, Packing]]
    ) -> tuple[Diagnostic, ...]:
        changes = [(one.old_diags, one.new_diags) for one in checked.values()]
        changes += [(self.carry.own.get(c, ()), ()) for c in changed.removed]
        changes += [
            (
                tuple(self.policy.apply(self.carry.packings[pid])),
                tuple(self.policy.apply(packing.diagnostics)),
            )
            for pid, (_, packing) in texts.items()
        ]
        found = spliced(self.carry.unordered, changes)
        if found is None:
            raise _Declined("diagnostics that are not the recorded ones")
        return found

    # --- recording it --------------------------------------------------------------------------------

    def _record(
        self,
        key: str,
        written: tuple[Carry, Catalog | None, tuple[Diagnostic, ...] | None] | None,
        dropped: set[str],
        files: Mapping[str, bytes],
        moved: _Moved,
    ) -> None:
        """Record the build `key` with the walk as `changes` saw it; `written`: the carry, the catalog
        rows when they changed, and the report of a build this wrote when it is not the recorded one
        (`files`; `dropped`: the objects the last build named that it does not). The previous
        record's files and report stand for a build that wrote nothing."""
        record, quick = self.record, self.record.quick
        assert quick is not None and record.inputs is not None
        changes = self.changes
        inputs = digest("edited", record.inputs, *sorted((*changes.files, *changes.folders, *changes.gone)))
        walk = self.manifest.renewed(inputs, moved.relisted, moved.paths)
        if walk is None:
            return  # the next build walks again: nothing is recorded that cannot be vouched for
        if written is None:  # nothing written: the output and its signature are the recorded ones
            self.records.save(replace(record, inputs=inputs), None, None, walk)
            return
        ours = (
            self.read_ahead.outputs if self.read_ahead else self.records.packed_outputs()
        )  # made this build's in place
        try:  # written, then the lock released: a build that ran meanwhile may have written another
            index = fs.read_regular(self.dist / fmt.INDEX, fmt.MAX_INDEX_BYTES, follow=False)
        except OSError:
            return
        if ours is None or sha256_hex(index) != written[0].index:
            return  # the next build finds an output it did not record, and builds
        # The record lists the last build's objects and no other (a build records the files it
        # wrote or kept, and an edit build takes out what it dropped): those it drops are looked
        # up, where testing every object's name took 5 ms at 10,000 skills and 90 at 100,000.
        unused = ours.places(map(fmt.object_path, dropped))
        ours.drop(unused)
        for rel in files:
            ours.put(rel, fs.output_stat(os.lstat(self.dist / rel)))
        extra = quick.extra or bool(unused)  # the output keeps objects this build does not use
        new_quick = replace(signature_after(self.dist, quick, files, ours.get), extra=extra)
        carry, catalog, report = written
        kept_report = None if report is not None else record.report_key  # the files the last build's names
        new_record = Record(key, record.head_key, record.dist, *carry.counts, inputs, new_quick, kept_report)
        # Before head.json names its key; the catalog rows whole, when the carry is, as they are now.
        save_edit(self.directory, self.records.signing_key, carry, lambda: catalog or self.catalog)
        self.records.save(new_record, ours, report, walk)

    def _result(
        self, unordered: tuple[Diagnostic, ...], counts: tuple[int, int, int], stats: Stats
    ) -> tuple[Edited, WriteResult]:
        report = final_diagnostics(self.config, counts[0] == 0, unordered)
        return Edited(self.config, Summary(*counts), report, stats), WriteResult(stats.edited, 0)


def _differing(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, str]]:
    """The (name, kind) entries of one listing and not of the other, in order: the symmetric
    difference of their pairs, found through the names (in C but for the names of both)."""
    common = before.keys() & after.keys()
    found = [(n, before[n]) for n in before.keys() - common] + [(n, after[n]) for n in after.keys() - common]
    if not all(map(operator.eq, map(before.__getitem__, common), map(after.__getitem__, common))):
        found += [pair for n in common if before[n] != after[n] for pair in ((n, before[n]), (n, after[n]))]
    return sorted(found)


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _tree(top: str, stamp: int) -> list[tuple[str, Stat, tuple[list[str], str] | None]]:
    """Every folder and file below a new folder, as the stat walk records them (snapshot.py): each
    folder with its entries, each file with its stat data. A link or a special file is discover's.
    Each folder is listed after `stamp` and was last changed before it, as the walk's are."""
    rows: list[tuple[str, Stat, tuple[list[str], str] | None]] = []
    stack = [top]
    while stack:
        folder = stack.pop()
        # Its stat data before its entries, as the walk takes them (snapshot.py): an entry made in
        # between moves the folder past what is recorded, and the next build lists it again.
        st = stat_data(os.lstat(folder))
        if st[2] >= stamp:
            raise _Declined("a new folder changed while the build started")
        try:
            names, kinds = _scan(folder)
        except CannotVouch:
            raise _Declined("a name that is not UTF-8") from None
        rows.append((folder, st, (names, kinds)))
        for name, kind in zip(names, kinds, strict=True):
            at = f"{folder}/{name}"
            if kind == "d":
                stack.append(at)
            elif kind == "f":
                rows.append((at, stat_data(os.lstat(at)), None))
            elif kind != "i":  # a name no walk enters is listed, not walked
                raise _Declined("a link or a special file in a new folder")
    return rows


def _digest_of(rel: str) -> str:
    return rel.rsplit("/", 1)[1]


def _read(where: str, rel: str, cap: int, stamp: int) -> InputFile:
    """The file as discover reads it, stat'ed after the stamp and older than it (so that the walk
    recorded for it vouches for these bytes)."""
    st = os.lstat(where)
    if not stat.S_ISREG(st.st_mode) or st.st_ctime_ns >= stamp:
        raise _Declined("not a regular file older than the stamp")
    problems: list[Diagnostic] = []
    found = read_input(
        Entry(rel, where, bool(st.st_mode & 0o111), (st.st_dev, st.st_ino)), rel, cap, problems
    )
    if found is None or problems:
        raise _Declined("a file discover would report")
    return found


def _row_fields(skill: Skill) -> tuple[Any, ...]:
    """What a catalog entry and a budget candidate read of a skill."""
    return (skill.name, skill.description, skill.path, bool(skill.flag("always", False)))


def _listed(entry: SkillDoc, pid: str) -> bool:
    """Whether the last build listed the skill in `pid`'s catalog: its model may invoke it."""
    exceptions = entry["exceptions"]
    res = exceptions[pid] if pid in exceptions else entry["default"]
    return res is not None and bool(res["model"])


def _model(outcome: Outcome | None) -> bool:
    return outcome is not None and outcome.model


@dataclass(frozen=True)
class _Last:
    """Of the skills an edit build changes: each one's catalog row in the last build (None: it had
    none), and which each persona listed; and how many each persona listed."""

    rows: dict[str, Row | None]
    listed: dict[str, set[str]]
    counts: dict[str, int]


def _unlabelled(skill: Skill) -> None:
    """Decline a skill with a label (a name that is not its id): the catalog rows an edit build
    renders from keep the id alone (carry.made keeps no config for a build with one)."""
    if skill.label != skill.name:
        raise _Declined("a skill with a label")


class _Rows(Mapping[str, Skill]):
    """The listed skills as the catalog reads them (catalog_skill), made from their rows when asked."""

    def __init__(self, rows: Mapping[str, Row]) -> None:
        self._rows = rows

    def __getitem__(self, command: str) -> Skill:
        name, description, path, always, _cost, _bare = self._rows[command]
        fields = {"always": True} if always else {}
        return Skill(command, name, description, 0, path, "", "", fields, (), None, ())

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
