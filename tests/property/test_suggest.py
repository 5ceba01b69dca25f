"""names/suggest.py: `close_matches` is difflib's, and `among_closest` answers what close_matches answers,
scoring fewer choices."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.names.suggest import _closest, among_closest, close_matches

# Commands close to each other and to the words, so that scores tie and ranks are contested.
COMMAND = st.text(st.sampled_from("abcdeAB-/"), min_size=1, max_size=8)


@settings(max_examples=1500)
@given(st.text(st.sampled_from("abcdeAB-/"), max_size=8), COMMAND, st.lists(COMMAND, max_size=12))
def test_among_closest_is_close_matches_naming_the_choice(word, choice, others) -> None:
    others = [o for o in others if o != choice]
    named = choice in close_matches(word, [*others, choice])
    if any(o.casefold() == choice.casefold() for o in others):
        # Another may stand for it: the cautious answer, True, wherever `choice` is close enough to
        # be named at all (where it is not, neither is the other, and nothing changes).
        assert among_closest(word, choice, others) == bool(close_matches(word, [choice]))
    else:
        assert among_closest(word, choice, others) == named


def test_a_long_list_is_scored_only_where_it_could_rank_above() -> None:
    others = [f"skill-{i:05d}" for i in range(20_000) if i != 1]
    assert among_closest("skill-00001x", "skill-00001", others) is True
    assert among_closest("skill-00001x", "zzz-unrelated", others) is False
    assert among_closest("skil-0000", "skill-00001", others) == (
        "skill-00001" in close_matches("skil-0000", [*others, "skill-00001"])
    )


@settings(max_examples=2000)
@given(
    st.text(st.sampled_from("abcdeAB-/"), max_size=8),
    st.lists(COMMAND, max_size=20, unique=True),
    st.integers(min_value=1, max_value=5),
)
def test_closest_is_difflibs_get_close_matches(word, choices, n) -> None:
    """The pruned search names what difflib names, in difflib's order, ties included."""
    assert _closest(word, choices, n) == difflib.get_close_matches(word, choices, n=n, cutoff=0.6)


def test_close_matches_over_many_commands_is_difflibs() -> None:
    commands = [f"archive-alerts-{i}" for i in range(3000)]
    commands += [f"audit-queues-{i}" for i in range(0, 3000, 7)] + ["archive-alerts", "Archive-Alerts-1069x"]
    for word in ("archive-alerts-1069", "audit-queues-2571", "zzz", "archive"):
        want = difflib.get_close_matches(
            word.casefold(), list(dict.fromkeys(c.casefold() for c in commands)), 3, 0.6
        )
        assert [c.casefold() for c in close_matches(word, commands)] == want
