"""The catalog rows of carry-catalog.json as columns: each row decoded when it is read, a change
spliced into the columns.

A row is [name, description, path, always, cost, bare cost] (carry.Row). At 10,000 skills, JSON
rows cost an edit build 20-25 ms to read and 10 to write (70,000 objects made and written again),
while a description edit reads a few hundred of them: the included entries of the catalogs it
renders again, and the costs that first fit resumes over (`costs`). So the texts are one UTF-8
string with each row's three lengths, and the numbers an int64 array, three a row; both are raw
sections of the signed file (store.py), read without decoding (the texts a view of the file's bytes
until a row changes).
"""

from __future__ import annotations

import array
import bisect
import itertools
import operator
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from .packed import Raw

Row = list[Any]  # name, description, path, always, cost, bare cost

# Any str round-trips, a lone surrogate included: a row is kept for what the build made of it,
# whatever the build's own checks say of its text.
_ERRORS = "surrogatepass"
_TEXTS, _NUMBERS = operator.itemgetter(0, 1, 2), operator.itemgetter(3, 4, 5)


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", _ERRORS)


class Rows(MutableMapping[str, Row]):
    """Catalog rows by command, in the order they were put in (a plain dict's)."""

    def __init__(self, commands: list[str], texts: Raw, lengths: array.array[int], numbers: array.array[int]):
        """`lengths`: each row's name, description and path, in bytes; `numbers`: each row's always
        (0 or 1), cost and bare cost. Raises ValueError when the columns do not fit together."""
        if (
            len(lengths) != 3 * len(commands)
            or len(numbers) != 3 * len(commands)
            or sum(lengths) != len(texts)
        ):
            raise ValueError("catalog columns of different lengths")
        self._commands = commands
        self._at = {c: i for i, c in enumerate(commands)}
        if len(self._at) != len(commands):
            raise ValueError("a command twice")
        self._texts, self._lengths, self._numbers = texts, lengths, numbers
        self._starts: list[int] | None = None  # each row's first byte in `_texts`, when asked
        self._costs: dict[str, tuple[int, bool]] | None = None  # `costs`, when asked
        self.moved = False  # a row put in or taken out since: the rows' places are not the first ones

    @classmethod
    def of(cls, rows: Mapping[str, Row]) -> Rows:
        """The columns of plain rows. Taken apart in C, a full build's 10,000 rows in a few ms: the
        texts joined, then encoded at once (each row's lengths in characters are its lengths in
        bytes when all of it is ASCII, nearly always; else each text is encoded alone)."""
        texts = list(itertools.chain.from_iterable(map(_TEXTS, rows.values())))
        joined = "".join(texts)
        if joined.isascii():
            data, lengths = joined.encode("ascii"), array.array("I", map(len, texts))
        else:
            each = list(map(_encoded, texts))
            data, lengths = b"".join(each), array.array("I", map(len, each))
        numbers = array.array("q", itertools.chain.from_iterable(map(_NUMBERS, rows.values())))
        return cls(list(rows), data, lengths, numbers)

    def columns(self) -> tuple[list[str], Raw, array.array[int], array.array[int]]:
        """The commands in order and the three columns (what `Rows(...)` takes)."""
        return self._commands, self._texts, self._lengths, self._numbers

    def place(self) -> dict[str, int]:
        """Each command's place among the rows."""
        return self._at

    def least_cost(self) -> int:
        """No row costs less (0 when there is none)."""
        return min(self._numbers[1::3], default=0)

    def numbers(self, command: str) -> tuple[int, bool]:
        """A row's cost and whether it is always on, without decoding its texts."""
        i = 3 * self._at[command]
        return self._numbers[i + 1], bool(self._numbers[i])

    def costs(self) -> dict[str, tuple[int, bool]]:
        """Every row's (cost, always), by command: what first fit asks of thousands of rows, a
        lookup in C each (budget.refit)."""
        if self._costs is None:
            numbers = self._numbers
            pairs = zip(numbers[1::3], map(bool, numbers[0::3]), strict=True)
            self._costs = dict(zip(self._commands, pairs, strict=True))
        return self._costs

    def __getitem__(self, command: str) -> Row:
        i = self._at[command]
        start = self._start(i)
        a, b, c = self._lengths[3 * i : 3 * i + 3]
        texts, numbers = self._texts, self._numbers[3 * i : 3 * i + 3]
        return [
            str(texts[start : start + a], "utf-8", _ERRORS),
            str(texts[start + a : start + a + b], "utf-8", _ERRORS),
            str(texts[start + a + b : start + a + b + c], "utf-8", _ERRORS),
            bool(numbers[0]),
            numbers[1],
            numbers[2],
        ]

    def __setitem__(self, command: str, row: Row) -> None:
        self._costs = None
        made = [_encoded(text) for text in row[:3]]
        always, cost, bare = row[3:6]
        new = b"".join(made)
        i = self._at.get(command)
        if i is None:
            self.moved = True
            self._commands.append(command)
            self._at[command] = len(self._commands) - 1
            self._texts = b"".join((self._texts, new))
            if self._starts is not None:  # it holds one start past the last row: the end
                self._starts.append(len(self._texts))
            self._lengths.extend(map(len, made))
            self._numbers.extend([int(always), cost, bare])
            return
        start = self._start(i)
        self._texts = b"".join((self._texts[:start], new, self._texts[start + self._size(i) :]))
        self._lengths[3 * i : 3 * i + 3] = array.array("I", map(len, made))
        self._numbers[3 * i : 3 * i + 3] = array.array("q", [int(always), cost, bare])
        self._starts = None

    def discard(self, command: str) -> None:
        """Take a row out if it is there (`pop` without decoding the row it would return)."""
        if command in self._at:
            del self[command]

    def __delitem__(self, command: str) -> None:
        i = self._at.pop(command)
        self._costs = None
        self.moved = True
        start = self._start(i)
        self._texts = b"".join((self._texts[:start], self._texts[start + self._size(i) :]))
        del self._lengths[3 * i : 3 * i + 3], self._numbers[3 * i : 3 * i + 3], self._commands[i]
        self._at.update(zip(self._commands[i:], range(i, len(self._commands)), strict=True))  # in C
        self._starts = None

    def apply(self, changes: Mapping[str, Row | None]) -> None:
        """Each command's row replaced, put in (last, in the order of `changes`) or taken out (None),
        as one `self[command] = row` or `del self[command]` each would, in one pass over the columns:
        each of those copies them all (a journal of 256 rows applied so took 0.4 s at 10,000)."""
        if not changes:
            return
        self._costs = None
        starts, lengths = self._row_starts(), self._lengths
        self._starts = None
        texts: list[bytes | memoryview] = []
        new_lengths, new_numbers = array.array("I"), array.array("q")
        commands: list[str] = []
        view, at = memoryview(self._texts), 0  # the next row not yet copied
        for i in sorted(self._at[c] for c in changes if c in self._at):
            texts.append(view[starts[at] : starts[i]])
            new_lengths += lengths[3 * at : 3 * i]
            new_numbers += self._numbers[3 * at : 3 * i]
            commands += self._commands[at:i]
            row = changes[self._commands[i]]
            if row is not None:
                self._put(row, texts, new_lengths, new_numbers)
                commands.append(self._commands[i])
            at = i + 1
        texts.append(view[starts[at] :])
        new_lengths += lengths[3 * at :]
        new_numbers += self._numbers[3 * at :]
        commands += self._commands[at:]
        for command, row in changes.items():
            if row is not None and command not in self._at:
                self._put(row, texts, new_lengths, new_numbers)
                commands.append(command)
        self.moved = self.moved or len(commands) != len(self._commands) or commands != self._commands
        self._texts, self._lengths, self._numbers, self._commands = (
            b"".join(texts),
            new_lengths,
            new_numbers,
            commands,
        )
        self._at = {c: i for i, c in enumerate(commands)}

    @staticmethod
    def _put(
        row: Row, texts: list[bytes | memoryview], lengths: array.array[int], numbers: array.array[int]
    ) -> None:
        made = [_encoded(text) for text in row[:3]]
        texts += made
        lengths.extend(map(len, made))
        always, cost, bare = row[3:6]
        numbers.extend([int(always), cost, bare])

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)

    def __contains__(self, command: object) -> bool:
        return command in self._at

    def __eq__(self, other: object) -> bool:  # as a dict's: the same keys and values, in any order
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(c in other and self[c] == other[c] for c in self)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a dict

    def __repr__(self) -> str:
        return f"Rows({dict(self.items())!r})"

    def _size(self, i: int) -> int:
        return sum(self._lengths[3 * i : 3 * i + 3])

    def _start(self, i: int) -> int:
        return self._row_starts()[i]

    def _row_starts(self) -> list[int]:
        """Each row's first byte in `_texts`, and one past the last row: made when first asked, as
        every third of the texts' starts (one pass in C; summing each row's three first took 2.5x
        as long, a few times in an edit build that adds or removes a row)."""
        if self._starts is None:
            self._starts = list(itertools.accumulate(self._lengths, initial=0))[0::3]
        return self._starts


def has(commands: list[str], command: str) -> bool:
    """Whether `commands` (in command order, as resolve made them) holds `command`."""
    at = bisect.bisect_left(commands, command)
    return at < len(commands) and commands[at] == command


def listed_after(commands: list[str], present: Mapping[str, bool]) -> list[str]:
    """`commands` (in command order) with each command of `present` put in or taken out, as
    `toggled` for each would; `commands` itself when none changes it."""
    gone = [c for c, there in present.items() if not there and has(commands, c)]
    new = [c for c, there in present.items() if there and not has(commands, c)]
    if not gone and not new:
        return commands
    found = list(commands)
    for command in gone:  # each found by a binary search and taken out in C, as each put in
        del found[bisect.bisect_left(found, command)]
    for command in new:
        bisect.insort(found, command)
    return found


def toggled(commands: list[str], command: str, present: bool) -> list[str]:
    """`commands` (in command order) with `command` put in or taken out (a new list: the caller
    knows it is not there, or is)."""
    at = bisect.bisect_left(commands, command)
    if present:
        return [*commands[:at], command, *commands[at:]]
    return [*commands[:at], *commands[at + 1 :]]
