"""The standard-library JSON reader: what json.loads reads, it reads; what json refuses, and duplicate keys, it refuses."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.format.jsonio import _loads

JSON = st.recursive(
    st.none()  # the JSON subset of docs/format.md: integers in [-2**63, 2**64), finite floats
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(JSON, st.sampled_from(["", " ", "\n", "\t\r\n "]), st.booleans())
def test_loads_reads_what_json_loads_reads(value: object, space: str, indent: bool) -> None:
    text = space + json.dumps(value, indent=2 if indent else None, ensure_ascii=False) + space
    assert _loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ["", " ", "[1", "[1] x", "{'a': 1}", '{"a": 1,}', '"\x01"', "\x0c[1]", "[1]\x0b", '{"a":1,"a":2}', "01"],
)
def test_loads_refuses_what_json_refuses_and_duplicate_keys(text: str) -> None:
    with pytest.raises(ValueError):
        _loads(text)
