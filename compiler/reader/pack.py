"""A catalog packed again at run time: the budget's three strategies, as the compiler packs them
(stages/budget.py and catalog._fit_catalog), for a stack of builds whose catalog no one build
holds (docs/format.md §16.3). Ranked without `budgets.priority`: a stack refuses a base that
ranks by it. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

ELLIPSIS = "…"
MIN_DESCRIPTION = 16  # shorten: below this a description says nothing; leave skills out instead
STRATEGIES = ("drop", "shorten", "names-only")
ROUNDS = 8  # packings, each with the room the last rendered catalog overran kept free


class Candidate:
    """One entry the budget may list: its cost, and for the strategies that cut descriptions, the
    description and the cost without one."""

    __slots__ = ("always", "bare", "command", "cost", "description")

    def __init__(self, command: str, always: bool, cost: int, description: str, bare: int) -> None:
        self.command, self.always, self.cost = command, always, cost
        self.description, self.bare = description, bare


# included (in command order), left out (in command order), shortened descriptions
Packed = tuple[list[str], list[str], dict[str, str]]


def fit(
    budget: int,
    candidates: Sequence[Candidate],
    frame_cost: Callable[[int], int],
    strategy: str,
    render: Callable[[Packed], str],
) -> tuple[Packed, str]:
    """The packing and the catalog it renders, packed again with room kept free while a rendered
    catalog with shortened descriptions came out longer than the budget (at most ROUNDS times)."""
    slack = 0
    for _ in range(ROUNDS):
        packed = pack(budget, candidates, frame_cost, strategy, slack)
        text = render(packed)
        if len(text) <= budget or not packed[2]:
            break
        slack += len(text) - budget
    return packed, text


def pack(
    budget: int, candidates: Sequence[Candidate], frame_cost: Callable[[int], int], strategy: str, slack: int
) -> Packed:
    """Which entries fit: first without the notice of skills left out, and when some are left out,
    again with room for the notice of every candidate left out."""
    ranked = [c for c in candidates if c.always] + [c for c in candidates if not c.always]
    room = budget - slack - frame_cost(0)
    strategy_fit = {"drop": _drop, "shorten": _shorten, "names-only": _names_only}[strategy]
    over = strategy == "drop" and sum(c.cost for c in ranked) > room
    included, left_out, descriptions = ([], [], {}) if over else strategy_fit(room, ranked)
    if over or left_out:
        included, left_out, descriptions = strategy_fit(budget - slack - frame_cost(len(candidates)), ranked)
    chosen = set(included)
    return [c.command for c in candidates if c.command in chosen], sorted(left_out), descriptions


def _drop(room: int, ranked: list[Candidate]) -> Packed:
    room -= sum(c.cost for c in ranked if c.always)
    included, left_out = [], []
    for c in ranked:
        if c.always:
            included.append(c.command)
        elif c.cost <= room:
            included.append(c.command)
            room -= c.cost
        else:
            left_out.append(c.command)
    return included, left_out, {}


def _shorten(room: int, ranked: list[Candidate]) -> Packed:
    if sum(c.cost for c in ranked) <= room:
        return [c.command for c in ranked], [], {}
    kept = list(ranked)
    left_out: list[str] = []
    while True:
        limit = _longest_fitting(room, kept)
        if limit is not None or not any(not c.always for c in kept):
            break
        drop = next(c for c in reversed(kept) if not c.always)  # lowest rank first
        kept.remove(drop)
        left_out.append(drop.command)
    limit = MIN_DESCRIPTION if limit is None else limit
    descriptions = {
        c.command: _cut(c.description, limit) for c in kept if not c.always and len(c.description) > limit
    }
    return [c.command for c in kept], left_out, descriptions


def _longest_fitting(room: int, kept: list[Candidate]) -> int | None:
    """The longest description length at which every kept entry fits; None below MIN_DESCRIPTION."""

    def total(limit: int) -> int:
        return sum(
            c.cost if c.always else c.cost - max(0, len(c.description) - limit) + (len(c.description) > limit)
            for c in kept
        )

    low, high = MIN_DESCRIPTION, max((len(c.description) for c in kept), default=0)
    if total(low) > room:
        return None
    while low < high:  # total() grows with the limit: the last limit that fits
        mid = (low + high + 1) // 2
        low, high = (mid, high) if total(mid) <= room else (low, mid - 1)
    return low


def _cut(text: str, limit: int) -> str:
    return text[: max(0, limit)].rstrip() + ELLIPSIS


def _names_only(room: int, ranked: list[Candidate]) -> Packed:
    if sum(c.cost for c in ranked) <= room:
        return [c.command for c in ranked], [], {}
    bare = {c.command: c.bare if c.bare >= 0 else c.cost for c in ranked}
    total = sum(c.cost for c in ranked)
    descriptions: dict[str, str] = {}
    for c in reversed(ranked):  # lowest rank first
        if total <= room:
            break
        if not c.always and bare[c.command] < c.cost:
            total -= c.cost - bare[c.command]
            descriptions[c.command] = ""
    kept = list(ranked)
    left_out: list[str] = []
    for c in reversed(ranked):
        if total <= room:
            break
        if not c.always:
            total -= bare[c.command]
            kept.remove(c)
            left_out.append(c.command)
            descriptions.pop(c.command, None)
    return [c.command for c in kept], left_out, descriptions
