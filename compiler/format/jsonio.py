"""The JSON subset of format 2: parsing as strictly as every reader must, and the bytes the compiler writes.

Duplicate keys are refused, and the document checks (documents.py) refuse every value of a type its
field does not hold. Standard library only.
"""

from __future__ import annotations

from .errors import FormatError
from .layout import VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {dup!r}")
    return out


def parse_json(data: bytes, where: str) -> Any:
    try:
        return _loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise FormatError(f"{where}: not a valid format {VERSION} file: {exc}") from None


class _Scanner:
    """What the C scanner of `_json` reads from json.JSONDecoder: `json` itself imports `re` and more
    (about 10 ms, most of a cold start), and the scanner is the part that parses."""

    strict = True
    object_hook = None
    object_pairs_hook = staticmethod(_unique)
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN and Infinity, as json.loads reads them


def _loads(text: str) -> Any:
    """json.loads(text, object_pairs_hook=_unique), through the C scanner when there is one."""
    try:
        from _json import make_scanner
    except ImportError:  # another interpreter: the json module does the same
        import json

        return json.loads(text, object_pairs_hook=_unique)
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        # typeshed types the context as a JSONDecoder; the C scanner reads only the attributes above
        value, end = make_scanner(_Scanner())(text, start)  # type: ignore[arg-type]
    except StopIteration as stop:
        raise ValueError(f"no JSON value at character {stop.value}") from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


_SPACE = " \t\n\r"  # JSON's whitespace, and nothing else (str.strip() would take more)


def dumps(value: object) -> bytes:
    """The bytes of every JSON file of format 2 (sorted keys nowhere: writers order them)."""
    import json  # the compiler's side: the reader never writes JSON

    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
