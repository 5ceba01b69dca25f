"""incremental/packed.py: integers and strings as raw sections of a signed file."""

from __future__ import annotations

import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.packed import pack, pack_text, pack_texts, unpack, unpack_text, unpack_texts

NO_NUL = st.text(st.characters(blacklist_characters="\0"), max_size=8)


@given(st.lists(NO_NUL, max_size=12))
def test_strings_round_trip_the_empty_one_and_the_empty_list_apart(texts: list[str]) -> None:
    assert unpack_texts(pack_texts(texts)) == texts


def test_the_empty_list_and_one_empty_string_are_told_apart() -> None:
    assert pack_texts([]) == b"" and pack_texts([""]) == b"\0"
    assert unpack_texts(b"") == [] and unpack_texts(b"\0") == [""]


@given(st.text(max_size=20))
def test_a_string_round_trips_surrogates_too(text: str) -> None:
    assert unpack_text(pack_text(text)) == text
    assert unpack_text(pack_text(text + "\udcff")) == text + "\udcff"  # surrogateescape's bytes, kept


def test_a_string_with_a_nul_is_refused_as_the_store_expects() -> None:
    with pytest.raises(TypeError):  # write_signed leaves the file unwritten on a TypeError
        pack_texts(["a", "b\0c"])


@pytest.mark.parametrize("data", [b"a", b"a\0b", b"\xff\0", "a\0", ["a"], None])
def test_what_is_not_packed_strings_is_none(data: object) -> None:
    assert unpack_texts(data) is None


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=20))
def test_integers_round_trip(values: list[int]) -> None:
    assert unpack(pack(array.array("q", values))) == array.array("q", values)


def test_bytes_that_are_not_whole_values_are_none() -> None:
    assert unpack(b"\0" * 7) is None and unpack("text") is None
