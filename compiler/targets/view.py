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
from .model import Entry, Listing, Skill, Status
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
    """Whether the harness can be told what the persona's flags say of the skill. Codex reads no
    project setting that hides a skill from the user too: only the user-level `[[skills.config]]`
    does (golden policy: `config-off` listed, `user-config-off` not), so a skill that neither the
    model nor the user may invoke is left out of a Codex export rather than offered to the user."""
    return target != "codex" or info.model or info.user


NOT_EXPORTED = "not exported: "  # how a left-out skill's reason starts (catalog, explain)


@dataclass(frozen=True)
class Chosen:
    """The persona's skills an export for a target holds, in command order, and those it leaves
    out, each with why: what the harness could not load as one skill of its own, or not hide as
    the persona's flags say (export warns about each, catalog lists each as skipped)."""

    infos: tuple[reader.SkillInfo, ...]
    left: tuple[tuple[reader.SkillInfo, str], ...] = ()


Split = tuple[list[reader.SkillInfo], list[tuple[reader.SkillInfo, str]]]  # kept, left out with why


def choose(dist: reader.Dist, persona: str, target: str) -> Chosen:
    infos, left = [], []
    for info in dist.skills(persona):
        if exported(target, info):
            infos.append(info)
        else:
            left.append((info, _CODEX_NOBODY))
    infos, clashes = _one_per_folder(target, infos)
    infos, refused = _loadable(target, infos)
    infos, marked = _unmarked(target, infos)
    infos, twins = _one_per_name(target, infos)
    infos, unsaid = _expressible(target, persona, infos)
    found = [*left, *clashes, *refused, *marked, *twins, *unsaid]
    return Chosen(tuple(infos), tuple(sorted(found, key=lambda p: p[0].command)))


def _loadable(target: str, infos: list[reader.SkillInfo]) -> Split:
    """Claude Code loads no command from a folder whose name it refuses (`<`, two spaces, a colon
    beside a space...: claude_code.folder_problem; golden folders)."""
    if target != "claude-code":
        return infos, []
    kept, left = [], []
    for info in infos:
        problem = claude_code.folder_problem(folder(target, info.command))
        if problem:
            left.append(
                (
                    info,
                    f"Claude Code loads no skill from its folder {folder(target, info.command)!r}: {problem}",
                )
            )
        else:
            kept.append(info)
    return kept, left


_CODEX_NOBODY = (
    "neither the model nor the user may invoke it, and Codex hides a skill from both only through "
    "the user's own config ([[skills.config]] in ~/.codex/config.toml), never a project's"
)


def _one_per_folder(
    target: str, infos: list[reader.SkillInfo]
) -> tuple[list[reader.SkillInfo], list[tuple[reader.SkillInfo, str]]]:
    """A one-level harness loads a nested command from its flattened folder (`grp/inner` from
    `grp-inner`): where that is the folder of another skill, the skill whose command it is keeps it;
    when it is none's, none does (two folders cannot be one)."""
    by_folder: dict[str, list[reader.SkillInfo]] = {}
    for info in infos:
        by_folder.setdefault(folder(target, info.command), []).append(info)
    kept, left = [], []
    for place, group in by_folder.items():
        owner = next((i for i in group if i.command == place), None) if len(group) > 1 else group[0]
        for info in group:
            if info is owner:
                kept.append(info)
            else:
                others = ", ".join(repr(i.command) for i in group if i is not info)
                why = f"{target} reads a nested skill from one folder, {place!r}, which is also {others}'s"
                left.append((info, why))
    return sorted(kept, key=lambda i: i.command), left


def _unmarked(target: str, infos: list[reader.SkillInfo]) -> Split:
    """A skill whose name or folder the harness's listing would read as markup (listing injection)
    is left out: those are its identity, which an export cannot escape (targets/injection.py)."""
    kept, left = [], []
    for info in infos:
        found = injection.findings((target,), info.name, info.description, info.command)
        out = [f for f in found if f.remedy == injection.LEFT_OUT]
        if out:
            left.append((info, f"listing injection: {out[0].said()}"))
        else:
            kept.append(info)
    return kept, left


