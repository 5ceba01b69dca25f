"""serve/uris.py: the name rule, the served name, percent-encoding, splitting."""

from __future__ import annotations

import pytest

from skillc.serve import uris


@pytest.mark.parametrize(
    "name",
    ["a", "pdf-processing", "x1", "a" * 64, "9lives"],
)
def test_names_the_rule_takes(name: str) -> None:
    assert uris.valid_name(name)
    assert uris.served_name(name) == name


@pytest.mark.parametrize(
    ("segment", "served"),
    [
        ("Caps_Folder", "caps-folder"),
        ("under_score", "under-score"),
        ("a--b", "a-b"),
        ("-edge-", "edge"),
        ("with space", "with-space"),
        ("dot.ted", "dot-ted"),
        ("café", "caf"),
        ("a" * 65, "a" * 64),
        ("a" * 63 + "-b", "a" * 63),
        ("___", None),
        ("ÉÉ", None),
    ],
)
def test_a_folder_the_rule_refuses_gets_a_passing_name_or_none(segment: str, served: str | None) -> None:
    assert not uris.valid_name(segment)
    assert uris.served_name(segment) == served
    assert served is None or uris.valid_name(served)


def test_each_segment_is_percent_encoded_and_slashes_kept() -> None:
    assert uris.encode("a b/c%d/é/x.md") == "a%20b/c%25d/%C3%A9/x.md"
    assert uris.file_uri("sven", "data file (1).txt") == "skill://sven/data%20file%20%281%29.txt"
    assert uris.skill_uri("sven/plan") == "skill://sven/plan/SKILL.md"


@pytest.mark.parametrize(
    ("uri", "parts"),
    [
        ("skill://a/SKILL.md", ["a", "SKILL.md"]),
        ("skill://a/b/", None),
        ("skill://a//b", None),
        ("file:///etc/passwd", None),
        ("skill:/a/SKILL.md", None),
        ("skill://", None),
    ],
)
def test_split(uri: str, parts: list[str] | None) -> None:
    assert uris.split(uri) == parts
