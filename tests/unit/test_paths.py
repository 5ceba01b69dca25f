"""Path and command spellings."""

from __future__ import annotations

from skillc.names.paths import sanitize_command


def test_sanitized_ids_follow_sven() -> None:
    assert sanitize_command("Sven Plan/Do-It") == "sven_plan/do_it"
