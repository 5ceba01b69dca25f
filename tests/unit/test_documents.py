"""Dist documents and their checks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st


@given(st.text(alphabet=st.sampled_from("0123456789abcdefABCgz \n+é\x00"), max_size=9))
def test_bulk_hex_check_agrees_with_a_character_by_character_one(text: str) -> None:
    from skillc.format.documents import _all_hex

    assert _all_hex(text) == all(c in "0123456789abcdef" for c in text)
