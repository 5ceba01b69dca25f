"""What `skillc export` writes for a harness: the project tree it loads, as a list of files.

Pure over a `reader.Dist`: every skill the persona sees (view.skills_for, so the export and
`catalog --target` read the same skills), in the folder the harness reads (view.ROOTS,
view.folder), with its persona-resolved body left unsubstituted (`$ARGUMENTS` and
`${CLAUDE_SKILL_DIR}` are the harness's to expand), its resources with their executable bits,
the frontmatter the harness reads, and the project settings of view.policy. output/export.py
writes the files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .. import __version__, reader
from ..dataclass import dataclass
from ..errors import SkillcError
from ..output.export import Export, File
from ..output.settings import Setting, merge
from . import codex, injection, view

# Frontmatter fields the Agent Skills specification defines (agentskills.io/specification), which
# every target reads or tolerates; skillc's own fields (knowledge, requires_*, ...) are not copied.
_SPEC_FIELDS = ("license", "compatibility", "metadata", "allowed-tools")
# What Claude Code 2.1.330 reads besides (code.claude.com/docs/en/skills, "Frontmatter reference";
# golden fields: when_to_use, paths). Its two flags come from the persona, not from the source.
_CLAUDE_FIELDS = ("when_to_use", "argument-hint", "arguments", "model", "effort", "context", "agent", "paths")
# A harness-neutral SKILL.md (`skillc serve`): what a Claude Code export's carries, which the other
# harnesses ignore, so that every author field one reads passes through, the persona's flags too.
NEUTRAL = "neutral"
_FULL = frozenset({"claude-code", NEUTRAL})
# Codex 0.169.0: agents/openai.yaml in a skill folder; `policy.allow_implicit_invocation: false`
# keeps the skill out of the model's listing (golden policy: implicit-off).
CODEX_POLICY = "agents/openai.yaml"
_CODEX_POLICY_TEXT = b"policy:\n  allow_implicit_invocation: false\n"


class ExportConflict(SkillcError):
    """Two exported files would have one path (a flattened `group-inner` beside a `group/inner`)."""


@dataclass(frozen=True)
class Plan:
    export: Export  # what output/export.py puts into DEST
    warnings: tuple[str, ...]
    skills: int  # skill folders written

    @property
    def files(self) -> tuple[File, ...]:
        return self.export.files

    def settings_file(self, name: str) -> dict[str, Any] | None:
        """The settings file `name` as the export writes it into a project that has none."""
        data, _ = merge(name, None, None, [s for s in self.export.settings if s.file == name])
        return json.loads(data) if data is not None else None


def plan(
    dist: reader.Dist,
    target: str,
    personas: Sequence[str],
    per_persona: bool,
    budget: view.Budget | None = None,
) -> Plan:
    """Every file and setting of the export; with `per_persona`, each persona's below `<persona>/`.

    `budget` is the one `catalog --target` predicts with: Claude Code's `budgets.priority`
    overrides depend on it (view.overrides_for); the default is the harness's own."""
    budget = budget or view.budget_for(target, None, None)
    tree = _Tree()
    folders: set[str] = set()
    settings: list[Setting] = []
    warnings: list[str] = []
    count = 0
    for persona in personas:
        prefix = f"{persona}/" if per_persona else ""
        files, mine, skills = persona_files(dist, target, persona, budget)
        for file in files:
            tree.add(File(prefix + file.path, file.data, file.executable))
        folders |= {prefix + folder for folder in mine}
        settings += [
            Setting(prefix + s.file, s.path, s.value, s.item)
            for s in persona_settings(dist, target, persona, budget)
        ]
        count += skills
        warnings += [
            f"{target}: {persona}: {command!r} is left out: {why}"
            for command, why in view.left_out(dist, persona, target)
        ]
    about = {"generator": f"skillc {__version__}", "build": dist.build_hash, "personas": list(personas)}
    written = tuple(sorted(tree.files.values(), key=lambda f: f.path))
    warnings += _codex_scan(target, tree.folders, [f"{p}/" if per_persona else "" for p in personas])
    return Plan(
        Export(target, about, tuple(sorted(folders)), written, tuple(settings)), tuple(warnings), count
    )


def persona_files(
    dist: reader.Dist, target: str, persona: str, budget: view.Budget
) -> tuple[list[File], set[str], int]:
    """One persona's skill folders: their files, the folders the export owns (each skill's top
    folder below the harness's root, which holds a nested skill too), and how many skills."""
    root = view.ROOTS[target]
    skills = view.skills_for(dist, persona, target)
    infos = {view.folder(target, i.command): i for i in view.choose(dist, persona, target).infos}
    out: list[File] = []
    for skill in skills:
        info = infos[skill.folder]
        base = f"{root}/{skill.folder}"
        out.append(File(f"{base}/SKILL.md", skill_md(dist, target, persona, info)))
        out += [File(f"{base}/{f.path}", f.data, f.executable) for f in _resources(dist, persona, info)]
        if target == "codex" and not info.model:
            out.append(File(f"{base}/{CODEX_POLICY}", _CODEX_POLICY_TEXT))
    owned = {f"{root}/{skill.folder.split('/', 1)[0]}" for skill in skills}
    return out, owned, len(skills)


