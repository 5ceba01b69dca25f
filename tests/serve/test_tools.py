"""serve/tools.py: the tools fallback, under the reader's model invoker rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillc import reader
from skillc.serve import tools
from skillc.serve.view import View


def _view(dist: Path, persona: str) -> View:
    return View(reader.open(dist), persona)


def test_list_skills_and_the_instructions_carry_the_catalog(dist: Path) -> None:
    view = _view(dist, "guest")
    catalog = reader.open(dist).catalog("guest", env=reader.EVERYWHERE)
    assert tools.list_skills(view) == catalog
    assert tools.instructions(view).endswith(catalog)


def test_load_skill_is_the_reader_s_render(dist: Path) -> None:
    view = _view(dist, "lead")
    got = tools.load_skill(view, {"name": "alpha", "arguments": "x y"})
    assert got == reader.open(dist).load("lead", "alpha", "x y").render()
    assert "run scripts/run.sh x y" in got
    assert tools.load_skill(view, {"name": "group/inner"}).startswith('<skill_content command="group/inner"')


@pytest.mark.parametrize(
    ("persona", "name"),
    [("guest", "group"), ("lead", "nope"), ("lead", "manual"), ("lead", "nobody"), ("guest", "../alpha")],
)
def test_a_hidden_unknown_or_user_only_skill_is_an_error(dist: Path, persona: str, name: str) -> None:
    with pytest.raises(tools.ToolError, match="no skill"):
        tools.load_skill(_view(dist, persona), {"name": name})


def test_a_stub_follows_its_resolution_s_model_flag(dist: Path) -> None:
    opened = reader.open(dist)
    if opened.resolution("ops", "secret").model:
        assert "The lead's own instructions." not in tools.load_skill(_view(dist, "ops"), {"name": "secret"})
    else:
        with pytest.raises(tools.ToolError):
            tools.load_skill(_view(dist, "ops"), {"name": "secret"})


@pytest.mark.parametrize("arguments", [{}, {"name": 3}, {"name": "alpha", "arguments": ["a"]}])
def test_bad_arguments_are_an_error(dist: Path, arguments: dict[str, object]) -> None:
    with pytest.raises(tools.ToolError, match="takes `name`"):
        tools.load_skill(_view(dist, "lead"), arguments)


def test_model_load_is_the_reader_s_model_invoker_rule() -> None:
    """model_load asks the reader for the model's load (by="model") and turns its NotInvocable into
    the unknown skill the model is told of; it looks at no resolution itself."""

    class _Dist:
        def __init__(self) -> None:
            self.asked: list[str] = []

        def load(self, persona: str, command: str, args: str | None, *, by: str) -> reader.LoadedSkill:
            self.asked.append(by)
            raise reader.NotInvocable(persona, command, by, ["user"])

        def resolution(self, persona: str, command: str) -> reader.Resolution:
            raise AssertionError("model_load looks at no resolution: the reader holds the rule")

    fake = _Dist()
    with pytest.raises(reader.UnknownSkill) as caught:
        tools.model_load(fake, "lead", "manual", None)  # type: ignore[arg-type]
    assert fake.asked == ["model"]
    assert (caught.value.persona, caught.value.command, caught.value.suggestions) == ("lead", "manual", ())
