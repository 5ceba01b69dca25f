"""Budget stage: which catalog entries fit a persona's character budget, and how.

Candidates are ranked: `always: true` first, then `budgets.priority` (commands
or globs, in order), then command order. Three strategies, after the harnesses:

- drop (sven): entries are packed by rank, first fit; one that does not fit is
  left out and packing goes on with the next.
- shorten (Codex): every description is cut evenly, with an ellipsis, to the
  longest length at which all entries fit; only when even the shortest
  descriptions do not fit are whole skills left out, lowest rank first.
- names-only (Claude Code): every name stays listed; descriptions are removed
  from the lowest-ranked skills first; whole skills go only when names alone
  do not fit.

`always: true` entries are never dropped or cut.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from operator import attrgetter

from .. import diagnostics as dg
from ..dataclass import dataclass, field
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Strategy

ELLIPSIS = "…"
MIN_DESCRIPTION = 16  # shorten: below this a description says nothing; leave skills out instead
SHOWN = 5  # names in the one SKC601 line (all of them with --verbose)


@dataclass(frozen=True)
class Candidate:
    command: str
    always: bool
    cost: int  # characters the entry adds to the rendered catalog
    path: str  # SKILL.md, for diagnostics
    description: str = ""
    bare_cost: int = -1  # the entry's cost without a description (-1: same as cost)


@dataclass(frozen=True)
class Packing:
    persona: str
    budget: int
    included: tuple[str, ...]
    left_out: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    strategy: Strategy = Strategy.DROP
    descriptions: Mapping[str, str] = field(default_factory=dict)  # command -> shortened/removed description
    # What was packed, and the priority it was ranked by: `ranks` is derived from them when asked
    # (explain asks; a build does not, and at 100,000 skills x 50 personas the table costs seconds).
    candidates: tuple[Candidate, ...] = field(default=(), repr=False)
    priority: tuple[str, ...] = ()

    @property
    def shortened(self) -> tuple[str, ...]:
        return tuple(sorted(self.descriptions))

    @cached_property
    def ranks(self) -> Mapping[str, int]:
        """command -> 1-based rank."""
        return {c.command: i + 1 for i, c in enumerate(rank(self.candidates, self.priority))}


def rank(candidates: tuple[Candidate, ...], priority: tuple[str, ...]) -> tuple[Candidate, ...]:
    """always, then the first matching priority entry, then command order."""

    if not priority:  # the same order, without a key tuple per candidate (1.1 million at 100,000 x 12)
        by_command = attrgetter("command")
        first = sorted((c for c in candidates if c.always), key=by_command)
        return (*first, *sorted((c for c in candidates if not c.always), key=by_command))
    matches = _priority_matchers(priority)
    if not matches:  # the same order, without a key tuple per candidate (12 x 10,000 of them a build)
        by_command = attrgetter("command")
        first = sorted((c for c in candidates if c.always), key=by_command)
        return (*first, *sorted((c for c in candidates if not c.always), key=by_command))

    def key(c: Candidate) -> tuple[int, int, str]:
        hit = next((i for i, match in enumerate(matches) if match(c.command)), len(priority))
        return (0 if c.always else 1, hit, c.command)

    return tuple(sorted(candidates, key=key))


def ranked(commands: Iterable[str], priority: tuple[str, ...]) -> tuple[str, ...]:
    """Commands in `budgets.priority` order: the first matching entry, then command order."""
    matches = _priority_matchers(priority)

    def key(command: str) -> tuple[int, str]:
        return next((i for i, match in enumerate(matches) if match(command)), len(priority)), command

    return tuple(sorted(commands, key=key))


def _priority_matchers(priority: tuple[str, ...]) -> list[Callable[[str], bool]]:
    """One matcher per `budgets.priority` entry, with the gitignore rules `resources.exclude` uses
    (a command is matched as a path: `sven/` or `sven/*` is everything below `sven`, `s1*` a name at
    any depth); a command spelled exactly always matches its own entry."""
    if not priority:
        return []
    from ..names import gitignore

    def matcher(pattern: str) -> Callable[[str], bool]:
        excludes = gitignore.matcher(pattern)
        return lambda command: command == pattern or excludes(command)

    return [matcher(p) for p in priority]


def pack(
    persona: str,
    budget: int,
    candidates: tuple[Candidate, ...],
    frame_cost: Callable[[int], int],
    *,
    strategy: Strategy = Strategy.DROP,
    priority: tuple[str, ...] = (),
    verbose: bool = False,
    where: str = "",
    slack: int = 0,
) -> Packing:
    """frame_cost(n_left_out) is the size of the catalog with no entries.

    slack: characters to keep free, when a rendered catalog came out longer than estimated.
    """
    ranked = rank(candidates, priority)
    fit = {Strategy.DROP: _drop, Strategy.SHORTEN: _shorten, Strategy.NAMES_ONLY: _names_only}[strategy]
    room = budget - slack - frame_cost(0)
    # First fit leaves a skill out exactly when the entries together do not fit: then no first pass
    # is needed to learn it (at 100,000 x 12 each pass walks 95,000 candidates a persona).
    over = strategy is Strategy.DROP and sum(c.cost for c in ranked) > room
    included, left_out, descriptions = ([], [], {}) if over else fit(room, ranked)
    if over or left_out:
        # The truncation notice costs room too; pack again with it reserved.
        included, left_out, descriptions = fit(budget - slack - frame_cost(len(candidates)), ranked)
    where = where or (candidates[0].path if candidates else persona)
    first = candidates[0].path if candidates else persona
    fixed = frame_cost(0) + sum(c.cost for c in candidates if c.always)
    return packed(
        persona,
        budget,
        _in_command_order(candidates, included),
        tuple(sorted(left_out)),
        fixed,
        strategy=strategy,
        descriptions=descriptions,
        verbose=verbose,
        where=where,
        first=first,
        candidates=candidates,
        priority=priority,
    )


def packed(
    persona: str,
    budget: int,
    included: tuple[str, ...],
    left_out: tuple[str, ...],
    fixed: int,
    *,
    strategy: Strategy,
    descriptions: Mapping[str, str],
    verbose: bool,
    where: str,
    first: str,
    candidates: tuple[Candidate, ...] = (),
    priority: tuple[str, ...] = (),
) -> Packing:
    """The packing of a choice made (by `pack`, or by an edit build resuming the last one, `refit`),
    with its diagnostics: `fixed` is the frame's cost and the always-on entries',
    `where` the place of the budget's warning, `first` the first candidate's path (or the persona)."""
    diags = _report(persona, budget, strategy, list(left_out), dict(descriptions), verbose, where)
    if fixed > budget:
        diags.append(
            dg.warning(
                first,
                Code.ALWAYS_OVER_BUDGET,
                f"always-on skills alone need {fixed} characters; persona {persona!r} budget is {budget}",
            )
        )
    return Packing(
        persona,
        budget,
        included,
        left_out,
        tuple(diags),
        strategy,
        descriptions,
        candidates,
        priority,
    )


def refit(
    room: int,
    included: list[tuple[str, int, bool]],
    listed: list[str],
    since: str | None,
    cost: Callable[[str], tuple[int, bool]],
    least: int = 0,
) -> tuple[str, ...]:
    """First fit (drop, ranked without `budgets.priority`) of the candidates `listed` (command order;
    `cost` gives a command's cost and whether it is always-on) into `room`, resumed at `since`: the
    last packing into the same room took `included` (command, cost, always), and no candidate
    before `since` in command order, nor any always-on one, has changed since (None: none has);
    no candidate costs less than `least`. The commands chosen, in command order.

    The entries ranked before the first changed one are the always-on entries and those before it
    in command order; first fit chooses them as it did, so the room left when it comes is the last
    packing's there, and only the rest is looked at again (an edit build packs no catalog whole)."""
    kept = [(c, n) for c, n, always in included if always or since is None or c < since]
    chosen = [c for c, _n in kept]
    room -= sum(n for _c, n in kept)
    for command in listed[len(listed) if since is None else bisect.bisect_left(listed, since) :]:
        if room < least:  # nothing more fits (the room only shrinks): the rest is left out
            break
        n, always = cost(command)
        if not always and n <= room:
            chosen.append(command)
            room -= n
    return tuple(sorted(chosen))


def _in_command_order(candidates: tuple[Candidate, ...], commands: list[str]) -> tuple[str, ...]:
    chosen = set(commands)
    return tuple(c.command for c in sorted(candidates, key=attrgetter("command")) if c.command in chosen)


def _report(
    persona: str,
    budget: int,
    strategy: str,
    left_out: list[str],
    descriptions: dict[str, str],
    verbose: bool,
    where: str,
) -> list[Diagnostic]:
    """One line per persona, however many skills the budget touched."""
    if not left_out and not descriptions:
        return []
    parts = []
    if left_out:
        parts.append(f"{len(left_out)} skill(s) left out ({_names(sorted(left_out), verbose)})")
    if descriptions:
        how = "descriptions removed" if strategy is Strategy.NAMES_ONLY else "descriptions shortened"
        parts.append(f"{len(descriptions)} {how} ({_names(sorted(descriptions), verbose)})")
    message = (
        f"persona {persona!r} catalog over its budget of {budget} characters (strategy {strategy}): "
        + "; ".join(parts)
    )
    return [dg.warning(where, Code.BUDGET_CUT, message)]


def _names(commands: list[str], verbose: bool) -> str:
    if verbose or len(commands) <= SHOWN:
        return ", ".join(commands)
    return ", ".join(commands[:SHOWN]) + f" and {len(commands) - SHOWN} more; --verbose lists all"


Fit = tuple[list[str], list[str], dict[str, str]]


def _drop(room: int, ranked: tuple[Candidate, ...]) -> Fit:
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


def _shorten(room: int, ranked: tuple[Candidate, ...]) -> Fit:
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
            c.cost
            - max(0, len(c.description) - limit)
            + (len(ELLIPSIS) if len(c.description) > limit and not c.always else 0)
            if not c.always
            else c.cost
            for c in kept
        )

    low, high = MIN_DESCRIPTION, max((len(c.description) for c in kept), default=0)
    if total(low) > room:
        return None
    while low < high:  # total() grows with the limit: binary search for the last that fits
        mid = (low + high + 1) // 2
        low, high = (mid, high) if total(mid) <= room else (low, mid - 1)
    return low


def _cut(text: str, limit: int) -> str:
    return text[: max(0, limit)].rstrip() + ELLIPSIS


def _names_only(room: int, ranked: tuple[Candidate, ...]) -> Fit:
    if sum(c.cost for c in ranked) <= room:
        return [c.command for c in ranked], [], {}
    bare = {c.command: c.bare_cost if c.bare_cost >= 0 else c.cost for c in ranked}
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
