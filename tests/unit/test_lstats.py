"""incremental/lstats.py: one lstat of each of many paths, their ctimes and inode numbers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillc.incremental import lstats


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[tuple[list[str], int]]:
    for i in range(40):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "SKILL.md").write_text(f"skill {i}\n")
    paths = sorted(p for i in range(40) for p in (f"d{i}", f"d{i}/SKILL.md"))
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield paths, fd
    os.close(fd)


def one_by_one(path: str, fd: int) -> os.stat_result | None:
    try:
        return os.lstat(path, dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        return None


@pytest.mark.parametrize("gone", [[], [0], [79], [0, 1, 2], [5, 40, 41, 78, 79], list(range(0, 80, 3))])
def test_each_path_not_there_is_gone_and_the_others_are_found(tree, tmp_path, gone) -> None:
    """The map goes on past a path that is not there: the first, the last, runs of them; a folder
    gone takes its file with it (NotADirectoryError or FileNotFoundError either way)."""
    paths, fd = tree
    for i in sorted(gone, reverse=True):
        target = tmp_path / paths[i]
        if target.is_dir():
            for inner in target.iterdir():
                inner.unlink()
            target.rmdir()
        elif target.exists():
            target.unlink()
    want = [one_by_one(p, fd) for p in paths]
    ctimes, inodes = lstats.look(paths, fd)
    assert list(inodes) == [lstats.GONE if st is None else st.st_ino for st in want]
    assert list(ctimes) == [lstats.GONE if st is None else st.st_ctime_ns for st in want]
    assert sum(ino == lstats.GONE for ino in inodes) >= len(gone)


@pytest.mark.parametrize("asked", ["the same", "fewer paths", "another folder"])
def test_a_look_takes_what_was_begun_for_its_paths_and_ends_anything_else(tree, tmp_path, monkeypatch, asked):
    """`begin` forks a child taking the lstats (quick.start); `look` takes its answer for the very
    paths below the very folder, and otherwise ends it and takes them itself: the same numbers."""
    from support.forks import reaped

    from skillc.incremental import aside

    paths, fd = tree
    monkeypatch.setattr(lstats, "SPLIT_AT", 1)
    monkeypatch.setattr(aside, "forkable", lambda: True)
    lstats.begin(paths, str(tmp_path))
    child = lstats._begun[-1][0]
    want = lstats._look(paths, fd)
    if asked == "the same":
        assert lstats.look(paths, fd) == want
    elif asked == "fewer paths":
        assert lstats.look(paths[1:], fd) == (want[0][1:], want[1][1:])
    else:
        other = os.open(tmp_path / "d0", os.O_RDONLY | os.O_DIRECTORY)
        try:
            assert lstats.look(["SKILL.md"], other)[1][0] == os.lstat(tmp_path / "d0/SKILL.md").st_ino
        finally:
            os.close(other)
    assert not lstats._begun and reaped(child.pid)


def test_discard_ends_what_was_begun(tree, tmp_path, monkeypatch):
    from support.forks import reaped

    from skillc.incremental import aside

    paths, _fd = tree
    monkeypatch.setattr(lstats, "SPLIT_AT", 1)
    monkeypatch.setattr(aside, "forkable", lambda: True)
    lstats.begin(paths, str(tmp_path))
    child = lstats._begun[-1][0]
    lstats.discard()
    assert not lstats._begun and reaped(child.pid)
