"""The build record: the last successful build, to replay it, read by parts.

- `head.json` (small): the build key; the head key (the build key without the inputs); one digest
  of the inputs' stat walk; and what the no-op path checks before the config is even parsed
  (`Quick`): the files the config side reads, by their bytes, and the output by its directories,
  index, marker and persona files;
- `walk.json`: the inputs' stat walk by path (manifest.py), which the no-op path checks instead of
  walking;
- `outputs.json`: the stat data of every file the build left in the output, read only when the
  no-op path missed (the content path compares it, and the write stage trusts it to skip objects);
- `report.json` and `rows.json`: the build's diagnostics, as printed text and as records.

A build with errors is never recorded, so never replayed.
"""

from __future__ import annotations

import array
import bisect
import contextlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dataclass import dataclass, field
from ..digests import digest
from ..format.layout import is_object
from ..fs import scan_tree
from .manifest import EDITS as WALK_EDITS_FILE
from .manifest import NAME as WALK_FILE
from .manifest import Manifest, Renewal, decode, decode_edited
from .packed import pack, pack_texts, unpack, unpack_texts
from .report import Report, encode_report, encode_text, report_of
from .store import read_signed, write_signed

if TYPE_CHECKING:  # a no-op build loads no model
    from ..diagnostics import Diagnostic
    from ..model import Config

BUILD_FILE, OUTPUTS_FILE, REPORT_FILE, ROWS_FILE = "head.json", "outputs.json", "report.json", "rows.json"
OUTPUT_EDITS_FILE = "outputs-edits.json"  # what edit builds changed since outputs.json (`Outputs.changes`)
# A journal kept while it names no more files than this (about 500 KB); past it, outputs.json is
# written whole again. An add or a delete at 10,000 skills changes 30-40 names.
OUTPUT_EDITS_LIMIT = 4096
_DROPPED = (-1, -1, -1, -1, -1)  # a name the journal takes out (no file has a size of -1)
OBSOLETE = ("build.json", "memo.json")  # what earlier formats kept: removed by the next recorded build


@dataclass(frozen=True)
class Outputs:
    """The recorded build's output files (outputs.json): their names in order, and the stat data of
    each, five values a name (size, mtime, ctime, inode, mode), packed as the walk's are (packed.py).
    An edit build takes out the objects it no longer uses and puts in what it wrote, in place, and
    keeps what it changed since the whole file it started from (`base`, that file's id) as a
    journal: `outputs-edits.json`, 2 KB where outputs.json is 1.7 MB at 10,000 skills.

    A whole file is named by an id of its own, drawn when it is written, and not by its build's
    key: a build can have the key of an earlier one (an edit undone, a skill added and removed) and
    still have rewritten files since, whose stat data only its journal holds."""

    names: list[str]
    stats: array.array[int]
    base: str | None = field(default=None, compare=False)  # the id of the outputs.json read
    # Each name changed since then: its stat data, or None for a name taken out.
    changes: dict[str, list[int] | None] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, files: dict[str, list[int]]) -> Outputs:
        names = sorted(files)
        return cls(names, array.array("q", [v for rel in names for v in files[rel]]))

    def as_dict(self) -> dict[str, list[int]]:
        values = self.stats.tolist()
        return {rel: values[5 * i : 5 * i + 5] for i, rel in enumerate(self.names)}

    def get(self, rel: str) -> list[int] | None:
        at = bisect.bisect_left(self.names, rel)
        found = at < len(self.names) and self.names[at] == rel
        return self.stats[5 * at : 5 * at + 5].tolist() if found else None

    def drop(self, places: Iterable[int]) -> None:
        for at in sorted(places, reverse=True):
            self.changes[self.names[at]] = None
            del self.names[at]
            del self.stats[5 * at : 5 * at + 5]

    def places(self, rels: Iterable[str]) -> list[int]:
        """The places of those of `rels` that are here."""
        found = []
        for rel in rels:
            at = bisect.bisect_left(self.names, rel)
            if at < len(self.names) and self.names[at] == rel:
                found.append(at)
        return found

    def put(self, rel: str, stat: list[int]) -> None:
        self.changes[rel] = list(stat)
        at = bisect.bisect_left(self.names, rel)
        if at < len(self.names) and self.names[at] == rel:
            self.stats[5 * at : 5 * at + 5] = array.array("q", stat)
        else:
            self.names.insert(at, rel)
            self.stats[5 * at : 5 * at] = array.array("q", stat)

    def encode(self, key: str) -> dict[str, Any]:
        """outputs.json: the build `key`'s output files, under a new id (the class's docstring)."""
        whole_id = os.urandom(16).hex()
        return {"key": key, "id": whole_id, "names": pack_texts(self.names), "stats": pack(self.stats)}

    @classmethod
    def decode(cls, data: Any) -> Outputs | None:
        """outputs.json's files, whichever build's (its "key"), with its id as their `base`."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        names, values = unpack_texts(data.get("names")), unpack(data.get("stats"))
        if names is None or values is None or len(values) != 5 * len(names):
            return None
        return cls(names, values, data["id"])

    def encode_changes(self, key: str) -> dict[str, Any] | None:
        """outputs-edits.json: the build `key`'s changes since outputs.json; None past the limit."""
        if self.base is None or len(self.changes) > OUTPUT_EDITS_LIMIT:
            return None
        names = sorted(self.changes)
        stats = array.array("q", [v for rel in names for v in (self.changes[rel] or _DROPPED)])
        return {"key": key, "base": self.base, "names": pack_texts(names), "stats": pack(stats)}

    def with_changes(self, data: Any, key: str) -> Outputs | None:
        """These outputs (outputs.json as read) with the journal of the build `key` applied, in one
        pass over the names in order: one `put` or `drop` each moves the names and stat data after
        it, which for a journal of thousands of names cost more than the write it saves."""
        if not isinstance(data, dict) or data.get("key") != key or data.get("base") != self.base:
            return None
        names, values = unpack_texts(data.get("names")), unpack(data.get("stats"))
        if names is None or values is None or len(values) != 5 * len(names) or names != sorted(set(names)):
            return None
        changes: dict[str, list[int] | None] = {}
        for i, rel in enumerate(names):
            values_of = values[5 * i : 5 * i + 5].tolist()
            changes[rel] = None if tuple(values_of) == _DROPPED else values_of
        new_names: list[str] = []
        new_stats = array.array("q")
        at = 0  # the next recorded name not yet copied
        for rel, stat in changes.items():  # in order, as the names are
            i = bisect.bisect_left(self.names, rel, at)
            new_names += self.names[at:i]
            new_stats += self.stats[5 * at : 5 * i]
            if stat is not None:
                new_names.append(rel)
                new_stats.extend(stat)
            at = i + 1 if i < len(self.names) and self.names[i] == rel else i
        new_names += self.names[at:]
        new_stats += self.stats[5 * at :]
        return Outputs(new_names, new_stats, self.base, changes)


