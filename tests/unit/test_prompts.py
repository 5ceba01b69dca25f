"""Claude Code's argument substitution, table-driven."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc import reader
from skillc.reader import prompts, substitute

CASES = [
    # (body, args, names, expected)
    ("Fix $ARGUMENTS now", "42 high", (), "Fix 42 high now"),
    ("Fix $ARGUMENTS", "a  'b c'", (), "Fix a  'b c'"),  # as typed
    ("$0 from $1 to $2", "'search bar' React Vue", (), "search bar from React to Vue"),
    ("$ARGUMENTS[0]/$ARGUMENTS[1]", 'x "y z"', (), "x/y z"),
    ("cost is $5", "a", (), "cost is $5"),  # no such word: unchanged
    ("$ARGUMENTS[3]", "a", (), "$ARGUMENTS[3]"),
    ("issue $issue on $branch", "42", ("issue", "branch"), "issue 42 on "),  # missing named: empty
    ("$issuer $issue.", "7", ("issue",), "$issuer 7."),  # a longer word is not the name
    ("price \\$1.00", "a", (), "price $1.00\n\nARGUMENTS: a\n"),  # escaped, and no placeholder used
    ("\\\\$0", "a", (), "\\\\a"),  # a doubled backslash does not escape
    ("no placeholders", "x y", (), "no placeholders\n\nARGUMENTS: x y\n"),
    ("no placeholders", "", (), "no placeholders"),
    ("$" + "9" * 5000, "x", (), "$" + "9" * 5000),  # never int() a huge index
    ("body", None, (), "body"),
    ("$0 $1", ["a b", "c"], (), "a b c"),  # a list: already split
]


@pytest.mark.parametrize("body, args, names, expected", CASES)
def test_substitute(body, args, names, expected):
    assert substitute(body, args, names=names) == expected


def test_skill_dir_expands_only_when_given():
    assert substitute("${CLAUDE_SKILL_DIR}/x $0", "a", skill_dir="/w") == "/w/x a"
    assert substitute("${CLAUDE_SKILL_DIR}/x", None) == "${CLAUDE_SKILL_DIR}/x"
    assert substitute("\\${CLAUDE_SKILL_DIR}", None, skill_dir="/w") == "${CLAUDE_SKILL_DIR}"


def test_bad_args_are_a_reader_error():
    with pytest.raises(reader.ReaderError):
        substitute("$0", 5)  # type: ignore[arg-type]


def test_unbalanced_quotes_fall_back_to_words():
    assert substitute("$1", "a 'b") == "'b"


@given(st.text(alphabet=st.sampled_from("aZ_-09é $\n"), max_size=6))
def test_argument_names_are_checked_as_the_pattern_says(name: str) -> None:
    import re

    from skillc.reader.prompts import _name_arg

    assert _name_arg(name) == bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name))


def test_long_argument_index_is_no_argument():
    body = "x $" + "9" * 5000 + " y $0"
    assert reader.substitute(body, "one") == body.replace("$0", "one")  # no such word: left as written


def test_list_arguments_must_all_be_strings() -> None:
    """The spec: args is null, a string or a list of strings; anything else is a ReaderError."""
    assert reader.substitute("$0 $1", ["a", "b"]) == "a b"
    for bad in ([1, True], ["a", None], b"x y", bytearray(b"x")):
        with pytest.raises(reader.ReaderError):
            reader.substitute("$0", bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "body",
    [
        "",
        "no placeholder",
        "\\\\\\$0 \\$ARGUMENTS $$1 \\$ $",
        "a$0b$1c$ARGUMENTS[1]$ARGUMENTS_x${CLAUDE_SKILL_DIR}\\",
    ],
)
def test_placeholders_are_found_only_at_a_dollar_sign(body: str) -> None:
    """The scan from `$` to `$` gives what a left-to-right regex substitution over every character gave."""
    import re

    full = re.compile(r"(?P<slashes>\\*)(?P<rest>" + prompts._placeholders(()).pattern + ")")

    def by_regex() -> str:
        def one(m: re.Match[str]) -> str:
            rest = prompts._placeholders(()).match(m.group("rest"))
            assert rest is not None
            return replace(m.group("slashes"), rest)

        return full.sub(one, body)

    def replace(slashes: str, m: re.Match[str]) -> str:
        return f"<{len(slashes)}:{m.group(0)}>"

    assert prompts._each_placeholder(body, prompts._placeholders(()), replace) == by_regex()


@given(st.text(alphabet="\\$0123ARGUMENTS[]{}_CLAUDE_SKILL_DIRxy -", max_size=40))
def test_placeholder_scan_agrees_with_a_regex_over_every_character(body: str) -> None:
    test_placeholders_are_found_only_at_a_dollar_sign(body)
