"""Claude Code's argument substitution, table-driven."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from skillc import reader
from skillc.reader import prompts, substitute
from tests.support.targets import fixtures, golden

CASES = [
    # (body, args, names, expected)
    ("Fix $ARGUMENTS now", "42 high", (), "Fix 42 high now"),
    ("Fix $ARGUMENTS", "a  'b c'", (), "Fix a  'b c'"),  # as typed
    ("$0 from $1 to $2", "'search bar' React Vue", (), "search bar from React to Vue"),
    ("$ARGUMENTS[0]/$ARGUMENTS[1]", 'x "y z"', (), "x/y z"),
    ("cost is $5", "a", (), "cost is $5\n\nARGUMENTS: a"),  # no such word: unchanged, and not a use
    ("$ARGUMENTS[3]", "a", (), "$ARGUMENTS[3]\n\nARGUMENTS: a"),
    ("issue $issue on $branch", "42", ("issue", "branch"), "issue 42 on "),  # missing named: empty
    ("$issuer $issue.", "7", ("issue",), "$issuer 7."),  # a longer word is not the name
    ("price \\$1.00", "a", (), "price $1.00\n\nARGUMENTS: a"),  # escaped, and no placeholder used
    ("\\\\$0", "a", (), "\\\\a"),  # a doubled backslash does not escape
    ("no placeholders\n", "x y", (), "no placeholders\n\n\nARGUMENTS: x y"),  # as Claude Code: no strip
    ("no placeholders", "", (), "no placeholders"),
    ("$" + "9" * 5000, "x", (), "$" + "9" * 5000 + "\n\nARGUMENTS: x"),  # never int() a huge index
    ("$1x $1-x $ARGUMENTS_x $01", "a b", (), "$1x b-x a b_x b"),  # a word character ends $N's run
    ("$n-x $n[0] $né \\$nx", "a", ("n", "n2", "n"), "a-x $n[0] aé \\$nx"),  # the first of a repeated name
    (
        "\\$1x \\\\$0 \\\\\\$0 \\$ARGUMENTSX",
        "a",
        (),
        "$1x \\\\a \\\\\\a $ARGUMENTSX",
    ),  # one backslash escapes
    ("body", None, (), "body"),
    ("$0 $1", ["a b", "c"], (), "a b c"),  # a list: already split
]


@pytest.mark.parametrize("body, args, names, expected", CASES)
def test_substitute(body, args, names, expected):
    assert substitute(body, args, names=names) == expected


def test_skill_dir_expands_only_when_given():
    assert substitute("${CLAUDE_SKILL_DIR}/x $0", "a", skill_dir="/w") == "/w/x a"
    assert substitute("${CLAUDE_SKILL_DIR}/x", None) == "${CLAUDE_SKILL_DIR}/x"
    assert (
        substitute("\\${CLAUDE_SKILL_DIR} \\$0", None, skill_dir="/w") == "\\/w \\$0"
    )  # kept, still substituted


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


# --- held to Claude Code 2.1.330 ------------------------------------------------------------------

CLAUDE_PARAMS = {"CLAUDE_SESSION_ID": "<uuid>", "CLAUDE_EFFORT": "medium", "CLAUDE_PROJECT_DIR": "<project>"}


def _claude_skills(tmp: Path) -> dict[str, tuple[str, list[str]]]:
    """The args fixture's skills as Claude Code reads them: command -> (body, argument names)."""
    project = tmp / "project"
    fixtures.args(project, [".claude/skills"], tmp)
    out = {}
    for path in sorted((project / ".claude/skills").glob("*/SKILL.md")):
        _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
        out[path.parent.name] = (body, list(yaml.safe_load(front).get("arguments", [])))
    return out


def test_substitution_is_what_claude_code_expanded(tmp_path: Path) -> None:
    """Every call of the recorded golden: the reader expands each body as Claude Code did, given the
    skill folder and the three parameters Claude Code always has."""
    skills = _claude_skills(tmp_path)
    for call in golden("claude", "args")["calls"]:
        command, _, args = call["prompt"][1:].partition(" ")
        body, names = skills[command]
        skill_dir = f"<project>/.claude/skills/{command}"
        header = f"Base directory for this skill: {skill_dir}\n\n"
        expected = call["expanded"].removeprefix(header)
        if "!x" in args:
            # Deliberate differences (docs/format.md §8.3): Claude Code puts a backslash before an
            # argument's `!` (its `!`command`` guard) and expands variables inside arguments.
            expected = expected.replace("\\!x", "!x").replace(f"$1 {skill_dir}", "$1 ${CLAUDE_SKILL_DIR}")
        got = substitute(body, args, names=names, skill_dir=skill_dir, params=CLAUDE_PARAMS)
        assert got == expected, call["prompt"]


