"""What the cache keeps, as JSON: diagnostics and checked skills, each checked to round-trip; and
any value of the model (`to_json`, `from_json`: the carry's config and personas)."""

from __future__ import annotations

import base64
import enum
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from .. import model
from ..dataclass import fields
from ..diagnostics import Diagnostic
from ..model import Resource, Skill, SkillSource
from .report import SEVERITY_OF


def encode_diags(diags: tuple[Diagnostic, ...]) -> list[list[Any]]:
    return [[d.path, d.line, d.col, d.severity.value, d.code, d.message] for d in diags]


def decode_diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    return tuple(
        Diagnostic(p, line, col, SEVERITY_OF[sev], code, msg) for p, line, col, sev, code, msg in rows
    )


def json_exact(value: Any) -> bool:
    """JSON gives value back as it is: no tuples, no non-str keys, no NaN, no huge ints."""
    if value is None or type(value) in (str, bool):
        return True
    if type(value) is int:
        return -(2**63) <= value < 2**64
    if type(value) is float:
        return value == value and abs(value) != float("inf")
    if type(value) is list:
        return all(json_exact(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and json_exact(v) for k, v in value.items())
    return False


def encode_skill(skill: Skill | None) -> dict[str, Any] | None:
    if skill is None:
        return None
    return {
        "name": skill.name,
        "description": skill.description,
        "body": skill.body,
        "fields": dict(skill.fields),
        "anchors": {k: list(v) for k, v in skill.anchors.items()},
    }


class Derived(NamedTuple):
    """What a memoised skill takes from the SkillSource it is checked from, not from the memo: a
    few small values, which the memo keeps until it writes (the source holds the file's bytes)."""

    command: str
    source: int
    path: str
    dir_rel: str
    resources: tuple[Resource, ...]
    origin: str

    @classmethod
    def of(cls, src: SkillSource) -> Derived:
        return cls(src.command, src.source, src.skill_md.rel, src.dir_rel, src.resources, src.origin)


def decode_skill(entry: dict[str, Any] | None, src: Derived) -> Skill | None:
    if entry is None:
        return None
    return Skill(
        command=src.command,
        name=entry["name"],
        description=entry["description"],
        source=src.source,
        path=src.path,
        dir_rel=src.dir_rel,
        body=entry["body"],
        fields=entry["fields"],
        resources=src.resources,
        parent=None,
        children=(),
        anchors={k: (v[0], v[1]) for k, v in entry["anchors"].items()},
        origin=src.origin,
    )


def to_json(value: Any) -> Any:
    """A value of the model as JSON, its tuples, dicts, paths, bytes, enums and records tagged, so
    that `from_json` gives it back equal: a new field or class of the model needs nothing here (one
    of another kind raises TypeError, and the caller keeps nothing)."""
    if value is None or type(value) in (str, int, bool):
        return value
    if type(value) in (tuple, list):
        return {"t" if type(value) is tuple else "l": [to_json(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[to_json(k), to_json(v)] for k, v in value.items()]}
    if isinstance(value, PurePath):
        return {"p": str(value)}
    if type(value) is bytes:
        return {"b": base64.b64encode(value).decode("ascii")}
    name = type(value).__name__
    if getattr(model, name, None) is not type(value):
        raise TypeError(f"not a value of the model: {name}")
    if isinstance(value, enum.Enum):
        return {"e": name, "v": value.value}
    return {"r": name, "v": {f.name: to_json(getattr(value, f.name)) for f in fields(value)}}


def from_json(data: Any) -> Any:
    """The value `to_json` made (KeyError, TypeError, ValueError for anything else)."""
    if not isinstance(data, dict):
        return data
    if "t" in data or "l" in data:
        items = [from_json(v) for v in (data["t"] if "t" in data else data["l"])]
        return tuple(items) if "t" in data else items
    if "d" in data:
        return {from_json(k): from_json(v) for k, v in data["d"]}
    if "p" in data:
        return Path(data["p"])
    if "b" in data:
        return base64.b64decode(data["b"])
    kind = getattr(model, data["e"] if "e" in data else data["r"])
    if not isinstance(kind, type) or kind.__module__ != model.__name__:
        raise TypeError("not a class of the model")
    if "e" in data:
        return kind(data["v"])
    return kind(**{name: from_json(v) for name, v in data["v"].items()})
