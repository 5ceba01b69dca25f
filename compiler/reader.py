"""skillc runtime reader: serve a compiled dist/ to an application.

Standard library only (orjson is used when installed). It never imports yaml,
jinja2 or jsonschema and never looks at skill sources: everything it returns
was decided at build time and is read from `_index.json` and hash-checked
object files.

    from compiler import reader
    dist = reader.open("dist")
    dist.catalog("paria-g")
    dist.load("paria-g", "threat-assessment", args="Jita").body
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

try:  # optional speed-up; the reader works without it
    import orjson as _orjson

    _loads: Callable[[bytes], Any] = _orjson.loads
except ImportError:  # pragma: no cover - exercised where orjson is absent
    _loads = json.loads

FORMAT = 1
MAX_FILES = 20
_PERSONA_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)")
_DELIMITER = re.compile(r"<\s*/?\s*untrusted-data", re.IGNORECASE)
_HEX = re.compile(r"^[0-9a-f]{64}$")


class ReaderError(Exception):
    """Base class of every error the reader raises."""


class FormatError(ReaderError):
    """_index.json is missing, corrupt, or of another format version."""


class IntegrityError(ReaderError):
    """An object file is missing or its bytes do not match its hash."""


class UnknownPersona(ReaderError, KeyError):
    def __init__(self, persona: str, known: Sequence[str]):
        self.persona, self.known = persona, tuple(known)
        super().__init__(f"unknown persona {persona!r}; known: {', '.join(known) or 'none'}")

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownSkill(ReaderError, KeyError):
    def __init__(self, persona: str, command: str, visible: Sequence[str]):
        self.persona, self.command, self.visible = persona, command, tuple(visible)
        super().__init__(
            f"no skill {command!r} for persona {persona!r}; visible skills: {', '.join(visible) or 'none'}"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownResource(ReaderError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class SubSkill:
    command: str
    name: str
    description: str


@dataclass(frozen=True)
class SkillInfo:
    command: str
    name: str
    description: str
    access: str
    model: bool
    user: bool
    in_catalog: bool
    argument_hint: str | None
    context: str


@dataclass(frozen=True)
class LoadedSkill:
    persona: str
    command: str
    name: str
    description: str
    body: str
    access: str
    overlay: str | None
    files: tuple[str, ...]
    sub_skills: tuple[SubSkill, ...]
    context: str
    agent: str | None
    model: str | None
    allowed_tools: tuple[str, ...]
    knowledge: tuple[str, ...]

    def render(self) -> str:
        """sven's <skill_content> tool result: body, bundled files, sub-skill hint."""
        parts = [f'<skill_content command="{_attr(self.command)}" name="{_attr(self.name)}">', self.body.rstrip("\n"), ""]
        if self.files:
            parts.append("Bundled files (load with the resource tool, paths relative to this skill):")
            parts.extend(f"  - {f}" for f in self.files)
            parts.append("")
        if self.sub_skills:
            parts.append("<sub_skills>")
            parts.append("<!-- Call load_skill(command) to load any sub-skill's full instructions. -->")
            parts.extend(
                f'  <sub_skill command="{_attr(s.command)}" name="{_attr(s.name)}">{_text(s.description)}</sub_skill>'
                for s in self.sub_skills
            )
            parts.append("</sub_skills>")
        if self.knowledge:
            parts.append("Relevant knowledge docs (use search_knowledge or read_file to load):")
            parts.extend(f"  - {k}" for k in self.knowledge)
        parts.append("</skill_content>")
        return "\n".join(parts) + "\n"


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def open(path: str | os.PathLike[str]) -> "Dist":  # noqa: A001 - the API the issue names
    """Open a dist/ directory; the index is parsed on first use."""
    return Dist(path)


