"""Hostile names in outputs: every machine format stays valid UTF-8 and well-formed, every human
format shows hidden characters escaped, and Markdown for a pull request carries no live markup."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.project import skill_md
from support.project import src_project as project

from skillc.diagnostics import error
from skillc.diagnostics.codes import Code
from skillc.diagnostics.formats import github_lines, json_lines, sarif_document
from skillc.review.audit import AuditReport, Finding
from skillc.review.changes import Change, PersonaSummary, Review
from skillc.review.compare import _unified
from skillc.review.render import render_markdown, render_text

UNDECODABLE = os.fsdecode(b"src/a/bad\xff\xfe.txt")  # as os.listdir hands it back
HOSTILE_PATHS = [UNDECODABLE, "src/a/x\u202etxt.md", "src/a/a,b:c%d\ne.md", "src/\ud800.md"]


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_machine_formats_are_valid_utf8_and_parse(path: str) -> None:
    diags = (error(path, Code.UNSAFE_PATH, f"name {path}"),)
    for line in json_lines(diags):
        doc = json.loads(line.encode("utf-8"))
        assert "\u202e" not in doc["file"] and "\n" not in doc["file"]
    sarif = json.dumps(sarif_document(diags), ensure_ascii=False).encode("utf-8")
    uri = json.loads(sarif)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert re.fullmatch(r"[A-Za-z0-9/%._~-]+", uri["uri"])
    for line in github_lines(diags):
        line.encode("utf-8")
        assert "\n" not in line


def test_github_file_property_is_escaped_as_the_toolkit_does() -> None:
    (line,) = github_lines((error("a,b:c%d\re\nf", Code.UNSAFE_PATH, "m"),))
    assert line.startswith("::error file=a%2Cb%3Ac%25d\\re\\nf,line=1,")


def test_undecodable_names_end_to_end(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    (tmp_path / os.fsdecode(b"src/a/bad\xff.txt")).write_bytes(b"x")
    for fmt in ("json", "sarif", "github"):
        done = subprocess.run(
            [sys.executable, "-m", "skillc", "--config", str(cfg), "validate", "--format", fmt],
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        text = done.stdout.decode("utf-8")  # strict: invalid UTF-8 fails the test
        if fmt != "github":
            for doc in [text] if fmt == "sarif" else text.splitlines():
                json.loads(doc)


def _review(subject: str, persona: str = "p") -> Review:
    change = Change("skill", subject, f"src/{subject}/SKILL.md", "skill", None, "added", True)
    summary = PersonaSummary(persona, (1, 2), (3, 4), (subject,), (), ())
    return Review((change,), (summary,))


def test_markdown_keeps_skill_text_literal() -> None:
    md = render_markdown(_review("a`<img src=x onerror=alert(1)>`|b*c*", persona="p<b>|x"))
    item = next(line for line in md.splitlines() if line.startswith("- "))
    assert "<img" not in item and "\\`" in item and "\\*c\\*" in item
    assert "<b>" not in md
    row = next(line for line in md.splitlines() if line.startswith("| p&lt;"))
    assert row.count(" | ") == 5  # no cell was split by a `|` from a name
    assert "``a`<img src=x onerror=alert(1)>`\\|b*c*``" in row  # a code span: HTML there is text


def test_text_review_and_audit_escape_bidi_controls() -> None:
    assert "\u202e" not in render_text(_review("ab\u202ecd"))
    report = AuditReport((Finding("x\u202ey", "injection", "!`rm \u202e-rf`"),))
    assert "\u202e" not in report.text() and "\\u202e" in report.text()


def test_diff_of_a_huge_text_is_bounded() -> None:
    a = "".join(f"line {i}\n" for i in range(600_000))
    b = "".join(f"line {i * 7}\n" for i in range(600_000))
    started = time.monotonic()
    lines = _unified(a, b, "a/x", "b/x")
    assert time.monotonic() - started < 2
    assert any("large file changed" in line for line in lines)
