"""carry.py: what a build leaves for the next edit build, kept and given back as it was."""

from __future__ import annotations

import array
import sys
from pathlib import Path

import pytest

from skillc.cache import carry as carry_mod
from skillc.cache.carry import Carry, Catalog, load_catalog, save
from skillc.cache.catalogrows import Rows
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
    return Catalog(Rows.of(rows), listed, {"b": "b"})


def test_catalog_rows_come_back_as_they_were_kept(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    assert load_catalog(tmp_path, KEY, carry) == _catalog()


def test_catalog_rows_of_another_build_or_out_of_place_are_none(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    assert load_catalog(tmp_path, KEY, _carry(carry_mod.new_catalog_id())) is None
    data = read_signed(tmp_path, carry_mod.CATALOG, KEY)
    good = bytes(data["places"])  # a raw section reads as a view of the file (store.py)
    data["places"] = good[:-4] + array.array("I", [3]).tobytes()  # place 3 of three rows
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) is None
    data["places"] = good[:-1]  # not a whole number of places
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) is None
    data["places"] = good + good[:4]  # more places than the personas list
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) is None
    data["places"] = good
    write_signed(tmp_path, carry_mod.CATALOG, KEY, data)
    assert load_catalog(tmp_path, KEY, carry) == _catalog()


@pytest.mark.skipif(sys.byteorder == "big", reason="the places are little-endian on disk")
def test_listed_commands_are_kept_as_places_not_names(tmp_path: Path) -> None:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    data = read_signed(tmp_path, carry_mod.CATALOG, KEY)
    # the rows' order is b, a/x, é: "all" lists a/x, b, é
    counts = dict(data["listed"])
    assert counts["none"] == 0
    start = sum(n for pid, n in data["listed"][: [p for p, _ in data["listed"]].index("all")])
    assert data["places"][4 * start : 4 * start + 12] == array.array("I", [1, 0, 2]).tobytes()


def _moved(catalog: Catalog) -> None:
    row = catalog.rows["b"]
    del catalog.rows["b"]
    catalog.rows["b"] = row


def _reordered(catalog: Catalog) -> None:
    lists = list(catalog.listed.items())
    catalog.listed.clear()
    catalog.listed.update(reversed(lists))


def _saved_places(tmp_path: Path, catalog: Catalog) -> bytes:
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, catalog)
    return bytes(read_signed(tmp_path, carry_mod.CATALOG, KEY)["places"])


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.rows.__setitem__("b", ["b", "Another.", "s/b/SKILL.md", False, 41, -1]),  # kept
        lambda c: c.listed.__setitem__("one", ["a/x", "b"]),  # a persona lists another
        lambda c: c.rows.__setitem__("c", ["c", "New.", "s/c/SKILL.md", False, 9, -1]),  # a row put in
        lambda c: (
            c.rows.__delitem__("b"),
            c.listed.update({k: [x for x in v if x != "b"] for k, v in c.listed.items()}),
        ),
        _reordered,  # the personas in another order
        _moved,  # a row taken out and put in again: the last now, every listing as it was
    ],
)
def test_places_read_are_written_again_only_while_they_stand(tmp_path: Path, change) -> None:
    """A catalog read and changed is kept with the places a catalog made whole would have."""
    carry = _carry(carry_mod.new_catalog_id())
    save(tmp_path, KEY, carry, _catalog())
    read = load_catalog(tmp_path, KEY, carry)
    assert read is not None and read.read is not None
    change(read)
    whole = Catalog(Rows(*read.rows.columns()), dict(read.listed), read.names)  # nothing read
    assert _saved_places(tmp_path / "a", read) == _saved_places(tmp_path / "b", whole)
