"""A build's report: its diagnostics, at their levels, made final the same way by every build (the
whole build's pipeline, `skillc build`'s edit builds and the watch's delta builds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..diagnostics.policy import Policy, apply_policy, unused

if TYPE_CHECKING:
    from ..model import Config

_EMPTY = "the build holds no skills: check `sources` (an error under --strict)"


def final_diagnostics(config: Config, empty: bool, diags: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    """A build's report: `diags` are at their levels already, but for the empty-build warning (`empty`:
    the build serves no skill); then --strict, and the report's order."""
    policy = Policy(config.severities, config.path_severities)
    if empty and not dg.has_errors(diags):  # a build serving nothing is never silently green
        diags += tuple(policy.apply([dg.warning(config.config_rel, Code.EMPTY_BUILD, _EMPTY)]))
    if policy.codes or policy.paths:
        idle = unused(policy, dict(config.anchors), config.config_rel, diags)
        diags += tuple(policy.apply(idle))
    return dg.ordered(apply_policy(diags, {}, config.strict))  # which drops the marks
