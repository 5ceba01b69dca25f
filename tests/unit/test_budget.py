"""Budget: first-fit packing of a persona's catalog."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st
from support.project import skill_md, src_project

from skillc.model import Strategy
from skillc.pipeline import compile_project
from skillc.stages import budget as budget_mod
from skillc.stages.budget import Candidate, pack, rank


def test_budget_first_fit_keeps_always_and_reserves_the_notice() -> None:
    cands = (
        Candidate("a", False, 50, "a"),
        Candidate("b", False, 500, "b"),
        Candidate("c", True, 300, "c"),
        Candidate("d", False, 40, "d"),
    )
    packing = pack("p", 500, cands, lambda omitted: 20 + (60 if omitted else 0))
    assert packing.included == ("a", "c", "d")
    assert packing.left_out == ("b",)
    assert [d.code for d in packing.diagnostics] == ["SKC601"]


def test_always_skills_over_budget_warn_but_stay() -> None:
    packing = pack("p", 100, (Candidate("a", True, 500, "a"),), lambda n: 10)
    assert packing.included == ("a",)
    assert [d.code for d in packing.diagnostics] == ["SKC602"]


def test_rendered_catalog_never_exceeds_the_budget(tmp_path: Path) -> None:
    files = {
        f"src/s{i:02d}/SKILL.md": skill_md(f"s{i:02d}", description="x" * (50 + i * 7)) for i in range(40)
    }
    config = "sources: [src]\nbudgets:\n  catalog_chars: 2000\n"
    result = compile_project(src_project(tmp_path, files, config=config))
    text = result.artifacts.files["personas/default/prompt.xml"].decode()
    assert len(text) <= 2000
    assert f"<!-- {len(result.packings['default'].left_out)} more skills not listed" in text


def test_frame_alone_over_budget_warns_without_candidates() -> None:
    packing = pack("p", 100, (), lambda n: 150)
    assert packing.included == () and [d.code for d in packing.diagnostics] == ["SKC602"]


@given(st.lists(st.tuples(st.text("ab/-", min_size=1, max_size=4), st.booleans()), max_size=12))
def test_rank_without_a_priority_is_always_first_then_command_order(rows: list[tuple[str, bool]]) -> None:
    """The fast path without `budgets.priority` orders as the matched one does: (always, no
    priority hit, command); a priority list that matches nothing gives that order too."""
    cands = tuple(Candidate(c, a, 1, c) for c, a in rows)
    expected = tuple(sorted(cands, key=lambda c: (0 if c.always else 1, c.command)))
    assert rank(cands, ()) == expected
    assert [c.command for c in rank(cands, ("zzz-none",))] == [c.command for c in expected]


def _reference_pack(
    budget: int, cands: tuple[Candidate, ...], frame: Callable[[int], int], strategy: Strategy
) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]:
    """pack's choice as it was made before its shortcuts: fit once, again with the notice when
    something was left out, the included in command order through an index of every candidate."""
    fit = {Strategy.DROP: budget_mod._drop, Strategy.SHORTEN: budget_mod._shorten}[strategy]
    ranked = budget_mod.rank(cands, ())
    included, left_out, descriptions = fit(budget - frame(0), ranked)
    if left_out:
        included, left_out, descriptions = fit(budget - frame(len(cands)), ranked)
    order = {c.command: i for i, c in enumerate(sorted(cands, key=lambda c: c.command))}
    return tuple(sorted(included, key=order.__getitem__)), tuple(sorted(left_out)), descriptions


@given(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=3),
        st.tuples(st.booleans(), st.integers(0, 60), st.text("xy ", max_size=30)),
        max_size=10,
    ),
    st.integers(0, 300),
    st.sampled_from([Strategy.DROP, Strategy.SHORTEN]),
)
@example({"a": (False, 10, "")}, 30, Strategy.DROP)  # the entries fill the room exactly: all fit
@example({"a": (True, 50, "")}, 30, Strategy.DROP)  # always-on alone over the room: nothing left out
def test_pack_chooses_as_before_its_shortcuts(
    rows: dict[str, tuple[bool, int, str]], budget: int, strategy: Strategy
) -> None:
    cands = tuple(Candidate(c, a, cost, c, d) for c, (a, cost, d) in sorted(rows.items()))

    def frame(omitted: int) -> int:
        return 20 + (15 if omitted else 0)

    packing = pack("p", budget, cands, frame, strategy=strategy)
    assert (packing.included, packing.left_out, packing.descriptions) == _reference_pack(
        budget, cands, frame, strategy
    )


@given(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=3), st.tuples(st.booleans(), st.integers(0, 60)), max_size=12
    ),
    st.dictionaries(st.text("abc", min_size=1, max_size=3), st.none() | st.integers(0, 80), max_size=3),
    st.integers(0, 300),
)
@example({"a": (False, 50), "b": (False, 50), "c": (False, 50), "d": (True, 5)}, {"bb": 70}, 130)  # added
@example(
    {"a": (False, 50), "b": (False, 50), "c": (False, 50), "d": (False, 50)}, {"a": None}, 120
)  # removed
@example({"a": (False, 50), "b": (False, 50), "c": (False, 50)}, {"b": 10}, 120)  # cheaper: it fits now
@example({"a": (False, 50), "b": (False, 50), "c": (False, 50)}, {"b": 35}, 120)  # it fills the room exactly
def test_first_fit_resumed_at_the_first_change_chooses_as_packing_again(
    rows: dict[str, tuple[bool, int]], changes: dict[str, int | None], budget: int
) -> None:
    """refit, from the last packing and the first changed place, chooses what pack chooses anew.
    Each command of `changes` is added, removed (None) or given a new cost; none is always-on."""

    def frame(omitted: int) -> int:
        return 20 + (15 if omitted else 0)

    def cands(table: dict[str, tuple[bool, int]]) -> tuple[Candidate, ...]:
        return tuple(Candidate(c, a, n, c) for c, (a, n) in sorted(table.items()))

    after = dict(rows)
    for command, cost in changes.items():
        if cost is None:
            after.pop(command, None)
        else:
            after[command] = (False, cost)
    last, now = pack("p", budget, cands(rows), frame), pack("p", budget, cands(after), frame)
    room0 = budget - frame(0)
    if (
        any(rows.get(c, (False, 0))[0] for c in changes)
        or sum(n for _a, n in rows.values()) <= room0
        or sum(n for _a, n in after.values()) <= room0
    ):
        return  # what an edit build packs again whole
    mine = [(c, rows[c][1], rows[c][0]) for c in last.included]
    since = min(changes, default=None)

    def cost(command: str) -> tuple[int, bool]:
        return after[command][1], after[command][0]

    least = min((n for _a, n in after.values()), default=0)
    for bound in (0, least):  # with no bound, and with the least cost: first fit stops early
        assert budget_mod.refit(budget - frame(1), mine, sorted(after), since, cost, bound) == now.included