class Dist:
    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        self._index: dict[str, Any] | None = None
        if not os.path.isfile(os.path.join(self.path, "_index.json")):
            raise FormatError(f"{self.path}: no _index.json (not a skillc dist directory)")

    # -- index -------------------------------------------------------------

    @property
    def index(self) -> dict[str, Any]:
        if self._index is None:
            self._index = self._read_index()
        return self._index

    def _read_index(self) -> dict[str, Any]:
        where = os.path.join(self.path, "_index.json")
        try:
            with builtins.open(where, "rb") as fh:
                data = _loads(fh.read())
        except (OSError, ValueError, RecursionError) as exc:  # stdlib json recurses on deep nesting
            raise FormatError(f"{where}: cannot read index: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else None
            raise FormatError(f"{where}: format {got!r} is not supported (this reader reads format {FORMAT})")
        for key in ("personas", "skills", "resolutions"):
            if not isinstance(data.get(key), dict):
                raise FormatError(f"{where}: corrupt index: {key!r} missing")
        problem = _shape_problem(data)
        if problem:
            raise FormatError(f"{where}: corrupt index: {problem} is malformed")
        return data

    @property
    def build_hash(self) -> str:
        return str(self.index.get("build_hash", ""))

    def personas(self) -> list[str]:
        return sorted(self.index["personas"])

    def _persona(self, persona: str) -> dict[str, Any]:
        entry = self.index["personas"].get(persona)
        if entry is None:
            raise UnknownPersona(persona, self.personas())
        return entry

    def _resolution(self, persona: str, command: str) -> dict[str, Any]:
        self._persona(persona)
        table = self.index["resolutions"].get(persona, {})
        hit = table.get(command)
        if hit is None:
            raise UnknownSkill(persona, command, sorted(table))
        return hit

    # -- tier 1 ------------------------------------------------------------

    def catalog(self, persona: str) -> str:
        """The persona's precomputed tier-1 catalog fragment."""
        prompt = self._persona(persona)["prompt"]
        return self._read_checked(prompt["path"], prompt["sha256"]).decode("utf-8")

    def skills(self, persona: str) -> list[SkillInfo]:
        self._persona(persona)
        out = []
        for command, r in sorted(self.index["resolutions"].get(persona, {}).items()):
            skill = self.index["skills"][command]
            fm = skill.get("frontmatter", {})
            out.append(SkillInfo(
                command, skill["name"], skill["description"], r["access"], r["model"], r["user"],
                r["in_catalog"], fm.get("argument-hint"), fm.get("context", "inline"),
            ))
        return out

    def commands(self, persona: str) -> list[str]:
        """Slash commands the user may type for this persona."""
        return [s.command for s in self.skills(persona) if s.user]

    # -- tier 2 ------------------------------------------------------------

    def load(self, persona: str, command: str, args: str | Sequence[str] | None = None) -> LoadedSkill:
        r = self._resolution(persona, command)
        skill = self.index["skills"][command]
        fm = skill.get("frontmatter", {})
        body = self._read_checked(_object(r["body"]), r["body"]).decode("utf-8")
        return LoadedSkill(
            persona=persona, command=command, name=skill["name"], description=skill["description"],
            body=substitute(body, args), access=r["access"], overlay=r.get("overlay"),
            files=tuple(res["path"] for res in skill.get("resources", []))[:MAX_FILES],
            sub_skills=self._sub_skills(persona, skill), context=fm.get("context", "inline"),
            agent=fm.get("agent"), model=fm.get("model"),
            allowed_tools=tuple(fm.get("allowed-tools", ())), knowledge=tuple(fm.get("knowledge", ())),
        )

    def _sub_skills(self, persona: str, skill: dict[str, Any]) -> tuple[SubSkill, ...]:
        table = self.index["resolutions"].get(persona, {})
        out = []
        for child in skill.get("children", []):
            if child in table and table[child]["model"]:
                c = self.index["skills"][child]
                out.append(SubSkill(child, c["name"], c["description"]))
        return tuple(out)

    # -- tier 3 ------------------------------------------------------------

    def resources(self, persona: str, command: str, kind: str | None = None) -> list[str]:
        """Resource paths of a skill; kind filters by top directory (scripts, references, assets)."""
        self._resolution(persona, command)
        paths = [r["path"] for r in self.index["skills"][command].get("resources", [])]
        return [p for p in paths if kind is None or p.startswith(kind.rstrip("/") + "/")]

    def resource(self, persona: str, command: str, path: str) -> bytes:
        """The bytes of one resource; only paths listed in the index are served."""
        self._resolution(persona, command)
        for r in self.index["skills"][command].get("resources", []):
            if r["path"] == path:
                return self._read_checked(_object(r["sha256"]), r["sha256"])
        raise UnknownResource(f"{path!r} is not a resource of {command!r}")

    def missing_requirements(
        self, persona: str, command: str, env: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] = shutil.which,
    ) -> list[str]:
        """sven's availability guards, checked on this machine: ['bin:docker', 'env:TOKEN']."""
        self._resolution(persona, command)
        fm = self.index["skills"][command].get("frontmatter", {})
        env = os.environ if env is None else env
        missing = [f"bin:{b}" for b in fm.get("requires_bins", []) if which(b) is None]
        return missing + [f"env:{e}" for e in fm.get("requires_env", []) if not env.get(e)]

    # -- files -------------------------------------------------------------

    def _read_checked(self, rel: str, digest: str) -> bytes:
        if not _HEX.match(str(digest)) or ".." in rel.split("/") or rel.startswith("/"):
            raise FormatError(f"corrupt index entry {rel!r}")
        where = os.path.join(self.path, *rel.split("/"))
        try:
            with builtins.open(where, "rb") as fh:
                data = fh.read()
        except OSError:
            raise IntegrityError(f"{where}: missing (dist/ is incomplete; rebuild it)") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise IntegrityError(f"{where}: content does not match its sha256 {digest} (tampered or corrupt)")
        return data


