"""Escaping in format 3's text: XML text and attributes, and the <untrusted-data> delimiter.

One rule serves the compiler (overlay blocks, catalogs) and the reader (substituted arguments).
The delimiter's fold reads non-ASCII code points through a table fixed at one Unicode version
(foldtable.py, generated from docs/delimiter-fold.txt). Standard library only.
"""

from __future__ import annotations

from .foldtable import FOLD_TABLE

DELIMITER_TAG = "untrusted-data"


def escape_text(text: str) -> str:
    """XML text content: only what it needs (autoescape's &#39; and &#34; are noise in a prompt)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


# The <untrusted-data> delimiter. A spelling is the delimiter when, after each character is
# folded, the text reads `<untrusted-data` or `</untrusted-data`. ASCII folds to lowercase, its
# white space dropped; every other code point folds through FOLD_TABLE (foldtable.py, generated at
# one Unicode version so that every reader on every runtime agrees): white space and invisible
# or combining characters (categories Cf, Mn, Me: zero-width spaces and joiners, bidi marks, soft
# hyphens) are dropped, dashes read as `-`, the rest is NFKC-normalised and case-folded. So
# `＜untrusted-data`, `<un\u200btrusted-data`, `< / UNTRUSTED-DATA` and `<untrusted‐data` are
# all found. Escaping replaces the character that reads as `<` with `&lt;`: the rest of the
# text is kept as written. docs/format.md states the rule; docs/delimiter-fold.txt is the table.
_FOLDED = "</?" + DELIMITER_TAG  # compiled on first use: `re` stays out of the reader's cold start
_ASCII_SPACE = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ")
_FOLDS: dict[str, str] = {}  # non-ASCII code point -> its fold ("" = dropped), filled on first use


def delimiter_positions(text: str) -> list[int]:
    """Index in text of the `<` (or its look-alike) of every delimiter spelling, in order."""
    if text.isascii():
        return _ascii_positions(text)
    import re  # cached by re itself after the first call

    chars, origin = _fold(text)
    return [origin[m.start()] for m in re.finditer(_FOLDED, chars)]


def _ascii_positions(text: str) -> list[int]:
    """delimiter_positions of ASCII text, where the fold drops white space and lowercases the rest:
    only what follows each `<` is read (folding every character cost 0.7 ms an overlay)."""
    found = []
    at = text.find("<")
    while at >= 0:
        if _spells_tag(text, at + 1):
            found.append(at)
        at = text.find("<", at + 1)  # a spelling holds one `<`: spellings never overlap
    return found


def _spells_tag(text: str, i: int) -> bool:
    """The folded text from i reads `/?untrusted-data` (white space dropped, case ignored)."""
    matched, slash = 0, True
    while matched < len(DELIMITER_TAG):
        if i >= len(text):
            return False
        ch = text[i].lower()
        i += 1
        if ch in _ASCII_SPACE:
            continue
        if slash and ch == "/":
            slash = False
            continue
        if ch != DELIMITER_TAG[matched]:
            return False
        slash, matched = False, matched + 1
    return True


def _folds() -> dict[str, str]:
    if not _FOLDS:
        for line in FOLD_TABLE.splitlines():
            cps, fold = line.split("\t")
            first, _, last = cps.partition("..")
            folded = "" if fold == "drop" else "".join(chr(int(h, 16)) for h in fold.split(" "))
            for cp in range(int(first, 16), int(last or first, 16) + 1):
                _FOLDS[chr(cp)] = folded
    return _FOLDS


def _fold(text: str) -> tuple[str, list[int]]:
    folds = _folds() if not text.isascii() else {}
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            folded = "" if ch in _ASCII_SPACE else ch.lower()
        else:
            folded = folds.get(ch, ch)  # not listed: reads as itself, a character no spelling holds
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


def wrap_untrusted(source: str, text: str) -> str:
    """The ARIA delimiter block; `source` is a validated relative path, escaped anyway."""
    return f'<{DELIMITER_TAG} source="{escape_attr(source)}">\n{escape_delimiter(text).strip()}\n</{DELIMITER_TAG}>\n'


# Characters a reader of the text cannot see: format characters (bidi controls and marks,
# zero-width spaces and joiners, soft hyphen) and line or paragraph separators (a line break to
# editors and terminals). Names refuse them, diagnostics escape them, audit reports them.
HIDDEN_CATEGORIES = frozenset({"Cf", "Zl", "Zp"})


def hidden(ch: str) -> bool:
    """The character is invisible, or breaks a line where it is printed."""
    import unicodedata  # here: the reader's cold start does not need it

    return unicodedata.category(ch) in HIDDEN_CATEGORIES
