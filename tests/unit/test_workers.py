"""workers.share: chunks done once each, by this process or forked helpers, none left behind."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from skillc.stages import workers

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="share forks its helpers")


def _children() -> set[str]:
    """This process's children, living or zombies (Linux; elsewhere nothing to compare)."""
    tasks = "/proc/self/task"
    found: set[str] = set()
    for task in os.listdir(tasks) if os.path.isdir(tasks) else []:
        with open(f"{tasks}/{task}/children") as fh:
            found.update(fh.read().split())
    return found


@pytest.fixture(autouse=True)
def _reaped() -> Iterator[None]:
    """Every helper share forked is gone and reaped when it returns (other tests' children aside)."""
    before = _children()
    yield
    assert _children() <= before


@pytest.mark.parametrize("helpers", [0, 1, 3])
def test_every_chunk_is_done_once_and_the_helpers_are_reaped(helpers: int) -> None:
    mine, theirs = workers.share(40, helpers, lambda k: ("here", k * k), lambda k: ("there", k * k))
    assert sorted([*mine, *theirs]) == list(range(40))  # each once: the two never share a chunk
    assert all(v == ("here", k * k) for k, v in mine.items())
    assert all(v == ("there", k * k) for k, v in theirs.items())
    assert helpers or not theirs


def test_a_helper_that_fails_leaves_its_chunks_to_the_caller() -> None:
    def there(k: int) -> int:
        raise RuntimeError("a bug in the check")

    mine, theirs = workers.share(30, 2, lambda k: k, there)
    assert theirs == {}  # what the helpers claimed is in neither: the caller checks it itself
    assert set(mine) <= set(range(30))


def test_ctrl_c_in_this_process_kills_the_helpers() -> None:
    def here(k: int) -> int:
        raise KeyboardInterrupt

    def there(k: int) -> int:
        time.sleep(0.05)  # 200 chunks: the helpers cannot take them all before this process claims one
        return k

    with pytest.raises(KeyboardInterrupt):
        workers.share(200, 2, here, there)


def test_more_chunks_than_the_claims_pipe_holds_is_refused() -> None:
    with pytest.raises(ValueError, match="at most"):
        workers.share(workers.MAX_CHUNKS + 1, 1, lambda k: k, lambda k: k)


def test_a_helper_results_arrive_whole_when_they_exceed_a_pipe() -> None:
    """A helper writes its results once, more than a pipe holds: the parent reads all of it."""
    big = "x" * 200_000
    mine, theirs = workers.share(8, 1, lambda k: big, lambda k: big)
    assert sorted([*mine, *theirs]) == list(range(8))
    assert all(v == big for v in [*mine.values(), *theirs.values()])


def test_a_chunk_larger_than_the_enlarged_pipe_arrives_whole() -> None:
    """A helper sends each chunk as it finishes it; one larger than the pipe holds waits for this
    process to read, between its own chunks or at the end, and arrives whole."""
    big = "y" * (3 * workers._PIPE_BYTES)
    mine, theirs = workers.share(6, 2, lambda k: (time.sleep(0.01), k)[1], lambda k: big)
    assert sorted([*mine, *theirs]) == list(range(6))
    assert all(v == big for v in theirs.values())


@pytest.mark.parametrize("streams", [True, False])
def test_results_arrive_whether_or_not_the_pipe_can_be_enlarged(
    streams: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a pipe cannot be enlarged (not Linux), a helper sends everything once, at the end."""
    monkeypatch.setattr(workers, "_enlarge", lambda fd: streams)
    mine, theirs = workers.share(50, 1, lambda k: (time.sleep(0.002), -k)[1], lambda k: [k] * 1000)
    assert sorted([*mine, *theirs]) == list(range(50))
    assert all(v == -k for k, v in mine.items()) and all(v == [k] * 1000 for k, v in theirs.items())
    assert theirs  # the helper took some: the parent sleeps on each of its own


def test_a_helper_that_dies_after_sending_some_chunks_leaves_all_of_its_chunks() -> None:
    """Chunks a helper sent before it died are dropped with the rest: the caller checks them all."""
    sent: list[int] = []

    def there(k: int) -> int:
        sent.append(k)
        if len(sent) == 3:
            os._exit(3)
        return k

    mine, theirs = workers.share(40, 1, lambda k: (time.sleep(0.005), k)[1], there)
    assert theirs == {}
    assert set(mine) <= set(range(40)) and len(mine) < 40  # the helper's chunks are in neither


@pytest.mark.parametrize("streams", [True, False])
def test_a_helper_result_is_adopted_here_once(streams: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """adopt turns each of a helper's results into what the caller keeps, in this process, once."""
    monkeypatch.setattr(workers, "_enlarge", lambda fd: streams)
    adopted: list[int] = []

    def adopt(k: int, result: int) -> tuple[str, int]:
        adopted.append(k)
        assert os.getpid() == here_pid
        return ("adopted", result)

    here_pid = os.getpid()
    mine, theirs = workers.share(30, 1, lambda k: (time.sleep(0.002), k)[1], lambda k: k * 2, adopt)
    assert theirs and all(v == ("adopted", k * 2) for k, v in theirs.items())
    assert sorted(adopted) == sorted(theirs) and all(v == k for k, v in mine.items())
