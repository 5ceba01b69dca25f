"""The marker of an export, `.skillc-export.json`: per target, what it exported and what it owns
in the project (skill folders, their files with digests, settings keys, folders made on the way).

Written by output/export.py last, as the commit of an export; read back before the next one. A
marker that is not one skillc wrote makes nothing skillc's: the export is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import fs
from ..dataclass import dataclass
from ..errors import OutputRefused
from . import journal
from .settings import Held

MARKER = ".skillc-export.json"  # what each target's export owns in DEST
MAX_MARKER_BYTES = 64 * 1024 * 1024  # a marker lists paths and digests: far below this at 10,000 skills


@dataclass(frozen=True)
class Record:
    """What one target's last export owns in DEST, as the marker records it."""

    folders: tuple[str, ...] = ()
    files: tuple[tuple[str, bool, str], ...] = ()  # path, executable, sha256
    settings: tuple[tuple[str, Held], ...] = ()
    dirs: tuple[str, ...] = ()  # folders it made on the way (.claude, .claude/skills)

    def held(self, name: str) -> Held | None:
        return next((h for f, h in self.settings if f == name), None)


def marker_bytes(records: Mapping[str, tuple[Record, Mapping[str, Any]]]) -> bytes:
    """The marker: per target, what it exported and what it owns. No time or machine detail, so
    the same export into the same project is the same bytes."""
    doc = {
        "exports": {
            target: {
                **about,
                "dirs": list(record.dirs),
                "files": {p: {"executable": x, "sha256": h} for p, x, h in record.files},
                "folders": list(record.folders),
                "settings": {name: held.json() for name, held in record.settings},
            }
            for target, (record, about) in sorted(records.items())
        }
    }
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def read_marker(dest: Path) -> dict[str, tuple[Record, Mapping[str, Any]]]:
    """Each target's record in dest's marker; empty when there is none. A marker that is not one
    skillc wrote is refused: what it lists cannot be trusted, and it must not be overwritten."""
    try:
        data = fs.read_regular(dest / MARKER, MAX_MARKER_BYTES, follow=False)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise OutputRefused(f"{dest / MARKER}: {exc.strerror or exc}; move it away") from None
    records = _records(data)
    if records is None:
        raise OutputRefused(
            f"{dest / MARKER} is not a marker this skillc wrote, so nothing it lists is skillc's to "
            "replace: move it away (and what it exported) and export again"
        )
    return records


def _records(data: bytes) -> dict[str, tuple[Record, Mapping[str, Any]]] | None:
    try:
        doc = json.loads(data)
        out = {}
        for target, section in doc["exports"].items():
            files = section.pop("files")
            record = Record(
                folders=tuple(_strings(section.pop("folders"))),
                files=tuple((p, bool(v["executable"]), str(v["sha256"])) for p, v in sorted(files.items())),
                settings=tuple((n, _held(h)) for n, h in sorted(section.pop("settings").items())),
                dirs=tuple(_strings(section.pop("dirs"))),
            )
            paths = [*record.folders, *(p for p, _, _ in record.files), *record.dirs]
            if not all(isinstance(p, str) and journal.plain(p) for p in [*paths, *dict(record.settings)]):
                return None
            out[str(target)] = (record, section)
        return out
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _held(doc: object) -> Held:
    held = Held.from_json(doc)
    if held is None:
        raise ValueError("not a settings record")
    return held


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of strings")
    return value
