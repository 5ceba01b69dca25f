"""`--statistics`: how many diagnostics of each code, instead of each one (as ruff's `--statistics`).

Rows are one per code and severity (a code can be an error in one place and a warning in another,
by policy), most frequent first; text goes to stderr with the usual count line, json to stdout as
one object per line.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from . import CODES, Diagnostic, Severity

FORMATS = ("text", "json")  # github annotations and SARIF results are per location: no counts there


def rows(diags: tuple[Diagnostic, ...]) -> list[tuple[int, str, str]]:
    """(count, code, severity), most frequent first, then by code."""
    counts = Counter((d.code, d.severity.value) for d in diags)
    return sorted(((n, code, sev) for (code, sev), n in counts.items()), key=lambda r: (-r[0], r[1], r[2]))


def emit(diags: tuple[Diagnostic, ...], fmt: str) -> None:
    table = rows(diags)
    if fmt == "json":
        lines = [
            json.dumps({"code": code, "severity": sev, "count": n, "description": CODES.get(code, "")})
            for n, code, sev in table
        ]
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        return
    width = max((len(str(n)) for n, _, _ in table), default=1)
    lines = [f"{n:>{width}}  {code}  {sev:<7}  {CODES.get(code, '')}" for n, code, sev in table]
    errors = sum(d.severity is Severity.ERROR for d in diags)
    if diags:
        lines.append(f"skillc: {errors} error(s), {len(diags) - errors} warning(s)")
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
