"""The tools fallback (`skillc serve --tools`), for hosts that call tools but have no client for the
Skills Extension: `list_skills` and `load_skill`, and the server instructions that carry the
persona's catalog. What the model gets is what the reader gives an application's own
`load_skill` tool: the `<skill_content>` block of `render()`, under the model invoker rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import reader
from ..reader import EVERYWHERE as AS_BUILT  # what the persona's export holds, whatever this machine has
from .view import View

LIST = "list_skills"
LOAD = "load_skill"

TOOLS: list[dict[str, Any]] = [
    {
        "name": LIST,
        "description": "List the skills you may load: each skill's command and what it is for.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    {
        "name": LOAD,
        "description": (
            "Load a skill's full instructions by its command (as list_skills or the server "
            "instructions give it, e.g. `tools/lint`), with the arguments it takes, if any."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's command."},
                "arguments": {"type": "string", "description": "The skill's arguments, as typed."},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
]


class ToolError(Exception):
    """A tool call the model made wrong: an unknown or hidden skill, bad arguments. The host shows
    it to the model as the tool's result (`isError`)."""


def instructions(view: View) -> str:
    """The server instructions: the catalog, and how to load (ToolError when it cannot be read)."""
    return (
        f"Skills for this task ({LOAD} loads one by its command; {LIST} lists them again):\n\n"
        + list_skills(view)
    )


def list_skills(view: View) -> str:
    try:
        return view.dist.catalog(view.persona, env=AS_BUILT)
    except reader.ReaderError as exc:  # the build cannot be read, or the persona left it
        raise ToolError(f"the skills cannot be listed: {exc}") from None


def load_skill(view: View, arguments: dict[str, Any]) -> str:
    name, args = arguments.get("name"), arguments.get("arguments")
    if not isinstance(name, str) or not (args is None or isinstance(args, str)):
        raise ToolError(f"{LOAD} takes `name`, a skill's command, and optionally `arguments`, a string")
    try:
        return model_load(view.dist, view.persona, name, args).render()
    except reader.UnknownSkill as exc:
        raise ToolError(_unknown(name, exc.suggestions)) from None
    except reader.ReaderError as exc:
        raise ToolError(f"{name!r} cannot be loaded: {exc}") from None


def model_load(dist: reader.Dist, persona: str, command: str, args: str | None) -> reader.LoadedSkill:
    """`load` under the model invoker rule (the reader's `by="model"`): a skill the persona's model
    may not invoke is unknown to it, as a hidden one is."""
    try:
        return dist.load(persona, command, args, by="model")
    except reader.NotInvocable:
        raise reader.UnknownSkill(persona, command, lambda: [], []) from None


def _unknown(name: str, suggestions: Sequence[str]) -> str:
    near = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    return f"no skill {name!r} to load{near} ({LIST} lists them)"
