"""Per-target review: skills whose place in a harness's listing changes between two builds."""

from __future__ import annotations

from collections.abc import Sequence

from .. import reader
from ..targets import view
from .changes import Change

KIND = "target"


def target_changes(
    old: reader.Dist, new: reader.Dist, targets: Sequence[tuple[str, view.Budget]]
) -> list[Change]:
    """One change per target, persona and skill whose listing status differs (newly cut, dropped,
    not listed or skipped, or back), for the personas both builds have. Roots stay relative, so
    two builds made in different folders compare alike."""
    out = []
    for name, budget in targets:
        for pid in sorted(set(old.personas()) & set(new.personas())):
            before, after = _statuses(old, name, pid, budget), _statuses(new, name, pid, budget)
            out += [
                Change(
                    KIND, cmd, f"{name} listing", "status", before.get(cmd), after.get(cmd), personas=(pid,)
                )
                for cmd in sorted(set(before) | set(after))
                if before.get(cmd) != after.get(cmd)
            ]
    return out


def _statuses(dist: reader.Dist, target: str, persona: str, budget: view.Budget) -> dict[str, str]:
    listing = view.listing_for(dist, target, persona, budget)
    return {e.command: e.status.value + (f"; {e.injection}" if e.injection else "") for e in listing.entries}
