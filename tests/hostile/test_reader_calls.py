"""The reader's public calls given hostile arguments: every wrong type is reader.ArgumentType (a
TypeError and a ReaderError), every wrong value a ReaderError; its errors survive pickling (worker
pools send them between processes); an open Dist does not depend on the working directory."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader


@pytest.fixture
def dist(tmp_path: Path) -> reader.Dist:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "src/a/ref.md": "r\n"})
    assert run("--config", str(cfg), "build")[0] == 0
    return reader.open(tmp_path / "dist")


def _calls(d: reader.Dist, bad: Any) -> list[Any]:
    persona = d.personas()[0]
    return [
        lambda: d.catalog(bad),
        lambda: d.skills(bad),
        lambda: d.commands(bad),
        lambda: d.load(persona, bad),
        lambda: d.load(bad, "a"),
        lambda: d.resources(persona, bad),
        lambda: d.resources(persona, "a", kind=bad) if bad is not None else d.resources(persona, "a", kind=1),
        lambda: d.resource(persona, "a", bad),
        lambda: d.missing_requirements(persona, bad),
        lambda: d.skill_meta(bad),
        lambda: d.read_object(bad),
        lambda: d.persona_meta(bad),
        lambda: d.resolution(persona, bad),
    ]


@pytest.mark.parametrize("bad", [None, b"a", 1, ["a"]])
def test_wrong_types_are_argument_type(dist: reader.Dist, bad: Any) -> None:
    for call in _calls(dist, bad):
        with pytest.raises(reader.ArgumentType) as caught:
            call()
        assert isinstance(caught.value, TypeError) and isinstance(caught.value, reader.ReaderError)


@pytest.mark.parametrize("args", [b"x y", bytearray(b"x"), ["x", 1], 5])
def test_args_of_bytes_or_non_strings_are_refused(dist: reader.Dist, args: Any) -> None:
    with pytest.raises(reader.ArgumentType):
        dist.load(dist.personas()[0], "a", args=args)


def test_nul_in_any_path_is_a_reader_error(dist: reader.Dist, tmp_path: Path) -> None:
    persona = dist.personas()[0]
    with pytest.raises(reader.FormatError):
        reader.open(str(tmp_path / "di\0st"))
    with pytest.raises(reader.UnknownResource):
        dist.resource(persona, "a", "ref\0.md")
    with pytest.raises(reader.UnknownSkill):
        dist.load(persona, "a\0")
    with pytest.raises(reader.ReaderError):
        dist.materialize(persona, "a", str(tmp_path / "out\0"))


def test_errors_pickle_with_their_fields(dist: reader.Dist) -> None:
    for exc in (reader.UnknownPersona("p", ["q", "r"]), reader.UnknownSkill("p", "c", ["d"])):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc) and vars(back) == vars(exc)
    with pytest.raises(reader.UnknownSkill) as caught:
        dist.load(dist.personas()[0], "nope")
    assert pickle.loads(pickle.dumps(caught.value)).command == "nope"


def test_an_open_dist_survives_chdir(
    dist: reader.Dist, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = reader.open("dist")
    os.mkdir("elsewhere")
    monkeypatch.chdir("elsewhere")
    assert relative.load(relative.personas()[0], "a").name == "a"
