"""An export's keys in a project's JSON settings file, beside the keys that are not skillc's.

A harness reads some of what an export hides from its project settings (`.claude/settings.json`,
`.gemini/settings.json`, `opencode.json`), files a project usually has already. The export owns
only the keys it sets there: `merge` takes back the keys and list items the last export set (its
marker's `Held`), sets the new ones, and keeps every other key, value and key order as it was. A
key that is already there and was not the last export's belongs to someone else: the export is
refused rather than overwriting it. A file that is not a JSON object is refused too, never rewritten.
Pure: bytes in, bytes out; output/export.py reads and writes the files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..dataclass import dataclass
from ..errors import OutputRefused

Path_ = tuple[str, ...]  # keys from the top of the document


@dataclass(frozen=True)
class Setting:
    """One key an export sets in `file`: the value at `path`, objects all the way down; or, with
    `item`, one string added to the list at `path` (Gemini CLI's `skills.disabled`)."""

    file: str
    path: Path_
    value: Any
    item: bool = False


@dataclass(frozen=True)
class Held:
    """What one export set in one settings file, as its marker records it: the file itself when
    it made it, the objects and lists it made on the way, its keys and its list items."""

    created: bool = False
    containers: tuple[Path_, ...] = ()
    keys: tuple[Path_, ...] = ()
    items: tuple[tuple[Path_, str], ...] = ()

    def json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "containers": [list(p) for p in self.containers],
            "keys": [list(p) for p in self.keys],
            "items": [[list(p), v] for p, v in self.items],
        }

    @staticmethod
    def from_json(doc: object) -> Held | None:
        """The record as the marker holds it, or None when it is not one (a tampered marker)."""
        if not isinstance(doc, dict) or not isinstance(doc.get("created"), bool):
            return None
        containers, keys = _paths(doc.get("containers")), _paths(doc.get("keys"))
        items = doc.get("items")
        if containers is None or keys is None or not isinstance(items, list):
            return None
        pairs = []
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
                return None
            path = _paths([item[0]])
            if path is None:
                return None
            pairs.append((path[0], item[1]))
        return Held(doc["created"], containers, keys, tuple(pairs))


class SettingsRefused(OutputRefused):
    """A settings file the export cannot merge into: not JSON, or a key that is someone else's."""


def merge(
    name: str, current: bytes | None, held: Held | None, edits: Sequence[Setting]
) -> tuple[bytes | None, Held | None]:
    """The file's new bytes (None: it should not exist) and what the export then holds in it
    (None: nothing). `current` is the file as it is (None: absent), `held` what the last export
    set in it, `edits` what this one sets. Raises SettingsRefused, and nothing is to be written."""
    doc = _load(name, current) if current is not None else None
    held = held or Held()
    created = held.created if doc is not None else True
    doc = doc if doc is not None else {}
    _take_back(doc, held)
    made = [p for p in held.containers if _at(doc, p) is not None]
    keys, items = [], []
    for edit in sorted(edits, key=lambda e: (e.path, str(e.value))):
        made += _containers(
            name, doc, edit.path if edit.item else edit.path[:-1], list if edit.item else None
        )
        if edit.item:
            found = _at(doc, edit.path)
            if edit.value not in found:  # already there: the project's own entry, left to it
                found.append(edit.value)
                items.append((edit.path, edit.value))
            continue
        parent, key = _at(doc, edit.path[:-1]), edit.path[-1]
        if key in parent:
            raise SettingsRefused(
                f"{name}: {_shown(edit.path)} is already set, and not by the last export: skillc keeps "
                "every key it did not write; remove it, or export a persona whose skills do not need it"
            )
        parent[key] = edit.value
        keys.append(edit.path)
    now = Held(created, tuple(dict.fromkeys(made)), tuple(keys), tuple(items))
    if created and not doc:
        return None, None
    text = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    if current is not None and text != current and not (keys or items or held.keys or held.items):
        text = current  # nothing of ours in it, before or now: never reformatted
    return text, now if (now.created or now.keys or now.items or now.containers) else None


def _load(name: str, data: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_unique,
            parse_constant=_no_constant,
            parse_float=_finite,
        )
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise SettingsRefused(
            f"{name} is not valid JSON ({exc}); skillc merges its keys into it and keeps every other "
            "key, so it must read it first: fix the file, or move it away"
        ) from None
    if not isinstance(doc, dict):
        raise SettingsRefused(f"{name} is not a JSON object; skillc merges its keys into an object only")
    return doc


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {dup!r}: rewriting the file would drop one")
    return out


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is out of range: rewriting the file would change it")
    return value


def _take_back(doc: dict[str, Any], held: Held) -> None:
    """Remove the last export's keys and items, then the containers it made that are now empty."""
    for path in held.keys:
        parent = _at(doc, path[:-1])
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
    for path, value in held.items:
        found = _at(doc, path)
        if isinstance(found, list) and value in found:
            found.remove(value)
    for path in sorted(held.containers, key=len, reverse=True):
        parent, found = _at(doc, path[:-1]), _at(doc, path)
        if isinstance(parent, dict) and found in ({}, []):
            del parent[path[-1]]


def _containers(name: str, doc: dict[str, Any], path: Path_, last: type | None) -> list[Path_]:
    """Make the objects on `path` (and a list at its end when `last` is list); the paths it made.
    One on the way that is not an object (a list where a list is meant) is refused."""
    made, node = [], doc
    for depth, key in enumerate(path, 1):
        want = list if last is list and depth == len(path) else dict
        if key not in node:
            node[key] = want()
            made.append(path[:depth])
        elif not isinstance(node[key], want):
            kind = "a list" if want is list else "an object"
            raise SettingsRefused(
                f"{name}: {_shown(path[:depth])} is not {kind}; skillc would set keys below it: fix it"
            )
        node = node[key]
    return made


def _at(doc: Any, path: Path_) -> Any:
    """The value at path, or None when a key on the way is missing or not an object."""
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def _paths(value: object) -> tuple[Path_, ...] | None:
    if not isinstance(value, list):
        return None
    out = []
    for path in value:
        if not (isinstance(path, list) and path and all(isinstance(k, str) for k in path)):
            return None
        out.append(tuple(path))
    return tuple(out)


def _shown(path: Iterable[str]) -> str:
    return ".".join(json.dumps(k, ensure_ascii=False) if "." in k or not k else k for k in path)
