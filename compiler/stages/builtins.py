"""The built-in catalog templates (`templates/*.j2`) as Python: for a template whose bytes are one
of theirs, the text Jinja2 renders from it, without importing Jinja2 (about 50 ms of a process
that edits one description) or compiling the template.

A template is matched by its bytes alone, so a project's copy of a built-in, under any name, is
one too; its name still says whether values arrive escaped (template.py). Each function below
spells its template's output as Jinja2 renders it (`keep_trailing_newline`, `-` trimming, a value
shown as `str()` of it); tests/unit/test_builtins.py holds both equal on hostile values, and any
change to a built-in's bytes falls back to Jinja2 until a function is written for it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

Render = Callable[..., str]
Entry = Callable[[dict[str, Any]], str]


def _xml_entry(skill: dict[str, Any]) -> str:
    return (
        f"<skill>\n<command>{skill['command']}</command>\n<name>{skill['label']}</name>\n"
        f"<description>{skill['description']}</description>\n<location>{skill['location']}</location>\n"
        "</skill>\n"
    )


def _xml_render(*, persona: Any, skills: list[dict[str, Any]], omitted: int, budget: int) -> str:
    entries = "".join(map(_xml_entry, skills))
    more = ""
    if omitted:
        plural = "s" if omitted != 1 else ""
        more = (
            f"<!-- {omitted} more skill{plural} not listed: "
            f"the {budget}-character catalog budget was reached -->\n"
        )
    return f"<available_skills>\n{entries}{more}</available_skills>\n"


def _md_entry(skill: dict[str, Any]) -> str:
    return f"- {skill['command']}: {str(skill['description']).replace(chr(10), ' ')}\n"


def _md_render(*, persona: Any, skills: list[dict[str, Any]], omitted: int, budget: int) -> str:
    entries = "".join(map(_md_entry, skills))
    more = f"({omitted} more not listed: catalog budget of {budget} characters reached)\n" if omitted else ""
    return f"Available skills:\n{entries}{more}\nUse the use_skill tool to invoke a skill when relevant.\n"


_WRITTEN: dict[str, tuple[Render, Entry]] = {
    "catalog.xml.j2": (_xml_render, _xml_entry),
    "catalog.md.j2": (_md_render, _md_entry),
}


@cache
def _shipped() -> dict[bytes, tuple[Render, Entry]]:
    """Each built-in's bytes, as shipped, -> its functions."""
    return {(TEMPLATES / name).read_bytes(): made for name, made in _WRITTEN.items()}


def builtin(source: bytes) -> tuple[Render, Entry] | None:
    """The render and entry functions of the built-in whose bytes `source` is; None for any other."""
    try:
        return _shipped().get(source)
    except OSError:  # the package's own file unreadable: Jinja2 renders it
        return None
