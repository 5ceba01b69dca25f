"""Path and command spellings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillc.names.paths import sanitize_command, sanitize_each


def test_sanitized_ids_follow_sven() -> None:
    assert sanitize_command("Sven Plan/Do-It") == "sven_plan/do_it"


@settings(max_examples=500, deadline=None)
@given(
    st.text(st.sampled_from("ab09-/_A. é"), max_size=20) | st.sampled_from(["a-b/c-d", "a--b", "-a", "a/"])
)
def test_the_plain_command_shortcut_sanitizes_as_each_segment(command: str) -> None:
    assert sanitize_command(command) == sanitize_each(command)
