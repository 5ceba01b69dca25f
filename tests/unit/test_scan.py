"""cache/snapshot._scan: a folder's names as on disk and the kind of each (snapshot.Folder), on
folders with every kind of entry."""

from __future__ import annotations

import os
import unicodedata

import pytest

from skillc.incremental.snapshot import CannotVouch, _scan


def test_every_kind_of_entry_is_told(tmp_path) -> None:
    (tmp_path / "skill").mkdir()
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / ".git").mkdir()  # never entered (names.paths.IGNORED_DIRS)
    (tmp_path / ".svn").write_text("a file by an ignored name")
    (tmp_path / "to-file").symlink_to(tmp_path / "notes.md")
    (tmp_path / "to-folder").symlink_to(tmp_path / "skill")
    (tmp_path / "nowhere").symlink_to(tmp_path / "missing")
    os.mkfifo(tmp_path / "pipe")
    accented = unicodedata.normalize("NFD", "café")
    (tmp_path / accented).mkdir()
    names, kinds = _scan(str(tmp_path))
    assert sorted(names) == sorted(os.listdir(tmp_path))  # as on disk: not normalized, in its order
    assert dict(zip(names, kinds, strict=True)) == {
        "skill": "d",
        "notes.md": "f",
        ".git": "i",
        ".svn": "i",
        "to-file": "l",
        "to-folder": "l",
        "nowhere": "l",
        "pipe": "o",
        accented: "d",
    }


def test_a_name_that_is_not_utf8_cannot_be_vouched_for(tmp_path) -> None:
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"bad-\xff"))
    with pytest.raises(CannotVouch):
        _scan(str(tmp_path))


def test_an_empty_folder(tmp_path) -> None:
    assert _scan(str(tmp_path)) == ([], "")
