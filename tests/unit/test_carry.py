"""carry.py: what a build leaves for the next edit build, kept and given back as it was."""

from __future__ import annotations

from pathlib import Path

from skillc.dataclass import replace
from skillc.diagnostics import warning
from skillc.diagnostics.codes import Code
from skillc.incremental import carry as carry_mod
from skillc.incremental.carry import Carry, Catalog, Found, load, load_catalog, save
from skillc.model import Config, Persona

KEY = b"k" * 32


def _carry(key: str = "key") -> Carry:
    said = (warning("s/b/SKILL.md", Code.OVERRIDDEN, "Careful.", 2, 3),)
    found = Found(
        "s/a/x/SKILL.md\0abc\ns/b/SKILL.md\0def\0x\n",
        {"b": said},
        said,
        ("s/.gitignore",),
        (((("a/x", "b"), (".h/y",))),),
    )
    return Carry(
        key=key,
        index="index",
        found=found,
        anchor=(2, 1),
        anchors={"b": (3, 1)},
        own={"b": said},
        shards={"00": "d0"},
        refs={"d1": 2},
        personas={"p": Persona("p", "P", None, (), False, None, None, "personas/p/manifest.yaml", {})},
        exclusive={("p", "b"): ("d2", "personas/p-exclusive/b.md")},
        lookups=frozenset({"b", "zz"}),
        packings={"p": said},
        included={"p": ["a/x"]},
        totals={"p": 90},
        unordered=said,
        early=said,
        counts=(2, 1, 7),
        catalog=carry_mod.new_catalog_id(),
        config=Config(
            Path("/p"),
            "skillc.yaml",
            ("s",),
            None,
            "dist",
            Path("/p/t.j2"),
            "t.j2",
            False,
            900,
            (),
            100,
            b"x",
        ),
        template=(b"catalog.xml.j2\0abc\n", ".xml"),
    )


def _catalog() -> Catalog:
    rows = {
        "a/x": ["x", "Nested.", "s/a/x/SKILL.md", True, 50, 30],
        "b": ["b", "Bee.", "s/b/SKILL.md", False, 40, -1],
        "é": ["e", "Non-ASCII \u2028 and \x00.", "s/é/SKILL.md", False, 41, -1],
    }
    listed = {"one": ["b"], "none": [], "all": ["a/x", "b", "é"], "two": ["a/x", "é"]}
    return Catalog(rows, listed, {"b": "b"})


def test_a_carry_and_its_catalog_come_back_as_they_were_kept(tmp_path: Path) -> None:
    carry, catalog = _carry(), _catalog()
    assert save(tmp_path, KEY, carry, catalog)
    assert load(tmp_path, KEY, "key") == carry
    assert load_catalog(tmp_path, KEY, carry) == catalog


def test_another_builds_carry_or_catalog_is_none(tmp_path: Path) -> None:
    carry = _carry()
    save(tmp_path, KEY, carry, _catalog())
    assert load(tmp_path, KEY, "another build's") is None
    assert load_catalog(tmp_path, KEY, replace(carry, catalog="another")) is None
    save(tmp_path, KEY, replace(carry, catalog=carry_mod.new_catalog_id()), None)  # the carry alone
    assert load_catalog(tmp_path, KEY, load(tmp_path, KEY, "key")) is None  # type: ignore[arg-type]


def test_a_config_that_does_not_round_trip_is_not_kept() -> None:
    config = _carry().config
    assert config is not None and carry_mod._round_trips(config)
    assert not carry_mod._round_trips(replace(config, sources=(object(),)))  # type: ignore[arg-type]
