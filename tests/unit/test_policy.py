"""diagnostics/policy.py: levels per code, per path and inline; what may be lowered."""

from __future__ import annotations

from skillc import diagnostics as dg
from skillc.diagnostics.codes import Code
from skillc.diagnostics.policy import Policy, apply_policy, inline_ignores, refusal, unused

SPEC = dg.error("skills/vendor/a/SKILL.md", Code.NAME_MISMATCH, "name 'b' does not match its directory 'a'")
INTEGRITY = dg.error("skills/vendor/a/data.bin", Code.TOO_LARGE, "file is too large")
MARK = dg.Diagnostic(SPEC.path, 0, 0, dg.Severity.SUPPRESSED, SPEC.code, "")


def test_a_spec_error_is_lowered_an_integrity_error_never() -> None:
    policy = Policy((("SKC206", "warning"), ("SKC207", "ignore")))
    lowered, kept = policy.apply([SPEC, INTEGRITY])
    assert lowered.severity is dg.Severity.WARNING
    assert kept == INTEGRITY


def test_per_path_wins_over_per_code_where_it_matches() -> None:
    policy = Policy((("SKC206", "error"),), (("skills/vendor/**", (("SKC206", "ignore"),)),))
    assert policy.apply([SPEC]) == [MARK]  # ignored: only its mark is left, for policy.unused
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


WRITTEN = {
    ("diagnostics", "SKC206"): (3, 3),
    ("diagnostics", "SKC216"): (4, 3),
    ("diagnostics", "SKC305"): (5, 3),
    ("diagnostics", "SKC107"): (6, 3),
    ("diagnostics", "per_path", "skills/vendor/**"): (8, 5),
    ("diagnostics", "per_path", "../x/**"): (9, 5),
}


def idle(
    policy: Policy,
    diags: list[dg.Diagnostic],
    written: dict[tuple[str | int, ...], tuple[int, int]] = WRITTEN,
) -> list[str]:
    return [f"{d.line}:{d.code}: {d.message}" for d in unused(policy, written, "skillc.yaml", diags)]


def test_a_code_setting_that_lowers_nothing_is_said_at_its_key() -> None:
    policy = Policy((("SKC206", "ignore"), ("SKC216", "warning"), ("SKC305", "error"), ("SKC107", "ignore")))
    assert idle(policy, [MARK]) == [  # SKC206 was ignored (its mark); raising SKC305 guards; SKC107 exempt
        "4:SKC107: diagnostics: SKC216: warning suppresses nothing: no SKC216 in this build; remove the setting"
    ]
    lowered = dg.warning("skills/a/SKILL.md", Code.SPEC_LIMIT, "long")
    assert idle(policy, [MARK, lowered]) == []


def test_a_setting_for_a_tier_other_machines_lack_is_never_idle() -> None:
    """SKC324 (an optional source missing) depends on the machine: the setting is for the others."""
    written = {("diagnostics", "SKC324"): (3, 3)}
    assert idle(Policy((("SKC324", "ignore"),)), [], written=written) == []


def test_a_setting_the_config_does_not_write_is_never_said() -> None:
    """--ignore on the command line is merged into the codes, but has no place in the config."""
    assert idle(Policy((("SKC216", "ignore"),)), [], written={}) == []


def test_per_path_patterns_that_never_match_or_suppress_nothing() -> None:
    policy = Policy(
        (),
        (
            ("skills/vendor/**", (("SKC206", "ignore"), ("SKC216", "ignore"), ("SKC305", "error"))),
            ("../x/**", (("SKC206", "error"),)),
        ),
    )
    said = idle(policy, [MARK])  # SKC206 at skills/vendor/a: used; SKC216 not; SKC305 raises
    assert said == [
        "8:SKC107: diagnostics.per_path: 'skills/vendor/**' suppresses nothing in this build (SKC216: ignore); "
        "its patterns match paths relative to the project root",
        "9:SKC107: diagnostics.per_path: '../x/**' can never match: a diagnostic's path is relative to the "
        "project root and never holds '..'",
    ]
    elsewhere = dg.Diagnostic("skills/mine/SKILL.md", 0, 0, dg.Severity.SUPPRESSED, "SKC216", "")
    assert len(idle(policy, [MARK, elsewhere])) == 2  # an SKC216 that is not below the pattern