def _one_per_name(
    target: str, infos: list[reader.SkillInfo]
) -> tuple[list[reader.SkillInfo], list[tuple[reader.SkillInfo, str]]]:
    """Gemini CLI and opencode key skills by name: of two with one name each loads one, by the file
    system's directory order or at random (docs/targets.md). The first in command order is exported."""
    if target not in ("gemini", "opencode"):
        return infos, []
    first: dict[str, reader.SkillInfo] = {}
    kept, left = [], []
    for info in infos:
        key = harness_name(target, info.name)
        if key in first:
            left.append(
                (
                    info,
                    f"{target} names it {key!r}, as it does {first[key].command!r}, and loads only one of them",
                )
            )
        else:
            first[key] = info
            kept.append(info)
    return kept, left


def _expressible(
    target: str, persona: str, infos: list[reader.SkillInfo]
) -> tuple[list[reader.SkillInfo], list[tuple[reader.SkillInfo, str]]]:
    """opencode's permission patterns have no escape (`*` and `?` in a name match other names):
    a skill whose place the persona's agent cannot say by them is left out."""
    if target != "opencode":
        return infos, []
    left: list[tuple[reader.SkillInfo, str]] = []
    while True:
        rules = _opencode_rules(persona, [(i.name, i.model) for i in infos])
        wrong = [i for i in infos if opencode.allowed(i.name, *rules.permissions()) != i.model]
        if not wrong:
            return infos, left
        left += [
            (i, f"opencode's permission patterns cannot tell {i.name!r} from the persona's other skills")
            for i in wrong
        ]
        infos = [i for i in infos if i not in wrong]


def harness_name(target: str, name: str) -> str:
    return gemini.name(Skill("", name, None)) if target == "gemini" else name


def left_out(dist: reader.Dist, persona: str, target: str) -> tuple[tuple[str, str], ...]:
    """The commands the persona sees that an export for `target` leaves out, each with why."""
    return tuple((info.command, why) for info, why in choose(dist, persona, target).left)


def skills_for(dist: reader.Dist, persona: str, target: str, root: str = "") -> tuple[Skill, ...]:
    """The persona's skills an export holds, as the harness reads them from it under `root`."""
    return tuple(_skill(dist, persona, target, info, root) for info in choose(dist, persona, target).infos)


def _skill(dist: reader.Dist, persona: str, target: str, info: reader.SkillInfo, root: str) -> Skill:
    fields = dist.skill_meta(info.command).frontmatter
    return Skill(
        folder=folder(target, info.command),
        name=info.name,
        description=injection.neutral_description(target, info.description) or None,
        when_to_use=_text(fields.get("when_to_use")),
        body=dist.load(persona, info.command).body,
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


def policy(target: str, skills: tuple[Skill, ...], persona: str = "") -> Policy:
    """What `target` must be told, beyond each SKILL.md, to hide the skills the model may not invoke."""
    if target == "gemini":
        return Policy(
            disabled=tuple(sorted({gemini.name(s) for s in skills if s.disable_model_invocation is True}))
        )
    if target == "opencode":
        return _opencode_rules(
            persona, [(s.name or "", s.disable_model_invocation is not True) for s in skills]
        )
    return Policy()


def _opencode_rules(persona: str, skills: list[tuple[str, bool]]) -> Policy:
    """The agent's rules for (name, may the model invoke it): `*` denied, each free name allowed by
    a key that matches it (opencode.exact), then each manual name an allow matched denied again; and
    the project-wide deny of the manual names whose key matches no other skill."""
    free = sorted({n for n, model in skills if model})
    manual = sorted({n for n, model in skills if not model} - set(free))
    allows = [(opencode.exact(n), "allow") for n in free]
    again = [(opencode.exact(m), "deny") for m in manual if any(opencode.match(m, k) for k, _ in allows)]
    names = [n for n, _ in skills]
    alone = [m for m in manual if not any(opencode.match(n, opencode.exact(m)) for n in names if n != m)]
    return Policy(
        permission=tuple((opencode.exact(m), "deny") for m in alone), agent=(("*", "deny"), *allows, *again)
    )


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
    from ..stages.budget import ranked  # only a priority pays for pathspec

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
    found = _listing(target, persona, skills, root, budget, (i.command for i in chosen.infos))
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
    target: str, persona: str, skills: tuple[Skill, ...], root: str, budget: Budget, commands: Iterable[str]
) -> Listing:
    rules = policy(target, skills, persona)
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
