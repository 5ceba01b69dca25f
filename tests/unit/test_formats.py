"""Diagnostics output formats: text, json lines, GitHub annotations, SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from support.project import skill_md, src_project
from support.sarif import SARIF_SUBSET

from skillc.cli import cli
from skillc.diagnostics import Diagnostic, Severity, error, warning
from skillc.diagnostics import formats as report
from skillc.diagnostics.codes import Code
from skillc.diagnostics.policy import apply_policy

DIAGS = (
    error(
        "skills/a,b/SKILL.md",
        Code.FRONTMATTER_SCHEMA,
        "description: is 1025 characters long; the limit is 1024",
        3,
        14,
    ),
    warning("skills/c/SKILL.md", Code.UNKNOWN_FIELD, "unknown frontmatter field 'x'\n100% sure: yes", 5, 1),
)


def test_json_lines_have_the_six_fields() -> None:
    rows = [json.loads(line) for line in report.json_lines(DIAGS)]
    assert rows[0] == {
        "file": "skills/a,b/SKILL.md",
        "line": 3,
        "column": 14,
        "severity": "error",
        "code": "SKC204",
        "message": "description: is 1025 characters long; the limit is 1024",
    }
    assert rows[1]["severity"] == "warning" and rows[1]["message"].startswith("unknown")


def test_github_annotations_escape_properties_and_data() -> None:
    lines = report.github_lines(DIAGS)
    assert lines[0] == (
        "::error file=skills/a%2Cb/SKILL.md,line=3,col=14,title=SKC204::"
        "description: is 1025 characters long; the limit is 1024"
    )
    # a newline would end the command and start another one: escaped, as is '%'
    assert lines[1].endswith("::unknown frontmatter field 'x'\\n100%25 sure: yes")
    assert len(lines) == 2 and all("\n" not in line for line in lines)


def test_sarif_matches_the_schema_and_points_at_rules() -> None:
    doc = report.sarif_document(DIAGS)
    jsonschema.Draft7Validator(SARIF_SUBSET, format_checker=jsonschema.FormatChecker()).validate(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert (
        run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "skills/a%2Cb/SKILL.md"
    )


def test_the_schema_check_can_fail() -> None:
    doc = report.sarif_document(DIAGS)
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(SARIF_SUBSET).validate(doc)


class _Tty:
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert report.use_colour(_Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not report.use_colour(_Tty())  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    assert not report.use_colour(open(__file__))
    coloured = report.text_lines(DIAGS, colour=True)
    assert "\x1b[1;31merror[SKC204]\x1b[0m" in coloured[0]
    assert report.text_lines(DIAGS) == [d.format() for d in DIAGS]


def test_severity_enum_is_what_sarif_levels_accept() -> None:
    """Every severity a report holds; the marks of what a setting ignored are dropped before any
    report is made (policy.apply_policy)."""
    reported = {s.value for s in Severity if s is not Severity.SUPPRESSED}
    assert reported <= {"none", "note", "warning", "error"}
    assert isinstance(DIAGS[0], Diagnostic)
    mark = Diagnostic("a", 0, 0, Severity.SUPPRESSED, "SKC205", "")
    assert apply_policy((mark, *DIAGS), {}, strict=True) == tuple(
        Diagnostic(d.path, d.line, d.col, Severity.ERROR, d.code, d.message) for d in DIAGS
    )


def test_progress_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    lines = report.Progress(_Tty(), True)  # type: ignore[arg-type]
    lines.stream = type("S", (), {"write": lambda self, s: shown.append(s), "flush": lambda self: None})()
    lines("validating 3 SKILL.md file(s)")
    lines.done()
    assert shown[0].endswith("skillc: validating 3 SKILL.md file(s) ...") and shown[-1] == "\r\x1b[2K"
    assert not report.Progress(_Tty(), False).enabled  # type: ignore[arg-type]
    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    seen: list[str] = []
    from skillc import pipeline
    from skillc.options import Options

    pipeline.build(config, Options(progress=seen.append), cache=False)
    assert [s.split()[0] for s in seen] == ["discovering", "validating", "resolving", "rendering", "writing"]
    # the CLI's stderr under CliRunner is no terminal: no progress, no escape codes
    result = CliRunner().invoke(cli, ["build", "--config", str(config)])
    assert "\x1b" not in result.output and " ..." not in result.output
    monkeypatch.setattr(report, "_isatty", lambda stream: True)
    assert report.progress_for("text", quiet=False).enabled
    assert (
        not report.progress_for("json", quiet=False).enabled
        and not report.progress_for("text", quiet=True).enabled
    )
