"""The JSON subset of format 3: parsing as strictly as every reader must, and the bytes the compiler writes.

Duplicate keys, NaN and infinities, lone surrogates, integers outside [-2**63, 2**64) and nesting
beyond 64 levels are refused (docs/format.md, "The JSON subset"), and the document checks
(documents.py) refuse every value of a type its field does not hold. Standard library only.
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
        text = data.decode("utf-8")
        value = _loads(text)
        if "\\ud" in text or "\\uD" in text:  # a \uXXXX surrogate escape: refused unless paired
            _paired(value)
        if _too_deep(value):
            raise ValueError(f"nested deeper than {MAX_NESTING} levels")
        return value
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise FormatError(f"{where}: not a valid format {VERSION} file: {exc}") from None


MAX_NESTING = 64  # arrays and objects: what every reader's parser accepts (serde_json stops at 128)


def _too_deep(value: Any) -> bool:
    """Whether arrays and objects nest more than MAX_NESTING levels (the value itself is level 1).

    The whole document is refused, not the entry holding the depth: a parser with a lower limit
    than Python's refuses the whole document too, and every reader must agree on which calls fail.
    Level by level, with `type() is`: a third of the cost of parsing a shard, where a stack of
    (value, depth) pairs cost more than the parse."""
    level, left = [value], MAX_NESTING + 1
    while level:
        left -= 1
        if not left:
            return True
        below = []
        for item in level:
            kind = type(item)
            if kind is dict:
                item = item.values()
            elif kind is not list:
                continue
            for v in item:
                if type(v) is dict or type(v) is list:
                    below.append(v)
        level = below
    return False


def _paired(value: Any) -> None:
    """Refuse a lone surrogate anywhere in a parsed document (docs/format.md: the JSON subset)."""
    if isinstance(value, str):
        value.encode("utf-8")  # UnicodeEncodeError (a ValueError) on a lone surrogate
    elif isinstance(value, list):
        for v in value:
            _paired(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _paired(k)
            _paired(v)


_INT_MIN, _INT_END = -(2**63), 2**64  # the integers the compiler writes, and every reader keeps exactly


def _int_in_range(text: str) -> int:
    value = int(text)
    if not _INT_MIN <= value < _INT_END:
        raise ValueError(f"integer {text[:30]} is out of range")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:30]} is not finite")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Scanner:
    """What the C scanner of `_json` reads from json.JSONDecoder: `json` itself imports `re` and more
    (about 10 ms, most of a cold start), and the scanner is the part that parses."""

    strict = True
    object_hook = None
    object_pairs_hook = staticmethod(_unique)
    parse_float = staticmethod(_finite)
    parse_int = staticmethod(_int_in_range)
    parse_constant = staticmethod(_no_constant)  # NaN, Infinity, -Infinity: not JSON, refused


def _loads(text: str) -> Any:
    """json.loads(text, object_pairs_hook=_unique), through the C scanner when there is one."""
    try:
        from _json import make_scanner
    except ImportError:  # another interpreter: the json module does the same
        import json

        return json.loads(
            text,
            object_pairs_hook=_unique,
            parse_float=_finite,
            parse_int=_int_in_range,
            parse_constant=_no_constant,
        )
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
    """The bytes of every JSON file of format 3 (sorted keys nowhere: writers order them)."""
    import json  # the compiler's side: the reader never writes JSON

    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
