"""cache/records.Outputs: outputs.json as names and packed stat data, changed in place by an edit build."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.packed import pack_texts
from skillc.incremental.records import OUTPUT_EDITS_LIMIT, Outputs

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
    assert Outputs.decode(out.encode("k")) == out
    assert out.get(OBJ) == files()[OBJ] and out.get("objects/zz") is None


def test_drop_and_put_give_what_a_new_dict_gives() -> None:
    out = Outputs.of(files())
    out.drop([out.names.index(OBJ)])
    out.put("_index.json", [11, 1, 2, 3, 4])  # replaced
    out.put("objects/00/" + "b" * 62, [1, 1, 1, 1, 1])  # put in, in order
    want = {**files(), "_index.json": [11, 1, 2, 3, 4], "objects/00/" + "b" * 62: [1, 1, 1, 1, 1]}
    del want[OBJ]
    assert out == Outputs.of(want)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"key": "k", "names": b"", "stats": b""},  # format 11's shape: no id of its own
        {"key": "k", "id": 7, "names": b"", "stats": b""},
        {"key": "k", "id": "i", "names": b"a\0", "stats": b""},  # five values a name
        {"key": "k", "id": "i", "names": b"a\0", "stats": "not bytes"},
        {"key": "k", "id": "i", "names": "a", "stats": b""},
        {"key": "k", "files": {"a": [1, 2, 3, 4, 5]}},  # format 8's shape
    ],
)
def test_what_does_not_decode_is_none(data: object) -> None:
    assert Outputs.decode(data) is None


NAMES = st.text(st.sampled_from("abo/_."), min_size=1, max_size=6)
STAT = st.lists(st.integers(-(2**63), 2**63 - 1), min_size=5, max_size=5)


@given(st.dictionaries(NAMES, STAT), st.dictionaries(NAMES, STAT), st.sets(NAMES))
def test_a_changed_record_is_the_record_of_the_changed_files(before, written, unused) -> None:
    out = Outputs.of(before)
    out.drop([i for i, rel in enumerate(out.names) if rel in unused])
    for rel, stat in written.items():
        out.put(rel, stat)
    want = {rel: s for rel, s in before.items() if rel not in unused} | written
    assert out.as_dict() == want and Outputs.decode(out.encode("k")) == out


@given(st.sets(st.text("abc/", max_size=8), max_size=30), st.sets(st.text("abc/", max_size=8), max_size=10))
def test_places_are_those_of_the_names_here(names: set[str], asked: set[str]) -> None:
    out = Outputs.of({name: [1, 2, 3, 4, 5] for name in names})
    asked |= set(sorted(names)[::3])  # some of them here
    assert out.places(sorted(asked)) == [out.names.index(rel) for rel in sorted(asked) if rel in names]


def read(out: Outputs, key: str) -> Outputs:
    """`out` as outputs.json holds it for the build `key`, read back (its journal starts there)."""
    data = out.encode(key)
    found = Outputs.decode(data)
    assert found is not None and found.base == data["id"] != key and found.changes == {}
    return found


@given(
    st.dictionaries(NAMES, STAT),
    st.lists(st.tuples(st.dictionaries(NAMES, STAT), st.sets(NAMES)), min_size=1, max_size=4),
)
def test_a_journal_applied_to_the_whole_gives_the_changed_record(before, builds) -> None:
    """Edit builds in a row, each writing only its journal since the whole file: the whole with the
    last journal applied is the record of the changed files, as a dict model says."""
    data = Outputs.of(before).encode("k0")
    whole, out, want = Outputs.decode(data), Outputs.decode(data), dict(before)
    assert whole is not None and out is not None
    for n, (written, unused) in enumerate(builds, start=1):
        out.drop([i for i, rel in enumerate(out.names) if rel in unused])
        for rel, stat in written.items():
            out.put(rel, stat)
        want = {rel: s for rel, s in want.items() if rel not in unused} | written
        journal = out.encode_changes(f"k{n}")
        assert journal is not None and journal["base"] == whole.base
        out = whole.with_changes(journal, f"k{n}")
        assert out is not None and out.as_dict() == want and out == Outputs.of(want)


def test_a_journal_of_another_build_or_another_whole_is_not_applied() -> None:
    data = Outputs.of(files()).encode("k0")
    whole, changed = Outputs.decode(data), Outputs.decode(data)
    assert whole is not None and changed is not None
    changed.put("objects/00/" + "b" * 62, [1, 1, 1, 1, 1])
    journal = changed.encode_changes("k1")
    assert whole.with_changes(journal, "k2") is None  # the record names another build
    assert read(Outputs.of(files()), "other").with_changes(journal, "k1") is None  # another whole
    # Another whole of the same build and the same files: written again, so another file.
    assert read(Outputs.of(files()), "k0").with_changes(journal, "k1") is None
    assert whole.with_changes(None, "k1") is None
    assert whole.with_changes({**journal, "names": pack_texts(["b", "a"])}, "k1") is None  # not in order
    assert whole.with_changes({**journal, "stats": b""}, "k1") is None


def test_no_journal_past_the_limit_or_without_a_whole() -> None:
    assert Outputs.of(files()).encode_changes("k1") is None  # made from a dict: no whole file under it
    out = read(Outputs.of({}), "k0")
    for i in range(OUTPUT_EDITS_LIMIT + 1):
        out.put(f"objects/{i:04}", [1, 2, 3, 4, 5])
    assert out.encode_changes("k1") is None
