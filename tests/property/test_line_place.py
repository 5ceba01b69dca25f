"""edit._line_place: where an added input's line goes in the build hash's lines, found by a binary
search of the text, is where bisect.insort puts it among the lines split out."""

from __future__ import annotations

import bisect

from hypothesis import given
from hypothesis import strategies as st

from skillc.edit import _line_place

# Short lines from few letters: equal lines, prefixes of each other, and "\0" against "/" (a line is
# a path, a NUL, then its digest) all come up.
LINE = st.text(alphabet="ab/\0", max_size=5)


@given(st.lists(LINE, max_size=12), LINE)
def test_a_line_goes_where_insort_puts_it(rows: list[str], line: str) -> None:
    rows.sort()
    lines = "".join(row + "\n" for row in rows)
    at = _line_place(lines, line)
    want = rows[:]
    bisect.insort(want, line)
    assert lines[:at] + line + "\n" + lines[at:] == "".join(row + "\n" for row in want)
