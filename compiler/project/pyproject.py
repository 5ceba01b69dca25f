"""`[tool.skillc]` in pyproject.toml: the same keys as skillc.yaml, as a located Document.

tomllib gives no positions, so the lines of the table's keys are found by a small scan of the
text (table headers and `key =` lines); a diagnostic about a key points at its line, anything
deeper at its nearest located ancestor, never at 1:1 when the table has a line.

The build hashes the table, not the file: editing the project's version or its dependencies in
pyproject.toml does not make a committed build stale.
"""

from __future__ import annotations

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
        import tomllib

        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return _OUR_HEADER.search(text) is not None
    return False


def table(text: str) -> dict[str, Any] | None:
    """The `[tool.skillc]` table, or None when there is none (or the file is not TOML)."""
    try:
        import tomllib  # only for a pyproject.toml: a skillc.yaml project never pays for it

        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    for key in TABLE:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def document(rel: str, raw: bytes) -> Document:
    """The table as a Document whose positions are lines of pyproject.toml."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _failed(rel, "pyproject.toml is not UTF-8", 1, 1)
    try:
        import tomllib

        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = _TOML_AT.sub("", str(exc)).strip()
        return _failed(rel, f"pyproject.toml is not valid TOML: {reason}", *_where(exc, text))
    for key in TABLE:
        data = data.get(key) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        return _failed(rel, "pyproject.toml has no [tool.skillc] table", 1, 1)
    from ..model import Document  # not at import: a no-op build finds its config here, loading no model

    return Document(rel, data, positions(text), "", 1, ())


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


def _failed(rel: str, message: str, line: int, col: int) -> Document:
    from ..model import Document

    return Document(rel, None, {}, "", 1, (dg.error(rel, Code.CONFIG_SYNTAX, message, line, col),))


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
