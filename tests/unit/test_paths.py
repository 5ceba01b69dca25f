"""Path and command spellings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.names.confusables import skeleton
from skillc.names.paths import sanitize_command, sanitize_each, sanitize_joined


def test_sanitized_ids_follow_sven() -> None:
    assert sanitize_command("Sven Plan/Do-It") == "sven_plan/do_it"


@settings(max_examples=500)
@given(
    st.text(st.sampled_from("ab09-/_A. é"), max_size=20) | st.sampled_from(["a-b/c-d", "a--b", "-a", "a/"])
)
def test_the_plain_command_shortcut_sanitizes_as_each_segment(command: str) -> None:
    assert sanitize_command(command) == sanitize_each(command)


COMMANDS = st.text(st.sampled_from("ab09-/_A. é"), max_size=8) | st.sampled_from(
    ["a-b/c-d", "a--b", "-a", "a/", "a"]
)


@settings(max_examples=500)
@given(st.lists(COMMANDS, max_size=6))
def test_commands_joined_sanitize_as_each_one(commands: list[str]) -> None:
    """sanitize_joined (one replace when every command is plain) is sanitize_command of each."""
    joined = "\0" + "\0".join(commands) + "\0"
    assert sanitize_joined(joined) == "\0" + "\0".join(map(sanitize_command, commands)) + "\0"


@settings(max_examples=500)
@given(st.lists(st.text(max_size=8).map(lambda t: t.replace("\0", "")), max_size=6))
def test_skeleton_and_casefold_of_joined_commands_are_each_ones(commands: list[str]) -> None:
    """What edit._alone relies on: "\\0" stands apart in NFKC, casefolding and the look-alike table,
    so the skeleton or the casefold of commands joined by it are each command's, joined."""
    joined = "\0" + "\0".join(commands) + "\0"
    assert skeleton(joined) == "\0" + "\0".join(map(skeleton, commands)) + "\0"
    assert joined.casefold() == "\0" + "\0".join(c.casefold() for c in commands) + "\0"
