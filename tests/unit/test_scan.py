"""cache/snapshot._scan: a folder's names as on disk and their kinds, held to a plain loop over
os.scandir (the model) on folders with every kind of entry."""

from __future__ import annotations

import os
import unicodedata

import pytest

from skillc.cache.snapshot import CannotVouch, _scan
from skillc.names.paths import IGNORED_DIRS, nfc


def model(path: str) -> tuple[list[str], str]:
    names, kinds = [], []
    with os.scandir(path) as it:
        for entry in it:
            names.append(entry.name)
            if nfc(entry.name) in IGNORED_DIRS:
                kinds.append("i")
            elif entry.is_dir(follow_symlinks=False):
                kinds.append("d")
            elif entry.is_file(follow_symlinks=False):
                kinds.append("f")
            else:
                kinds.append("l" if entry.is_symlink() else "o")
    return names, "".join(kinds)


def test_every_kind_of_entry_is_told_as_the_loop_tells_it(tmp_path) -> None:
    ignored = sorted(IGNORED_DIRS)[0]
    (tmp_path / "skill").mkdir()
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / ignored).mkdir()
    (tmp_path / "to-file").symlink_to(tmp_path / "notes.md")
    (tmp_path / "to-folder").symlink_to(tmp_path / "skill")
    (tmp_path / "nowhere").symlink_to(tmp_path / "missing")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / unicodedata.normalize("NFD", "café")).mkdir()
    for i in range(50):
        (tmp_path / f"many-{i}").mkdir()
    assert _scan(str(tmp_path)) == model(str(tmp_path))
    assert "i" in _scan(str(tmp_path))[1]


def test_a_name_that_is_not_utf8_cannot_be_vouched_for(tmp_path) -> None:
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"bad-\xff"))
    with pytest.raises(CannotVouch):
        _scan(str(tmp_path))


def test_an_empty_folder(tmp_path) -> None:
    assert _scan(str(tmp_path)) == ([], "")
