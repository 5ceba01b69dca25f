"""Fixtures of the serve suite: the fixture project built once (fixture_project.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fixture_project


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fixture_project.built(tmp_path_factory.mktemp("serve-project"))
