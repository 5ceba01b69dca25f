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


def test_a_second_materialize_of_the_same_skill_is_a_no_op(dist, tmp_path):
    dest = dist.materialize("default", "a", tmp_path / "m", args="42")
    stamps = {p: p.stat().st_mtime_ns for p in dest.rglob("*")}
    assert dist.materialize("default", "a", tmp_path / "m", args="42") == dest  # V1's second activation
    assert {p: p.stat().st_mtime_ns for p in dest.rglob("*")} == stamps
    with pytest.raises(reader.ReaderError, match="something else"):
        dist.materialize("default", "a", tmp_path / "m", args="43")  # another SKILL.md


@pytest.mark.parametrize("change", ["extra file", "extra folder", "edited", "mode", "link", "missing"])
def test_a_destination_holding_anything_else_is_refused(dist, tmp_path, change):
    dest = dist.materialize("default", "a", tmp_path / "m")
    if change == "extra file":
        (dest / "ref" / "more.md").write_text("x")
    elif change == "extra folder":
        (dest / "empty").mkdir()
    elif change == "edited":
        (dest / "ref" / "r.md").write_text("R\n")
    elif change == "mode":
        (dest / "scripts" / "go").chmod(0o644)
    elif change == "link":
        (dest / "ref" / "r.md").unlink()
        (dest / "ref" / "r.md").symlink_to(tmp_path / "elsewhere")
    else:
        (dest / "ref" / "r.md").unlink()
    with pytest.raises(reader.ReaderError, match="something else"):
        dist.materialize("default", "a", dest)


def test_load_gives_claude_code_s_base_directory_line(dist, tmp_path):
    loaded = dist.load("default", "a", args="7", base="/work/skills/a")
    assert loaded.base == "/work/skills/a"
    assert loaded.body.startswith(
        "Base directory for this skill: /work/skills/a\n\nRun /work/skills/a/scripts/go for 7."
    )
    assert loaded.render().startswith('<skill_content command="a" name="a">\nBase directory for this skill: ')
    rooted = reader.open(tmp_path / "dist", root=str(tmp_path))
    assert rooted.load("default", "a").base == f"{tmp_path}/skills/a"
    assert f"<location>{tmp_path}/skills/a/SKILL.md</location>" in rooted.catalog("default")
    assert dist.load("default", "a").base is None and "Base directory" not in dist.load("default", "a").body
    assert dist.catalog("default", root=str(tmp_path)) == rooted.catalog("default")  # for one call
    plain = dist.load("default", "a")
    assert plain.render(base="/b").startswith(
        '<skill_content command="a" name="a">\nBase directory for this skill: /b\n\n'
    )
    assert loaded.render(base="/other") == loaded.render()  # a base from load() stands
