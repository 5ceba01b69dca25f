"""The suite runs each test that makes a project in its tmp_path from inside that folder.

skillc shows diagnostic paths relative to the working directory (issue 17, as ruff and mypy do).
The tests written before that compare paths relative to the project's folder, which is what a user
running skillc in the project sees; running there keeps those comparisons meaningful. A test that
needs another working directory sets it itself (monkeypatch.chdir).
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _in_tmp_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "tmp_path" in request.fixturenames:
        monkeypatch.chdir(request.getfixturevalue("tmp_path"))
