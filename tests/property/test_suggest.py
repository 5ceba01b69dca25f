"""names/suggest.py: `among_closest` answers what close_matches answers, scoring fewer choices."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.names.suggest import among_closest, close_matches

# Commands close to each other and to the words, so that scores tie and ranks are contested.
COMMAND = st.text(st.sampled_from("abcdeAB-/"), min_size=1, max_size=8)


@settings(max_examples=1500, deadline=None)
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
