"""output/settings.py: an export's keys merged into a project's JSON settings, every other key kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillc.output.settings import Held, Setting, SettingsRefused, merge

NAME = ".claude/settings.json"


def doc(data: bytes | None) -> Any:
    return None if data is None else json.loads(data)


def overrides(*commands: str) -> list[Setting]:
    return [Setting(NAME, ("skillOverrides", c), "name-only") for c in commands]


def test_a_new_file_holds_only_the_exports_keys_sorted() -> None:
    data, held = merge(NAME, None, None, overrides("b", "a"))
    assert data == b'{\n  "skillOverrides": {\n    "a": "name-only",\n    "b": "name-only"\n  }\n}\n'
    assert held == Held(True, (("skillOverrides",),), (("skillOverrides", "a"), ("skillOverrides", "b")), ())


def test_every_other_key_and_its_order_is_kept() -> None:
    mine = b'{"model": "x", "permissions": {"allow": ["Bash(ls)"]}, "skillOverrides": {"doctor": "off"}}'
    data, held = merge(NAME, mine, None, overrides("a"))
    assert list(doc(data)) == ["model", "permissions", "skillOverrides"]
    assert doc(data)["skillOverrides"] == {"doctor": "off", "a": "name-only"}
    assert held == Held(False, (), (("skillOverrides", "a"),), ())


def test_a_re_export_takes_back_only_its_own_keys() -> None:
    mine = b'{"skillOverrides": {"doctor": "off"}}'
    data, held = merge(NAME, mine, None, overrides("a", "b"))
    data, held = merge(NAME, data, held, overrides("c"))
    assert doc(data) == {"skillOverrides": {"doctor": "off", "c": "name-only"}}
    data, held = merge(NAME, data, held, [])
    assert doc(data) == {"skillOverrides": {"doctor": "off"}} and held is None


def test_what_the_export_made_goes_when_it_no_longer_needs_it() -> None:
    data, held = merge(NAME, b'{"model": "x"}', None, overrides("a"))
    data, held = merge(NAME, data, held, [])
    assert doc(data) == {"model": "x"} and held is None  # the object it made is gone too
    data, held = merge(NAME, None, None, overrides("a"))
    assert merge(NAME, data, held, []) == (None, None)  # the file it made is gone


def test_a_container_it_made_stays_while_the_project_uses_it_too() -> None:
    data, held = merge(NAME, b"{}", None, overrides("a"))
    grown = json.loads(data or b"")
    grown["skillOverrides"]["mine"] = "off"
    data, held = merge(NAME, json.dumps(grown).encode(), held, [])
    assert doc(data) == {"skillOverrides": {"mine": "off"}}
    assert held == Held(False, (("skillOverrides",),), (), ())  # still the export's to remove once empty


def test_a_key_someone_else_set_is_refused() -> None:
    with pytest.raises(
        SettingsRefused, match=r"skillOverrides\.a is already set, and not by the last export"
    ):
        merge(NAME, b'{"skillOverrides": {"a": "off"}}', None, overrides("a"))


def test_an_edited_value_of_its_own_key_is_replaced() -> None:
    data, held = merge(NAME, None, None, overrides("a"))
    edited = data.replace(b"name-only", b"off") if data else b""
    data, _ = merge(NAME, edited, held, overrides("a"))
    assert doc(data) == {"skillOverrides": {"a": "name-only"}}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b'{"a": 1,}', "not valid JSON"),  # a trailing comma
        (b'// comment\n{"a": 1}', "not valid JSON"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"a": NaN}', "NaN is not JSON"),
        (b'{"a": 1e400}', "out of range"),
        (b"\xff{}", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"skillOverrides": ["a"]}', "skillOverrides is not an object"),
    ],
)
def test_a_file_it_cannot_keep_as_it_is_is_refused(text: bytes, why: str) -> None:
    with pytest.raises(SettingsRefused, match=why):
        merge(NAME, text, None, overrides("a"))


def test_a_file_with_nothing_of_the_exports_is_never_rewritten() -> None:
    mine = b'{ "model":"x" }'
    assert merge(NAME, mine, None, []) == (mine, None)


def test_list_items_are_added_and_taken_back_one_by_one() -> None:
    name = ".gemini/settings.json"
    disabled = [Setting(name, ("skills", "disabled"), n, item=True) for n in ("m", "own")]
    data, held = merge(name, b'{"skills": {"disabled": ["own"]}, "ui": {}}', None, disabled)
    assert doc(data) == {"skills": {"disabled": ["own", "m"]}, "ui": {}}
    assert held is not None and held.items == ((("skills", "disabled"), "m"),)  # "own" was already there
    data, held = merge(name, data, held, [])
    assert doc(data) == {"skills": {"disabled": ["own"]}, "ui": {}}


def test_a_whole_value_is_one_key_written_in_its_own_order() -> None:
    name = "opencode.json"  # the order of opencode's rules is their meaning: the last match wins
    agent = Setting(
        name, ("agent", "lead"), {"mode": "primary", "permission": {"skill": {"*": "deny", "b": "allow"}}}
    )
    data, _ = merge(name, b'{"agent": {"build": {}}}', None, [agent])
    text = (data or b"").decode()
    assert list(doc(data)["agent"]) == ["build", "lead"]
    assert text.index('"*"') < text.index('"b"') and text.index('"mode"') < text.index('"permission"')
    with pytest.raises(SettingsRefused, match=r"agent\.lead"):
        merge(name, data, None, [agent])


def test_the_record_round_trips_through_json() -> None:
    held = Held(True, (("a",),), (("a", "b.c"),), ((("x", "y"), "v"),))
    assert Held.from_json(json.loads(json.dumps(held.json()))) == held
    assert Held.from_json({"created": "yes"}) is None


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(_KEYS.filter(lambda k: k != "skillOverrides"), _JSON, max_size=5))
def test_an_export_and_its_removal_leave_any_project_file_equal(project: dict[str, Any]) -> None:
    original = json.dumps(project).encode()
    data, held = merge(NAME, original, None, overrides("a", "b"))
    assert {k: v for k, v in doc(data).items() if k != "skillOverrides"} == project
    data, held = merge(NAME, data, held, [])
    assert doc(data) == project and held is None