def _shape_problem(data: dict[str, Any]) -> str | None:
    """The first entry later lookups would trip over (KeyError, TypeError), checked once on open."""
    for pid, p in data["personas"].items():
        if not (isinstance(p, dict) and isinstance(p.get("prompt"), dict) and _strs(p["prompt"], "path", "sha256")):
            return f"personas.{pid}"
    for command, s in data["skills"].items():
        if not (isinstance(s, dict) and _strs(s, "name", "description") and _skill_lists_ok(s)):
            return f"skills.{command}"
    for pid, table in data["resolutions"].items():
        if pid not in data["personas"] or not isinstance(table, dict):
            return f"resolutions.{pid}"
        for command, r in table.items():
            if command not in data["skills"] or not _resolution_ok(r):
                return f"resolutions.{pid}.{command}"
    return None


def _strs(entry: dict[str, Any], *keys: str) -> bool:
    return all(isinstance(entry.get(k), str) for k in keys)


def _skill_lists_ok(s: dict[str, Any]) -> bool:
    fm = s.get("frontmatter", {})
    resources = s.get("resources", [])
    lists = [s.get("children", [])] + [fm.get(k, []) if isinstance(fm, dict) else None
                                       for k in ("allowed-tools", "knowledge", "requires_bins", "requires_env")]
    return (
        isinstance(resources, list) and all(isinstance(r, dict) and _strs(r, "path", "sha256") for r in resources)
        and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in lists)
    )


def _resolution_ok(r: Any) -> bool:
    return isinstance(r, dict) and _strs(r, "body", "access") and all(isinstance(r.get(k), bool) for k in ("model", "user", "in_catalog"))


def _object(digest: str) -> str:
    return f"objects/{str(digest)[:2]}/{digest}"


def substitute(body: str, args: str | Sequence[str] | None) -> str:
    """Pegasus' $ARGUMENTS, $ARGUMENTS[N] and $N (0-based); append when absent."""
    if args is None:
        return body
    if isinstance(args, str):
        raw, parts = args, _split(args)
    else:
        parts = [str(a) for a in args]
        raw = " ".join(parts)
    raw = _DELIMITER.sub(lambda m: "&lt;" + m.group(0)[1:], raw)
    parts = [_DELIMITER.sub(lambda m: "&lt;" + m.group(0)[1:], p) for p in parts]
    used = False

    def replace(m: re.Match[str]) -> str:
        nonlocal used
        used = True
        index = m.group(1) or m.group(2)
        if index is None:
            return raw
        i = int(index)
        return parts[i] if i < len(parts) else ""

    out = _PLACEHOLDER.sub(replace, body)
    if not used and raw:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {raw}\n"
    return out


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return text.split()
