"""The values a YAML or TOML document may hold, whatever its syntax: one set of checks.

A config, a manifest and frontmatter become JSON-like data (strings, integers, finite floats,
booleans, null, lists, mappings) that later stages check against a schema and the output carries.
Whatever the document's syntax, a value outside that space is a located error with the same
message: YAML's (yamlgraph.py) and `[tool.skillc]`'s (project/pyproject.py) scalars pass through
`problem`, and their nesting through MAX_DEPTH.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..diagnostics.codes import Code

MAX_DEPTH = 32
# Control characters an escape ("\0", "\e", "\x9b" in YAML, "\u001b" in TOML) can put into a
# string: they would reach prompts raw (terminal escapes, NULs). Tab and newline are text.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
INT_RANGE = (-(2**63), 2**64)  # what every JSON reader and orjson keep exactly


def problem(value: Any, spelled: str) -> tuple[Code, str] | None:
    """(code, message) for a scalar that must not become data, else None; `spelled` is the value as
    the document wrote it (YAML's text; TOML's value, which tomllib keeps no text of)."""
    if isinstance(value, str):
        hit = CONTROL.search(value)
        if hit:
            return Code.CONTROL_CHARACTER, f"control character U+{ord(hit.group(0)):04X} in a string value"
    elif isinstance(value, float) and not math.isfinite(value):
        return Code.YAML_SYNTAX, f"{short(spelled)} is not a finite number"
    elif isinstance(value, int) and not isinstance(value, bool) and not INT_RANGE[0] <= value < INT_RANGE[1]:
        return Code.YAML_SYNTAX, f"integer {short(spelled)} is out of range"
    return None


def too_deep_message() -> str:
    return f"nesting deeper than {MAX_DEPTH} levels"


def short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")
