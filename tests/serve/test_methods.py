"""serve/methods.py and serve/builds.py: pages and cursors, errors, pins and rebuilds."""

from __future__ import annotations

import base64
import shutil
import sys
import time
from pathlib import Path

import pytest

from skillc.serve import builds as builds_mod
from skillc.serve import methods
from skillc.serve.builds import Builds, Pin

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fixture_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    fixture_project.built(tmp_path / "p")
    return tmp_path / "p"


def _rebuild(root: Path, text: str) -> None:
    """A new build of the project in place, `alpha`'s body changed."""
    path = root / "src" / "alpha" / "SKILL.md"
    path.write_text(path.read_text().replace("Read references", f"{text}: read references"))
    fixture_project.skillc("build", "--no-cache", "--config", root / "skillc.yaml")


def test_a_list_carries_ttl_and_cache_scope_and_pages_of_at_most_100(
    dist: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = Pin(Builds(str(dist), "lead"), sticky=True)
    whole = methods.skills_list(pin, None)
    assert (whole["ttlMs"], whole["cacheScope"], whole["resultType"]) == (1000, "private", "complete")
    assert "nextCursor" not in whole and len(whole["skills"]) == 10
    monkeypatch.setattr(methods, "PAGE", 3)
    got, cursor, pages = [], None, 0
    while True:
        page = methods.skills_list(pin, cursor)
        got += page["skills"]
        pages += 1
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert got == whole["skills"] and pages == 4


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "x",
        base64.urlsafe_b64encode(b"0" * 64 + b":3").decode(),
        "€",
        base64.urlsafe_b64encode(b"abc").decode(),
    ],
)
def test_a_cursor_it_never_gave_is_invalid_params(dist: Path, cursor: str) -> None:
    pin = Pin(Builds(str(dist), "lead"), sticky=True)
    with pytest.raises(methods.InvalidParams):
        methods.skills_list(pin, cursor)
    with pytest.raises(methods.InvalidParams):
        methods.resources_list(pin, cursor)


def test_unknown_and_hidden_skills_and_uris_are_invalid_params(dist: Path) -> None:
    pin = Pin(Builds(str(dist), "guest"), sticky=True)
    for uri in ("skill://group/SKILL.md", "skill://nope/SKILL.md", "skill://alpha/nope.md", "skill://alpha"):
        with pytest.raises(methods.InvalidParams):
            methods.skills_get(pin, uri)
    for uri in ("skill://group/SKILL.md", "skill://secret/references/plan.md", "skill://alpha"):
        with pytest.raises(methods.InvalidParams):
            methods.resources_read(pin, uri)
    for uri in ("skill://group", "skill://alpha/SKILL.md", "skill://nope"):
        with pytest.raises(methods.InvalidParams):
            methods.directory_read(pin, uri, None)


def test_resources_read_gives_text_or_a_blob(dist: Path) -> None:
    pin = Pin(Builds(str(dist), "lead"), sticky=True)
    text = methods.resources_read(pin, "skill://alpha/references/guide.md")["contents"][0]
    assert (text["text"], text["mimeType"]) == ("# Guide\n\nStep one.\n", "text/markdown")
    blob = methods.resources_read(pin, "skill://alpha/assets/logo.png")["contents"][0]
    assert base64.b64decode(blob["blob"]) == fixture_project.PNG and blob["mimeType"] == "image/png"


def test_resources_list_names_each_skill_md(dist: Path) -> None:
    listed = methods.resources_list(Pin(Builds(str(dist), "guest"), sticky=False), None)["resources"]
    assert [(r["uri"], r["name"]) for r in listed] == [
        ("skill://alpha/SKILL.md", "alpha"),
        ("skill://manual/SKILL.md", "manual"),
        ("skill://secret/SKILL.md", "secret"),
    ]
    assert listed[0]["description"] == "The first skill, with files in folders."


