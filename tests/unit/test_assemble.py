"""Assembly: artifacts() on hand-built values, every document of the dist/ checked (no disk)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from support import values as v

from skillc.dataclass import replace
from skillc.digests import GENERATOR
from skillc.format import layout as fmt
from skillc.format.layout import OUTPUT_MARKER
from skillc.format.shardtree import all_shards
from skillc.model import Artifacts, InputFile, Resource
from skillc.output import verify
from skillc.output.assemble import Files, Spool, artifacts
from skillc.stages.catalog import catalogs
from skillc.stages.resolve import resolve

DIGEST = "ab" * 32
SCRIPT = Resource("scripts/go", InputFile("skills/tool/scripts/go", b"#!/bin/sh\n", executable=True))
PROGRAM = v.program(
    [
        replace(v.skill("tool", body="Run it.\n"), resources=(SCRIPT,)),
        v.skill("secret", body="Ask a pilot.\n", persona_exclusive="pilot"),
        v.skill("crew-only"),
    ],
    [
        v.persona("pilot", faction="air"),
        v.persona("pilot-x", chain=("pilot",), allowlist=("secret", "tool")),
        v.persona("crew"),
    ],
    {("pilot", "secret"): "The real steps.\n"},
)
CONFIG = v.config(catalog_chars=500, persona_budgets=(("crew", 400),))


def _build() -> Artifacts:
    resolved = resolve(PROGRAM)
    texts, packings, _ = catalogs(CONFIG, PROGRAM, resolved, v.template())
    return artifacts(CONFIG, PROGRAM, resolved, v.template(), texts, packings, DIGEST)


def _object(art: Artifacts, digest: str) -> bytes:
    return art.files[fmt.object_path(digest)]


def _doc(art: Artifacts, digest: str) -> Any:
    return json.loads(_object(art, digest))


def _skills(art: Artifacts) -> dict[str, Any]:
    index = json.loads(art.files[fmt.INDEX])
    shards = all_shards(index["shards"], lambda digest, prefix: _doc(art, digest), "test")
    found: dict[str, Any] = {}
    for name, digest in shards.items():
        shard = _doc(art, digest)
        assert shard["shard"] == name and verify.dist_errors(shard, "shard") == []
        found.update(shard["skills"])
    return found


def test_objects_are_stored_under_their_hash_and_listed() -> None:
    art = _build()
    assert art.build_hash == DIGEST and art.files[OUTPUT_MARKER]
    listed = {rel for rel in art.files if rel.startswith(fmt.OBJECTS + "/")}
    assert listed == art.objects
    for rel in art.objects:
        assert rel == fmt.object_path(hashlib.sha256(art.files[rel]).hexdigest())


def test_the_index_names_the_build_its_config_and_each_persona() -> None:
    art = _build()
    index = json.loads(art.files[fmt.INDEX])
    assert verify.dist_errors(index, "index") == []
    assert (index["format"], index["generator"], index["build_hash"]) == (fmt.VERSION, GENERATOR, DIGEST)
    assert index["config"] == {
        "sources": ["skills"],
        "personas": "personas",
        "template": "catalog.txt.j2",
        "catalog_chars": 500,
        "priority": [],
    }
    assert list(index["personas"]) == ["pilot", "pilot-x", "crew"]
    crew = index["personas"]["crew"]
    prompt = _object(art, crew["prompt"])
    assert crew["copy"] == "personas/crew/prompt.txt" and art.files[crew["copy"]] == prompt
    assert prompt.decode() == "Skills for Crew:\n- crew-only: Does a thing.\n- tool: Does a thing.\n"
    assert crew["chars"] == len(prompt.decode())


def test_each_persona_meta_says_who_it_is_and_what_its_catalog_holds() -> None:
    art = _build()
    index = json.loads(art.files[fmt.INDEX])
    metas = {pid: _doc(art, p["meta"]) for pid, p in index["personas"].items()}
    for meta in metas.values():
        assert verify.dist_errors(meta, "persona-meta") == []
    assert metas["pilot-x"] == {
        "format": fmt.VERSION,
        "id": "pilot-x",
        "name": "Pilot-X",
        "faction": None,
        "fallback": "pilot",
        "chain": ["pilot"],
        "unrestricted": False,
        "allowlist": ["secret", "tool"],
        "budget": 500,
        "included": ["secret", "tool"],
        "left_out": [],
        "shortened": [],
        "strategy": "drop",
    }
    assert (metas["pilot"]["faction"], metas["crew"]["budget"]) == ("air", 400)


def test_a_skill_entry_holds_its_facts_and_its_objects() -> None:
    tool = _skills(_build())["tool"]
    art = _build()
    assert _object(art, tool["body"]) == b"Run it.\n"
    assert tool["resources"] == [
        {"path": "scripts/go", "sha256": SCRIPT.file.digest, "size": 10, "executable": True}
    ]
    assert _object(art, SCRIPT.file.digest) == b"#!/bin/sh\n"
    assert (tool["name"], tool["source"], tool["path"]) == ("tool", "skills", "skills/tool/SKILL.md")
    assert (tool["parent"], tool["children"], tool["frontmatter"]) == (
        None,
        [],
        {"description": "Does a thing."},
    )


def test_resolutions_are_a_default_plus_the_personas_that_differ() -> None:
    art = _build()
    skills = _skills(art)
    assert skills["tool"]["default"]["access"] == "open" and skills["tool"]["exceptions"] == {}
    # crew-only: open to all, but pilot-x's allowlist hides it
    assert skills["crew-only"]["exceptions"] == {"pilot-x": None}
    secret = skills["secret"]
    # three different outcomes: the earliest persona's is the default
    assert (secret["default"]["access"], secret["default"]["via"]) == ("granted", "persona")
    assert _object(art, secret["default"]["body"]) == b"The real steps.\n"
    assert secret["exceptions"]["pilot-x"]["via"] == "fallback:pilot"
    stub = secret["exceptions"]["crew"]
    assert (stub["access"], stub["model"]) == ("stub", False)
    assert _object(art, stub["body"]) == b"Ask a pilot.\n"


def test_every_file_reads_back_the_same_bytes_on_each_access() -> None:
    """Bodies are encoded on access and documents read back from the spool: neither is held."""
    art = _build()
    first = {rel: art.files[rel] for rel in art.files}
    assert {rel: art.files[rel] for rel in reversed(list(art.files))} == first
    assert list(art.files) == sorted(first)
    assert all(hashlib.sha256(first[rel]).hexdigest() == rel.rsplit("/", 1)[1] for rel in art.objects)
    assert art.documents and all(json.loads(first[rel]) for rel in art.documents)


def test_the_spool_gives_back_each_piece_by_its_place() -> None:
    spool = Spool()
    pieces = [b"", b"x", bytes(range(256)) * 300, "\u00e9\n".encode()]
    places = [spool.add(p) for p in pieces]
    assert [spool.read(at) for at in reversed(places)] == pieces[::-1]


def test_the_spool_moves_to_a_file_past_its_memory_and_loses_nothing(monkeypatch) -> None:
    monkeypatch.setattr(Spool, "MEMORY", 1000)
    spool = Spool()
    pieces = [bytes([i]) * 300 for i in range(8)]  # the fourth goes past 1,000 bytes
    places = [spool.add(p) for p in pieces]
    assert spool._file is not None and not spool._held
    assert [spool.read(at) for at in places] == pieces
    small = Spool()
    small.add(b"x" * 999)
    assert small._file is None and small.read((0, 999)) == b"x" * 999  # no scratch file for a few bytes


def test_a_file_is_held_as_bytes_text_or_a_spooled_piece() -> None:
    spool = Spool()
    files = Files(spool, {"b": "\u00e9", "a": b"raw", "c": spool.add(b"doc")})
    assert dict(files.sorted().items()) == {"a": b"raw", "b": "\u00e9".encode(), "c": b"doc"}
    assert list(files.sorted()) == ["a", "b", "c"] and "c" in files and len(files) == 3


def test_a_file_s_size_is_known_without_its_bytes() -> None:
    spool = Spool()
    files = Files(
        spool, {"ascii": "abc", "text": "\u00e9t\u00e9", "raw": b"12345", "doc": spool.add(b"{}\n")}
    )
    assert {rel: files.size(rel) for rel in files} == {rel: len(files[rel]) for rel in files}
    built = _build().files
    assert isinstance(built, Files)
    assert all(built.size(rel) == len(built[rel]) for rel in built)
