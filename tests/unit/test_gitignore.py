"""gitignore: lines and patterns read as git reads them (git itself is the oracle in
tests/property/test_gitignore_oracle.py; these are the cases it found, by name)."""

from __future__ import annotations

import warnings

import pytest

from skillc.names import gitignore


def ignored(lines: bytes, path: str, is_dir: bool = False) -> bool | None:
    spec = gitignore.from_blobs([lines])
    return None if spec is None else spec.verdict(gitignore.as_text(path), is_dir)


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_a_line_ends_at_a_newline_only(separator: str) -> None:
    data = f"notes{separator}*.md".encode()
    assert [text for _, text in gitignore.lines(data)] == [data.decode("latin-1")]
    assert ignored(data, "SKILL.md") is None  # `*.md` is not a pattern of its own


def test_crlf_and_numbering() -> None:
    assert gitignore.lines(b"a\r\n\r\n# c\nb \\ \r\n") == [(1, "a"), (2, ""), (4, "b \\ ")]


def test_a_byte_order_mark_before_the_first_pattern_is_skipped() -> None:
    assert ignored(b"\xef\xbb\xbfzfile\n", "zfile") is True
    assert ignored(b"a\n\xef\xbb\xbfzfile\n", "zfile") is None  # only at the start of the file


def test_trailing_spaces_go_unless_escaped() -> None:
    assert gitignore.lines(b"a  \nb\\  \nc\\") == [(1, "a"), (2, "b\\ "), (3, "c\\")]


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [
        ("[[:digit:]]*", "1x", "x1"),
        ("x[[:upper:][:punct:]]", "x!", "xa"),
        ("[[:space:]]", " ", "a"),
        ("[[:alpha:]]", "a", "é"),  # git's classes are ASCII
        ("[z-a]", "z", "a"),  # the range is empty; its first end is a member on its own
        ("[!z-a]oo", "foo", "zoo"),
        ("?", "a", "é"),  # one byte
        ("??", "é", "a"),
        ("[a-]", "-", "b"),
        ("[]a]", "]", "b"),
        ("[\\]]", "]", "\\"),
        ("a**/b", "ax/y/b", "a/c"),  # the literal part first, then `**/` at the start of the rest
        ("**/b", "x/y/b", "bb"),
        ("x/**", "x/y/z", "y/x"),
        ("\\#a", "#a", "a"),
        ("\\!a", "!a", "a"),
    ],
)
def test_patterns_match_as_in_git(pattern: str, yes: str, no: str) -> None:
    assert ignored(pattern.encode(), yes) is True
    assert ignored(pattern.encode(), no) is None


@pytest.mark.parametrize("pattern", ["a\\", "\\", "[a", "[[:digit:]", "[[:nope:]]", "x[!", "[\\"])
def test_a_pattern_git_gives_up_on_matches_nothing(pattern: str) -> None:
    spec = gitignore.from_blobs([pattern.encode() + b"\n*.md\n"])
    assert spec is not None and [p.regex is None for p in spec.patterns] == [True, False]
    assert spec.verdict("a", False) is None and spec.verdict("a\\", False) is None
    assert spec.verdict("x.md", False) is True  # and the lines around it still count


def test_nothing_is_written_on_stderr() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # re's FutureWarning ("Possible nested set") would raise
        for pattern in ["[[:digit:]]", "[[a]", "[a--]", "[a&&b]", "[a||b]", "[a~~b]", "[[]"]:
            gitignore.from_blobs([pattern.encode()])


def test_directory_patterns_and_negation() -> None:
    data = b"build/\n*.log\n!keep.log\n"
    assert ignored(data, "a/build", is_dir=True) is True
    assert ignored(data, "a/build") is None
    assert ignored(data, "x.log") is True and ignored(data, "a/keep.log") is False


def test_the_last_matching_line_decides() -> None:
    assert ignored(b"!a\na\n", "a") is True
    assert ignored(b"a\n!a\n", "a") is False


def test_a_path_is_excluded_by_a_folder_above_it() -> None:
    match = gitignore.matcher("skills/vendor/")
    assert match("skills/vendor/x/SKILL.md") and not match("skills/vendors/x/SKILL.md")
    assert gitignore.matcher("!x")("x") is False
    assert gitignore.matcher("/opt/skills/**")("/opt/skills/x/SKILL.md")  # a source outside the project


def test_bytes_that_are_not_utf8_match_as_bytes() -> None:
    assert ignored(b"\xc3?\n", "é") is True  # é is C3 A9
    assert ignored(b"\xff\n", "ÿ") is None  # ÿ is C3 BF, never the byte FF
