"""Diagnostics out: text for people, json / github / sarif for machines.

The names follow ruff's `--output-format`. Machine formats go to stdout and
nothing else does (summaries and progress stay on stderr, and are dropped for
machine formats), so `skillc check --format sarif > out.sarif` is a clean file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import IO, Any

from .. import __version__
from . import CODES, Diagnostic, Severity, printable

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/skillc/skillc/blob/main/docs/cli.md#diagnostics"

_COLOURS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m"}
_RESET = "\x1b[0m"


def use_colour(stream: IO[str], when: str = "auto") -> bool:
    """`--color always|never` decides; auto: never when NO_COLOR is set (https://no-color.org),
    always when FORCE_COLOR is (https://force-color.org), else only for a terminal."""
    if when != "auto":
        return when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream
        return False


class Progress:
    """Stage names on a terminal's stderr, each line replacing the last, erased when the build ends.

    Only for people: off unless stderr is a terminal, and never with -q or a machine format.
    """

    def __init__(self, stream: IO[str], enabled: bool) -> None:
        self.stream, self.enabled, self.shown = stream, enabled, False

    def __call__(self, message: str) -> None:
        if self.enabled:
            self.stream.write(f"\r\x1b[2Kskillc: {message} ...")
            self.stream.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False


def progress_for(fmt: str, quiet: bool) -> Progress:
    return Progress(sys.stderr, fmt == "text" and not quiet and _isatty(sys.stderr))


def text_lines(diags: tuple[Diagnostic, ...], *, colour: bool = False) -> list[str]:
    lines = [d.format() for d in diags]
    if not colour:
        return lines
    return [_coloured(d, line) for d, line in zip(diags, lines, strict=True)]


def _coloured(d: Diagnostic, line: str) -> str:
    label = f"{d.severity.value}[{d.code}]"
    return line.replace(label, f"{_COLOURS[d.severity]}{label}{_RESET}", 1)


def json_lines(diags: Iterable[Diagnostic]) -> list[str]:
    """One JSON object per line (JSON Lines), keys as the issue and ruff's json-lines name them."""
    return [
        json.dumps(
            {
                # printable: an undecodable file name (lone surrogates) must not make the line
                # invalid UTF-8, and a bidi control must not disguise it in a log viewer.
                "file": printable(d.path),
                "line": d.line,
                "column": d.col,
                "severity": d.severity.value,
                "code": d.code,
                "message": printable(d.message),
            },
            ensure_ascii=False,
        )
        for d in diags
    ]


def github_lines(diags: Iterable[Diagnostic]) -> list[str]:
    """GitHub Actions workflow commands: annotations on the pull request's files."""
    return [
        f"::{d.severity.value} file={_gh_property(printable(d.path))},line={d.line},col={d.col},"
        f"title={_gh_property(d.code)}::{_gh_data(printable(d.message))}"
        for d in diags
    ]


def _gh_data(text: str) -> str:
    # The escaping GitHub's toolkit (@actions/core, escapeData) applies to a command's message.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    # ... and to a property value (escapeProperty): also ':' and ','.
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def sarif_document(diags: Iterable[Diagnostic], root_uri: str | None = None) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run; every code of the registry is a rule, results point at them.

    URIs are relative to PROJECTROOT, the config's folder; root_uri says where that is."""
    codes = sorted(CODES)
    index = {code: i for i, code in enumerate(codes)}
    rules = [
        {"id": code, "shortDescription": {"text": CODES[code]}, "helpUri": INFORMATION_URI} for code in codes
    ]
    results = [
        {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity.value,
            "message": {"text": printable(d.message)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(d.path), "uriBaseId": "PROJECTROOT"},
                        "region": {"startLine": max(d.line, 1), "startColumn": max(d.col, 1)},
                    }
                }
            ],
        }
        for d in diags
    ]
    driver = {"name": "skillc", "version": __version__, "informationUri": INFORMATION_URI, "rules": rules}
    run: dict[str, Any] = {"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}
    if root_uri is not None:
        run["originalUriBaseIds"] = {"PROJECTROOT": {"uri": root_uri}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _uri(path: str) -> str:
    # A relative URI reference: percent-encode what a URI may not hold, keep '/' as the separator.
    # The file system's own bytes (os.fsencode undoes surrogate escapes): an undecodable name is
    # percent-encoded as it is on disk, which is what a SARIF viewer must open.
    from urllib.parse import quote

    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a surrogate no file system decode produces: kept as its UTF-8 form
        raw = path.encode("utf-8", "surrogatepass")
    return quote(raw, safe="/")


def emit(
    diags: tuple[Diagnostic, ...],
    fmt: str,
    *,
    quiet: bool = False,
    summary: bool = True,
    root_uri: str | None = None,
    colour: str = "auto",
) -> None:
    """Print diagnostics in `fmt`. text: stderr, with a count line; machine formats: stdout, nothing else.

    root_uri: where SARIF's PROJECTROOT is (the other formats get paths already made relative to
    the working directory, see relative.py)."""
    if fmt == "text":
        _emit_text(diags, quiet=quiet, summary=summary, colour=colour)
        return
    if fmt == "sarif":
        sys.stdout.write(json.dumps(sarif_document(diags, root_uri), indent=2, ensure_ascii=False) + "\n")
        return
    lines = json_lines(diags) if fmt == "json" else github_lines(diags)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def _emit_text(diags: tuple[Diagnostic, ...], *, quiet: bool, summary: bool, colour: str = "auto") -> None:
    shown = tuple(d for d in diags if not quiet or d.severity is Severity.ERROR)
    lines = text_lines(shown, colour=use_colour(sys.stderr, colour))
    errors = sum(d.severity is Severity.ERROR for d in diags)
    warnings = len(diags) - errors
    if summary and (errors or (warnings and not quiet)):
        lines.append(f"skillc: {errors} error(s), {warnings} warning(s)")
    if lines:
        # One write: a big tree has 100,000 warnings, and a write + flush each cost 0.4 s.
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
