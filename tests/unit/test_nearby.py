"""Close commands for an UnknownSkill: the normal form, catalog words, the distance and the ranking."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillc.format.nearby import MAX_CHECKED, distance, normal, parent, ranked, reach, words


def _osa(a: str, b: str) -> int:
    """The optimal string alignment distance, the whole table: what the banded one must equal."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


@given(st.text("ab-/é", max_size=9), st.text("ab-/é", max_size=9), st.integers(0, 4))
def test_distance_is_the_full_tables_capped_at_the_limit(a: str, b: str, limit: int) -> None:
    assert distance(a, b, limit) == min(_osa(a, b), limit + 1)


def test_distance_counts_a_swap_of_neighbours_as_one_edit() -> None:
    assert distance("deploy", "dpeloy", 3) == 1
    assert distance("deploy", "deploy", 0) == 0
    assert distance("ca", "abc", 3) == 3  # optimal string alignment: no edit of a swapped pair
    assert distance("a", "abcdef", 3) == 4  # beyond the limit: limit + 1, whatever the distance


def test_normal_is_the_form_skillc_spells_commands_in() -> None:
    assert normal("/Ops:Restart/") == "ops/restart"
    assert normal("threat_assessment now") == "threat-assessment-now"
    assert normal("ÉTAT") == "État"  # ASCII letters only: every reader folds them alike


def test_words_are_split_on_ascii_separators_only() -> None:
    text = '<skill name="ops/restart">Restart (fast), then\u3000déploy: now_1.</skill>'
    found = {"skill", "name", "ops/restart", "Restart", "fast", "then\u3000déploy", "now_1", "/skill"}
    assert words(text) == found  # "/skill": `/` belongs to commands, and ranking discards the rest
    assert words("") == set()


def test_parent_and_reach() -> None:
    assert parent("a/b/c") == "a/b" and parent("a") is None and parent("/a") is None
    assert [reach("x" * n) for n in (0, 3, 6, 9, 30)] == [1, 1, 2, 3, 3]


def test_ranked_by_distance_then_command_order_without_the_command_itself() -> None:
    candidates = ["deploy", "deplay", "deploy-all", "Deploi", "delpoy", "zzz", "deploi"]
    assert ranked("deploi", candidates) == ["Deploi", "deploy", "delpoy", "deplay"]  # "D" < "d"
    assert ranked("Deploy", ["deploy"]) == ["deploy"]  # the normal form matches at distance 0
    assert ranked("deploy", ["deploy"]) == []  # the command as typed is never its own suggestion


def test_ranked_keeps_at_most_the_candidates_a_reader_looks_up() -> None:
    near = [f"skill-{i}" for i in range(10, 40)]
    best = sorted(near, key=lambda c: (_osa("skill-2", c), c))[:MAX_CHECKED]
    assert ranked("skill-2", near) == best and best[0] == "skill-12"