@dataclass(frozen=True)
class Quick:
    """What the no-op path checks before it parses the config (quick.py)."""

    head: str  # digest of the fingerprint, the config path, the options and each watched file's state
    watched: list[str]  # every file the config side reads or looks for (config, template, ignore files)
    tops: list[list[str]]  # the walked roots: [config path, directory]
    output: str  # the output directory as the config names it
    dirs: dict[str, list[int]]  # the output and each directory in it -> [mtime_ns, ctime_ns, inode]
    files: dict[
        str, list[int]
    ]  # each file in the output that is no object -> [size, mtime, ctime, inode, mode]
    extra: bool  # the output also holds objects of earlier builds (so --prune has work to do)


@dataclass(frozen=True)
class Record:
    """The last successful build, as `head.json` holds it."""

    build_key: str
    head_key: str
    dist: str
    skills: int
    personas: int
    objects: int
    inputs: str | None = None  # the digest of its inputs' stat walk, when it could vouch for them
    quick: Quick | None = None
    # The build key that report.json and rows.json carry, when not this record's: an edit build
    # whose diagnostics are the last build's keeps those files rather than writing them again.
    report: str | None = None
    left_out: int = 0  # SKILL.md files found and not built: the summary line says how many

    @property
    def report_key(self) -> str:
        return self.report or self.build_key


def build_key(fingerprint: str, build_hash: str, config: Config, early: tuple[Diagnostic, ...]) -> str:
    """`early`: the diagnostics of config loading and discovery, which cover what is not an input
    byte (ignored files, unreadable paths)."""
    dist = str((config.root / config.output).resolve())
    flags = (
        f"{config.strict}/{config.skip_invalid}/{config.verbose}/{config.severities}/{config.path_severities}"
    )
    # The ignore files above the walked roots are no input, but decide which files are.
    ignores = digest("ignore", *(part for entry in config.ignore_outer for part in entry))
    return digest(fingerprint, build_hash, flags, dist, ignores, *(d.format() for d in early))


def head_key(fingerprint: str, config_hash: str, config: Config, diags: tuple[Diagnostic, ...]) -> str:
    """`build_key` without the inputs: `config_hash` covers the generator, the config and the template,
    `diags` the problems found in them. With the same inputs, the same head means the same build key."""
    return digest("head", build_key(fingerprint, config_hash, config, diags))


