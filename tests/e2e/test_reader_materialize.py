"""Materialize(): the resolved folder written out, with its named arguments mapped."""

from __future__ import annotations

import os
import stat

import pytest
from support.cli import build
from support.files import REPO
from support.project import project, skill_md

from skillc import reader


@pytest.fixture
def dist(tmp_path):
    md = skill_md(
        description="d",
        body="Run ${CLAUDE_SKILL_DIR}/scripts/go for $issue.\nIn ${CLAUDE_PROJECT_DIR}, effort ${CLAUDE_EFFORT}.\n",
        arguments="[issue]",
    )
    cfg = project(
        tmp_path, {"skills/a/SKILL.md": md, "skills/a/scripts/go": "#!/bin/sh\n", "skills/a/ref/r.md": "r\n"}
    )
    os.chmod(tmp_path / "skills/a/scripts/go", 0o755)
    assert build(cfg).exit_code == 0
    return reader.open(tmp_path / "dist")


def test_load_maps_named_arguments(dist):
    assert "for 42." in dist.load("default", "a", args="42").body


def test_materialize_writes_the_resolved_folder_with_exec_bits(dist, tmp_path):
    dest = tmp_path / "task" / "a"
    out = dist.materialize("default", "a", dest, args="7")
    text = (dest / "SKILL.md").read_text()
    assert out == dest and f"Run {dest}/scripts/go for 7." in text and text.startswith('---\nname: "a"')
    assert os.stat(dest / "scripts/go").st_mode & stat.S_IXUSR
    assert not os.stat(dest / "ref/r.md").st_mode & stat.S_IXUSR


def test_load_and_materialize_fill_the_params_given(dist, tmp_path):
    params = {"CLAUDE_PROJECT_DIR": "/work/p"}
    assert "In /work/p, effort ${CLAUDE_EFFORT}." in dist.load("default", "a", params=params).body
    dist.materialize("default", "a", tmp_path / "m", params=params | {"CLAUDE_EFFORT": "low"})
    assert "In /work/p, effort low." in (tmp_path / "m/SKILL.md").read_text()
    with pytest.raises(reader.ArgumentType):
        dist.load("default", "a", params={"CLAUDE_SKILL_DIR": "/x"})


def test_materialize_refuses_a_non_empty_destination(dist, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full/x").write_text("x")
    with pytest.raises(reader.ReaderError):
        dist.materialize("default", "a", tmp_path / "full")


@pytest.mark.parametrize("bad", ["../evil", "/abs", "a/../../x", "SKILL.md", "a//b"])
def test_materialize_never_writes_outside_dest(dist, tmp_path, bad):
    dist._now()._skill("a")["resources"][0]["path"] = bad  # a tampered index, after it was validated
    with pytest.raises(reader.ReaderError):
        dist.materialize("default", "a", tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_materialize_refuses_a_lone_surrogate_before_writing(tmp_path) -> None:
    d = reader.open(REPO / "dist")
    persona = d.personas()[0]
    command = d.commands(persona)[0]
    with pytest.raises(reader.ReaderError, match="UTF-8"):
        d.materialize(persona, command, tmp_path / "out", args="\ud800")
    assert not (tmp_path / "out").exists()
