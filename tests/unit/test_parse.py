"""Parse: frontmatter split from the body, positions kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.model import InputFile
from skillc.stages.parse import _split, parse_document, requote_colons


def test_parse_splits_frontmatter_and_normalises_body() -> None:
    doc = parse_document(
        InputFile("s/SKILL.md", b"---\nname: s\ndescription: d\n---\n\n\n# Title\n\nText.  \n\n")
    )
    assert doc.data == {"name": "s", "description": "d"}
    assert doc.body == "# Title\n\nText.\n"
    assert doc.pos("description") == (3, 14)
    assert doc.key_pos("description") == (3, 1)


def test_parse_optional_frontmatter_takes_the_whole_file() -> None:
    doc = parse_document(InputFile("x.md", b"# Plain\n"), frontmatter="optional")
    assert (doc.data, doc.body) == ({}, "# Plain\n")


# --- the unquoted-colon fallback (targets:) ----------------------------------------------------


def _fm(text: str, fallback: str | None = " (codex: loads)") -> tuple[object, list[str]]:
    doc = parse_document(
        InputFile("s/SKILL.md", f"---\n{text}---\nBody.\n".encode()), colon_fallback=fallback
    )
    return doc.data, [d.format() for d in doc.diagnostics]


def test_colon_in_a_plain_value_is_read_as_the_rest_of_the_line() -> None:
    data, diags = _fm("name: s\ndescription: Use when: x\n")
    assert data == {"name": "s", "description": "Use when: x"}
    assert diags == [
        "s/SKILL.md:3:14: warning[SKC214]: description: YAML refuses ': ' inside a plain value; read as the "
        "string 'Use when: x', as the Agent Skills client guide recommends (codex: loads). "
        "Quote it: description: 'Use when: x'"
    ]


def test_without_targets_the_colon_stays_a_yaml_error() -> None:
    data, diags = _fm("description: Use when: x\n", fallback=None)
    assert data is None and len(diags) == 1 and "error[SKC203]" in diags[0]


def test_the_fallback_keeps_the_value_column_and_quotes_what_needs_it() -> None:
    text, lines = requote_colons('a: b\ndescription:   say "hi": now\n')
    assert lines == (1,)
    assert text == 'a: b\ndescription:   "say \\"hi\\": now"\n'


@pytest.mark.parametrize(
    "text",
    [
        "description: Use when: x\nbad: [unclosed\n",  # another, real YAML error
        "description: Use when: x\n  and more lines\n",  # multi-line plain value
        "metadata: {a: b: c}\n",  # a colon inside a flow mapping
        "metadata:\n  key: a: b\n",  # an indented key
        "description: Use when: x # and a: comment\n",  # a comment
        "description: 'quoted': x\n",  # a quoted value, then text: not plain
        "description: Use when: x\ndescription: again\n",  # a duplicate key after the fix
    ],
)
def test_the_fallback_never_swallows_another_error(text: str) -> None:
    data, diags = _fm("name: s\n" + text)
    assert data is None
    assert any("error[" in d for d in diags) and not any("warning[SKC214]" in d for d in diags)


def test_only_lines_yaml_refuses_are_changed() -> None:
    assert requote_colons("url: http://x.y/z\ntime: 12:30\nplain: a:b\n") == (
        "url: http://x.y/z\ntime: 12:30\nplain: a:b\n",
        (),
    )


def _split_by_lines(text: str) -> tuple[str, str, int] | None:
    """The frontmatter split as every line split and joined again: what parse._split slices."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return "\n".join(lines[1:i]) + "\n", "\n".join(lines[i + 1 :]), i + 2
    return None


@settings(max_examples=1000)
@given(
    st.lists(
        st.sampled_from(["---", "--- ", " ---", "---\t", "...", "a: b", "", "x", "\u2028", "-- -"]),
        max_size=7,
    ),
    st.booleans(),
)
def test_the_frontmatter_split_slices_what_the_lines_say(lines: list[str], newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    assert _split(text) == _split_by_lines(text)


@settings(max_examples=500)
@given(st.text(st.characters(max_codepoint=0xA0), max_size=12))
def test_the_ascii_shortcut_finds_the_control_characters_the_pattern_finds(text: str) -> None:
    from skillc.stages.parse import _RAW_CONTROL, control_characters

    assert bool(control_characters("x", text, 1)) == bool(_RAW_CONTROL.search(text))
