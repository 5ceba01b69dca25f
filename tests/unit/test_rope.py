"""incremental/manifest.py ropes: a rope made from ranges of the current sequence and literal items, generation after
generation over one base, stands for what the same splices of plain sequences give."""

from __future__ import annotations

import array

from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.rope import BASE, POOL, Rope, Splicer

# One edit: (keep, start, end) takes the current items start to end (clamped); (add, items) adds literals.
STEP = st.one_of(
    st.tuples(st.just("keep"), st.integers(0, 60), st.integers(0, 60)),
    st.tuples(st.just("add"), st.lists(st.text("xyz", min_size=1, max_size=3), max_size=4)),
)


def spliced(current, steps, add):
    """The model: the same steps on the plain sequence."""
    out = current[:0]
    for step in steps:
        if step[0] == "keep":
            out += current[min(step[1], step[2]) : max(step[1], step[2])]
        else:
            out += add(step[1])
    return out


def through_rope(rope, steps, add):
    splicer = Splicer(rope)
    for step in steps:
        if step[0] == "keep":
            splicer.take(min(step[1], step[2]), max(step[1], step[2]))
        else:
            splicer.add(add(step[1]))
    return splicer.done()


KINDS = [
    (lambda n: [f"b{i}" for i in range(n)], lambda items: list(items), []),
    (lambda n: "".join(chr(97 + i % 26) for i in range(n)), lambda items: "".join(items), ""),
    (lambda n: array.array("q", range(n)), lambda items: array.array("q", map(len, items)), array.array("q")),
]


@given(
    st.integers(0, 50),
    st.lists(st.lists(STEP, max_size=6), min_size=1, max_size=5),
    st.sampled_from([0, 1, 2]),
)
def test_generations_of_splices_stand_for_the_spliced_sequence(length, generations, kind) -> None:
    make, add, empty = KINDS[kind]
    base = make(length)
    rope, model = Rope.whole(length, empty), base
    for steps in generations:
        rope, model = through_rope(rope, steps, add), spliced(model, steps, add)
        assert rope.made(base) == model and len(rope) == len(model)
        # the pool holds what the parts use, and no literal item a later generation dropped
        assert len(rope.pool) == sum(end - start for kind, start, end in rope.parts if kind == POOL)
        again = Rope.decode(rope.encode(), rope.pool, len(base))
        assert again is not None and again.made(base) == model


def test_ranges_that_meet_are_one_part() -> None:
    splicer = Splicer(Rope.whole(10, []))
    splicer.take(0, 3)
    splicer.take(3, 7)
    splicer.add(["x"])
    splicer.add(["y"])
    assert splicer.done().parts == ((BASE, 0, 7), (POOL, 0, 2))


def test_parts_outside_the_base_or_the_pool_do_not_decode() -> None:
    good = Rope(((BASE, 0, 3), (POOL, 0, 1)), ["x"])
    assert Rope.decode(good.encode(), ["x"], 3) == good
    assert Rope.decode(good.encode(), ["x"], 2) is None  # the base is shorter
    assert Rope.decode(good.encode(), [], 3) is None  # the pool is
    assert Rope.decode(Rope(((7, 0, 0),), []).encode(), [], 3) is None  # no such kind
    assert Rope.decode(b"\0" * 8, [], 3) is None and Rope.decode("text", [], 3) is None
