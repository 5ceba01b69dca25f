"""serve/view.py on the fixture build: what each persona is served, and nothing else."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest
import yaml

from skillc import reader
from skillc.serve import uris
from skillc.serve.view import View
from skillc.targets import export

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clients import PROBES


def _view(dist: Path, persona: str) -> View:
    return View(reader.open(dist), persona)


def test_the_served_skills_are_the_persona_s_less_those_nobody_may_invoke(dist: Path) -> None:
    opened = reader.open(dist)
    for persona in opened.personas():
        view = View(opened, persona)
        want = [i.command for i in opened.skills(persona, env=reader.EVERYWHERE) if i.model or i.user]
        assert [s.command for s in view.skills()] == want
    assert [s.command for s in _view(dist, "guest").skills()] == ["alpha", "manual", "secret"]


def test_every_left_out_or_renamed_skill_is_said(dist: Path) -> None:
    notes = _view(dist, "lead").notes()
    assert any("'nobody' is not served" in n for n in notes)
    assert any("'folder-x' is served as 'folder-x'" in n and "'label-y'" in n for n in notes)
    assert any("'under_score' is served as 'under-score'" in n for n in notes)
    assert len(notes) == 3


def test_an_entry_is_the_skill_md_with_its_frontmatter_and_the_build_s_digests(dist: Path) -> None:
    view = _view(dist, "lead")
    entry = view.entry("alpha")
    assert entry is not None
    head = yaml.safe_load(entry.skill_md.decode().split("---\n", 2)[1])
    assert head == entry.frontmatter
    assert entry.frontmatter == {
        "name": "alpha",
        "description": "The first skill, with files in folders.",
        "license": "MIT",
        "metadata": {"version": "1.2", "owner": "team"},
    }
    for file in entry.files:
        data = view.read(file)
        assert (file.digest, file.size) == (hashlib.sha256(data).hexdigest(), len(data))
    assert [f.uri for f in entry.files][1:] == [
        "skill://alpha/assets/logo.png",
        "skill://alpha/data%20file%20%281%29.txt",
        "skill://alpha/references/deep/note.md",
        "skill://alpha/references/guide.md",
        "skill://alpha/scripts/run.sh",
    ]


def test_skillc_s_persona_keys_are_compiled_away_and_the_flags_resolved(dist: Path) -> None:
    view = _view(dist, "ops")
    for command in ("secret", "overlaid", "manual", "model-only"):
        entry = view.entry(command)
        assert entry is not None
        assert not {"persona_exclusive", "has_persona_overlay"} & set(entry.frontmatter)
    assert view.entry("manual").frontmatter["disable-model-invocation"] is True  # type: ignore[union-attr]
    assert view.entry("model-only").frontmatter["user-invocable"] is False  # type: ignore[union-attr]
    overlaid = view.entry("overlaid")
    assert overlaid is not None and b"Ops: page the on-call." in overlaid.skill_md
    for other in ("lead", "guest"):  # another persona's overlay reaches no one else
        found = _view(dist, other).entry("overlaid")
        assert found is None or b"Ops: page the on-call." not in found.skill_md
    assert overlaid.frontmatter["when_to_use"] == "When a persona needs its own steps."


def test_the_skill_md_is_the_export_s_harness_neutral_one(dist: Path) -> None:
    opened = reader.open(dist)
    view = View(opened, "lead")
    for served in view.skills():
        if served.name == served.info.name:
            entry = view.entry(served.command)
            assert entry is not None
            assert entry.skill_md == export.skill_md(opened, export.NEUTRAL, "lead", served.info)


def test_a_stub_is_its_skill_md_alone(dist: Path) -> None:
    stub = _view(dist, "ops").entry("secret")
    granted = _view(dist, "lead").entry("secret")
    assert stub is not None and granted is not None
    assert [f.uri for f in stub.files] == ["skill://secret/SKILL.md"]
    assert b"The lead's own instructions." in granted.skill_md
    assert b"The lead's own instructions." not in stub.skill_md
    assert [f.uri for f in granted.files] == ["skill://secret/SKILL.md", "skill://secret/references/plan.md"]


def test_a_parent_lists_its_served_nested_skills_files_too(dist: Path) -> None:
    view = _view(dist, "lead")
    group, inner = view.entry("group"), view.entry("group/inner")
    assert group is not None and inner is not None
    assert [f.uri for f in group.files] == [
        "skill://group/SKILL.md",
        "skill://group/references/map.md",
        "skill://group/inner/SKILL.md",
        "skill://group/inner/notes.md",
        "skill://group/inner/leaf/SKILL.md",
    ]
    assert inner.files == group.files[2:]
    assert inner.frontmatter["name"] == "inner"


def test_addressing_finds_each_file_at_its_uri_and_its_owner(dist: Path) -> None:
    view = _view(dist, "lead")
    found = view.file_at("skill://group/inner/notes.md")
    assert found is not None and (found.command, found.path) == ("group/inner", "notes.md")
    assert view.skill_at("skill://group/inner/SKILL.md").command == "group/inner"  # type: ignore[union-attr]
    assert view.skill_at("skill://under-score/SKILL.md").command == "under_score"  # type: ignore[union-attr]


@pytest.mark.parametrize("uri", PROBES)
def test_isolation_probes_reach_nothing_of_another_persona(dist: Path, uri: str) -> None:
    for persona in ("ops", "guest"):
        view = _view(dist, persona)
        assert view.file_at(uri) is None
        assert view.skill_at(uri) is None


def test_hidden_skills_are_neither_listed_nor_addressable(dist: Path) -> None:
    guest = _view(dist, "guest")
    for hidden in ("group", "group/inner", "overlaid", "model-only"):
        assert guest.served(hidden) is None and guest.entry(hidden) is None
        served = _view(dist, "lead").served(hidden)
        assert served is not None
        assert guest.skill_at(uris.skill_uri(served.skill_path)) is None
        assert guest.directory(f"skill://{served.skill_path}") is None


def test_directories(dist: Path) -> None:
    view = _view(dist, "lead")
    assert view.directory("skill://alpha/references") == [
        ("skill://alpha/references/deep", "deep", True),
        ("skill://alpha/references/guide.md", "guide.md", False),
    ]
    assert view.directory("skill://group") == [
        ("skill://group/SKILL.md", "SKILL.md", False),
        ("skill://group/inner", "inner", True),
        ("skill://group/references", "references", True),
    ]
    assert view.directory("skill://alpha/references/guide.md") is None
    assert view.directory("skill://alpha/references/") is None
    assert _view(dist, "guest").directory("skill://group") is None


def test_entries_are_kept_bounded(dist: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("skillc.serve.view.ENTRIES_KEPT", 2)
    view = _view(dist, "lead")
    for served in view.skills():
        view.entry(served.command)
    assert len(view._entries) == 2


def test_a_skill_over_the_spec_s_limits_is_served_and_said(
    dist: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("skillc.serve.view.MAX_FILES", 4)
    said: list[str] = []
    view = View(reader.open(dist), "lead", said.append)
    group = view.entry("group")
    assert group is not None and len(group.files) == 5
    assert [n for n in said if "'group' has 5 files" in n]
    view.entry("manual")
    assert not [n for n in said if n.startswith("'manual' has")]  # one file: within the limits


class _Dist:
    """What a View's table reads of a build: every command, and one persona's skills."""

    def __init__(self, infos: list[reader.SkillInfo], hidden: tuple[str, ...] = ()) -> None:
        self.infos = infos
        self.hidden = hidden

    def all_commands(self) -> list[str]:
        return sorted([i.command for i in self.infos] + list(self.hidden))

    def skills(self, persona: str, env: object = None) -> list[reader.SkillInfo]:
        assert env is reader.EVERYWHERE  # the view serves the build as made
        return self.infos


def _info(command: str, name: str | None = None, model: bool = True, user: bool = True) -> reader.SkillInfo:
    name = name or command.rsplit("/", 1)[-1]
    return reader.SkillInfo(command, name, "d", "open", model, user, True, None, "inline")


def test_the_table_places_renames_and_leaves_out_each_with_a_note() -> None:
    infos = [
        _info("Foo_Bar", "foo-bar"),  # renamed: foo-bar
        _info("foo-bar"),  # same URI as the renamed one: left out
        _info("___", "x"),  # no passing name: left out
        _info("Group_A", "group-a"),
        _info("Group_A/Inner_B", "inner-b"),  # below its renamed parent
        _info("hidden/child"),  # its parent is hidden: the folder stays as it is
        _info("tools/lint"),  # `tools` is no skill at all
    ]
    view = View(_Dist(sorted(infos, key=lambda i: i.command), hidden=("hidden",)), "p")  # type: ignore[arg-type]
    assert {s.command: s.skill_path for s in view.skills()} == {
        "Foo_Bar": "foo-bar",
        "Group_A": "group-a",
        "Group_A/Inner_B": "group-a/inner-b",
        "hidden/child": "hidden/child",
        "tools/lint": "tools/lint",
    }
    notes = view.notes()
    assert any(n.startswith("'foo-bar' is not served: its URI would be 'Foo_Bar''s") for n in notes)
    assert any(n.startswith("'___' is not served: its folder '___' gives no name") for n in notes)
    assert sum(n.startswith("'Foo_Bar' is served as 'foo-bar'") for n in notes) == 1
    assert len(notes) == 5  # the three renames, the two left out
    assert view.directory("skill://tools") == [("skill://tools/lint", "lint", True)]
