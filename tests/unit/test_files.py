"""format/files.read_regular: the bytes of a regular file, bounded, in as few reads as it can."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillc.format import files


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each os.read's answer."""
    seen: list[int] = []
    real = os.read

    def counted(fd: int, n: int) -> bytes:
        data = real(fd, n)
        seen.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counted)
    return seen


@pytest.mark.parametrize("size", [0, 1, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 5])
def test_a_file_is_read_to_its_size_without_an_empty_read_after_it(
    tmp_path: Path, size: int, reads: list[int]
) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * size)
    assert files.read_regular(path, 4 << 20) == b"x" * size
    assert sum(reads) == size
    # No empty read to find the end, but where the size is a whole number of reads (and a file with
    # nothing in it, whose one read is the empty one).
    assert 0 not in reads[:-1] and (reads[-1] != 0 or size % (1 << 20) == 0)


def test_a_file_that_grew_after_the_fstat_is_read_past_its_size_up_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 10)
    real = os.fstat

    def then_grows(fd: int) -> os.stat_result:
        st = real(fd)
        with open(path, "ab") as fh:
            fh.write(b"b" * 10)
        return st

    monkeypatch.setattr(os, "fstat", then_grows)
    assert files.read_regular(path, 100) == b"a" * 10 + b"b" * 10
    with pytest.raises(files.TooLarge):
        files.read_regular(path, 25)  # 20 bytes at the fstat, 30 when read: past the cap
