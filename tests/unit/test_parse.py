"""Parse: frontmatter split from the body, positions kept."""

from __future__ import annotations

from skillc.model import InputFile
from skillc.stages.parse import parse_document


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
