"""`[tool.skillc]` in pyproject.toml: the same keys as skillc.yaml, as a located Document.

tomllib gives no positions, so the lines of the table's keys are found by a small scan of the
text (table headers and `key =` lines); a diagnostic about a key points at its line, anything
deeper at its nearest located ancestor, never at 1:1 when the table has a line.

The table is one config with skillc.yaml: its values are held to what a YAML config can hold
(stages/values.py: integers of 64 bits, finite numbers, strings without control characters,
nesting of at most 32 levels, the same messages), and a TOML date or time, which skillc.yaml has
no value for, is an error at its key. The config's schema and range checks then see the same data
whichever file it came from.

The build hashes the table, not the file: editing the project's version or its dependencies in
pyproject.toml does not make a committed build stale.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import TYPE_CHECKING, Any

from .. import diagnostics as dg
from ..diagnostics.codes import Code

if TYPE_CHECKING:
    import tomllib

    from ..model import Document

NAME = "pyproject.toml"
TABLE = ("tool", "skillc")
_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\s\"']+?)\s*=")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


# A `[tool.skillc]` (or `[tool.skillc.budgets]`...) header, found by its text when the TOML is broken.
_OUR_HEADER = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*skillc[ \t]*[\].]", re.MULTILINE)


def claims(text: str) -> bool:
    """Whether the file is a skillc config: it has the table, or is broken TOML with its header.

    A pyproject.toml whose [tool.skillc] has a typo must be reported where the typo is, not passed
    over for a config further up (or "no config found")."""
    if table(text) is not None:
        return True
    try:
        _loads(text)
    except ValueError:  # tomllib.TOMLDecodeError, or nesting too deep to read
        return _OUR_HEADER.search(text) is not None
    return False


def table(text: str) -> dict[str, Any] | None:
    """The `[tool.skillc]` table, or None when there is none (or the file is not TOML)."""
    try:
        data: Any = _loads(text)
    except ValueError:
        return None
    for key in TABLE:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


class _TooDeep(ValueError):
    """Arrays or inline tables nested so deep that tomllib, which recurses, cannot read them."""


def _loads(text: str) -> dict[str, Any]:
    import tomllib  # only for a pyproject.toml: a skillc.yaml project never pays for it

    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib is pure Python: a few hundred `[` exhaust the interpreter's stack
        from ..stages import values

        raise _TooDeep(values.too_deep_message()) from None


def document(rel: str, raw: bytes) -> Document:
    """The table as a Document whose positions are lines of pyproject.toml."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _failed(rel, "pyproject.toml is not UTF-8", 1, 1)
    import tomllib

    try:
        data: Any = _loads(text)
    except _TooDeep as exc:
        return _failed(rel, str(exc), *_deepest(text), code=Code.YAML_SYNTAX)
    except tomllib.TOMLDecodeError as exc:
        reason = _TOML_AT.sub("", str(exc)).strip()
        return _failed(rel, f"pyproject.toml is not valid TOML: {reason}", *_where(exc, text))
    for key in TABLE:
        data = data.get(key) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        return _failed(rel, "pyproject.toml has no [tool.skillc] table", 1, 1)
    from ..model import Document  # not at import: a no-op build finds its config here, loading no model

    doc = Document(rel, data, positions(text), "", 1, ())
    problems = tuple(dg.error(rel, code, message, *doc.pos(*keys)) for keys, code, message in _refused(data))
    if any(d.code != Code.CONTROL_CHARACTER for d in problems):
        return Document(rel, None, doc.positions, "", 1, problems)  # as YAML: no data past such a value
    return Document(rel, data, doc.positions, "", 1, problems)


def _refused(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], Code, str]]:
    """(keys, code, message) for each value of the table a YAML config could not hold, with YAML's
    messages (stages/values.py), and for TOML's dates and times, which YAML's config has none of."""
    from ..stages import values  # not at import: the cache's quick path imports this module, and no stage

    found: list[tuple[tuple[Any, ...], Code, str]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:  # no recursion: the depth is checked here
        keys, value = stack.pop()
        if len(keys) > values.MAX_DEPTH:
            found.append((keys, Code.YAML_SYNTAX, values.too_deep_message()))
        elif isinstance(value, dict):
            stack.extend(((*keys, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*keys, i), v) for i, v in reversed(list(enumerate(value))))
        elif isinstance(value, (datetime.date, datetime.time)):
            found.append((keys, Code.CONFIG_SCHEMA, _dated(keys, value)))
        else:
            problem = values.problem(value, str(value))
            if problem:
                found.append((keys, *problem))
    return found


def _dated(keys: tuple[Any, ...], value: datetime.date | datetime.time) -> str:
    kinds = ((datetime.datetime, "a date-time"), (datetime.date, "a date"), (datetime.time, "a time"))
    kind = next(word for cls, word in kinds if isinstance(value, cls))
    spelled = value.isoformat()
    return f'{".".join(map(str, keys))}: {spelled} is {kind} in TOML, not a string; quote it ("{spelled}")'


def _deepest(text: str) -> tuple[int, int]:
    """About where arrays and inline tables nest past the limit: brackets are counted, strings not
    told apart (the place of an error whose every other reading has failed)."""
    from ..stages import values

    depth = 0
    for number, line in enumerate(text.split("\n"), start=1):
        for col, char in enumerate(line, start=1):
            depth += (char in "[{") - (char in "]}")
            if depth > values.MAX_DEPTH + 1:
                return number, col
    return 1, 1


def canonical(data: dict[str, Any]) -> bytes:
    """The bytes the build hashes for a pyproject config: the table alone, in one spelling."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _where(exc: tomllib.TOMLDecodeError, text: str) -> tuple[int, int]:
    at = _TOML_AT.search(str(exc))
    if at:
        return int(at[1]), int(at[2])
    if "end of document" in str(exc):  # said where the text ran out: its last line
        lines = text.splitlines() or [""]
        return len(lines), len(lines[-1]) + 1
    return 1, 1


def _failed(rel: str, message: str, line: int, col: int, *, code: Code = Code.CONFIG_SYNTAX) -> Document:
    from ..model import Document

    return Document(rel, None, {}, "", 1, (dg.error(rel, code, message, line, col),))


def positions(text: str) -> dict[tuple[Any, ...], tuple[int, int]]:
    """("k"|"v", *keys) -> (line, column) for the keys below [tool.skillc], as Document keeps them."""
    found: dict[tuple[Any, ...], tuple[int, int]] = {}
    current: tuple[str, ...] | None = None  # the table the lines belong to, below tool.skillc
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("[["):
            current = _below_table(_dotted(header[1]))
            if current:
                _record(found, current, number, line.index("[") + 1)
            elif current == () and () not in found:
                found[("v",)] = (number, line.index("[") + 1)
            continue
        key = _KEY.match(line)
        if current is not None and key:
            _record(found, (*current, *_dotted(key[1])), number, len(line) - len(line.lstrip()) + 1)
    return found


def _record(
    found: dict[tuple[Any, ...], tuple[int, int]], keys: tuple[str, ...], line: int, col: int
) -> None:
    for kind in ("k", "v"):
        found.setdefault((kind, *keys), (line, col))


def _below_table(keys: tuple[str, ...]) -> tuple[str, ...] | None:
    return keys[len(TABLE) :] if keys[: len(TABLE)] == TABLE else None


def _dotted(spelled: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in spelled.split("."))
