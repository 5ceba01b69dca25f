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
        lambda: d.load(persona, "a", by=bad),
        lambda: d.materialize(persona, "a", "/nonexistent/never-written", by=bad),
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
    for exc in (
        reader.UnknownPersona("p", ["q", "r"]),
        reader.UnknownSkill("p", "c", ["d"]),
        reader.NotInvocable("p", "c", "model", ["user"]),
    ):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc) and vars(back) == vars(exc)
    with pytest.raises(reader.UnknownSkill) as caught:
        dist.load(dist.personas()[0], "nope")
    assert pickle.loads(pickle.dumps(caught.value)).command == "nope"


@pytest.mark.parametrize("by", ["", "Model", "admin", "model "])
def test_an_invoker_other_than_model_or_user_is_refused(dist: reader.Dist, by: str) -> None:
    with pytest.raises(reader.ArgumentType, match="by must be"):
        dist.load(dist.personas()[0], "a", by=by)


def test_not_invocable_names_who_may(tmp_path: Path) -> None:
    files = {
        "src/user-only/SKILL.md": skill_md("user-only", **{"disable-model-invocation": True}),
        "src/model-only/SKILL.md": skill_md("model-only", **{"user-invocable": False}),
        "src/nobody/SKILL.md": skill_md(
            "nobody", **{"user-invocable": False, "disable-model-invocation": True}
        ),
    }
    assert run("--config", str(project(tmp_path, files)), "build")[0] == 0
    d = reader.open(tmp_path / "dist")
    p = d.personas()[0]
    for command, by, invokers, says in (
        ("user-only", "model", ("user",), "only the user may invoke it (a slash command)"),
        ("model-only", "user", ("model",), "only the model may invoke it"),
        ("nobody", "model", (), "neither the model nor the user may invoke it"),
        ("nobody", "user", (), "neither the model nor the user may invoke it"),
    ):
        with pytest.raises(reader.NotInvocable) as caught:
            d.load(p, command, by=by)
        assert (caught.value.by, caught.value.invokers, caught.value.command) == (by, invokers, command)
        assert says in str(caught.value)
        with pytest.raises(reader.NotInvocable):
            d.materialize(p, command, tmp_path / f"{command}-{by}", by=by)
        assert not (tmp_path / f"{command}-{by}").exists()  # refused before anything is written
    assert d.load(p, "user-only", by="user").command == "user-only"
    assert d.load(p, "model-only").render().startswith('<skill_content command="model-only"')


def test_an_open_dist_survives_chdir(
    dist: reader.Dist, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = reader.open("dist")
    os.mkdir("elsewhere")
    monkeypatch.chdir("elsewhere")
    assert relative.load(relative.personas()[0], "a").name == "a"
