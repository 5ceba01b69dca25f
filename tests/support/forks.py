"""The quick path's lstats shared with a forked child (compiler/incremental/lstats.py) in trees a test
can build: however few the paths, as they are from `lstats.SPLIT_AT` on with a second core; and
whether a forked child was reaped."""

from __future__ import annotations

import os

import pytest

from skillc.incremental import lstats


def split_lstats(monkeypatch: pytest.MonkeyPatch, split: bool = True) -> None:
    """A child takes a share of the lstats (or, `split` False, none does)."""
    monkeypatch.setattr(lstats, "SPLIT_AT", 2 if split else 10**9)
    monkeypatch.setattr(lstats, "forkable", lambda: split)


def reaped(pid: int) -> bool:
    """Whether the child `pid` is gone and waited for (no zombie, nothing running)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
