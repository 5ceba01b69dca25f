"""cache/catalogrows.Rows: catalog rows as columns behave as the dict of lists they stand for."""

from __future__ import annotations

import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.catalogrows import Rows, has, listed_after, toggled

_TEXT = st.text(max_size=12)  # any str: non-ASCII, controls, lone surrogates
_ROW = st.tuples(_TEXT, _TEXT, _TEXT, st.booleans(), st.integers(0, 2**40), st.integers(-1, 2**40)).map(list)
_COMMANDS = st.sampled_from(["a", "b", "c/d", "é", "z", "x-1", "x-2"])
_STEP = st.one_of(
    st.tuples(st.just("set"), _COMMANDS, _ROW),
    st.tuples(st.just("del"), _COMMANDS, st.none()),
    st.tuples(st.just("pop"), _COMMANDS, st.none()),
    st.tuples(st.just("discard"), _COMMANDS, st.none()),
)


@given(st.dictionaries(_COMMANDS, _ROW, max_size=6), st.lists(_STEP, max_size=12))
def test_every_change_gives_what_a_dict_gives(start: dict[str, list[object]], steps: list[tuple]) -> None:
    rows, model = Rows.of(start), dict(start)
    for op, command, row in steps:
        if op == "set":
            rows[command], model[command] = list(row), list(row)
        elif op == "del" and command in model:
            del rows[command], model[command]
        elif op == "pop":
            assert rows.pop(command, None) == model.pop(command, None)
        elif op == "discard":
            rows.discard(command)
            model.pop(command, None)
        assert list(rows) == list(model)  # a dict's order: put in, kept in place when changed
        assert {c: rows[c] for c in rows} == model
        assert all(rows.numbers(c) == (model[c][4], model[c][3]) for c in model)
        assert rows.costs() == {c: (r[4], r[3]) for c, r in model.items()}
        assert rows.least_cost() == min((r[4] for r in model.values()), default=0)
    again = Rows(*rows.columns())  # as carry-catalog.json gives them back
    assert again == model and list(again) == list(model)
    assert rows.place() == {c: i for i, c in enumerate(model)}


def test_columns_that_do_not_fit_together_are_refused() -> None:
    rows = Rows.of({"a": ["n", "d", "p", False, 1, -1]})
    commands, texts, lengths, numbers = rows.columns()
    for broken in (
        (commands, texts + b"x", lengths, numbers),
        (commands, texts, lengths[:-1], numbers),
        (commands, texts, lengths, numbers + array.array("q", [0])),
        ([*commands, "a"], texts + b"ndp", lengths + lengths, numbers + numbers),
    ):
        with pytest.raises(ValueError):
            Rows(*broken)


@given(
    st.dictionaries(_COMMANDS, _ROW, max_size=6),
    st.dictionaries(_COMMANDS, st.none() | _ROW, max_size=6),
    st.booleans(),
)
def test_changes_applied_at_once_are_those_applied_one_by_one(
    start: dict[str, list[object]], changes: dict, read: bool
) -> None:
    """Rows.apply (a journal's rows, carry.py) gives the rows, their order and their columns that
    setting and deleting each in turn gives."""
    rows = Rows(*Rows.of(start).columns()) if read else Rows.of(start)  # as read, or as made
    one_by_one = Rows.of(start)
    for command, row in changes.items():
        if row is None:
            one_by_one.pop(command, None)
        else:
            one_by_one[command] = list(row)
    rows.apply(changes)
    assert list(rows) == list(one_by_one) and rows == one_by_one
    (commands, texts, lengths, numbers), want = rows.columns(), one_by_one.columns()
    assert (commands, bytes(texts), lengths, numbers) == (want[0], bytes(want[1]), want[2], want[3])
    assert rows.place() == one_by_one.place() and rows.costs() == one_by_one.costs()
    assert rows.moved == one_by_one.moved


@given(
    st.lists(_COMMANDS, unique=True).map(sorted),
    st.dictionaries(_COMMANDS, st.booleans(), max_size=6),
)
def test_a_listing_after_changes_is_the_listing_toggled_one_by_one(listed: list[str], present: dict) -> None:
    one_by_one = listed
    for command, there in present.items():
        if has(one_by_one, command) != there:
            one_by_one = toggled(one_by_one, command, there)
    assert listed_after(listed, present) == one_by_one
