"""The build record: the last successful build, to replay it, read by parts.

- `head.json` (small): the build key; the head key (the build key without the inputs); one digest
  of the inputs' stat walk; and what the no-op path checks before the config is even parsed
  (`Quick`): the files the config side reads, by their bytes, and the output by its directories,
  index, marker and persona files;
- `walk.json`: what discover's walk saw (walk.py), which the no-op path checks instead of walking;
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
from .packed import pack, pack_texts, unpack, unpack_texts
from .report import Report, encode_report, encode_text, report_of
from .store import read_signed, write_signed
from .walk import NAME as WALK_FILE
from .walk import Walk, decode, encode

if TYPE_CHECKING:  # a no-op build loads no model
    from ..diagnostics import Diagnostic
    from ..model import Config

BUILD_FILE, OUTPUTS_FILE, REPORT_FILE, ROWS_FILE = "head.json", "outputs.json", "report.json", "rows.json"
# What earlier formats kept: removed by the next recorded build (the journals, the catalog memo)
OBSOLETE: tuple[str, ...] = ("build.json", "memo.json", "costs.json", "catalogs.json")
OBSOLETE += ("walk-edits.json", "outputs-edits.json", "carry-edits.json")


@dataclass(frozen=True)
class Outputs:
    """The recorded build's output files (outputs.json): their names in order, and the stat data of
    each, five values a name (size, mtime, ctime, inode, mode), packed as the walk's are (packed.py).
    An edit build takes out the objects it no longer uses and puts in what it wrote, in place."""

    names: list[str]
    stats: array.array[int]

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

    def drop(self, rels: Iterable[str]) -> int:
        """Take out those of `rels` that are here; how many were."""
        places = []
        for rel in rels:
            at = bisect.bisect_left(self.names, rel)
            if at < len(self.names) and self.names[at] == rel:
                places.append(at)
        for at in sorted(places, reverse=True):
            del self.names[at]
            del self.stats[5 * at : 5 * at + 5]
        return len(places)

    def put(self, rel: str, stat: list[int]) -> None:
        at = bisect.bisect_left(self.names, rel)
        if at < len(self.names) and self.names[at] == rel:
            self.stats[5 * at : 5 * at + 5] = array.array("q", stat)
        else:
            self.names.insert(at, rel)
            self.stats[5 * at : 5 * at] = array.array("q", stat)

    def encode(self, key: str) -> dict[str, Any]:
        return {"key": key, "names": pack_texts(self.names), "stats": pack(self.stats)}

    @classmethod
    def decode(cls, data: Any, key: str) -> Outputs | None:
        """outputs.json's files, when they are the build `key`'s."""
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        names, values = unpack_texts(data.get("names")), unpack(data.get("stats"))
        if names is None or values is None or len(values) != 5 * len(names):
            return None
        return cls(names, values)


@dataclass(frozen=True)
class Quick:
    """What the no-op path checks before it parses the config (quick.py)."""

    head: str  # digest of the fingerprint, the config path, the options and each watched file's state
    watched: list[str]  # every file the config side reads or looks for (config, template, ignore files)
    output: str  # the output directory as the config names it
    dirs: dict[str, list[int]]  # the output and each directory in it -> [mtime_ns, ctime_ns, inode]
    files: dict[str, list[int]]  # each file in the output but objects -> [size, mtime, ctime, inode, mode]
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
    left_out: int  # SKILL.md files found and not built: the summary line says how many
    inputs: str | None = None  # the id of its recorded walk (walk.json), when it could vouch for one
    quick: Quick | None = None
    # The build key that report.json and rows.json carry, when not this record's: an edit build
    # whose diagnostics are the last build's keeps those files rather than writing them again.
    report: str | None = None

    @property
    def report_key(self) -> str:
        return self.report or self.build_key


def build_key(fingerprint: str, build_hash: str, config: Config, early: tuple[Diagnostic, ...]) -> str:
    """`early`: the diagnostics of config loading and discovery, which cover what is not an input
    byte (ignored files, unreadable paths). The walked roots as the config expands them (`~`): the
    input lines name a source by its label, the same under any HOME."""
    dist = str((config.root / config.output).resolve())
    roots = [str(where) for where in config.source_dirs]
    flags = (
        f"{config.strict}/{config.skip_invalid}/{config.verbose}/{config.severities}/{config.path_severities}"
    )
    # The ignore files above the walked roots are no input, but decide which files are.
    ignores = digest("ignore", *(part for entry in config.ignore_outer for part in entry))
    # In any order: an edit build takes a skill's own out and puts its new ones in (edit.py).
    said = sorted(d.format() for d in early)
    return digest(fingerprint, build_hash, flags, dist, ignores, *roots, *said)


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
    _walk: tuple[str, Walk | None] | None = field(default=None)  # walk.json, once read, for its id
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
        """The recorded build's outputs (outputs.json, when it is that build's): a new value each
        call, which an edit build changes."""
        record = self.record()
        if record is None:
            return None
        return Outputs.decode(read_signed(self.directory, OUTPUTS_FILE, self.signing_key), record.build_key)

    def walk(self) -> Walk | None:
        """The recorded build's walk (walk.json, by its id)."""
        record = self.record()
        if record is None or record.inputs is None:
            return None
        if self._walk is None or self._walk[0] != record.inputs:
            data = read_signed(self.directory, WALK_FILE, self.signing_key)
            self._walk = (record.inputs, decode(data, record.inputs))
        return self._walk[1]

    def report(self, record: Record) -> Report | None:
        """The diagnostics of the recorded build (the files its `report_key` names), or None when
        either file is not that build's. The rows are read now (a replay that found them damaged
        when it printed could only fail) and decoded only for another format."""
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
                data["left_out"],
                data["inputs"],
                _quick(data["quick"]),
                data.get("report"),
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
        walk: Walk | None = None,
    ) -> None:
        """Keep `record`; `files`, `diagnostics` and `walk` too, unless they are those already kept
        (None; the record's `report` then names the key the kept report carries, its `inputs` the
        walk kept). `head.json` is written last: until then the others name another key."""
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
                write_signed(self.directory, OUTPUTS_FILE, self.signing_key, packed.encode(key))
            except OverflowError:  # an inode number past 2**63 (overlayfs's xino): outputs.json stays
                pass  # another key's, so the next build compares the output file by file
        if walk is not None and (self._walk is None or self._walk[1] is not walk):
            write_signed(self.directory, WALK_FILE, self.signing_key, encode(walk))
            self._walk = (walk.id, walk)
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
                "left_out": record.left_out,
                "inputs": record.inputs,
                "quick": None if quick is None else quick.__dict__,
                "report": record.report,
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
