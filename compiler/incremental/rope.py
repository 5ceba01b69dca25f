"""Ropes: sequences made of ranges of a base sequence and of literal pieces.

How walk-edits.json keeps the walk's manifest after edit builds, relative to walk.json
(manifest.py `Renewal`), so that an edit build writes what it changed and not 2.7 MB again. A rope's
parts are (BASE, start, end), the base's items start to end, and (POOL, start, end), its own pool's.
The items are those of the sequence a rope stands for: a list's items, an array's values, a string's
characters. An edit build makes the next rope from the ranges of the current sequence it keeps and
the literal items it adds (`Splicer`); the current sequence is itself a rope over the base, so the
ranges it keeps become ranges of the base, and the pool holds only the literal items still in use.
"""

from __future__ import annotations

import array
import bisect
from collections.abc import Callable, Sequence
from itertools import accumulate, chain
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..dataclass import dataclass
from .packed import Raw, pack, unpack

BASE, POOL = 0, 1
if TYPE_CHECKING:
    T = TypeVar("T", list[str], array.array[int], str)
else:  # a string among the constraints is compiled when the module is imported: the process's first
    T = TypeVar("T")  # compile(), 1.5-2 ms before the lstats start


@dataclass(frozen=True)
class Rope(Generic[T]):
    parts: tuple[tuple[int, int, int], ...]
    pool: T

    @staticmethod
    def whole(length: int, empty: T) -> Rope[T]:
        """The base itself."""
        return Rope(((BASE, 0, length),) if length else (), empty)

    def __len__(self) -> int:
        return sum(end - start for _kind, start, end in self.parts)

    def made(self, base: T) -> T:
        """The sequence it stands for, with `base` under it (slices joined in C)."""
        return _join(
            [(base if kind == BASE else self.pool)[start:end] for kind, start, end in self.parts], base
        )

    def made_packed(self: Rope[array.array[int]], base: Raw) -> bytes:
        """The int64 values it stands for, packed (packed.py), with `base` under it as packed: the
        bytes of each slice joined once, where unpacking, joining and packing again copy each
        value three times (a manifest's stat data, before the lstats start)."""
        pool = memoryview(pack(self.pool))
        view = memoryview(base).cast("B")
        return b"".join(
            (view if kind == BASE else pool)[8 * start : 8 * end] for kind, start, end in self.parts
        )

    def encode(self) -> bytes:
        """The parts as packed int64, three a part (the pool is packed by its kind: packed.py)."""
        return pack(array.array("q", chain.from_iterable(self.parts)))

    @staticmethod
    def decode(parts: object, pool: T, base_length: int) -> Rope[T] | None:
        """A rope from its packed parts, when each part lies within the base or the pool."""
        values = unpack(parts)
        if values is None or len(values) % 3:
            return None
        found = tuple(zip(values[0::3], values[1::3], values[2::3], strict=True))
        for kind, start, end in found:
            limit = base_length if kind == BASE else len(pool) if kind == POOL else -1
            if not 0 <= start <= end <= limit:
                return None
        found_rope: Rope[T] = Rope(found, pool)
        return found_rope


class Splicer(Generic[T]):
    """The next rope over the same base: ranges of the current sequence (`rope`'s), and literal
    items, appended in order."""

    def __init__(self, rope: Rope[T]) -> None:
        self.rope: Rope[T] = rope
        self.ends = list(accumulate(end - start for _kind, start, end in rope.parts))
        self.parts: list[tuple[int, int, int]] = []
        self.pieces: list[T] = []
        self.pooled = 0

    def take(self, start: int, end: int) -> None:
        """The current sequence's items start to end."""
        if start >= end:
            return
        at = bisect.bisect_right(self.ends, start)
        while at < len(self.ends) and start < end:
            kind, first, last = self.rope.parts[at]
            offset = self.ends[at] - (last - first)  # where the part begins in the current sequence
            lo, hi = first + start - offset, first + min(end, self.ends[at]) - offset
            if kind == BASE:
                self._part(BASE, lo, hi)
            else:
                self.add(self.rope.pool[lo:hi])
            start = self.ends[at]
            at += 1

    def add(self, items: T) -> None:
        """Literal items."""
        if len(items):
            self.pieces.append(items)
            self._part(POOL, self.pooled, self.pooled + len(items))
            self.pooled += len(items)

    def done(self) -> Rope[T]:
        return Rope(tuple(self.parts), _join(self.pieces, self.rope.pool))

    def _part(self, kind: int, start: int, end: int) -> None:
        if start == end:
            return
        if self.parts and self.parts[-1][0] == kind and self.parts[-1][2] == start:
            self.parts[-1] = (kind, self.parts[-1][1], end)  # one range, not two that meet
        else:
            self.parts.append((kind, start, end))


def _join(pieces: Sequence[Any], like: T) -> T:
    """The pieces as one sequence of the kind of `like`."""
    joiner: Callable[[Sequence[Any]], Any]
    if isinstance(like, str):
        joiner = "".join
    elif isinstance(like, array.array):
        joiner = lambda ps: array.array(like.typecode, b"".join(p.tobytes() for p in ps))  # noqa: E731
    else:
        joiner = _concat
    return joiner(pieces)


def _concat(pieces: Sequence[list[Any]]) -> list[Any]:
    joined: list[Any] = []
    for piece in pieces:  # a few pieces, each copied in C
        joined += piece
    return joined
