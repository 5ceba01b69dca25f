"""The build record (`build.json`, `report.json`, `rows.json`): the last successful build, to replay it.

- build key: everything the stages after discover depend on (the build hash of every input byte,
  the config, the template and the generator; the compiler's fingerprint; the flags; the output;
  the diagnostics of config loading and discovery);
- head key: the build key without the inputs, which the no-op path checks before reading any.

A build with errors is never recorded, so never replayed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..format.layout import is_object
from ..fs import scan_tree
from ..model import Config
from .codec import Report, encode_report, encode_text, report_of
from .memo import Stats, digest
from .snapshot import Snapshot, decode_snapshot, encode_snapshot, same_inputs
from .store import read_signed, write_signed

BUILD_FILE, REPORT_FILE, ROWS_FILE = "build.json", "report.json", "rows.json"


@dataclass(frozen=True)
class Record:
    """The last successful build, as `build.json` holds it (its diagnostics are in `report.json`)."""

    build_key: str
    dist: str
    files: dict[str, list[int]]  # path in the output -> [size, mtime_ns, ctime_ns, inode, mode]
    skills: int
    personas: int
    objects: int
    inputs: Snapshot | None = None  # its inputs by stat data, for the no-op fast path


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
    stats: Stats
    _loaded: tuple[Record | None] | None = field(default=None)  # build.json, once read

    def replay(self, key: str, dist: Path, *, prune: bool) -> tuple[Record, Report] | None:
        """The recorded build and its diagnostics, when `key` matches and dist is as that build left it."""
        record = self.record()
        if record is None or record.build_key != key or not output_current(record, dist, prune=prune):
            return None
        # Loaded only now: a hundred thousand diagnostics cost more than the checks above.
        data = read_signed(self.directory, REPORT_FILE, self.signing_key)

        def rows() -> Any:
            found = read_signed(self.directory, ROWS_FILE, self.signing_key)
            return found if isinstance(found, dict) and found.get("key") == key else None

        report = report_of(data, rows)
        if report is None or data.get("key") != key:
            return None
        self.stats.replayed = True
        return record, report

    def replay_unchanged(self, now: Snapshot, dist: Path, *, prune: bool) -> tuple[Record, Report] | None:
        """The no-op fast path: `replay` without reading an input, when `now` shows them as recorded.

        Same stat data for every input of the last build, the same listing of every walked
        directory, the same config, template and flags (the head key): the inputs are taken to be
        unchanged, so the build key is the recorded one. The output is checked exactly as `replay` does.
        """
        record = self.record()
        if record is None or record.inputs is None or not same_inputs(record.inputs, now):
            return None
        hit = self.replay(record.build_key, dist, prune=prune)
        self.stats.unread = hit is not None
        return hit

    def record(self) -> Record | None:
        if self._loaded is None:  # read once: the fast path and the content path both ask
            self._loaded = (self._read(),)
        return self._loaded[0]

    def _read(self) -> Record | None:
        data = read_signed(self.directory, BUILD_FILE, self.signing_key)
        try:
            if (
                data["format"] != self.format
                or data["fingerprint"] != self.fingerprint
                or not isinstance(data["files"], dict)
            ):
                return None
            inputs = decode_snapshot(data.get("inputs"))
            return Record(
                data["key"],
                data["dist"],
                data["files"],
                data["skills"],
                data["personas"],
                data["objects"],
                inputs,
            )
        except (KeyError, TypeError):
            return None

    def save(self, record: Record, diagnostics: tuple[Diagnostic, ...]) -> None:
        # The report carries the key too, so a record never replays another build's report.
        key = record.build_key
        write_signed(self.directory, ROWS_FILE, self.signing_key, {"key": key, **encode_report(diagnostics)})
        write_signed(self.directory, REPORT_FILE, self.signing_key, {"key": key, **encode_text(diagnostics)})
        self._write(record)

    def save_inputs(self, inputs: Snapshot | None) -> None:
        """After a replay that had to read the inputs: keep their stat data, so the next one need not."""
        record = self.record()
        if record is not None and inputs is not None and inputs != record.inputs:
            self._write(replace(record, inputs=inputs))

    def _write(self, record: Record) -> None:
        write_signed(
            self.directory,
            BUILD_FILE,
            self.signing_key,
            {
                "format": self.format,
                "fingerprint": self.fingerprint,
                "key": record.build_key,
                "dist": record.dist,
                "files": record.files,
                "skills": record.skills,
                "personas": record.personas,
                "objects": record.objects,
                "inputs": encode_snapshot(record.inputs),
            },
        )


def output_current(record: Record, dist: Path, *, prune: bool) -> bool:
    """dist holds every file the recorded build left, unchanged, and nothing a build would remove."""
    if str(dist.resolve()) != record.dist:
        return False
    if any(dist.parent.glob(f".{dist.name}.tmp-*")) or any(dist.parent.glob(f".{dist.name}.old-*")):
        return False  # a killed build left debris that a real build cleans up
    present = scan_tree(dist)
    if present is None:
        return False
    if any(present.get(rel) != stat for rel, stat in record.files.items()):
        return False
    extra = present.keys() - record.files.keys()
    # Objects of earlier builds are kept unless --prune; any other extra file a build would delete.
    return not extra if prune else all(is_object(rel) for rel in extra)
