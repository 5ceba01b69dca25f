"""output/survey.py: which objects of an output hold what their names say, as its helper finds them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillc import fs
from skillc.output import survey

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the survey needs memfd (Linux)")


def _object(dist: Path, data: bytes) -> str:
    name = hashlib.sha256(data).hexdigest()
    rel = f"objects/{name[:2]}/{name}"
    (dist / rel).parent.mkdir(parents=True, exist_ok=True)
    (dist / rel).write_bytes(data)
    return rel


def _found(dist: Path) -> dict[str, list[int]]:
    out = os.memfd_create("test")
    try:
        survey.survey(str(dist), out)
        return dict(survey.Found(os.pread(out, os.fstat(out).st_size, 0)))
    finally:
        os.close(out)


def test_each_object_that_holds_its_name_is_known_with_its_stat_data(tmp_path: Path) -> None:
    good = [_object(tmp_path, b"a body\n"), _object(tmp_path, b""), _object(tmp_path, bytes(range(256)) * 70)]
    found = _found(tmp_path)
    assert found == {rel: fs.output_stat(os.lstat(tmp_path / rel)) for rel in good}


def test_an_object_that_does_not_hold_its_name_is_left_out(tmp_path: Path) -> None:
    kept = _object(tmp_path, b"kept\n")
    edited = _object(tmp_path, b"same size\n")
    (tmp_path / edited).write_bytes(b"SAME SIZE\n")
    grown = _object(tmp_path, b"grown\n")
    (tmp_path / grown).write_bytes(b"grown\nand more\n")
    assert set(_found(tmp_path)) == {kept}


def test_what_is_no_object_file_is_left_out(tmp_path: Path) -> None:
    kept = _object(tmp_path, b"kept\n")
    data = b"elsewhere\n"
    name = hashlib.sha256(data).hexdigest()
    (tmp_path / "objects" / "zz").mkdir()
    (tmp_path / "objects" / "zz" / name).write_bytes(data)  # a folder that is no two hex digits
    other = "00" if not name.startswith("00") else "01"
    (tmp_path / "objects" / other).mkdir(exist_ok=True)
    (tmp_path / "objects" / other / name).write_bytes(data)  # the wrong folder for its name
    (tmp_path / "objects" / name[:2]).mkdir(exist_ok=True)
    (tmp_path / "objects" / name[:2] / name.upper()).write_bytes(data)  # not lowercase hex
    target = tmp_path / "target"
    target.write_bytes(data)
    (tmp_path / "objects" / name[:2] / name).symlink_to(target)  # a symlink is never followed
    fifo = hashlib.sha256(b"fifo").hexdigest()
    (tmp_path / "objects" / fifo[:2]).mkdir(exist_ok=True)
    os.mkfifo(tmp_path / "objects" / fifo[:2] / fifo)  # never opened to wait for a writer
    assert set(_found(tmp_path)) == {kept}


def test_a_linked_objects_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _object(elsewhere, b"elsewhere\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "objects").symlink_to(elsewhere / "objects")
    assert _found(tmp_path / "dist") == {}
    assert survey.start(str(tmp_path / "dist")) is None


def test_a_record_cut_short_is_left_out(tmp_path: Path) -> None:
    rels = [_object(tmp_path, bytes([i]) * i) for i in range(5)]
    out = os.memfd_create("test")
    try:
        survey.survey(str(tmp_path), out)
        data = os.pread(out, os.fstat(out).st_size, 0)
    finally:
        os.close(out)
    whole = dict(survey.Found(data))
    assert set(whole) == set(rels)
    cut = dict(survey.Found(data[:-1]))
    assert len(cut) == len(rels) - 1 and cut.items() <= whole.items()


@settings(max_examples=30)
@given(st.lists(st.tuples(st.binary(max_size=64), st.booleans()), max_size=12))
def test_the_records_are_exactly_the_objects_that_hold_their_names(objects: list[tuple[bytes, bool]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        dist = Path(where)
        spoilt_now: dict[str, bool] = {}  # the last write of a name is what it holds
        for data, spoilt in objects:
            rel = _object(dist, data)
            if spoilt:
                (dist / rel).write_bytes(data + b"!")
            spoilt_now[rel] = spoilt
        assert set(_found(dist)) == {rel for rel, spoilt in spoilt_now.items() if not spoilt}


def test_the_helper_finds_them_in_its_own_process(tmp_path: Path) -> None:
    rels = {_object(tmp_path, f"object {i}\n".encode()) for i in range(40)}
    running = survey.start(str(tmp_path))
    if running is None:
        pytest.skip("no helper on this machine (one core, or no memfd)")
    assert set(running.known(wait=True)) == rels


@settings(max_examples=50)
@given(
    st.lists(st.binary(min_size=32, max_size=32), unique=True, max_size=40),
    st.lists(st.binary(min_size=32, max_size=32), max_size=60),
)
def test_a_lookup_finds_a_record_in_any_order(digests: list[bytes], asked: list[bytes]) -> None:
    ordered = sorted(digests)
    data = b"".join(survey._RECORD.pack(d, i, 2, 3, 4, 5) for i, d in enumerate(ordered))
    found = survey.Found(data)
    for digest in asked + digests + sorted(asked):  # out of order, then in order
        rel = f"objects/{digest.hex()[:2]}/{digest.hex()}"
        want = [ordered.index(digest), 2, 3, 4, 5] if digest in ordered else None
        assert found.get(rel) == want
    assert found.get("objects/zz/" + "0" * 64) is None
    assert found.get("personas/p/prompt.md") is None


def test_a_helper_stopped_at_once_leaves_nothing_behind(tmp_path: Path) -> None:
    for i in range(40):
        _object(tmp_path, f"object {i}\n".encode())
    running = survey.start(str(tmp_path))
    if running is None:
        pytest.skip("no helper on this machine (one core, or no memfd)")
    pid = running._pid
    found = running.known()  # stopped wherever it was: some, all, or none
    assert all(rel.startswith("objects/") for rel in found)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left


def test_no_objects_folder_starts_no_helper(tmp_path: Path) -> None:
    assert survey.start(str(tmp_path)) is None
    assert survey.start(str(tmp_path / "absent")) is None
