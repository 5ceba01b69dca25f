"""Where an export puts each skill: the harness's root and the skill's folder below it."""

from __future__ import annotations

# Where each harness reads project skills (docs/targets.md, "Folders each reads").
ROOTS = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "gemini": ".gemini/skills",
    "opencode": ".opencode/skills",
}
# Harnesses that load only <root>/<dir>/SKILL.md: a nested command's folder is flattened.
ONE_LEVEL = frozenset({"claude-code", "gemini"})


def folder(target: str, command: str) -> str:
    """The skill's folder below the harness's root. One-level harnesses get `group-inner` for the
    nested command `group/inner`: their command is the folder name, and `/` cannot be in one."""
    return command.replace("/", "-") if target in ONE_LEVEL else command
