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
from ..dataclass import dataclass, replace
from . import claude_code, codex, gemini, injection, opencode
from .choose import NOT_EXPORTED as NOT_EXPORTED
from .choose import choose as choose
from .choose import exported as exported
from .choose import left_out as left_out
from .layout import ONE_LEVEL as ONE_LEVEL
from .layout import ROOTS as ROOTS
from .layout import folder as folder
from .model import Entry, Listing, Skill, Status
from .opencode import Permission

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


def skills_for(dist: reader.Dist, persona: str, target: str, root: str = "") -> tuple[Skill, ...]:
    """The persona's skills an export holds (choose.py), as the harness reads them under `root`."""
    return tuple(_skill(dist, persona, target, info, root) for info in choose(dist, persona, target).infos)


def _skill(dist: reader.Dist, persona: str, target: str, info: reader.SkillInfo, root: str) -> Skill:
    fields = dist.skill_meta(info.command).frontmatter
    return Skill(
        folder=folder(target, info.command),
        name=info.name,
        description=injection.neutral_description(target, info.description) or None,
        when_to_use=_text(fields.get("when_to_use")),
        # the body as built, whoever may invoke it: the harness's flags say who (a load is the model's)
        body=dist.read_object(dist.resolution(persona, info.command).body_sha256).decode("utf-8"),
        disable_model_invocation=not info.model,
        user_invocable=info.user,
        paths=_paths(fields.get("paths")),
        root=root,
        # Codex ignores disable-model-invocation; the export writes agents/openai.yaml
        allow_implicit_invocation=info.model or target != "codex",
    )


@dataclass(frozen=True)
class Policy:
    """The project settings an export writes so the harness hides what the persona's flags hide.

    `disabled`: Gemini CLI's `skills.disabled`, by the names it derives (it ignores
    disable-model-invocation; golden policy `settings-off`). `permission` and `agent`: opencode's
    top-level and persona agent `permission.skill`, in order (it ignores the flag too; golden policy
    `denied-top`, `agent_text.persona`): the agent denies every skill, then allows the persona's
    model-invocable ones, then denies again what such an allow also matched, which also hides
    opencode's built-in skill from it. Claude Code reads the flags from SKILL.md and Codex from
    agents/openai.yaml, so they need no project setting.
    """

    disabled: tuple[str, ...] = ()
    permission: tuple[tuple[str, str], ...] = ()
    agent: tuple[tuple[str, str], ...] = ()

    def permissions(self) -> tuple[Permission, ...]:
        return (dict(self.permission), dict(self.agent))


def policy(target: str, skills: tuple[Skill, ...]) -> Policy:
    """What `target` must be told, beyond each SKILL.md, to hide the skills the model may not invoke."""
    if target == "gemini":
        return Policy(
            disabled=tuple(sorted({gemini.name(s) for s in skills if s.disable_model_invocation is True}))
        )
    if target == "opencode":
        denied, agent = opencode.rules(
            [(s.name or "", s.disable_model_invocation is not True) for s in skills]
        )
        return Policy(permission=denied, agent=agent)
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
    chosen = choose(dist, persona, target)
    skills = tuple(_skill(dist, persona, target, info, root) for info in chosen.infos)
    found = _listing(target, skills, root, budget, (i.command for i in chosen.infos))
    escaped = {folder(target, i.command): _escaped(target, i) for i in chosen.infos}
    entries = tuple(replace(e, injection=escaped.get(e.skill.folder, "")) for e in found.entries)
    left = tuple(
        Entry(
            Skill(info.command, info.name, info.description),
            info.command,
            info.name,
            False,
            None,
            Status.SKIPPED,
            NOT_EXPORTED + why,
        )
        for info, why in chosen.left
    )
    return replace(found, entries=entries + left)


def _escaped(target: str, info: reader.SkillInfo) -> str:
    found = injection.findings((target,), info.name, info.description, info.command)
    return "; ".join(f"{f.said()}: the export escapes it" for f in found if f.remedy == injection.ESCAPED)


def _listing(
    target: str, skills: tuple[Skill, ...], root: str, budget: Budget, commands: Iterable[str]
) -> Listing:
    rules = policy(target, skills)
    if target == "claude-code":
        assert budget.chars is not None
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
    left = (e for e in listing.entries if e.reason.startswith(NOT_EXPORTED) and e.skill.folder == command)
    entry = next(left, None) or next(
        (e for e in listing.entries if e.skill.folder == folder(target, command)), None
    )
    if entry is None:
        return f"{target}: not exported: the persona does not see the skill, or {target} could not hide it"
    why = f": {entry.reason}" if entry.reason else ""
    escaped = f"; listing injection: {entry.injection}" if entry.injection else ""
    return f"{target}: {_STATUS[entry.status]}{why} ({_budget_text(target, budget)}){escaped}"


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
