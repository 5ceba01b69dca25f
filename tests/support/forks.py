"""The quick path's lstats shared with a forked child (compiler/cache/lstats.py) in trees a test
can build: however few the paths, as they are from `lstats.SPLIT_AT` on with a second core."""

from __future__ import annotations

import pytest

from skillc.cache import lstats


def split_lstats(monkeypatch: pytest.MonkeyPatch, split: bool = True) -> None:
    """A child takes a share of the lstats (or, `split` False, none does)."""
    monkeypatch.setattr(lstats, "SPLIT_AT", 2 if split else 10**9)
    monkeypatch.setattr(lstats, "forkable", lambda: split)
