"""What the cache keeps, as JSON: diagnostics, reports and checked skills, each checked to round-trip."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..model import Skill, SkillSource


def encode_diags(diags: tuple[Diagnostic, ...]) -> list[list[Any]]:
    return [[d.path, d.line, d.col, d.severity.value, d.code, d.message] for d in diags]


_SEVERITY = {s.value: s for s in Severity}  # a dict lookup: Severity(value) is slow for 100,000 rows
_VALUE = {s: s.value for s in Severity}  # and so is the enum's .value property


def decode_diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic(p, line, col, _SEVERITY[sev], code, msg) for p, line, col, sev, code, msg in rows)


def encode_report(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """A build's diagnostics with each message stored once.

    A big tree repeats a few messages (one budget warning per left-out skill
    and persona) a hundred thousand times; interning them makes the record a
    third of the size and quicker to load.
    """
    texts: dict[str, int] = {}
    rows = [
        [d.path, d.line, d.col, _VALUE[d.severity], d.code, texts.setdefault(d.message, len(texts))]
        for d in diags
    ]
    return {"messages": list(texts), "rows": rows}


def encode_text(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """The printed form: a no-op build prints it as it is, without reading or decoding a row."""
    errors = sum(d.severity is Severity.ERROR for d in diags)
    return {
        "text": "".join(d.format() + "\n" for d in diags),
        "errors": errors,
        "warnings": len(diags) - errors,
    }


@dataclass(frozen=True, eq=False)
class Report:
    """A recorded build's diagnostics: printed from `text`, decoded into Diagnostics only on demand."""

    text: str  # every diagnostic as `Diagnostic.format()` prints it, one per line
    errors: int
    warnings: int
    rows: Callable[[], Any]  # reads the rows file (signed, keyed like the report)

    def diagnostics(self) -> tuple[Diagnostic, ...]:
        data = self.rows()
        try:
            diags = decode_report(data)
        except (KeyError, TypeError, ValueError, IndexError):
            diags = None
        if diags is None or len(diags) != self.errors + self.warnings:
            raise RuntimeError("the cache's recorded diagnostics are unreadable; rebuild with --no-cache")
        return diags


def report_of(data: Any, rows: Callable[[], Any]) -> Report | None:
    try:
        text, errors, warnings = data["text"], data["errors"], data["warnings"]
    except (KeyError, TypeError):
        return None
    if type(text) is not str or type(errors) is not int or type(warnings) is not int:
        return None
    return Report(text, errors, warnings, rows)


def decode_report(data: dict[str, Any]) -> tuple[Diagnostic, ...]:
    texts = data["messages"]
    return tuple(
        Diagnostic(p, line, col, _SEVERITY[sev], code, texts[m])
        for p, line, col, sev, code, m in data["rows"]
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


def decode_skill(entry: dict[str, Any] | None, src: SkillSource) -> Skill | None:
    if entry is None:
        return None
    return Skill(
        command=src.command,
        name=entry["name"],
        description=entry["description"],
        source=src.source,
        path=src.skill_md.rel,
        dir_rel=src.dir_rel,
        body=entry["body"],
        fields=entry["fields"],
        resources=src.resources,
        parent=None,
        children=(),
        anchors={k: (v[0], v[1]) for k, v in entry["anchors"].items()},
        origin=src.origin,
    )
