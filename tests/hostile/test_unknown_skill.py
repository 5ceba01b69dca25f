"""UnknownSkill: raised after a few reads at any size, naming only close commands the persona sees;
the full list is read when a program asks for it, and a fault elsewhere in the build shows there."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from skillc import reader

MAIN = Path(__file__).resolve().parents[1] / "conformance" / "builds" / "main"
FORGE_SEES = ("deploy", "mark", "ops", "ops/restart", "threat")


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    return Path(shutil.copytree(MAIN, tmp_path / "dist"))


def _unknown(d: reader.Dist, persona: str, command: str) -> reader.UnknownSkill:
    with pytest.raises(reader.UnknownSkill) as caught:
        d.load(persona, command)
    return caught.value


def _shard_files(root: Path) -> list[Path]:
    """Every shard object of a build (the build is small: one table node)."""
    index = json.loads((root / "_index.json").read_text("utf-8"))
    node = json.loads((root / "objects" / index["shards"][:2] / index["shards"]).read_text("utf-8"))
    return [root / "objects" / d[:2] / d for d in node["shards"].values()]


def test_suggestions_come_from_the_normal_form_the_catalog_and_the_siblings(dist: Path) -> None:
    d = reader.open(dist)
    assert _unknown(d, "forge", "/Deploy").suggestions == ("deploy",)  # the normal form
    assert _unknown(d, "tiny", "alwyas").suggestions == ("always",)  # a word of tiny's catalog
    assert _unknown(d, "forge", "ops/restrat").suggestions == ("ops/restart",)  # a child of ops
    err = _unknown(d, "forge", "ops:restart")
    assert str(err) == "no skill 'ops:restart' for persona 'forge' (did you mean 'ops/restart'?)"


def test_a_hidden_command_is_never_suggested(dist: Path) -> None:
    d = reader.open(dist)
    assert d.load("tiny", "ops/secret", by="user").command == "ops/secret"
    assert _unknown(d, "forge", "ops/secrte").suggestions == ()  # forge does not see ops/secret
    assert _unknown(d, "forge", "ops/secret").suggestions == ()
    assert _unknown(d, "vind", "deploy").visible == ()


def test_skill_meta_suggests_from_every_command(dist: Path) -> None:
    d = reader.open(dist)
    with pytest.raises(reader.UnknownSkill) as caught:
        d.skill_meta("ops/secrte")
    assert caught.value.persona == "*" and caught.value.suggestions == ("ops/secret",)
    assert caught.value.visible == tuple(d.all_commands())


def test_raising_does_not_read_the_other_shards(dist: Path) -> None:
    d = reader.open(dist)
    d.load("forge", "deploy")
    deploy_shard = {p for p in _shard_files(dist) if b'"deploy"' in p.read_bytes()}
    others = {p: p.read_bytes() for p in _shard_files(dist) if p not in deploy_shard}
    for path in others:
        path.write_bytes(b"{}")  # every other shard now fails its hash check
    err = _unknown(d, "forge", "deploi")
    assert err.suggestions == ("deploy",) and err.command == "deploi"
    with pytest.raises(reader.IntegrityError):
        err.visible  # noqa: B018 - the access is the call under test
    for path, data in others.items():  # the failure kept nothing: the next access reads again
        path.write_bytes(data)
    assert err.visible == FORGE_SEES


def test_the_list_survives_pickling_and_the_dist(dist: Path) -> None:
    err = _unknown(reader.open(dist), "forge", "nope")
    back = pickle.loads(pickle.dumps(err))
    assert back.visible == FORGE_SEES and back.suggestions == () and str(back) == str(err)
    shutil.rmtree(dist)
    assert err.visible == FORGE_SEES  # made once, when pickled: kept


def test_an_error_built_by_hand_keeps_its_list() -> None:
    err = reader.UnknownSkill("p", "c", ["d"], ["d"])
    assert err.visible == ("d",) and err.suggestions == ("d",)
    assert str(err) == "no skill 'c' for persona 'p' (did you mean 'd'?)"
    calls: list[int] = []
    lazy = reader.UnknownSkill("p", "c", lambda: calls.append(1) or ["x"])
    assert calls == [] and lazy.visible == ("x",) and lazy.visible == ("x",) and calls == [1]