@dataclass
class Records:
    directory: Path
    signing_key: bytes
    fingerprint: str
    format: int
    _loaded: tuple[Record | None] | None = field(default=None)  # head.json, once read
    _outputs: tuple[dict[str, list[int]] | None] | None = field(default=None)  # outputs.json, once read
    _walk: tuple[Any] | None = field(default=None)  # walk.json's data, once read
    # Its manifest, decoded once for the digest asked (`quick.start` reads it before the
    # quick path asks again: the one manifest whose lstats `start` began)
    _manifest: tuple[str, Manifest | None] | None = field(default=None)
    scanned: dict[str, list[int]] | None = field(default=None)  # the output, as `replay` found it

    def record(self) -> Record | None:
        if self._loaded is None:  # read once: the fast path and the content path both ask
            self._loaded = (self._read(),)
        return self._loaded[0]

    def outputs(self) -> dict[str, list[int]] | None:
        """The stat data of the recorded build's output files (`packed_outputs`, as a dict)."""
        if self._outputs is None:
            packed = self.packed_outputs()
            self._outputs = (None if packed is None else packed.as_dict(),)
        return self._outputs[0]

    def packed_outputs(self) -> Outputs | None:
        """The recorded build's outputs as kept: outputs.json with the journal of outputs-edits.json
        applied when that journal is the recorded build's and over this outputs.json (an edit
        build's), else outputs.json when it is that build's; what an edit build changes (a new value
        each call)."""
        record = self.record()
        if record is None:
            return None
        data = read_signed(self.directory, OUTPUTS_FILE, self.signing_key)
        whole = Outputs.decode(data)
        if whole is None:
            return None
        # The journal first: one over this very file (its id) is newer, even when the record's key
        # is the whole file's too (a build that came back to an earlier build's key).
        edits = read_signed(self.directory, OUTPUT_EDITS_FILE, self.signing_key)
        journaled = whole.with_changes(edits, record.build_key)
        if journaled is not None:
            return journaled
        return whole if data.get("key") == record.build_key else None

    def walk(self) -> Manifest | None:
        """The manifest of the recorded build's stat walk (walk.json, keyed by its digest)."""
        record = self.record()
        if record is None or record.inputs is None:
            return None
        if self._walk is None:
            self._walk = (read_signed(self.directory, WALK_FILE, self.signing_key),)
        if self._manifest is None or self._manifest[0] != record.inputs:
            self._manifest = (record.inputs, self._decoded(self._walk[0], record.inputs))
        return self._manifest[1]

    def _decoded(self, data: Any, inputs: str) -> Manifest | None:
        """walk.json's manifest when it is of the walk `inputs`, else walk.json with the journal of
        walk-edits.json applied when that is (an edit build's)."""
        if isinstance(data, dict) and data.get("inputs") == inputs:
            return decode(data, inputs)
        edits = read_signed(self.directory, WALK_EDITS_FILE, self.signing_key)
        return decode_edited(data, edits, inputs) if isinstance(edits, dict) else None

    def keep_walk(self, data: dict[str, Any] | Renewal | None) -> None:
        """Keep a walk's manifest, unless it is the one kept (the record must name its digest); an
        edit build's (`Renewal`) as its journal over walk.json while that is small, else whole."""
        if isinstance(data, Renewal):
            journal = data.journal()
            if journal is not None and write_signed(
                self.directory, WALK_EDITS_FILE, self.signing_key, journal
            ):
                self._manifest = None
                return
            data = data.whole()
        if data is not None and (self._walk is None or data != self._walk[0]):
            write_signed(self.directory, WALK_FILE, self.signing_key, data)
            self._walk, self._manifest = (data,), None

    def report(self, record: Record) -> Report | None:
        """The diagnostics of the recorded build `record` (in the files its `report_key` names), or
        None when either file is not that build's or does not check out. The rows, from which a
        report printed otherwise than as recorded is decoded (another folder, colour, JSON, SARIF),
        are read now and decoded only then: a replay that found them damaged when it printed could
        only fail, build after build, where a build made now writes them again."""
        key = record.report_key
        data = read_signed(self.directory, REPORT_FILE, self.signing_key)
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        rows = read_signed(self.directory, ROWS_FILE, self.signing_key)
        if not isinstance(rows, dict) or rows.get("key") != key:
            return None
        return report_of(data, rows)

    def replay(self, key: str, dist: Path, *, prune: bool) -> tuple[Record, Report] | None:
        """The recorded build and its diagnostics, when `key` matches and dist is as that build left it."""
        record = self.record()
        if record is None or record.build_key != key:
            return None
        files = self.outputs()
        if files is None:
            return None
        self.scanned = scan_tree(dist) if str(dist.resolve()) == record.dist and not debris(dist) else None
        if not output_current(files, self.scanned, prune=prune):
            return None
        # Loaded only now: a hundred thousand diagnostics cost more than the checks above.
        report = self.report(record)
        return None if report is None else (record, report)

    def _read(self) -> Record | None:
        data = read_signed(self.directory, BUILD_FILE, self.signing_key)
        try:
            if data["format"] != self.format or data["fingerprint"] != self.fingerprint:
                return None
            record = Record(
                data["key"],
                data["head"],
                data["dist"],
                data["skills"],
                data["personas"],
                data["objects"],
                data["inputs"],
                _quick(data["quick"]),
                data.get("report"),
                data.get("left_out", 0),
            )
        except (KeyError, TypeError):
            return None
        shapes = ((record.build_key, str), (record.head_key, str), (record.dist, str))
        ok = all(type(value) is kind for value, kind in shapes) and all(
            type(value) in (str, type(None)) for value in (record.inputs, record.report)
        )
        return record if ok else None

    def save(
        self,
        record: Record,
        files: dict[str, list[int]] | Outputs | None,
        diagnostics: tuple[Diagnostic, ...] | None,
        walk: dict[str, Any] | Renewal | None = None,
    ) -> None:
        """Keep `record`; `files`, `diagnostics` and the walk's manifest too, unless they are those
        already kept (None; the record's `report` then names the key the kept report carries);
        `files` may be those `packed_outputs` gave, changed. `head.json` is written last: until
        then the others name another key."""
        key = record.build_key
        assert diagnostics is None or record.report is None, "a report written carries the record's key"
        if diagnostics is not None:  # the report carries the key too, so a record never replays another's
            write_signed(
                self.directory, ROWS_FILE, self.signing_key, {"key": key, **encode_report(diagnostics)}
            )
            write_signed(
                self.directory, REPORT_FILE, self.signing_key, {"key": key, **encode_text(diagnostics)}
            )
        if files is not None:
            try:
                packed = files if isinstance(files, Outputs) else Outputs.of(files)
                journal = packed.encode_changes(key)
            except OverflowError:  # an inode number past 2**63 (overlayfs's xino): outputs.json stays
                pass  # another key's, so the next build compares the output file by file
            else:
                if journal is None or not write_signed(
                    self.directory, OUTPUT_EDITS_FILE, self.signing_key, journal
                ):
                    write_signed(self.directory, OUTPUTS_FILE, self.signing_key, packed.encode(key))
        self.keep_walk(walk)
        quick = record.quick
        write_signed(
            self.directory,
            BUILD_FILE,
            self.signing_key,
            {
                "format": self.format,
                "fingerprint": self.fingerprint,
                "key": key,
                "head": record.head_key,
                "dist": record.dist,
                "skills": record.skills,
                "personas": record.personas,
                "objects": record.objects,
                "inputs": record.inputs,
                "quick": None if quick is None else quick.__dict__,
                "report": record.report,
                "left_out": record.left_out,
            },
        )
        self._loaded = (record,)
        for name in OBSOLETE:
            with contextlib.suppress(OSError):
                os.unlink(self.directory / name)