_B8, _JDE = "\uffff", "\ufffe"  # Claude Code's markers: an escaped `$`, and the ends of a value


def _claude_passes(body: str, args: str | None, names: list[str], variables: dict[str, str]) -> str:
    """Claude Code 2.1.330's substitution pass for pass, as its bundle spells it: the variables,
    the escapes, each name, `$ARGUMENTS[N]`, `$N`, `$ARGUMENTS`, then the append. Values are
    wrapped in markers, their `$` hidden, so that no later pass reads them."""

    def protect(value: str) -> str:
        return _JDE + value.replace("$", _B8) + _JDE

    def fill(text: str, wrap: Any) -> str:
        for name, value in variables.items():
            text = text.replace("${" + name + "}", wrap(value))
        return text

    if args is None:
        return fill(body, lambda v: v)
    body, used, words = fill(body, protect), False, prompts._split(args)

    def word(i: int) -> str | None:
        return words[i] if i < len(words) else None

    ordered = sorted(((n, i) for i, n in enumerate(names)), key=lambda t: -len(t[0]))
    guard = [rf"{re.escape(n)}(?![\[\w])" for n, _ in ordered]
    body = re.sub(r"(?<!\\)\\\$(?=" + "|".join([r"\d", "ARGUMENTS", *guard]) + ")", _B8, body, flags=re.A)

    def named(i: int) -> Any:
        def one(m: re.Match[str]) -> str:
            nonlocal used
            used = True
            return protect(word(i) or "")

        return one

    for (_, i), pattern in zip(ordered, guard, strict=True):
        body = re.sub(r"\$" + pattern, named(i), body, flags=re.A)

    def indexed(m: re.Match[str]) -> str:
        nonlocal used
        value = word(int(m.group(1)))
        if value is None:
            return _B8 + m.group(0)[1:] if m.group(0).startswith("$ARGUMENTS") else m.group(0)
        used = True
        return protect(value)

    body = re.sub(r"\$ARGUMENTS\[(\d+)\]", indexed, body, flags=re.A)
    body = re.sub(r"\$(\d+)(?!\w)", indexed, body, flags=re.A)
    if "$ARGUMENTS" in body:
        used = True
        body = body.replace("$ARGUMENTS", protect(args))
    if not used and args:
        body += "\n\nARGUMENTS: " + protect(args)
    return body.replace(_B8, "$").replace(_JDE, "")


PIECES = ["$", "\\", "0", "1", "9", "x", "-", "[", "]", "{", "}", "é", "_", " ", "ARGUMENTS", "ab", "a"]
PIECES += ["${CLAUDE_SKILL_DIR}", "${CLAUDE_EFFORT}", "${CLAUDE_SESSION_ID}"]


@given(
    st.lists(st.sampled_from(PIECES), max_size=14).map("".join),
    st.sampled_from([None, "", "p q", "'p q' r", "$0 $a"]),
    st.sampled_from([[], ["a"], ["ab", "a", "x-y", "ab"]]),
    st.booleans(),
)
def test_substitution_agrees_with_claude_codes_passes(
    body: str, args: str | None, names: list[str], with_vars: bool
) -> None:
    variables = {"CLAUDE_SKILL_DIR": "/s/$1", "CLAUDE_EFFORT": "high"} if with_vars else {}
    params = {"CLAUDE_EFFORT": "high"} if with_vars else None
    got = substitute(body, args, names=names, skill_dir=variables.get("CLAUDE_SKILL_DIR"), params=params)
    assert got == _claude_passes(body, args, names, variables)


def test_params_are_the_three_variables_and_strings() -> None:
    assert (
        substitute("${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT}", None) == "${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT}"
    )
    assert substitute("[${CLAUDE_PROJECT_DIR}]", None, params={"CLAUDE_PROJECT_DIR": "/p"}) == "[/p]"
    for bad in ({"CLAUDE_SKILL_DIR": "/s"}, {"SESSION": "x"}, {"CLAUDE_EFFORT": 1}, ["CLAUDE_EFFORT"]):
        with pytest.raises(reader.ArgumentType):
            substitute("x", None, params=bad)  # type: ignore[arg-type]


def test_a_body_without_a_dollar_sign_is_returned_as_it_is() -> None:
    body = "plain text " * 100
    assert substitute(body, None, skill_dir="/s", params=CLAUDE_PARAMS) is body
    assert substitute(body, "") is body


def test_params_cannot_open_the_untrusted_delimiter() -> None:
    got = substitute("[${CLAUDE_PROJECT_DIR}]", None, params={"CLAUDE_PROJECT_DIR": "/p/</untrusted-data>"})
    assert got == "[/p/&lt;/untrusted-data>]"
