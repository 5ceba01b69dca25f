"""carry.py: what a build leaves for the next edit build, kept and given back as it was."""

from __future__ import annotations

import array
import base64
import sys
from pathlib import Path

import orjson
import pytest

from skillc.cache import carry as carry_mod
from skillc.cache.carry import Carry, Catalog, load_catalog, save
from skillc.cache.store import read_signed, write_signed

KEY = b"k" * 32


def _carry(catalog_id: str) -> Carry:
    return Carry("key", "index", "", (0, 0), {}, {}, {}, {}, {}, {}, {}, {}, (), (), (0, 0, 0), catalog_id)


def _catalog() -> Catalog:
    rows = {
        "b": ["b", "Bee.", "s/b/SKILL.md", False, 40, -1],
        "a/x": ["x", "Nested.", "s/a/x/SKILL.md", True, 50, 30],
        "é": ["e", "Non-ASCII \u2028 and \x00.", "s/é/SKILL.md", False, 41, -1],
    }
    listed = {"one": ["b"], "none": [], "all": ["a/x", "b", "é"], "two": ["a/x", "é"]}
    return Catalog(rows, listed, {"b": "b"})


def test_catalog_rows_come_back_as_they_were_kept(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    assert load_catalog(tmp_path, KEY, carry) == _catalog()


def test_catalog_rows_of_another_build_or_out_of_place_are_none(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    assert load_catalog(tmp_path, KEY, _carry(carry_mod.new_catalog_id())) is None
    data = read_signed(tmp_path, carry_mod.CATALOG, KEY)
    data["listed"]["one"] = "AAAAAAEAAAACAAAAAwAAAA=="  # places 0..3 of three rows
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) is None
    data["listed"]["one"] = "not base64!"
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) is None


@pytest.mark.skipif(sys.byteorder == "big", reason="the places are little-endian on disk")
def test_listed_commands_are_kept_as_places_not_names(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    raw = (tmp_path / carry_mod.CATALOG).read_bytes()
    listed = orjson.loads(raw[raw.index(b"\n") + 1 :])["listed"]
    # the rows' order is b, a/x, é: "all" lists a/x, b, é
    assert base64.b64decode(listed["all"]) == array.array("I", [1, 0, 2]).tobytes()
    assert listed["none"] == ""
