"""Review: what changed between two builds (compare), what a build can do (audit), printed (render);
and builds of the project at git refs (gitrefs). Everything is read through skillc.reader."""

from .audit import AuditReport, Finding, audit
from .changes import Change, PersonaSummary, Review
from .compare import CAPABILITY_FIELDS, compare
from .render import render_json, render_markdown, render_text

__all__ = [
    "CAPABILITY_FIELDS",
    "AuditReport",
    "Change",
    "Finding",
    "PersonaSummary",
    "Review",
    "audit",
    "compare",
    "render_json",
    "render_markdown",
    "render_text",
]