def _quick(data: Any) -> Quick | None:
    if data is None:
        return None
    quick = Quick(**data)
    shapes = (
        (quick.head, str),
        (quick.watched, list),
        (quick.tops, list),
        (quick.output, str),
        (quick.dirs, dict),
        (quick.files, dict),
        (quick.extra, bool),
    )
    if not all(type(value) is kind for value, kind in shapes):
        raise TypeError("not a quick record")
    return quick


def output_current(files: dict[str, list[int]], present: dict[str, list[int]] | None, *, prune: bool) -> bool:
    """The output (`present`, its stat data) holds every file the recorded build left, unchanged,
    and nothing a build would remove."""
    if present is None:
        return False
    if any(present.get(rel) != stat for rel, stat in files.items()):
        return False
    extra = present.keys() - files.keys()
    # Objects of earlier builds are kept unless --prune; any other extra file a build would delete.
    return not extra if prune else all(is_object(rel) for rel in extra)


def debris(dist: Path) -> bool:
    """A killed build left a tree beside the output, which a real build cleans up."""
    try:
        names = os.listdir(dist.parent)
    except OSError:
        return True
    tmp, old = f".{dist.name}.tmp-", f".{dist.name}.old-"
    return any(n.startswith(tmp) or n.startswith(old) for n in names)
