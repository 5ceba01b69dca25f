"""Diagnostics: the per-code severity policy."""

from __future__ import annotations

from skillc import diagnostics as dg
from skillc.diagnostics.codes import Code


def test_policy_ignores_raises_and_promotes() -> None:
    w = dg.warning("a", Code.UNKNOWN_FIELD, "unknown")
    e = dg.error("b", Code.FRONTMATTER_SCHEMA, "bad")
    assert dg.apply_policy((w, e), {"SKC205": "ignore"}, strict=False) == (e,)
    raised = dg.apply_policy((w,), {"SKC205": "error"}, strict=False)
    assert raised[0].severity is dg.Severity.ERROR
    assert dg.apply_policy((w,), {}, strict=True)[0].severity is dg.Severity.ERROR
    # an error is never lowered: the output would be wrong
    assert dg.apply_policy((e,), {"SKC204": "ignore"}, strict=False) == (e,)
    assert dg.apply_policy((e,), {"SKC204": "warning"}, strict=False)[0].severity is dg.Severity.ERROR
