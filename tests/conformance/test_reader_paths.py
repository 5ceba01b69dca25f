"""Reader rules of docs/format.md that the conformance suite cannot state as data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance import runner
from skillc import reader


def test_the_dist_path_is_resolved_at_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """§1: a relative path is made absolute at open; a later chdir() changes nothing."""
    runner.copy_build("main", tmp_path / "dist")
    monkeypatch.chdir(tmp_path)
    dist = reader.open("dist")
    monkeypatch.chdir("/")
    assert dist.catalog("tiny").startswith("<available_skills>")
    assert dist.load("tiny", "notes").body == "Write notes.\n"


def _exe(folder: Path, name: str, mode: int = 0o755) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("#!/bin/sh\n")
    (folder / name).chmod(mode)


def test_path_search_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """§11: empty and relative PATH entries are skipped; the env's PATH, not the process's."""
    dist = reader.open(runner.copy_build("main", tmp_path / "dist"))
    env = {"KUBECONFIG": "k", "DEPLOY_TOKEN": "t"}
    _exe(tmp_path / "rel", "docker")
    _exe(tmp_path / "rel", "kubectl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "rel"))
    missing = ["bin:docker", "bin:kubectl"]
    assert dist.missing_requirements("tiny", "deploy", env=dict(env, PATH="rel::.")) == missing
    assert dist.missing_requirements("tiny", "deploy", env=env) == missing  # no PATH in env
    both = f"/nonexistent:{tmp_path / 'rel'}/"
    assert dist.missing_requirements("tiny", "deploy", env=dict(env, PATH=both)) == []
    assert dist.missing_requirements("tiny", "deploy", env=env, which=lambda b: "/x") == []


def test_a_symlinked_program_counts(tmp_path: Path) -> None:
    dist = reader.open(runner.copy_build("main", tmp_path / "dist"))
    _exe(tmp_path / "real", "docker-real")
    (tmp_path / "bin").mkdir()
    os.symlink(tmp_path / "real" / "docker-real", tmp_path / "bin" / "docker")
    env = {"PATH": str(tmp_path / "bin"), "KUBECONFIG": "k", "DEPLOY_TOKEN": "t"}
    assert dist.missing_requirements("tiny", "deploy", env=env) == ["bin:kubectl"]
