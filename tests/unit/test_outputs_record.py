"""incremental/records.Outputs: outputs.json as names and packed stat data, changed in place by an
edit build."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.records import Outputs

OBJ = "objects/ab/" + "a" * 62


def files() -> dict[str, list[int]]:
    return {
        "_index.json": [10, 1, 2, 3, 0o100644],
        OBJ: [5, -1, 2**62, 7, 0o100444],
        "personas/p.md": [1, 2, 3, 4, 5],
    }


def test_it_round_trips_and_answers_by_name() -> None:
    out = Outputs.of(files())
    assert out.names == sorted(files())
    assert out.as_dict() == files()
    assert Outputs.decode(out.encode("k"), "k") == out
    assert Outputs.decode(out.encode("k"), "another build's") is None
    assert out.get(OBJ) == files()[OBJ] and out.get("objects/zz") is None


def test_drop_and_put_give_what_a_new_dict_gives() -> None:
    out = Outputs.of(files())
    assert out.drop([OBJ, "objects/not/there"]) == 1
    out.put("_index.json", [11, 1, 2, 3, 4])  # replaced
    out.put("objects/00/" + "b" * 62, [1, 1, 1, 1, 1])  # put in, in order
    want = {**files(), "_index.json": [11, 1, 2, 3, 4], "objects/00/" + "b" * 62: [1, 1, 1, 1, 1]}
    del want[OBJ]
    assert out == Outputs.of(want)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"key": "k", "names": b"a\0", "stats": b""},  # five values a name
        {"key": "k", "names": b"a\0", "stats": "not bytes"},
        {"key": "k", "names": "a", "stats": b""},
        {"key": "k", "files": {"a": [1, 2, 3, 4, 5]}},  # format 8's shape
    ],
)
def test_what_does_not_decode_is_none(data: object) -> None:
    assert Outputs.decode(data, "k") is None


NAMES = st.text(st.sampled_from("abo/_."), min_size=1, max_size=6)
STAT = st.lists(st.integers(-(2**63), 2**63 - 1), min_size=5, max_size=5)


@given(st.dictionaries(NAMES, STAT), st.dictionaries(NAMES, STAT), st.sets(NAMES))
def test_a_changed_record_is_the_record_of_the_changed_files(before, written, unused) -> None:
    out = Outputs.of(before)
    assert out.drop(unused) == len(unused & before.keys())
    for rel, stat in written.items():
        out.put(rel, stat)
    want = {rel: s for rel, s in before.items() if rel not in unused} | written
    assert out.as_dict() == want and Outputs.decode(out.encode("k"), "k") == out
