"""The reader's frozen records: equal, hashed and printed by value, frozen, picklable."""

from __future__ import annotations

import pickle

import pytest

from skillc import reader


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
