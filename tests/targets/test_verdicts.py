"""Graded validation's verdicts: one table per harness, gathered for the selected targets."""

from __future__ import annotations

from typing import Any

import pytest

from skillc.targets import NAMES, claude_code, codex, gemini, opencode
from skillc.targets.model import Issue, Verdict
from skillc.targets.verdicts import TABLES, any_verdict, suffix, tolerated, verdicts


@pytest.mark.parametrize("module", [claude_code, codex, gemini, opencode])
def test_every_harness_has_a_verdict_for_every_issue(module: Any) -> None:
    assert set(module.VERDICTS) == set(Issue)


def test_every_target_name_has_its_table() -> None:
    assert tuple(TABLES) == NAMES


def test_the_suffix_names_the_selected_targets_in_the_configs_order() -> None:
    assert suffix(Issue.NO_DESCRIPTION, ("codex", "claude-code")) == " (codex: skips; claude-code: loads)"
    assert suffix(Issue.NO_DESCRIPTION, ()) == ""
    assert verdicts(Issue.LONG_DESCRIPTION, ("codex",)) == (("codex", Verdict.CUTS),)


def test_tolerated_means_every_selected_target_loads_the_skill() -> None:
    assert tolerated(Issue.NAME_MISMATCH, NAMES)
    assert tolerated(Issue.LONG_DESCRIPTION, ("codex",))  # cut, but there
    assert not tolerated(Issue.NO_NAME, ("claude-code", "gemini"))
    assert not tolerated(Issue.NO_DESCRIPTION, ("opencode",))  # loaded, never listed
    assert not tolerated(Issue.NAME_MISMATCH, ())  # nothing selected: nothing to go by


def test_the_harnesses_disagree_where_the_goldens_say_so() -> None:
    # golden fields: codex lists `manual`, Claude Code does not
    assert any_verdict(Issue.MODEL_INVOCATION_OFF, ("codex",), Verdict.IGNORES)
    assert not any_verdict(Issue.MODEL_INVOCATION_OFF, ("claude-code",), Verdict.IGNORES)
    # golden fields: `empty-desc` is listed by gemini and opencode, skipped by codex
    assert [v for _, v in verdicts(Issue.EMPTY_DESCRIPTION, NAMES)] == [
        Verdict.LOADS,
        Verdict.SKIPS,
        Verdict.LOADS,
        Verdict.LOADS,
    ]
