"""The reader's entry lookups (reader._Slices) answer exactly what parsing the whole index answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skillc import reader
from skillc.pipeline import build
from conftest import REPO

sys.path.insert(0, str(REPO))
from bench.gen import generate  # noqa: E402


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lookup") / "t"
    generate(root, 60, n_personas=6, seed=5)
    result, written = build(root / "skillc.yaml", cache=False)
    assert written is not None, [d.format() for d in result.diagnostics]
    return root / "dist"


def parsed(path: Path) -> reader.Dist:
    d = reader.open(path)
    d.index  # parsed first: every lookup then goes the parsed way
    return d


def answers(d: reader.Dist, persona: str, command: str):
    try:
        skill = d.load(persona, command, args="a 'b c'")
    except reader.UnknownSkill as exc:
        return ("unknown", str(exc))
    files = d.resources(persona, command)
    return (skill, skill.render(), files, [d.resource(persona, command, f) for f in files],
            d.missing_requirements(persona, command, env={}, which=lambda n: None))


def test_lookups_match_the_parsed_index(dist):
    slow = parsed(dist)
    commands = sorted(slow.index["skills"]) + ["no-such-skill", "../x"]
    for persona in slow.personas():
        assert reader.open(dist).catalog(persona) == slow.catalog(persona)
        fast = reader.open(dist)
        for command in commands:
            assert answers(fast, persona, command) == answers(slow, persona, command), (persona, command)


def test_catalog_and_load_do_not_parse_the_index(dist, monkeypatch):
    monkeypatch.setattr(reader, "_loads", lambda data: pytest.fail("the whole index was parsed"))
    d = reader.open(dist)
    persona = sorted(json.loads((dist / "_index.json").read_text())["personas"])[-1]
    assert d.catalog(persona).startswith("<available_skills>")
    table = json.loads((dist / "_index.json").read_text())["resolutions"][persona]
    for command in list(table)[:10]:
        assert d.load(persona, command).command == command


def test_streaming_across_tiny_chunks(dist, monkeypatch):
    slow = parsed(dist)
    monkeypatch.setattr(reader._Slices, "_CHUNK", 7)
    for persona in slow.personas():
        assert reader.open(dist).catalog(persona) == slow.catalog(persona)
    with pytest.raises(reader.UnknownPersona):
        reader.open(dist).catalog("nobody")


def test_reserialised_index_goes_the_parsed_way(dist, tmp_path):
    import shutil

    copy = tmp_path / "dist"
    shutil.copytree(dist, copy)
    data = json.loads((copy / "_index.json").read_text())
    (copy / "_index.json").write_text(json.dumps(data))  # same content, other layout
    slow = parsed(dist)
    d = reader.open(copy)
    persona = slow.personas()[0]
    assert d.catalog(persona) == slow.catalog(persona)
    command = sorted(data["resolutions"][persona])[0]
    assert d.load(persona, command) == slow.load(persona, command)
    assert d._index is not None


def test_lookups_read_the_index_on_disk(dist, tmp_path):
    """Nothing is cached across builds: an edited entry is what the reader sees."""
    import shutil

    copy = tmp_path / "dist"
    shutil.copytree(dist, copy)
    index = copy / "_index.json"
    text = index.read_text()
    persona = sorted(json.loads(text)["personas"])[0]
    digest = json.loads(text)["personas"][persona]["prompt"]["sha256"]
    index.write_text(text.replace(digest, "0" * 64, 1))
    with pytest.raises(reader.IntegrityError):
        reader.open(copy).catalog(persona)


def test_malformed_entry_falls_back_to_the_checked_path(dist, tmp_path):
    import shutil

    copy = tmp_path / "dist"
    shutil.copytree(dist, copy)
    index = copy / "_index.json"
    data = json.loads(index.read_text())
    persona = sorted(data["personas"])[0]
    command = sorted(data["resolutions"][persona])[0]
    data["resolutions"][persona][command]["model"] = "yes"
    index.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")  # the build's layout
    with pytest.raises(reader.FormatError, match="is malformed"):
        reader.open(copy).load(persona, command)
