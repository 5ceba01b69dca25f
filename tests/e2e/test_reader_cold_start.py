"""The reader's cold start: what it imports, and the stand-ins that keep `json`, `re` and
`dataclasses` out of it (their import is most of a cold start; bench/targets.py has the figures)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.files import GOLDEN_DIST

from skillc import reader
from skillc.format.jsonio import _loads
from skillc.reader import vendor

HEAVY = ("json", "re", "dataclasses", "inspect", "enum", "hashlib", "typing")


def test_open_catalog_and_load_import_nothing_heavy(tmp_path: Path) -> None:
    """The single-file reader, alone, without site: the cold path a deployed application takes."""
    (tmp_path / "reader.py").write_text(vendor.bundle(), "utf-8")
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import reader\n"
        f"d = reader.open({str(GOLDEN_DIST)!r})\n"
        "d.catalog('pilot'); d.load('pilot', 'alpha').render(); d.skill_meta('alpha')\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_arguments_still_substitute_once_re_is_needed(tmp_path: Path) -> None:
    (tmp_path / "reader.py").write_text(vendor.bundle(), "utf-8")
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import reader\n"
        "print(reader.substitute('go $ARGUMENTS[1] $who', 'a b', names=('who',)))\n"
    )
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "go b a"


# --- JSON through _json's C scanner ---------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(JSON, st.sampled_from(["", " ", "\n", "\t\r\n "]), st.booleans())
def test_loads_reads_what_json_loads_reads(value: object, space: str, indent: bool) -> None:
    text = space + json.dumps(value, indent=2 if indent else None, ensure_ascii=False) + space
    assert _loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ["", " ", "[1", "[1] x", "{'a': 1}", '{"a": 1,}', '"\x01"', "\x0c[1]", "[1]\x0b", '{"a":1,"a":2}', "01"],
)
def test_loads_refuses_what_json_refuses_and_duplicate_keys(text: str) -> None:
    with pytest.raises(ValueError):
        _loads(text)


# --- frozen records ------------------------------------------------------------------


def meta(**changes: object) -> reader.ResourceMeta:
    fields: dict[str, object] = {"path": "a.md", "sha256": "00", "size": 1, "executable": False}
    return reader.ResourceMeta(**{**fields, **changes})  # type: ignore[arg-type]


def test_records_compare_hash_and_print_by_value() -> None:
    a, b = meta(), reader.ResourceMeta("a.md", "00", 1, False)
    assert a == b and hash(a) == hash(b) and a != meta(size=2)
    assert repr(a) == "ResourceMeta(path='a.md', sha256='00', size=1, executable=False)"
    assert a != ("a.md", "00", 1, False)  # a record, not a tuple


def test_records_are_frozen_and_survive_pickling() -> None:
    a = meta()
    with pytest.raises(reader.FrozenRecordError):
        a.size = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):  # as dataclasses.FrozenInstanceError is
        del a.path  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a


def test_records_take_defaults_and_refuse_bad_arguments() -> None:
    fields = dict.fromkeys(("id", "name", "faction", "fallback", "allowlist"))
    persona = reader.PersonaMeta(  # type: ignore[arg-type]
        **fields, chain=(), unrestricted=False, budget=1, catalog_chars=0, included=(), left_out=()
    )
    assert persona.shortened == ()
    with pytest.raises(TypeError, match="missing"):
        reader.ResourceMeta("a.md", "00", 1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected"):
        meta(colour="red")
    with pytest.raises(TypeError, match="takes 4"):
        reader.ResourceMeta("a.md", "00", 1, False, 5)  # type: ignore[call-arg]
    match reader.ResourceMeta("a.md", "00", 1, True):
        case reader.ResourceMeta(path, _, _, executable):
            assert (path, executable) == ("a.md", True)


@given(st.text(alphabet=st.sampled_from("aZ_-09é $\n"), max_size=6))
def test_argument_names_are_checked_as_the_pattern_says(name: str) -> None:
    import re

    from skillc.reader.prompts import _name_arg

    assert _name_arg(name) == bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name))


@given(st.text(alphabet=st.sampled_from("0123456789abcdefABCgz \n+é\x00"), max_size=9))
def test_bulk_hex_check_agrees_with_a_character_by_character_one(text: str) -> None:
    from skillc.format.documents import _all_hex

    assert _all_hex(text) == all(c in "0123456789abcdef" for c in text)
