"""edit._line_place and edit._patched: where an input's line is among the build hash's lines (a
binary search of the text) and the lines with some put in, replaced or taken out in one pass, are
what the lines split out, searched and sorted, give."""

from __future__ import annotations

import bisect

from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.edit import _line_place, _patched

# Short paths from few letters: prefixes of each other and "/" against the NUL that ends a path in
# its line all come up, and a character past ASCII.
REL = st.text(alphabet="ab/é", min_size=1, max_size=4)
DIGEST = st.text(alphabet="01", max_size=3)


@given(st.dictionaries(REL, DIGEST), REL)
def test_a_line_is_where_its_path_sorts(base: dict[str, str], rel: str) -> None:
    rels = sorted(base)
    lines = "".join(f"{r}\0{d}\n" for r, d in sorted(base.items()))
    at = _line_place(lines, rel)
    assert lines[:at].count("\n") == bisect.bisect_left(rels, rel) and lines[:at].endswith(("\n", ""))


@given(st.dictionaries(REL, DIGEST), st.dictionaries(REL, st.none() | DIGEST))
def test_lines_put_in_replace_and_take_out_each_input(base: dict[str, str], changes: dict) -> None:
    lines = "".join(f"{rel}\0{d}\n" for rel, d in sorted(base.items()))
    now = dict(base)
    for rel, d in changes.items():
        if d is None:
            now.pop(rel, None)
        else:
            now[rel] = d
    patch = {rel: None if d is None else f"{rel}\0{d}\n" for rel, d in changes.items()}
    assert _patched(lines, patch) == "".join(f"{rel}\0{d}\n" for rel, d in sorted(now.items()))
