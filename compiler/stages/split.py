"""Split stage: whether the catalog template is a frame around its entries, as a reader needs it
to leave an entry out or render a catalog of several builds (format/split.py renders the split).

The template is rendered with probe values, and its output read back as patterns: an entry is
pieces of fixed text and field values (each value found by a marker no template writes, as it is
or with its line feeds as spaces), and a persona's catalog is the text before its entries and
the text after them, for no skill left out, one, or any other number (written out in decimal).
The patterns are then held to the template on other values: hostile text, empty values, the
entries in the frame, a dozen counts. A template that passes is split; one that does not is
reported (SKC603) and its build has no split: a reader refuses what needs one (docs/format.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..errors import TemplateFailure
from ..format.layout import VERSION
from ..format.split import FIELDS, OMITTED, entry_text, frame_text, relative
from ..model import Config, Persona, Skill
from .budget import Packing
from .catalog import render_catalog
from .template import Template, escape_value

_T = TypeVar("_T")

# A field's marker: private-use characters around the field's name and a line feed, which shows
# whether the template writes the value as it is or with its line feeds as spaces.
_OPEN, _CLOSE = "\ue000", "\ue001"
MANY = 7391482605  # a count of skills left out whose decimal no template writes of itself
COUNTS = (2, 3, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 1000000)

# Values the patterns are held to, beside the markers: markup, quotes, line ends, tabs, astral
# and combining characters, Jinja2's own delimiters, placeholders, and empty values.
PROBES: tuple[dict[str, Any], ...] = (
    {
        "command": "probe/a-b_c",
        "name": "Probe & <name> \"q\" 'a'",
        "label": "Probe <Label> & \"l\" 'b' \u00e9",
        "description": "line one\nline two\r\n\ttab & <b>x</b> ünï 𝄞 e\u0301 {{ x }} {% y %} $0 \\n",
        "location": "skills/probe/a-b_c/SKILL.md",
        "always": False,
    },
    {"command": "z", "name": "", "label": "", "description": "", "location": "", "always": True},
    {
        "command": "ÿ/ü",
        "name": "n\nn",
        "label": "l\nl",
        "description": "\n",
        "location": "p\nq",
        "always": False,
    },
    {
        "command": "a",
        "name": "a",
        "label": "a",
        "description": "  spaced  ",
        "location": "/abs/a",
        "always": True,
    },
)


def _marker(field: str, lines: bool) -> str:
    return f"{_OPEN}{field}{' ' if lines else chr(10)}{_CLOSE}"


_MARKERS = {_marker(f, lines): (f, lines) for f in FIELDS for lines in (False, True)}


def split(
    config: Config, personas: Mapping[str, Persona], template: Template
) -> tuple[Any, tuple[Diagnostic, ...]]:
    """The split document of this template (None: it does not split) and SKC603 when it does not,
    for every persona or for some."""
    entry = _probed(lambda: _entry_pattern(template, False))
    always = _probed(lambda: _entry_pattern(template, True))
    if entry is None or always is None:
        problem = "its entry(skill) macro does not write each value as given"
        return None, (_not_split(config, problem),)
    patterns = {False: entry, True: always}
    frames = {
        pid: _probed(partial(_frames, template, p, config.budget_for(pid), patterns))
        for pid, p in personas.items()
    }
    doc = {
        "format": VERSION,
        "markup": template.markup,
        "entry": entry,
        "always": always,
        "frames": frames,
    }
    unsplit = [pid for pid, f in frames.items() if f is None]
    if not unsplit:
        return doc, ()
    problem = f"the text around its entries is not the same for any entries (persona {', '.join(unsplit)})"
    return (None if len(unsplit) == len(frames) else doc), (_not_split(config, problem),)


def _probed(probe: Callable[[], _T | None]) -> _T | None:
    """A probe's answer; None when the template fails on the probe's values (it may well fail on
    values no skill has: then it does not split, and the build goes on)."""
    try:
        return probe()
    except TemplateFailure:
        return None


def _not_split(config: Config, problem: str) -> Diagnostic:
    return dg.warning(
        config.template_rel,
        Code.TEMPLATE_NOT_SPLIT,
        f"the catalog template cannot be split into its frame and its entries: {problem}; "
        "readers cannot leave out a skill this machine lacks requirements for, give absolute "
        "locations, or stack this build with others (docs/format.md §17)",
    )


def _values(probe: Mapping[str, Any], markup: bool) -> dict[str, Any]:
    """A probe as the template is given an entry (catalog.catalog_skill's values)."""
    return {k: escape_value(v) for k, v in probe.items()} if markup else dict(probe)


def _entry_pattern(template: Template, always: bool) -> list[Any] | None:
    markers = {f: _marker(f, False) for f in FIELDS}
    pattern = _parse(template.entry({**markers, "always": always}))
    if pattern is None:
        return None
    for probe in PROBES:
        mine = {**probe, "always": always}
        if template.entry(_values(mine, template.markup)) != entry_text(pattern, mine, template.markup)[0]:
            return None
    return pattern


def _parse(text: str) -> list[Any] | None:
    """The pieces of an entry written with markers: fixed text and fields; None when a marker is
    not one of ours (the template changed a value) or a stray marker character is left."""
    pieces: list[Any] = []
    at = 0
    while True:
        found = text.find(_OPEN, at)
        fixed = text[at:] if found < 0 else text[at:found]
        if _CLOSE in fixed:
            return None
        if fixed:
            pieces.append(fixed)
        if found < 0:
            return pieces
        marker = next((m for m in _MARKERS if text.startswith(m, found)), None)
        if marker is None:
            return None
        field, lines = _MARKERS[marker]
        pieces.append({"field": field, "lines": lines})
        at = found + len(marker)


def _frames(
    template: Template, persona: Persona, budget: int, patterns: Mapping[bool, list[Any]]
) -> dict[str, Any] | None:
    """The persona's frames for no skill left out, one, and any other number; None when the
    catalog is not its frame around its entries for every probe and count."""
    entries = [_values(p, template.markup) for p in PROBES[:2]]
    texts = [entry_text(patterns[p["always"]], p, template.markup)[0] for p in PROBES[:2]]

    def render(omitted: int, n: int) -> str:
        return render_catalog(template, persona, [dict(e) for e in entries[:n]], omitted, budget)

    def around(omitted: int) -> tuple[str, str] | None:
        bare = render(omitted, 0)
        both = render(omitted, 2)
        joined = texts[0] + texts[1]
        at = both.find(joined)
        if at < 0 or both != bare[:at] + joined + bare[at:]:
            return None
        if render(omitted, 1) != bare[:at] + texts[0] + bare[at:]:
            return None
        return bare[:at], bare[at:]

    none, one, many = around(0), around(1), around(MANY)
    if none is None or one is None or many is None:
        return None
    number = str(MANY)
    frames = {
        "none": list(none),
        "one": list(one),
        "many": [_holes(part, number) for part in many],
    }
    for omitted in COUNTS:
        head, tail = frame_text(frames, omitted)
        if around(omitted) != (head, tail):
            return None
    return frames


def _holes(text: str, number: str) -> list[Any]:
    """A frame's text with each place the probe count is written as the count's field."""
    pieces: list[Any] = []
    for i, fixed in enumerate(text.split(number)):
        if i:
            pieces.append({"field": OMITTED})
        if fixed:
            pieces.append(fixed)
    return pieces


def plan(
    doc: Any, persona: str, text: str, packing: Packing, skill: Callable[[str], Skill]
) -> dict[str, Any] | None:
    """The persona's plan of its catalog `text` (from `packing`): where each entry is and where
    each relative location starts; None without a split for the persona, or when the text is not
    its frame around those entries (then the split does not hold for this catalog)."""
    frames = doc["frames"].get(persona) if doc is not None else None
    if frames is None:
        return None
    head, tail = frame_text(frames, len(packing.left_out))
    parts, entries, at = [head], [], len(head)
    for command in packing.included:
        s = skill(command)
        values = {
            "command": command,
            "name": s.name,
            "label": s.label,
            "description": packing.descriptions.get(command, s.description),
            "location": s.path,
        }
        pattern = doc["always" if bool(s.flag("always", False)) else "entry"]
        shown, locations = entry_text(pattern, values, doc["markup"])
        places = [{"at": at + o, "lines": lines} for o, lines in locations] if relative(s.path) else []
        entries.append({"command": command, "start": at, "end": at + len(shown), "locations": places})
        parts.append(shown)
        at += len(shown)
    if "".join(parts) + tail != text:
        return None
    return {"format": VERSION, "persona": persona, "markup": doc["markup"], "entries": entries}
