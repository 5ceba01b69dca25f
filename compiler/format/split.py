"""The catalog template split into its frame and its entries (format 3), and a persona's plan.

A build whose template splits (stages/split.py checks it) writes the split: the text of one entry
as pieces of fixed text and field values (one pattern for `always: true` entries, one for the
others), and per persona the text before and after the entries for any number of skills left
out. A reader renders a catalog from it without the template (a stack of builds, whose catalog no
one build holds), and cuts or lengthens a compiled catalog through the persona's plan: where each
entry is in it, and where each relative location starts. The compiler renders with the same
functions, so the two cannot disagree. docs/format.md §4.5-§4.7 and §17. Standard library only.
"""

from __future__ import annotations

from .escape import escape_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

FIELDS = (
    "command",
    "name",
    "label",
    "description",
    "location",
)  # the entry's text values, as templates see them
OMITTED = "omitted"  # the one value of a frame


def field_value(value: str, markup: bool, lines: bool) -> str:
    """A field's text as the entry shows it: escaped for XML text (a markup template's values are),
    then with each line feed a space when the template writes it so (`| replace("\\n", " ")`)."""
    if markup:
        value = escape_text(value)
    return value.replace("\n", " ") if lines else value


def entry_text(
    pattern: Sequence[Any], values: Mapping[str, str], markup: bool
) -> tuple[str, list[tuple[int, bool]]]:
    """One entry from its pattern: the text, and where in it each location value starts (with
    whether line feeds are spaces there)."""
    out: list[str] = []
    at, locations = 0, []
    for piece in pattern:
        if type(piece) is str:
            text = piece
        else:
            field = piece["field"]
            if field == "location":
                locations.append((at, bool(piece["lines"])))
            text = field_value(values[field], markup, piece["lines"])
        out.append(text)
        at += len(text)
    return "".join(out), locations


def frame_text(frames: Mapping[str, Any], omitted: int) -> tuple[str, str]:
    """(head, tail): the persona's catalog around its entries when `omitted` skills are left out."""
    if omitted < 2:
        head, tail = frames["none" if omitted == 0 else "one"]
        return head, tail
    number = str(omitted)
    head, tail = ("".join(p if type(p) is str else number for p in part) for part in frames["many"])
    return head, tail


def relative(path: str) -> bool:
    """Whether a skill's location takes a root the host names: not already absolute (`/...`), nor
    under a home folder (`~/...`: a source outside the project, as its config wrote it)."""
    return not path.startswith(("/", "~"))


def root_prefix(root: str, markup: bool, lines: bool = False) -> str:
    """What a root adds before a relative location: the root without trailing `/`, then one `/`,
    as the location value would show it."""
    return field_value(root.rstrip("/") + "/", markup, lines)


def planned(
    text: str, entries: Iterable[Mapping[str, Any]], drop: set[str], root: str | None, markup: bool
) -> str:
    """The compiled catalog `text`, its plan's entries of a command in `drop` cut out, and with a
    root, the root's prefix put before each relative location the plan lists (from the end: each
    change leaves the places before it where they are)."""
    for entry in reversed(list(entries)):
        start, end = entry["start"], entry["end"]
        if entry["command"] in drop:
            text = text[:start] + text[end:]
        elif root is not None:
            for where in reversed(entry["locations"]):
                at = where["at"]
                text = text[:at] + root_prefix(root, markup, where["lines"]) + text[at:]
    return text
