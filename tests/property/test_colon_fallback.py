"""Property: the unquoted-colon fallback reads a line as `key: <rest of line>`, or not at all.

For any one-line value, frontmatter parsed with the fallback either is what YAML reads without it,
or (only where YAML refuses it) holds exactly the written text as the value, or keeps YAML's error.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.model import InputFile
from skillc.stages.parse import parse_document

# Pieces of text YAML reads specially at the start of a value or after ': '.
PIECES = st.sampled_from(
    [
        "Use when",
        ": ",
        ":",
        " #",
        "#",
        "'",
        '"',
        "[",
        "]",
        "{",
        "}",
        "-",
        " ",
        "x",
        "é",
        "\\",
        "\t",
        "%",
        "&",
        "*",
        "!",
        "?",
        ",",
        ">",
        "|",
    ]
)
VALUES = st.lists(PIECES, min_size=1, max_size=12).map("".join)


def _parse(value: str, fallback: str | None) -> object:
    text = f"---\nname: s\ndescription: {value}\n---\nBody.\n"
    return parse_document(InputFile("s/SKILL.md", text.encode()), colon_fallback=fallback).data


@settings(max_examples=300)
@given(VALUES)
def test_the_fallback_reads_the_written_text_or_changes_nothing(value: str) -> None:
    plain, graded = _parse(value, None), _parse(value, " (codex: loads)")
    if plain is not None:
        assert graded == plain  # YAML read it: the fallback never runs
    elif graded is not None:
        assert graded == {"name": "s", "description": value.strip(" \t")}  # trimmed, as a plain value
        assert ": " in value or value.rstrip(" \t").endswith(":")
