"""diagnostics/policy.py: levels per code, per path and inline; what may be lowered."""

from __future__ import annotations

from skillc import diagnostics as dg
from skillc.diagnostics.codes import Code
from skillc.diagnostics.policy import Policy, apply_policy, inline_ignores, refusal

SPEC = dg.error("skills/vendor/a/SKILL.md", Code.NAME_MISMATCH, "name 'b' does not match its directory 'a'")
INTEGRITY = dg.error("skills/vendor/a/data.bin", Code.TOO_LARGE, "file is too large")


def test_a_spec_error_is_lowered_an_integrity_error_never() -> None:
    policy = Policy((("SKC206", "warning"), ("SKC207", "ignore")))
    lowered, kept = policy.apply([SPEC, INTEGRITY])
    assert lowered.severity is dg.Severity.WARNING
    assert kept == INTEGRITY


def test_per_path_wins_over_per_code_where_it_matches() -> None:
    policy = Policy((("SKC206", "error"),), (("skills/vendor/**", (("SKC206", "ignore"),)),))
    assert policy.apply([SPEC]) == []
    elsewhere = dg.error("skills/mine/SKILL.md", Code.NAME_MISMATCH, "x")
    assert policy.apply([elsewhere]) == [elsewhere]


def test_inline_ignores_only_in_the_frontmatter_with_positions() -> None:
    text = b"---\r\nname: b\r\n  #  skillc: ignore[SKC206,  SKC216]\r\n---\r\n# skillc: ignore[SKC205]\r\n"
    assert inline_ignores(text) == [("SKC206", 3, 21), ("SKC216", 3, 30)]
    assert inline_ignores(b"\xef\xbb\xbf---\nname: b\n# skillc: ignore[SKC206]\n---\n") == [("SKC206", 3, 18)]
    assert inline_ignores(b"no frontmatter\n# skillc: ignore[SKC206]\n") == []


def test_refusals() -> None:
    assert refusal("SKC206", "ignore") is None
    assert refusal("SKC207", "error") is None  # raising is always allowed
    assert "integrity" in (refusal("SKC207", "warning") or "")
    assert "unknown code" in (refusal("SKC999", "ignore") or "")


def test_apply_policy_ignores_raises_and_promotes() -> None:
    w = dg.warning("a", Code.UNKNOWN_FIELD, "unknown")
    e = dg.error("b", Code.FRONTMATTER_SCHEMA, "bad")
    assert apply_policy((w, e), {"SKC205": "ignore"}, strict=False) == (e,)
    raised = apply_policy((w,), {"SKC205": "error"}, strict=False)
    assert raised[0].severity is dg.Severity.ERROR
    assert apply_policy((w,), {}, strict=True)[0].severity is dg.Severity.ERROR
    # an error is never lowered: the output would be wrong
    assert apply_policy((e,), {"SKC204": "ignore"}, strict=False) == (e,)
    assert apply_policy((e,), {"SKC204": "warning"}, strict=False)[0].severity is dg.Severity.ERROR
