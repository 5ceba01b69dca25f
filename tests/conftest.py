"""Fixtures for every test; the helpers live in the `support` package (tests/support/)."""

from __future__ import annotations

import pytest
from hypothesis import settings

# No property test is a timed test: performance is measured in bench/, never here. Hypothesis's
# default deadline (200 ms an example) failed a round trip that took 499 ms once while the machine
# stalled and 0.9 ms when run again; the examples and their assertions are unchanged.
settings.register_profile("skillc", deadline=None)
settings.load_profile("skillc")


@pytest.fixture(autouse=True)
def _private_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build cache keeps a per-user key under XDG_CACHE_HOME; tests never touch the real one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture(autouse=True)
def _in_tmp_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that makes a project in its tmp_path runs from inside that folder.

    skillc shows diagnostic paths relative to the working directory (issue 17, as ruff and mypy do);
    the tests compare paths relative to the project's folder, which is what a user running skillc
    there sees. A test that needs another working directory sets it itself (monkeypatch.chdir).
    """
    if "tmp_path" in request.fixturenames:
        monkeypatch.chdir(request.getfixturevalue("tmp_path"))