def persona_settings(dist: reader.Dist, target: str, persona: str, budget: view.Budget) -> list[Setting]:
    """The keys one persona's export sets in the harness's project settings (view.policy), and
    Claude Code's `budgets.priority` overrides (view.overrides_for)."""
    skills = view.skills_for(dist, persona, target)
    out = _settings(target, persona, view.policy(target, skills))
    commands = (i.command for i in view.choose(dist, persona, target).infos)
    overrides = view.overrides_for(target, skills, commands, budget)
    # project .claude/settings.json (golden policy: override-name-only)
    out += [Setting(".claude/settings.json", ("skillOverrides", c), mode) for c, mode in overrides.items()]
    return out


def frontmatter(
    dist: reader.Dist, target: str, info: reader.SkillInfo, name: str | None = None
) -> dict[str, Any]:
    """The fields the harness reads, in a fixed order: name (`name` when given) and description
    first; skillc's own fields (persona keys, knowledge, requirements) never."""
    source = dist.skill_meta(info.command).frontmatter
    description = injection.neutral_description(target, info.description)
    fields: dict[str, Any] = {"name": info.name if name is None else name, "description": description}
    wanted = (*_CLAUDE_FIELDS, *_SPEC_FIELDS) if target in _FULL else _SPEC_FIELDS
    fields |= {key: source[key] for key in wanted if key in source}
    if target in _FULL:  # the persona's flags, as Claude Code reads them (golden fields)
        if not info.model:
            fields["disable-model-invocation"] = True
        if not info.user:
            fields["user-invocable"] = False
    return fields


def skill_md(dist: reader.Dist, target: str, persona: str, info: reader.SkillInfo) -> bytes:
    """SKILL.md: the translated frontmatter and the persona-resolved body, not substituted."""
    return skill_md_of(dist, persona, info, frontmatter(dist, target, info))


def skill_md_of(dist: reader.Dist, persona: str, info: reader.SkillInfo, fields: Mapping[str, Any]) -> bytes:
    """SKILL.md with these frontmatter fields and the persona-resolved body (`skillc serve` serves
    the fields beside the file, so it makes them once)."""
    body = dist.read_object(dist.resolution(persona, info.command).body_sha256).decode("utf-8")
    return f"---\n{yaml_fields(fields)}---\n\n{body}".encode()


# Characters a YAML parser must not meet raw inside a quoted scalar: C0 (JSON escapes those but
# DEL), DEL and C1 (not YAML "printable"), NEL, LS and PS (line breaks to a YAML 1.1 parser), and
# the BOM. JSON's \uXXXX is also a YAML double-quoted escape, so the value reads back equal.
_ESCAPE = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, 0xFEFF)}


def yaml_fields(fields: Mapping[str, Any]) -> str:
    """One `key: value` line per field, every value in JSON form (which is YAML's flow form): every
    string double-quoted, so no value is read as a boolean, a number, a comment or a mapping by any
    harness's YAML parser. Keys are the fixed names above, plain."""
    lines = []
    for key, value in fields.items():
        text = json.dumps(value, ensure_ascii=False, sort_keys=True).translate(_ESCAPE)
        lines.append(f"{key}: {text}\n")
    return "".join(lines)


def _resources(dist: reader.Dist, persona: str, info: reader.SkillInfo) -> list[File]:
    """The resources the persona gets (none for an exclusive skill's stub), bits from the build."""
    executable = {r.path: r.executable for r in dist.skill_meta(info.command).resources}
    return [
        File(path, dist.resource(persona, info.command, path), executable.get(path, False))
        for path in dist.resources(persona, info.command)
    ]


def _codex_scan(target: str, folders: set[str], prefixes: list[str]) -> list[str]:
    """Codex visits at most 2,000 folders of a root, breadth first, in the file system's order
    (codex.MAX_FOLDERS): past that, which skills it finds is not predictable."""
    if target != "codex":
        return []
    out = []
    for prefix in prefixes:
        root = f"{prefix}{view.ROOTS[target]}"
        count = 1 + sum(1 for f in folders if f.startswith(root + "/"))
        if count > codex.MAX_FOLDERS:
            out.append(
                f"codex: {root} holds {count:,} folders; Codex 0.169.0 visits {codex.MAX_FOLDERS:,} of a "
                "root, in the file system's order, so some skills will be missing from its listing, "
                "and catalog --target cannot say which"
            )
    return out


def _settings(target: str, persona: str, rules: view.Policy) -> list[Setting]:
    if target == "gemini":  # project .gemini/settings.json skills.disabled (golden policy)
        return [
            Setting(".gemini/settings.json", ("skills", "disabled"), name, item=True)
            for name in rules.disabled
        ]
    if target == "opencode":  # project opencode.json (golden policy)
        agent = {"mode": "primary", "permission": {"skill": dict(rules.agent)}}
        out = [Setting("opencode.json", ("agent", persona), agent)]
        return out + [
            Setting("opencode.json", ("permission", "skill", name), action)
            for name, action in rules.permission
        ]
    return []


class _Tree:
    """The files planned so far, refusing a path twice or a path that is both a file and a folder."""

    def __init__(self) -> None:
        self.files: dict[str, File] = {}
        self.folders: set[str] = set()

    def add(self, file: File) -> None:
        parents = [file.path[:i] for i, c in enumerate(file.path) if c == "/"]
        if file.path in self.files or file.path in self.folders:
            raise ExportConflict(f"two exported files would be {file.path}: rename one of the skills")
        clash = next((p for p in parents if p in self.files), None)
        if clash:
            raise ExportConflict(f"{clash} would be both a file and a folder of the export")
        self.files[file.path] = file
        self.folders.update(parents)