def test_a_rebuild_is_picked_up_and_a_connection_reads_from_its_last_list(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    builds = Builds(str(project / "dist"), "lead")
    pin = Pin(builds, sticky=True)
    first = methods.skills_list(pin, None)
    _rebuild(project, "Rebuilt")
    old = methods.resources_read(pin, "skill://alpha/SKILL.md")["contents"][0]["text"]
    assert "Rebuilt" not in old  # pinned: still the build of its last list
    got = methods.skills_get(pin, "skill://alpha/SKILL.md")["skill"]
    assert got != next(s for s in first["skills"] if s["uri"] == got["uri"])
    assert "Rebuilt" in methods.resources_read(pin, "skill://alpha/SKILL.md")["contents"][0]["text"]


def test_a_cursor_stays_in_its_first_page_s_build(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    monkeypatch.setattr(methods, "PAGE", 2)
    pin = Pin(Builds(str(project / "dist"), "lead"), sticky=False)
    first = methods.skills_list(pin, None)
    _rebuild(project, "Rebuilt")
    pages = [first]
    while "nextCursor" in pages[-1]:
        pages.append(methods.skills_list(pin, pages[-1]["nextCursor"]))
    alpha = next(s for p in pages for s in p["skills"] if s["uri"] == "skill://alpha/SKILL.md")
    fresh = methods.skills_get(pin, "skill://alpha/SKILL.md")["skill"]
    assert alpha != fresh  # the listing stayed in the old build; a get sees the new one


def test_skills_get_shows_a_rebuild_within_2_s(project: Path) -> None:
    pin = Pin(Builds(str(project / "dist"), "lead"), sticky=False)
    before = methods.skills_get(pin, "skill://alpha/SKILL.md")
    _rebuild(project, "Rebuilt")
    committed = time.monotonic()
    while methods.skills_get(pin, "skill://alpha/SKILL.md") == before:
        assert time.monotonic() - committed < 2
        time.sleep(0.05)


def test_a_build_that_does_not_open_leaves_the_last_one_served(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    said: list[str] = []
    builds = Builds(str(project / "dist"), "lead", say=said.append)
    before = builds.latest()
    (project / "dist" / "_index.json").write_text("{not json")
    assert builds.latest() is before
    assert said and "could not be opened" in said[-1]


def test_a_pruned_build_is_an_internal_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    pin = Pin(Builds(str(project / "dist"), "lead"), sticky=True)
    methods.skills_list(pin, None)
    _rebuild(project, "Rebuilt")
    shutil.rmtree(project / "dist" / "objects")
    with pytest.raises(methods.Internal):
        methods.resources_read(pin, "skill://alpha/references/guide.md")


def test_notes_are_said_when_the_table_is_made_once_across_rebuilds(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    said: list[str] = []
    pin = Pin(Builds(str(project / "dist"), "lead", say=said.append), sticky=False)
    assert said == []  # nothing is read before a request needs the table
    methods.skills_list(pin, None)
    first = list(said)
    assert len(first) == 3
    _rebuild(project, "Rebuilt")
    methods.skills_list(pin, None)
    assert said == first


def test_a_persona_gone_from_a_rebuild_is_an_internal_error_and_a_tool_error(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillc.serve import tools

    monkeypatch.setattr(builds_mod, "LOOK_EVERY", 0.0)
    pin = Pin(Builds(str(project / "dist"), "ops", say=lambda _: None), sticky=False)
    methods.skills_list(pin, None)
    shutil.rmtree(project / "personas" / "ops")
    fixture_project.skillc("build", "--no-cache", "--config", project / "skillc.yaml")
    with pytest.raises(methods.Internal, match="has no persona 'ops'"):
        methods.skills_list(pin, None)
    with pytest.raises(methods.Internal):
        methods.resources_read(pin, "skill://alpha/SKILL.md")
    for call in (
        lambda: tools.list_skills(pin.view()),
        lambda: tools.load_skill(pin.view(), {"name": "alpha"}),
    ):
        with pytest.raises(tools.ToolError):
            call()
