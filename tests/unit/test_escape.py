"""The <untrusted-data> delimiter in every spelling: escaped wherever untrusted text meets a prompt."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from skillc import reader
from skillc.format import escape
from skillc.format.escape import delimiter_positions
from skillc.stages.lint import escape_delimiter, lint_overlay, wrap_overlay

SPELLINGS = [
    "<untrusted-data>",
    "</untrusted-data>",
    "< / UNTRUSTED-DATA >",
    "<\u200buntrusted-data>",
    "<untr\u200dusted-data>",
    "</\u2060untrusted-data>",
    "<\u00aduntrusted-data>",
    "\uff1cuntrusted-data>",
    "\uff1c/untrusted-data>",
    "\ufe64/untrusted-data>",
    "<\uff55\uff4e\uff54\uff52\uff55\uff53\uff54\uff45\uff44\uff0d\uff44\uff41\uff54\uff41>",
    "<untrusted\u2010data>",
    "<untrusted\u2011data>",
    "<UNTRUSTED\uff0dDATA>",
    "<untrusted-da\u200cta>",
    "<\u0075\u0301ntrusted-data>",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_the_delimiter_is_escaped(text):
    out = escape_delimiter(f"before {text} after")
    assert out.startswith("before &lt;") and not delimiter_positions(out)
    assert lint_overlay("o.md", text)[0].code == "SKC503"
    wrapped = wrap_overlay("o.md", text)
    assert len(delimiter_positions(wrapped)) == 2  # only the block's own open and close


@pytest.mark.parametrize("text", SPELLINGS)
def test_reader_arguments_use_the_same_rule(text):
    assert reader.substitute("x $ARGUMENTS", text) == "x " + escape_delimiter(text)
    assert reader.substitute("x $0", [text]) == "x " + escape_delimiter(text)
    assert not delimiter_positions(reader.substitute("no placeholder", text).split("ARGUMENTS: ", 1)[1])


def test_ordinary_text_is_untouched():
    for text in [
        "a < b and c > d",
        "untrusted-data without bracket",
        "<untrusted>",
        "ｆｕｌｌ",
        "日本語 <tag>",
    ]:
        assert escape_delimiter(text) == text


def _through_the_fold(text: str) -> list[int]:
    """delimiter_positions the general way: every character folded, the regex over the fold."""
    import re

    chars, origin = escape._fold(text)
    return [origin[m.start()] for m in re.finditer(escape._FOLDED, chars)]


_PIECES = st.sampled_from(
    ["<", "/", " ", "\t", "\x1c", "untrusted", "UNTRUSTED", "-", "data", "Data", "x", ">"]
)


@given(st.lists(_PIECES, max_size=40).map("".join))
@example("< / UNTRUSTED-DATA > and <untrusted-data and </ untrusted - data")
@example("<//untrusted-data <untrusted-dat <<untrusted-data")
@example("<untrusted/-data <u/ntrusted-data")  # a `/` only right after the `<`
def test_ascii_text_is_read_after_each_lt_as_the_fold_reads_it(text: str) -> None:
    assert escape._ascii_positions(text) == _through_the_fold(text)
    assert delimiter_positions(text) == _through_the_fold(text)
