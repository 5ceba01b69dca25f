"""stages/report.py: a build's report made final, the same for every build (whole, edit, delta)."""

from __future__ import annotations

from support import values

from skillc import diagnostics as dg
from skillc.diagnostics.codes import Code
from skillc.stages.report import final_diagnostics

WARNING = dg.warning("skills/b/SKILL.md", Code.UNKNOWN_FIELD, "unknown field")
ERROR = dg.error("skills/a/SKILL.md", Code.FRONTMATTER_SCHEMA, "bad")


def test_a_build_serving_nothing_is_never_silently_green() -> None:
    report = final_diagnostics(values.config(), True, ())
    assert [(d.code, d.severity) for d in report] == [(Code.EMPTY_BUILD, dg.Severity.WARNING)]
    assert report[0].path == "skillc.yaml"
    assert final_diagnostics(values.config(), False, ()) == ()


def test_the_empty_build_warning_follows_the_config_s_levels() -> None:
    ignored = values.config(severities=((Code.EMPTY_BUILD, "ignore"),))
    assert final_diagnostics(ignored, True, ()) == ()
    strict = final_diagnostics(values.config(strict=True), True, ())
    assert [d.severity for d in strict] == [dg.Severity.ERROR]


def test_errors_already_say_it_and_the_report_is_in_order() -> None:
    report = final_diagnostics(values.config(), True, (WARNING, ERROR, WARNING))
    assert report == (ERROR, WARNING)  # no empty-build warning beside an error; duplicates once


def test_strict_raises_every_warning_left() -> None:
    report = final_diagnostics(values.config(strict=True), False, (WARNING,))
    assert [(d.code, d.severity) for d in report] == [(WARNING.code, dg.Severity.ERROR)]
