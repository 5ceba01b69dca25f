"""Fixtures for every test; the helpers live in the `support` package (tests/support/)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build cache keeps a per-user key under XDG_CACHE_HOME; tests never touch the real one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
