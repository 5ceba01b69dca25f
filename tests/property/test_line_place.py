"""carry.line_place: where an added input's line goes in the build hash's lines, found by a binary
search of the text, is where bisect.insort puts it among the lines split out."""

from __future__ import annotations

import bisect

from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.carry import line_place, patched_lines

# Short lines from few letters: equal lines, prefixes of each other, and "\0" against "/" (a line is
# a path, a NUL, then its digest) all come up.
LINE = st.text(alphabet="ab/\0", max_size=5)


@given(st.lists(LINE, max_size=12), LINE)
def test_a_line_goes_where_insort_puts_it(rows: list[str], line: str) -> None:
    rows.sort()
    lines = "".join(row + "\n" for row in rows)
    at = line_place(lines, line)
    want = rows[:]
    bisect.insort(want, line)
    assert lines[:at] + line + "\n" + lines[at:] == "".join(row + "\n" for row in want)


REL = st.text(alphabet="ab/é", min_size=1, max_size=4)
DIGEST = st.text(alphabet="01", max_size=3)


@given(st.dictionaries(REL, DIGEST), st.dictionaries(REL, st.none() | DIGEST))
def test_a_journals_lines_put_in_replace_and_take_out_each_input(base: dict[str, str], changes: dict) -> None:
    """carry.patched_lines: the lines of the whole carry with the journal's, in one pass, are the
    lines of the inputs as they are now, in path order."""
    lines = "".join(f"{rel}\0{d}\n" for rel, d in sorted(base.items()))
    now = dict(base)
    for rel, d in changes.items():
        if d is None:
            now.pop(rel, None)
        else:
            now[rel] = d
    journal = {rel: None if d is None else f"{rel}\0{d}\n" for rel, d in changes.items()}
    assert patched_lines(lines, journal) == "".join(f"{rel}\0{d}\n" for rel, d in sorted(now.items()))
