"""A built persona as a harness would read it once exported, and the listing that harness shows.

Pure functions over a `reader.Dist`, so `catalog`, `diff`, `explain` and `export` share them.
The skills are those the persona sees, each with its persona-resolved body (overlays and exclusive
grants applied by the build) and its flags as the persona resolved them. `Policy` is the one home
of what an export writes besides the skills to hide what it must (targets/export.py writes it, the
listing here applies it), so a prediction and an export cannot disagree.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import reader
from ..dataclass import dataclass
from ..reader import EVERYWHERE as AS_BUILT  # the build as it was made, whatever this machine has
from . import claude_code, codex, gemini, opencode
from .model import Listing, Skill, Status
from .opencode import Permission

# Where each harness reads project skills (docs/targets.md, "Folders each reads").
ROOTS = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "gemini": ".gemini/skills",
    "opencode": ".opencode/skills",
}
# Harnesses that load only <root>/<dir>/SKILL.md: a nested command's folder is flattened.
ONE_LEVEL = frozenset({"claude-code", "gemini"})
# The window of each CLI's default model, when neither the config nor the command line sets one:
# Codex 0.169.0's default model has 272,000 tokens; Claude Code 2.1.330's gives a 30,000-character
# listing (docs/targets.md, the `huge` goldens).
CODEX_DEFAULT_WINDOW = 272_000
CLAUDE_DEFAULT_CHARS = 30_000


@dataclass(frozen=True)
class Budget:
    """The budget a listing was made with: the window in tokens and, for Claude Code, characters;
    and the team's `budgets.priority`, honoured where the harness's config can express it."""

    window: int | None
    chars: int | None
    priority: tuple[str, ...] = ()

    def json(self) -> dict[str, Any]:
        return {"window": self.window, "chars": self.chars}


def folder(target: str, command: str) -> str:
    """The skill's folder below the harness's root. One-level harnesses get `group-inner` for the
    nested command `group/inner`: their command is the folder name, and `/` cannot be in one."""
    return command.replace("/", "-") if target in ONE_LEVEL else command


def exported(target: str, info: reader.SkillInfo) -> bool:
    """Whether an export for `target` holds the skill. Codex reads no project setting that hides a
    skill from the user too: only the user-level `[[skills.config]]` does (golden policy:
    `config-off` listed, `user-config-off` not), so a skill that neither the model nor the user may
    invoke is left out of a Codex export rather than offered to the user."""
    return target != "codex" or info.model or info.user


def left_out(dist: reader.Dist, persona: str, target: str) -> tuple[str, ...]:
    """The commands the persona sees that an export for `target` leaves out (see `exported`)."""
    return tuple(i.command for i in dist.skills(persona, env=AS_BUILT) if not exported(target, i))


def skills_for(dist: reader.Dist, persona: str, target: str, root: str = "") -> tuple[Skill, ...]:
    """The persona's skills an export holds, as the harness reads them from it under `root`."""
    found = []
    for info in dist.skills(persona, env=AS_BUILT):
        if not exported(target, info):
            continue
        meta = dist.skill_meta(info.command)
        fields = meta.frontmatter
        body = dist.read_object(dist.resolution(persona, info.command).body_sha256).decode("utf-8")
        found.append(
            Skill(
                folder=folder(target, info.command),
                name=info.name,
                description=info.description or None,
                when_to_use=_text(fields.get("when_to_use")),
                body=body,  # whoever may invoke it: the harness's flags say who
                disable_model_invocation=not info.model,
                user_invocable=info.user,
                paths=_paths(fields.get("paths")),
                root=root,
                # Codex ignores disable-model-invocation; the export writes agents/openai.yaml
                allow_implicit_invocation=info.model or target != "codex",
            )
        )
    return tuple(found)


@dataclass(frozen=True)
class Policy:
    """The project settings an export writes so the harness hides what the persona's flags hide.

    `disabled`: Gemini CLI's `skills.disabled` (it ignores disable-model-invocation; golden policy
    `settings-off`). `permission` and `agent`: opencode's top-level and persona agent
    `permission.skill` (it ignores the flag too; golden policy `denied-top`, `agent_text.persona`):
    the agent allows only the persona's model-invocable skills, which also hides opencode's
    built-in skill from it. Claude Code reads the flags from SKILL.md and Codex from
    agents/openai.yaml, so they need no project setting.
    """

    disabled: tuple[str, ...] = ()
    permission: tuple[tuple[str, str], ...] = ()
    agent: tuple[tuple[str, str], ...] = ()

    def permissions(self) -> tuple[Permission, ...]:
        return (dict(self.permission), dict(self.agent))


