"""Which of a persona's skills an export for a harness holds, and which it leaves out, with why.

What the harness could not load as one skill of its own, or not hide as the persona's flags say,
is left out of its export (with a warning) and listed by `catalog --target` as skipped: a skill
nobody may invoke, for Codex; a nested command whose flattened folder is another's; a folder
Claude Code refuses; a name or folder its listing would read as markup (listing injection); the
second of two skills one name to Gemini CLI or opencode; a skill opencode's permission patterns
cannot place. docs/targets.md#export-skillc-export---target holds the evidence.
"""

from __future__ import annotations

from .. import reader
from ..dataclass import dataclass
from ..reader import EVERYWHERE as AS_BUILT  # the build as it was made, whatever this machine has
from . import claude_code, gemini, injection, opencode
from .layout import folder
from .model import Skill


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
    for info in dist.skills(persona, env=AS_BUILT):
        if exported(target, info):
            infos.append(info)
        else:
            left.append((info, _CODEX_NOBODY))
    infos, clashes = _one_per_folder(target, infos)
    infos, refused = _loadable(target, infos)
    infos, marked = _unmarked(target, infos)
    infos, twins = _one_per_name(target, infos)
    infos, unsaid = _expressible(target, infos)
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
    target: str, infos: list[reader.SkillInfo]
) -> tuple[list[reader.SkillInfo], list[tuple[reader.SkillInfo, str]]]:
    """opencode's permission patterns have no escape (`*` and `?` in a name match other names):
    a skill whose place the persona's agent cannot say by them is left out."""
    if target != "opencode":
        return infos, []
    left: list[tuple[reader.SkillInfo, str]] = []
    while True:
        denied, agent = opencode.rules([(i.name, i.model) for i in infos])
        rules = opencode.Matcher(dict(denied), dict(agent))
        wrong = [i for i in infos if (rules.decision(i.name) != "deny") != i.model]
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
