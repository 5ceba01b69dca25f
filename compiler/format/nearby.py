"""Close commands for an UnknownSkill (docs/format.md §12.1): which candidates rank, and how.

A reader cannot list what a persona sees without reading every shard (seconds at 100,000 skills),
so an UnknownSkill names only close commands found in a few reads: the command in its normal form,
the words of the persona's catalog (the list the model chose from) and the children of the
command's parent. This module is the candidates' text and their ranking, the same in every reader;
the reader does the reads and keeps those the persona sees. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

MAX_SUGGESTIONS = 3  # commands an UnknownSkill names
MAX_REACH = 3  # edits: more, and most of a short catalog is within reach
MAX_LENGTH = 256  # code points: longer commands are not ranked (a table of length squared cells)
MAX_CHECKED = 8  # candidates looked up, best first, to find them: each costs one shard read

# What separates the words of a catalog: ASCII white space and ASCII punctuation but `-`, `/`, `_`,
# the characters a command holds. ASCII only, so that every reader splits the same text alike.
_SEPARATORS = "\t\n\v\f\r !\"#$%&'()*+,.:;<=>?@[\\]^`{|}~"
_SPLIT = {ord(c): " " for c in _SEPARATORS}
# The forms people type for a command: `Ops:Restart`, `/deploy`, `threat_assessment`.
_NORMAL: dict[int, str] = {c: chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}
_NORMAL.update({ord(":"): "/", ord("_"): "-", ord(" "): "-"})


def normal(command: str) -> str:
    """The command as skillc spells commands: ASCII lowercase, `:` as `/`, `_` and space as `-`, no
    `/` at either end (a slash command's leading `/`)."""
    return command.translate(_NORMAL).strip("/")


def words(catalog: str) -> set[str]:
    """The words of a catalog text: the commands it lists are among them, whatever the template."""
    return set(catalog.translate(_SPLIT).split(" ")) - {""}


def parent(command: str) -> str | None:
    """The command one level up ("a/b/c" -> "a/b"), or None at the top."""
    at = command.rfind("/")
    return command[:at] if at > 0 else None


def reach(command: str) -> int:
    """The largest distance at which a candidate counts as close: a third of the length, from 1 to 3."""
    return min(MAX_REACH, max(1, len(command) // 3))


def distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of a and b, by code point (an insertion, deletion,
    substitution or swap of two neighbours costs 1), or limit + 1 when it exceeds limit.

    Only the cells within `limit` of the diagonal are computed: a path through any other costs
    more than limit."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    a, b = _core(a, b)  # the same distance, and most candidates differ from the command in a few places
    far = limit + 1
    before: list[int] = []
    row = [j if j <= limit else far for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        prev, row = row, [i if i <= limit else far] + [far] * len(b)
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            best = prev[j - 1] + (a[i - 1] != b[j - 1])
            if prev[j] + 1 < best:
                best = prev[j] + 1
            if row[j - 1] + 1 < best:
                best = row[j - 1] + 1
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] and before[j - 2] + 1 < best:
                best = before[j - 2] + 1
            row[j] = best if best < far else far
        if min(row) >= far:  # no later row holds less than this row's least value
            return far
        before = prev
    return row[-1]


def _core(a: str, b: str) -> tuple[str, str]:
    """a and b without their common prefix and common suffix."""
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end = 0
    while end < len(a) - start and end < len(b) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return a[start : len(a) - end], b[start : len(b) - end]


def ranked(command: str, candidates: Iterable[str]) -> list[str]:
    """The candidates within reach of the command's normal form, best first (by distance to it,
    then in command order), without the command as typed, at most MAX_CHECKED of them; none
    longer than MAX_LENGTH code points."""
    typed = normal(command)
    limit = reach(typed)
    scored = set()
    if len(typed) > MAX_LENGTH:
        return []
    for candidate in set(candidates):
        if candidate != command and len(candidate) <= MAX_LENGTH:
            d = distance(typed, candidate, limit)
            if d <= limit:
                scored.add((d, candidate))
    return [candidate for _, candidate in sorted(scored)[:MAX_CHECKED]]
