"""What the memo keeps, as JSON: diagnostics and checked skills, each checked to round-trip."""

from __future__ import annotations

from typing import Any, NamedTuple

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
