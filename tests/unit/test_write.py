"""The write stage on hand-built Artifacts: the first write renames a new tree into place, a rewrite
goes in place with the index last, --prune removes what no index names."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from skillc.format import layout as fmt
from skillc.model import Artifacts
from skillc.output import write as w


def _art(objects: list[bytes], copies: dict[str, bytes], label: str) -> Artifacts:
    files = {fmt.object_path(hashlib.sha256(o).hexdigest()): o for o in objects}
    files |= copies
    # The index names the prompt copies: they are skillc's while an index on disk does (ownership.py).
    personas = {rel.split("/")[1]: {"copy": rel} for rel in copies}
    files[fmt.INDEX] = json.dumps({"build": label, "personas": personas}).encode()
    files[fmt.OUTPUT_MARKER] = fmt.OUTPUT_MARKER_TEXT
    rels = frozenset(r for r in files if fmt.is_object(r))
    return Artifacts(dict(sorted(files.items())), rels, "ab" * 32)


ONE = _art([b"kept", b"old"], {"personas/a/prompt.xml": b"A1", "personas/b/prompt.xml": b"B"}, "one")
TWO = _art([b"kept", b"new"], {"personas/a/prompt.xml": b"A2"}, "two")


def _files(dist: Path) -> dict[str, bytes]:
    return {p.relative_to(dist).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}


def test_the_commit_order_is_marker_objects_copies_index() -> None:
    todo = {fmt.INDEX, fmt.OUTPUT_MARKER, "personas/a/prompt.xml", "objects/ff/f", "objects/00/0"}
    order = w._commit_order(todo, frozenset({"objects/ff/f", "objects/00/0"}))
    assert order == [fmt.OUTPUT_MARKER, "objects/00/0", "objects/ff/f", "personas/a/prompt.xml", fmt.INDEX]


def test_a_rewrite_goes_in_place_and_keeps_what_an_old_reader_needs(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    assert w.write(dist, ONE).written
    kept = dist / next(r for r, d in ONE.files.items() if d == b"kept")
    inode, top = kept.stat().st_ino, dist.stat().st_ino
    assert w.write(dist, TWO) == w.WriteResult(True, 0)
    got = _files(dist)
    assert {r: got[r] for r in TWO.files} == dict(TWO.files)
    assert set(got) - set(TWO.files) == {r for r, d in ONE.files.items() if d == b"old"}  # not pruned
    assert kept.stat().st_ino == inode and dist.stat().st_ino == top  # nothing rewritten or swapped
    assert not (dist / "personas/b").exists()  # the dropped persona's copy and its folder


def test_prune_leaves_only_the_new_build(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    w.write(dist, ONE)
    assert w.write(dist, TWO, prune=True) == w.WriteResult(True, 1)
    assert _files(dist) == dict(TWO.files)
    assert sorted(p.name for p in (dist / "objects").iterdir()) == sorted(
        r.split("/")[1] for r in TWO.objects
    )  # the pruned object's folder went with it
    assert w.write(dist, TWO, prune=True) == w.WriteResult(False, 0)


def test_a_failed_rewrite_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "dist"
    w.write(dist, ONE)

    def full(path: str, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(w, "_put", full)
    with pytest.raises(OSError):
        w.write(dist, TWO)
    assert _files(dist) == dict(ONE.files)
    assert not [n for n in os.listdir(dist) if n.startswith(fmt.TEMP_PREFIX)]
