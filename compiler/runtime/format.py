"""Format 2 of dist/: the one home of its version, layout, object paths and escaping.

dist/
  _index.json                 small: format, build hash, config, per persona the hashes of its
                              prompt and meta objects, and the hash of the shard table object
                              (per shard the hash of its skills object)
  personas/<id>/prompt<ext>   a readable copy of the catalog (the reader reads the object)
  objects/<aa>/<sha256>       content-addressed: bodies, resources, prompts, persona metas, the shard
                              table, skill shards

A skill lives in shard `shard_of(command, digits)` (`digits`: 2, or more for very large builds, see
shard_digits; every shard name in one index has that length); its entry holds its resolution for every persona as a
default plus per-persona exceptions. Everything but `_index.json` and the prompt copies is an
object, so an application's open Dist keeps serving the build it opened across rebuilds.
Imported by the compiler (render, write) and bundled into skillc/reader.py: standard library only.
"""

from __future__ import annotations

from .foldtable import FOLD_TABLE

try:  # the C module hashlib wraps: importing hashlib loads OpenSSL, 4 ms of a cold start
    from _sha2 import sha256 as _sha256  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - another interpreter
        from hashlib import sha256 as _sha256

VERSION = 2
INDEX = "_index.json"
OBJECTS = "objects"
DELIMITER_TAG = "untrusted-data"
SHARD_HEX = 2  # the fewest hex digits in a shard name: 256 shards
SHARD_SKILLS = 64  # skills per shard, on average, before shard names get one more digit
MAX_INDEX_BYTES = 16 << 20
MAX_OBJECT_BYTES = 1 << 30
MAX_FILES = 20  # bundled files listed in a tool result


def sha256_hex(data: bytes) -> str:
    digest: str = _sha256(data).hexdigest()
    return digest


def object_path(digest: str) -> str:
    return f"{OBJECTS}/{digest[:2]}/{digest}"


def prompt_path(persona: str, suffix: str) -> str:
    return f"personas/{persona}/prompt{suffix}"


def shard_of(command: str, digits: int = SHARD_HEX) -> str:
    """The shard a command lives in: the first `digits` hex digits of its sha256."""
    return sha256_hex(command.encode("utf-8", "surrogatepass"))[:digits]


def node_width(prefix: str) -> int:
    """The length of the names in the shard-table node for `prefix`: 2 at the root, one more below.

    The table is a tree of objects: the root names 2-hex prefixes; a node whose names are as long
    as the shard names maps them to shard objects (`shards`), any other maps them to the nodes
    below (`tables`). A build of up to 16,384 skills has one node."""
    return len(prefix) + (SHARD_HEX if not prefix else 1)


def shard_digits(skills: int) -> int:
    """How long a build's shard names are: 2 up to 16,384 skills, 3 up to 262,144, and so on,
    so that load() parses about SHARD_SKILLS entries at any size. Every shard name in one index
    has this length; the reader reads it off the names."""
    digits = SHARD_HEX
    while skills > SHARD_SKILLS * 16**digits and digits < 8:
        digits += 1
    return digits


def dumps(value: object) -> bytes:
    """The bytes of every JSON file of format 2 (sorted keys nowhere: writers order them)."""
    import json  # the compiler's side: the reader never writes JSON

    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


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
    if "<" not in text and text.isascii():  # nothing can read as `<`: the common case, no scan
        return []
    import re  # cached by re itself after the first call

    chars, origin = _fold(text)
    return [origin[m.start()] for m in re.finditer(_FOLDED, chars)]


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
