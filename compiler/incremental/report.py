"""A recorded build's diagnostics (`report.json` and `rows.json`): printed from their text, decoded
into Diagnostics only on demand. Apart from the memo's codec, so a no-op build loads no model."""

from __future__ import annotations

from typing import Any

from ..dataclass import dataclass
from ..diagnostics import Diagnostic, Severity

SEVERITY_OF = {s.value: s for s in Severity}  # a dict lookup: Severity(value) is slow for 100,000 rows
VALUE_OF = {s: s.value for s in Severity}  # and so is the enum's .value property


def encode_report(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """A build's diagnostics with each message stored once.

    A big tree repeats a few messages (one budget warning per left-out skill
    and persona) a hundred thousand times; interning them makes the record a
    third of the size and quicker to load.
    """
    texts: dict[str, int] = {}
    rows = [
        [d.path, d.line, d.col, VALUE_OF[d.severity], d.code, texts.setdefault(d.message, len(texts))]
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
    rows: Any  # the rows file's data (signed, keyed like the report), decoded only on demand

    def diagnostics(self) -> tuple[Diagnostic, ...]:
        try:
            diags = decode_report(self.rows)
        except (KeyError, TypeError, ValueError, IndexError):
            diags = None
        if diags is None or len(diags) != self.errors + self.warnings:
            raise RuntimeError("the cache's recorded diagnostics are unreadable; rebuild with --no-cache")
        return diags


def report_of(data: Any, rows: Any) -> Report | None:
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
        Diagnostic(p, line, col, SEVERITY_OF[sev], code, texts[m])
        for p, line, col, sev, code, m in data["rows"]
    )
