"""Budget stage: which catalog entries fit a persona's character budget.

Entries are packed in command order; an entry that does not fit is left out
and packing goes on with the next (first fit), so one long description does
not starve every skill after it. `always: true` entries are never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import diagnostics as dg
from .diagnostics import Diagnostic


@dataclass(frozen=True)
class Candidate:
    command: str
    always: bool
    cost: int          # characters the entry adds to the rendered catalog
    path: str          # SKILL.md, for diagnostics


@dataclass(frozen=True)
class Packing:
    persona: str
    budget: int
    included: tuple[str, ...]
    left_out: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]


def pack(persona: str, budget: int, candidates: tuple[Candidate, ...], frame_cost: Callable[[int], int]) -> Packing:
    """frame_cost(n_left_out) is the size of the catalog with no entries."""
    included, left_out = _fit(budget, candidates, frame_cost(0))
    if left_out:
        # The truncation notice costs room too; pack again with it reserved.
        included, left_out = _fit(budget, candidates, frame_cost(len(candidates)))
    dropped = set(left_out)  # built once: a set per candidate made this quadratic
    diags = [
        dg.warning(c.path, "SKC601", f"left out of persona {persona!r} catalog: budget of {budget} characters reached")
        for c in candidates if c.command in dropped
    ]
    fixed = frame_cost(0) + sum(c.cost for c in candidates if c.always)
    if fixed > budget:
        where = candidates[0].path if candidates else persona
        diags.append(dg.warning(where, "SKC602", f"always-on skills alone need {fixed} characters; persona {persona!r} budget is {budget}"))
    return Packing(persona, budget, included, left_out, tuple(diags))


def _fit(budget: int, candidates: tuple[Candidate, ...], frame: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    room = budget - frame - sum(c.cost for c in candidates if c.always)
    included: list[str] = []
    left_out: list[str] = []
    for c in candidates:
        if c.always:
            included.append(c.command)
        elif c.cost <= room:
            included.append(c.command)
            room -= c.cost
        else:
            left_out.append(c.command)
    return tuple(included), tuple(left_out)