def policy(target: str, skills: tuple[Skill, ...]) -> Policy:
    """What `target` must be told, beyond each SKILL.md, to hide the skills the model may not invoke."""
    manual = sorted({s.name or "" for s in skills if s.disable_model_invocation is True})
    if target == "gemini":
        return Policy(disabled=tuple(manual))
    if target == "opencode":
        free = sorted({s.name or "" for s in skills if s.disable_model_invocation is not True} - set(manual))
        agent = (("*", "deny"), *((name, "allow") for name in free))
        return Policy(permission=tuple((name, "deny") for name in manual), agent=agent)
    return Policy()


def budget_for(target: str, window: int | None, chars: int | None, priority: tuple[str, ...] = ()) -> Budget:
    """The budget the harness applies; None where it has none (Gemini CLI, opencode). Only Claude
    Code's settings can express a priority (docs/targets.md: Codex orders by name, the others have
    no budget), so only its budget keeps one."""
    if target == "claude-code":
        if chars is None:
            chars = claude_code.budget(window) if window else CLAUDE_DEFAULT_CHARS
        return Budget(window, chars, priority)
    if target == "codex":
        return Budget(window or CODEX_DEFAULT_WINDOW, None)
    return Budget(None, None)


def overrides_for(
    target: str, skills: tuple[Skill, ...], commands: Iterable[str], budget: Budget
) -> dict[str, str]:
    """Claude Code's project `skillOverrides` that make its listing honour the team's priority:
    `name-only` for each skill ranked too low to keep its description (empty when all fit).
    `commands` are the persona's, which the priority's patterns match (folders may be flattened)."""
    if target != "claude-code" or not budget.priority or budget.chars is None:
        return {}
    from ..stages.budget import ranked  # only a priority pays for its patterns

    order = [folder(target, c) for c in ranked(commands, budget.priority)]
    off = claude_code.name_only_for(skills, budget.chars, order)
    return dict.fromkeys(sorted(off), "name-only")


def listing_for(
    dist: reader.Dist, target: str, persona: str, budget: Budget, project: Path | None = None
) -> Listing:
    """The listing the harness shows for the persona's export into `project` (absolute roots)."""
    root = posixpath.join(project.as_posix(), ROOTS[target]) if project else ROOTS[target]
    skills = skills_for(dist, persona, target, root)
    rules = policy(target, skills)
    if target == "claude-code":
        assert budget.chars is not None
        commands = (info.command for info in dist.skills(persona, env=AS_BUILT))
        return claude_code.listing(skills, budget.chars, overrides_for(target, skills, commands, budget))
    if target == "codex":
        return codex.listing(skills, [root], budget.window)
    if target == "gemini":
        return gemini.listing([skills], rules.disabled, builtins=gemini.builtins())
    # opencode, as `opencode run --agent <persona>` shows it
    return opencode.listing(skills, [opencode.BUILTIN], permissions=rules.permissions())


_STATUS = {
    Status.FULL: "listed with its whole description",
    Status.CUT: "listed, its description cut",
    Status.DROPPED: "listed without its description",
    Status.NOT_LISTED: "loaded, not in the model's listing",
    Status.SKIPPED: "not loaded",
}


def explain(listing: Listing, command: str, target: str, budget: Budget) -> str:
    """One line: what the harness does with the command's skill, and the rule that decided."""
    entry = next((e for e in listing.entries if e.skill.folder == folder(target, command)), None)
    if entry is None:
        return f"{target}: not exported: the persona does not see the skill, or {target} could not hide it"
    why = f": {entry.reason}" if entry.reason else ""
    return f"{target}: {_STATUS[entry.status]}{why} ({_budget_text(target, budget)})"


def _budget_text(target: str, budget: Budget) -> str:
    if budget.chars is not None:
        return f"listing budget {budget.chars:,} characters, greedy first fit"
    if budget.window is not None:
        return f"window {budget.window:,} tokens: 2% for the listing, cut round-robin, then dropped"
    return f"{target} has no listing budget"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _paths(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, list):
        return tuple(str(p) for p in value)
    return ()
