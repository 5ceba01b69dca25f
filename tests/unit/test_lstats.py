"""incremental/lstats.py: one lstat of each of many paths, half of them in a forked child where that is safe."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from support.forks import reaped, split_lstats

from skillc.incremental import lstats

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[list[str], int]:
    for i in range(40):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "SKILL.md").write_text(f"skill {i}\n")
    paths = sorted(p for i in range(40) for p in (f"d{i}", f"d{i}/SKILL.md"))
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield paths, fd
    os.close(fd)


def serial(paths: list[str], fd: int) -> lstats.Looked:
    stats = [lstats.lstat_or_none(p, fd) for p in paths]
    return lstats.Looked(stats, *lstats._keys(stats))


@pytest.mark.parametrize("chunk", [1, 3, 4, 1024])
def test_a_split_look_finds_what_one_process_finds(tree, monkeypatch, chunk) -> None:
    paths, fd = tree
    split_lstats(monkeypatch, True)
    monkeypatch.setattr(lstats, "CHUNK", chunk)
    for _ in range(5):  # who wins which claim differs from run to run: each way gives the same
        found, want = lstats.look(paths, fd), serial(paths, fd)
        assert (found.ctimes, found.inodes) == (want.ctimes, want.inodes)
        taken = len(found.taken)  # whole chunks from the first: the child's have no stat results here
        assert taken % chunk == 0 or taken == len(paths)
        assert [st.st_ino for st in found.taken] == list(want.inodes[:taken])


@pytest.mark.parametrize("claims", [0, 1, 3, 7])
def test_the_childs_chunks_are_the_last_ones_in_path_order(tree, claims) -> None:
    """The child takes a chunk from the last back for each claim it wins, and sends their numbers
    in path order: a run to the end of the paths."""
    paths, fd = tree
    size, chunks = 11, -(-len(paths) // 11)  # 80 paths: eight chunks, the last one short
    claim_r, claim_w = os.pipe()
    os.write(claim_w, bytes(claims))
    os.close(claim_w)
    out_r, out_w = os.pipe()
    lstats._theirs(paths, fd, size, chunks, claim_r, out_w, None, -1)  # it closes the write end
    os.close(claim_r)
    with open(out_r, "rb") as pipe:
        sent = pipe.read()
    start = max(0, (chunks - claims) * size)
    want = serial(paths[start:], fd)
    assert sent == want.ctimes.tobytes() + want.inodes.tobytes()


def recorded_now(paths: list[str], fd: int) -> lstats.Recorded:
    want = serial(paths, fd)
    return lstats.Recorded(want.ctimes, want.inodes)


def counting_claims(monkeypatch) -> list[int]:
    """How many paths each lstat_each of this process took, in order."""
    claimed: list[int] = []
    real = lstats.lstat_each

    def counting(these, at):
        claimed.append(len(these))
        return real(these, at)

    monkeypatch.setattr(lstats, "lstat_each", counting)
    return claimed


def test_meanwhile_runs_once_a_change_is_found_and_only_with_a_child(tree, tmp_path, monkeypatch) -> None:
    """`meanwhile` (the quick path's reading ahead for an edit build) runs while the child takes
    lstats, once a path's numbers are not the recorded ones: in this process's first chunk here,
    given that path's place. Without a change (a no-op) it never runs; without a child neither.
    The numbers are the same."""
    paths, fd = tree
    monkeypatch.setattr(lstats, "CHUNK", 4)
    unchanged = recorded_now(paths, fd)
    (tmp_path / paths[1]).write_text("edited\n")  # d0/SKILL.md: in the first chunk
    claimed = counting_claims(monkeypatch)
    real_theirs = lstats._theirs

    def late(*args):  # the child waits: this process takes the first chunk, whatever the load
        time.sleep(0.3)
        real_theirs(*args)

    monkeypatch.setattr(lstats, "_theirs", late)
    for split in (True, False):
        split_lstats(monkeypatch, split)
        for known, runs in ((unchanged, [(1, 1)] if split else []), (recorded_now(paths, fd), [])):
            ran: list[tuple[int, int | None]] = []
            del claimed[:]
            found = lstats.look(paths, fd, lambda at, ran=ran: ran.append((len(claimed), at)), known)
            want = serial(paths, fd)
            assert (found.ctimes, found.inodes) == (want.ctimes, want.inodes)
            assert ran == runs


def test_without_recorded_numbers_meanwhile_runs_before_any_chunk(tree, monkeypatch) -> None:
    paths, fd = tree
    monkeypatch.setattr(lstats, "CHUNK", 4)
    split_lstats(monkeypatch, True)
    claimed = counting_claims(monkeypatch)
    ran: list[tuple[int, int | None]] = []
    lstats.look(paths, fd, lambda at: ran.append((len(claimed), at)))
    assert ran == [(0, None)]


def test_the_child_says_once_that_it_found_a_change_and_where(tree, tmp_path) -> None:
    paths, fd = tree
    known = recorded_now(paths, fd)
    for i in (-1, -3):  # two changes in the child's chunks (the last first): one "!", the first found
        os.utime(tmp_path / paths[i], ns=(1, 1))
    size, chunks = 11, -(-len(paths) // 11)
    claim_r, claim_w = os.pipe()
    os.write(claim_w, bytes(chunks))
    os.close(claim_w)
    out_r, out_w = os.pipe()
    found_r, found_w = os.pipe()
    lstats._theirs(paths, fd, size, chunks, claim_r, out_w, known, found_w)
    os.close(found_w)
    os.close(claim_r)
    with open(out_r, "rb") as pipe:
        pipe.read()
    with open(found_r, "rb") as told:
        assert told.read() == b"!" + (len(paths) - 3).to_bytes(8, "little")


def test_the_child_s_word_is_read_whole_or_not_at_all() -> None:
    read, write = os.pipe()
    os.set_blocking(read, False)
    assert lstats._signalled(read) is None  # nothing said yet
    os.write(write, b"!" + (70000).to_bytes(8, "little"))
    assert lstats._signalled(read) == 70000
    os.close(write)
    assert lstats._signalled(read) is None  # done without another word
    os.close(read)


def test_the_first_moved_path_is_the_first_whose_numbers_differ() -> None:
    import array

    recorded = lstats.Recorded(array.array("q", [1, 2, 3, 4, 5]), array.array("q", [9, 9, 9, 9, 9]))
    now = array.array("q", [3, 4, 5])
    assert recorded.first_moved(2, now, array.array("q", [9, 9, 9])) is None
    assert recorded.first_moved(2, now, array.array("q", [9, 8, 9])) == 3  # an inode number
    assert recorded.first_moved(1, array.array("q", [2, 3, 7, 5]), array.array("q", [9] * 4)) == 3


def test_a_meanwhile_that_raises_leaves_no_child_behind(tree, monkeypatch) -> None:
    paths, fd = tree
    split_lstats(monkeypatch, True)
    forked: list[int] = []
    real_fork = lstats._fork

    def fork(*args):
        split = real_fork(*args)
        forked.append(split.pid)
        return split

    def boom(_at: int | None) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lstats, "_fork", fork)
    with pytest.raises(KeyboardInterrupt):
        lstats.look(paths, fd, boom)
    assert forked and reaped(forked[0])


def test_paths_gone_are_gone_in_either_half(tree, tmp_path, monkeypatch) -> None:
    paths, fd = tree
    monkeypatch.setattr(lstats, "CHUNK", 8)
    first, last = paths[1], paths[-1]  # one in each half
    os.unlink(tmp_path / first)
    os.unlink(tmp_path / last)
    for split in (True, False):
        split_lstats(monkeypatch, split)
        found = lstats.look(paths, fd)
        gone = [p for p, c, i in zip(paths, found.ctimes, found.inodes, strict=True) if c == i == lstats.GONE]
        assert gone == [first, last]
        assert len(found.taken) < 2 or found.taken[1] is None


def test_a_child_that_fails_costs_only_the_split(tree, monkeypatch) -> None:
    paths, fd = tree
    split_lstats(monkeypatch, True)
    parent, real = os.getpid(), lstats._keys

    def failing(taken):
        if os.getpid() != parent:
            raise OverflowError("an inode number past 2**63")
        return real(taken)

    monkeypatch.setattr(lstats, "_keys", failing)
    found, want = lstats.look(paths, fd), serial(paths, fd)
    assert (found.ctimes, found.inodes) == (want.ctimes, want.inodes)


def test_no_fork_with_another_thread_or_one_core(monkeypatch) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not lstats.forkable()
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert not lstats.forkable()


def test_only_one_thread_forks(monkeypatch) -> None:
    if threading.active_count() > 1 or len(os.listdir("/proc/self/task")) > 1:
        pytest.skip("the test runner has other threads")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert lstats.forkable()


@pytest.mark.parametrize("gone", [[], [0], [79], [0, 1, 2], [5, 40, 41, 78, 79], list(range(0, 80, 3))])
def test_each_path_not_there_is_none_and_the_others_are_found(tree, tmp_path, gone) -> None:
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
    found = lstats.lstat_each(paths, fd)
    want = [lstats.lstat_or_none(p, fd) for p in paths]
    assert [None if st is None else st.st_ino for st in found] == [
        None if st is None else st.st_ino for st in want
    ]
    assert sum(st is None for st in found) >= len(gone)


@pytest.mark.parametrize("begun", ["the same", "fewer paths", "another folder"])
def test_a_look_joins_what_was_begun_for_its_paths_and_ends_anything_else(
    tree, tmp_path, monkeypatch, begun
) -> None:
    """`begin` forks the child before the build asks. A look of the same paths below the same folder
    (an equal list, another descriptor on it) joins that child; any other look ends it and takes its
    own. Either way it finds what one process finds, and no child is left."""
    paths, fd = tree
    split_lstats(monkeypatch, True)
    monkeypatch.setattr(lstats, "CHUNK", 3)
    begun_paths, below = {
        "the same": (list(paths), tmp_path),
        "fewer paths": (paths[:-1], tmp_path),
        "another folder": (paths, tmp_path / "d0"),
    }[begun]
    joined: list[bool] = []
    real_take = lstats._take

    def take(asked: list[str], at: int) -> object:
        split = real_take(asked, at)
        joined.append(split is not None)
        return split

    monkeypatch.setattr(lstats, "_take", take)
    for _ in range(3):
        lstats.begin(begun_paths, str(below))
        assert len(lstats._early) == 1
        pid = lstats._early[0].split.pid
        found, want = lstats.look(paths, fd), serial(paths, fd)
        assert (found.ctimes, found.inodes) == (want.ctimes, want.inodes)
        assert not lstats._early and reaped(pid)
    assert joined == [begun == "the same"] * 3


def test_discard_ends_the_child_and_a_second_begin_ends_the_first(tree, tmp_path, monkeypatch) -> None:
    paths, _fd = tree
    split_lstats(monkeypatch, True)
    monkeypatch.setattr(lstats, "CHUNK", 1)
    lstats.begin(paths, str(tmp_path))
    first = lstats._early[0].split.pid
    lstats.begin(paths, str(tmp_path))
    assert reaped(first) and len(lstats._early) == 1
    second = lstats._early[0].split.pid
    lstats.discard()
    assert not lstats._early and reaped(second)
    lstats.discard()  # nothing begun: nothing to do


def test_nothing_is_begun_where_look_would_not_fork(tree, tmp_path, monkeypatch) -> None:
    paths, fd = tree
    split_lstats(monkeypatch, False)
    lstats.begin(paths, str(tmp_path))
    assert not lstats._early
    found, want = lstats.look(paths, fd), serial(paths, fd)
    assert (found.ctimes, found.inodes) == (want.ctimes, want.inodes)
