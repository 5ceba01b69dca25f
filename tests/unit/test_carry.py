"""carry.py: what a build leaves for the next edit build, kept and given back as it was."""

from __future__ import annotations

import array
import sys
from pathlib import Path

import pytest

from skillc.dataclass import replace
from skillc.incremental import carry as carry_mod
from skillc.incremental.carry import Carry, Catalog, load_catalog, save
from skillc.incremental.catalogrows import Rows
from skillc.incremental.store import read_signed, write_signed

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


# --- an edit build's carry kept as a journal (carry-edits.json) ---------------------------------------

ROW_C = ["c", "See.", "s/c/SKILL.md", False, 9, -1]


def _whole(catalog_id: str) -> Carry:
    lines = "s/a/x/SKILL.md\0d1\ns/b/SKILL.md\0d2\ns/é/SKILL.md\0d3\n"
    return Carry(
        "k0", "i0", lines, (2, 1), {"b": (3, 1)}, {}, {}, {"0": "s0"}, {"r1": 2, "r2": 1}, {}, {}, {}, (), (),
        (3, 4, 9), catalog_id, None, (b"", ""), frozenset(), {"all": ["b"]}, {"all": 40},
        {"s": frozenset({"a/x", "b", "é"}), "t": frozenset({"b"})},
    )  # fmt: skip


def _edited(base: Carry) -> Carry:
    """What an edit build makes of `base`: b removed, c added, a/x's line gone, its journal."""
    journal = carry_mod.Journal("k0").then(
        {"s/a/x/SKILL.md": None, "s/b/SKILL.md": None, "s/c/SKILL.md": "s/c/SKILL.md\0d4\n"},
        {"r1": 1, "r2": 0, "r3": 5},
        {"c": (ROW_C, ["all"]), "b": (None, [])},
        {"c": "c", "b": None},
        {"s\0b": False, "s\0c": True},
    )
    return replace(
        base,
        key="k1",
        index="i1",
        lines="s/c/SKILL.md\0d4\ns/é/SKILL.md\0d3\n",
        anchors={},
        shards={"0": "s1"},
        refs={"r1": 1, "r3": 5},
        counts=(2, 4, 8),
        included={"all": ["c"]},
        totals={"all": 9},
        commands={"s": frozenset({"a/x", "c", "é"}), "t": frozenset({"b"})},
        journal=journal,
    )


def _catalog_after() -> Catalog:
    rows = {
        "a/x": ["x", "Nested.", "s/a/x/SKILL.md", True, 50, 30],
        "é": ["e", "Non-ASCII \u2028 and \x00.", "s/é/SKILL.md", False, 41, -1],
        "c": ROW_C,
    }
    listed = {"one": [], "none": [], "all": ["a/x", "c", "é"], "two": ["a/x", "é"]}
    return Catalog(Rows.of(rows), listed, {"c": "c"})


def _unread() -> Catalog:
    raise AssertionError("the catalog rows are not read while the journal is kept")


def test_an_edit_builds_carry_is_kept_as_its_journal_and_read_back_as_made(tmp_path: Path) -> None:
    base = _whole(carry_mod.new_catalog_id())
    save(tmp_path, KEY, base, _catalog())
    edited = _edited(base)
    carry_mod.save_edit(tmp_path, KEY, edited, _unread)
    assert read_signed(tmp_path, carry_mod.NAME, KEY)["key"] == "k0"  # the whole carry is not written
    read = carry_mod.load(tmp_path, KEY, "k1")
    assert read == edited and read.journal == edited.journal
    assert load_catalog(tmp_path, KEY, read) == _catalog_after()
    assert carry_mod.load(tmp_path, KEY, "k0") == base  # the whole carry's own build still reads


def test_a_journal_past_its_limits_writes_the_carry_and_the_catalog_whole(
    tmp_path: Path, monkeypatch
) -> None:
    base = _whole(carry_mod.new_catalog_id())
    save(tmp_path, KEY, base, _catalog())
    edited = _edited(base)
    carry_mod.save_edit(tmp_path, KEY, edited, _unread)  # a journal, then one past the limits
    monkeypatch.setattr(carry_mod, "LIMITS", (2, 10, 10))
    read = carry_mod.load(tmp_path, KEY, "k1")
    assert read is not None
    carry_mod.save_edit(tmp_path, KEY, replace(read, key="k2"), lambda: load_catalog(tmp_path, KEY, read))
    whole = read_signed(tmp_path, carry_mod.NAME, KEY)
    assert whole["key"] == "k2" and whole["catalog"] != base.catalog
    again = carry_mod.load(tmp_path, KEY, "k2")
    assert again == replace(edited, key="k2", catalog=whole["catalog"])
    assert again.journal == carry_mod.Journal("k2")  # started over
    assert load_catalog(tmp_path, KEY, again) == _catalog_after()
    assert carry_mod.load(tmp_path, KEY, "k1") is None  # its journal named a whole carry now gone


def test_a_journal_json_cannot_hold_writes_the_carry_whole(tmp_path: Path) -> None:
    base = _whole(carry_mod.new_catalog_id())
    save(tmp_path, KEY, base, _catalog())
    edited = _edited(base)
    line = "s/c/SKILL.md\0d\udc80\n"  # a lone surrogate: a raw section holds it, JSON does not
    odd = replace(
        edited,
        lines=line + "s/é/SKILL.md\0d3\n",
        journal=edited.journal.then({"s/c/SKILL.md": line}, {}, {}, {}),
    )
    carry_mod.save_edit(tmp_path, KEY, odd, lambda: _catalog_after())
    assert read_signed(tmp_path, carry_mod.NAME, KEY)["key"] == "k1"
    assert carry_mod.load(tmp_path, KEY, "k1") == replace(
        odd, catalog=read_signed(tmp_path, carry_mod.NAME, KEY)["catalog"]
    )


def test_a_whole_carry_of_the_build_is_read_before_any_journal(tmp_path: Path) -> None:
    """A full build made the build the journal was of again: carry.json is that build's carry."""
    base = _whole(carry_mod.new_catalog_id())
    save(tmp_path, KEY, base, _catalog())
    carry_mod.save_edit(tmp_path, KEY, _edited(base), _unread)
    again = replace(base, key="k1", index="whole")
    save(tmp_path, KEY, again, None)
    assert carry_mod.load(tmp_path, KEY, "k1").index == "whole"


@pytest.mark.parametrize("damage", ["base", "signature"])
def test_a_journal_that_does_not_fit_its_carry_is_none(tmp_path: Path, damage: str) -> None:
    base = _whole(carry_mod.new_catalog_id())
    save(tmp_path, KEY, base, _catalog())
    carry_mod.save_edit(tmp_path, KEY, _edited(base), _unread)
    if damage == "base":
        save(tmp_path, KEY, replace(base, key="k9"), None)  # a full build of another build since
    else:
        path = tmp_path / carry_mod.EDITS
        path.write_bytes(path.read_bytes().replace(b'"k1"', b'"k2"'))
    assert carry_mod.load(tmp_path, KEY, "k1") is None
