"""The order JavaScript's `localeCompare` gives names (ICU's root collation), in which Claude Code
sorts its listing and opencode its `<available_skills>`.

Exact for ASCII (golden folders: Claude Code lists `-lead`, `123`, `a,b`, ..., `under_s`, `Upper`,
`x.y`; golden names: opencode lists `under_score` before `Upper-Case`); another character sorts by
its base letter's place (`café` beside `cafe`), after `z` when that base is not ASCII.
"""

from __future__ import annotations

import unicodedata

# ICU's root order of ASCII: white space, punctuation and symbols in this order, digits, then
# letters, the two cases of a letter together (node: printable ASCII sorted by localeCompare).
_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: i for i, c in enumerate(_ORDER)}

Key = tuple[tuple[int, ...], tuple[str, ...], tuple[bool, ...], str]


def key(name: str) -> Key:
    """Letters compared without case or accents first, then accents, then lower case before
    upper case, then the code points (two names never tie)."""
    primary: list[int] = []
    accents: list[str] = []
    upper: list[bool] = []
    for c in unicodedata.normalize("NFD", name):
        if unicodedata.combining(c) and primary:  # an accent belongs to the letter before it
            accents[-1] += c
            continue
        primary.append(_PRIMARY.get(c.lower(), len(_ORDER) + ord(c.lower())))
        accents.append("")
        upper.append(c != c.lower())
    return tuple(primary), tuple(accents), tuple(upper), name
