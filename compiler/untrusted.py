"""The `<untrusted-data>` delimiter: the one rule for finding and escaping it.

Used by the compiler (overlays, the overlay lint) and by the runtime reader
(substituted arguments), so both escape exactly the same spellings. Standard
library only: the reader imports it.

A spelling is the delimiter when, after each character is NFKC-normalised and
case-folded, dashes are read as `-`, and whitespace and invisible format
characters (zero-width spaces and joiners, bidi marks, soft hyphens) are
dropped, the text reads `<untrusted-data` or `</untrusted-data`. So
`＜untrusted-data`, `<un\u200btrusted-data`, `< / UNTRUSTED-DATA` and
`<untrusted‐data` are all found. Escaping replaces the character that reads
as `<` with `&lt;`: the rest of the text is kept as written.
"""

from __future__ import annotations

import re

_FOLDED = re.compile("</?untrusted-data")


def delimiter_positions(text: str) -> list[int]:
    """Index in text of the `<` (or its look-alike) of every delimiter spelling, in order."""
    if "<" not in text and text.isascii():  # nothing can read as `<`: the common case, no scan
        return []
    chars, origin = _fold(text)
    return [origin[m.start()] for m in _FOLDED.finditer(chars)]


def _fold(text: str) -> tuple[str, list[int]]:
    import unicodedata  # here: the reader's cold start does not need it

    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch.isascii():
            folded = ch.lower()
        else:
            category = unicodedata.category(ch)
            if category in ("Cf", "Mn", "Me"):  # invisible, or drawn over the previous character
                continue
            folded = "-" if category == "Pd" else unicodedata.normalize("NFKC", ch).casefold()
        out.append(folded)
        origin.extend([i] * len(folded))
    return "".join(out), origin


def escape_delimiter(text: str) -> str:
    """Neutralise every spelling of `<untrusted-data` / `</untrusted-data`, so content cannot break out."""
    positions = delimiter_positions(text)
    if not positions:
        return text
    parts: list[str] = []
    last = 0
    for at in positions:
        parts.append(text[last:at])
        parts.append("&lt;")
        last = at + 1
    parts.append(text[last:])
    return "".join(parts)
