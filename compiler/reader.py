"""skillc runtime reader: serve a compiled dist/ to an application.

Standard library only (orjson is used when installed). It never imports yaml,
jinja2 or jsonschema and never looks at skill sources: everything it returns
was decided at build time and is read from `_index.json` and hash-checked
object files.

    from skillc import reader
    dist = reader.open("dist")
    dist.catalog("paria-g")
    dist.load("paria-g", "threat-assessment", args="Jita").body
"""

from __future__ import annotations

import builtins
import json
import os
import re
from dataclasses import dataclass

from .untrusted import escape_delimiter  # the compiler's rule for overlays, so both escape alike

try:  # hashlib loads OpenSSL: 2.5 ms of a cold start that must stay under 50 ms
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - not CPython 3.11
    from hashlib import sha256 as _sha256

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; typing costs start-up time at run time
    from pathlib import Path
    from typing import Any, Callable, Mapping, Sequence


def _loads(data: bytes) -> Any:
    """Parse a whole index: orjson when installed, imported on first use (5 ms of start-up)."""
    global _loads
    try:  # optional speed-up; the reader works without it
        import orjson

        _loads = orjson.loads
    except ImportError:  # pragma: no cover - exercised where orjson is absent
        _loads = json.loads
    return _loads(data)

FORMAT = 1
MAX_FILES = 20
_PERSONA_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
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
        self._slices: _Slices | None = None
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
            # The bytes the entry lookups saw, if any: one snapshot of the file.
            raw = self._slices.data if self._slices is not None else None
            if raw is None:
                with builtins.open(where, "rb") as fh:
                    raw = fh.read()
            data = _loads(raw)
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

    # Entry lookups: from the index's text when it is in encode_index's layout
    # (see _Slices), else from the parsed index. A miss or anything unexpected
    # goes the parsed way, which raises the precise error.

    def _fast(self) -> _Slices | None:
        if self._index is not None:
            return None
        if self._slices is None:
            self._slices = _Slices.read(os.path.join(self.path, "_index.json"))
        return self._slices if self._slices.ok else None

    def _persona(self, persona: str) -> dict[str, Any]:
        if self._index is None and self._slices is None:
            # catalog() in a new process: read only up to this persona's prompt.
            hit = _Slices.stream_persona(os.path.join(self.path, "_index.json"), persona)
        else:
            fast = self._fast()
            hit = fast.persona(persona) if fast else None
        if isinstance(hit, dict):
            return hit
        entry = self.index["personas"].get(persona)
        if entry is None:
            raise UnknownPersona(persona, self.personas())
        return entry

    def _resolution(self, persona: str, command: str) -> dict[str, Any]:
        hit = self._visible(persona, command)
        if hit is None:
            self._persona(persona)
            raise UnknownSkill(persona, command, sorted(self.index["resolutions"].get(persona, {})))
        return hit

    def _visible(self, persona: str, command: str) -> dict[str, Any] | None:
        """The persona's resolution of command, None when the persona does not see it."""
        fast = self._fast()
        hit = fast.resolution(persona, command) if fast else None
        if isinstance(hit, dict):
            return hit
        if hit is _ABSENT:
            return None
        return self.index["resolutions"].get(persona, {}).get(command)

    def _skill(self, command: str) -> dict[str, Any]:
        fast = self._fast()
        hit = fast.skill(command) if fast else None
        return hit if isinstance(hit, dict) else self.index["skills"][command]

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
        skill = self._skill(command)
        fm = skill.get("frontmatter", {})
        body = self._read_checked(_object(r["body"]), r["body"]).decode("utf-8")
        stub = r["access"] == "stub"  # the stub is all such a persona gets: no files, no knowledge docs
        return LoadedSkill(
            persona=persona, command=command, name=skill["name"], description=skill["description"],
            body=substitute(body, args, names=_names(fm.get("arguments"))), access=r["access"], overlay=r.get("overlay"),
            files=() if stub else tuple(res["path"] for res in skill.get("resources", []))[:MAX_FILES],
            sub_skills=() if stub else self._sub_skills(persona, skill), context=fm.get("context", "inline"),
            agent=fm.get("agent"), model=fm.get("model"),
            allowed_tools=tuple(fm.get("allowed-tools", ())), knowledge=() if stub else tuple(fm.get("knowledge", ())),
        )

    def _sub_skills(self, persona: str, skill: dict[str, Any]) -> tuple[SubSkill, ...]:
        out = []
        for child in skill.get("children", []):
            r = self._visible(persona, child)
            if r is not None and r["model"]:
                c = self._skill(child)
                out.append(SubSkill(child, c["name"], c["description"]))
        return tuple(out)

    # -- tier 3 ------------------------------------------------------------

    def resources(self, persona: str, command: str, kind: str | None = None) -> list[str]:
        """Resource paths of a skill; kind filters by top directory (scripts, references, assets)."""
        if self._resolution(persona, command)["access"] == "stub":
            return []  # an exclusive skill's files belong to the personas granted it
        paths = [r["path"] for r in self._skill(command).get("resources", [])]
        return [p for p in paths if kind is None or p.startswith(kind.rstrip("/") + "/")]

    def resource(self, persona: str, command: str, path: str) -> bytes:
        """The bytes of one resource; only paths listed in the index are served, never to a stub."""
        if self._resolution(persona, command)["access"] == "stub":
            raise UnknownResource(f"{path!r}: {command!r} is exclusive to another persona; only its stub is served")
        for r in self._skill(command).get("resources", []):
            if r["path"] == path:
                return self._read_checked(_object(r["sha256"]), r["sha256"])
        raise UnknownResource(f"{path!r} is not a resource of {command!r}")

    def missing_requirements(
        self, persona: str, command: str, env: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] | None = None,
    ) -> list[str]:
        """sven's availability guards, checked on this machine: ['bin:docker', 'env:TOKEN'].

        `which` defaults to shutil.which.
        """
        self._resolution(persona, command)
        fm = self._skill(command).get("frontmatter", {})
        env = os.environ if env is None else env
        if which is None:
            import shutil  # here, not at the top: a cold catalog() does not need it

            which = shutil.which
        missing = [f"bin:{b}" for b in fm.get("requires_bins", []) if which(b) is None]
        return missing + [f"env:{e}" for e in fm.get("requires_env", []) if not env.get(e)]

    def materialize(self, persona: str, command: str, dest: str | os.PathLike[str], args: str | Sequence[str] | None = None) -> Path:
        """Write the resolved skill folder into dest, as a workspace mounts a skill into a task folder.

        SKILL.md holds the resolved body (arguments substituted, `${CLAUDE_SKILL_DIR}`
        = dest); every resource follows with its executable bit. dest must be
        missing or empty; nothing is ever written outside it. Returns dest.
        """
        r = self._resolution(persona, command)
        skill = self._skill(command)
        fm = skill.get("frontmatter", {})
        root = os.path.abspath(os.fspath(dest))
        # A stub persona gets the stub's SKILL.md and nothing of the exclusive skill's files.
        listed = [] if r["access"] == "stub" else skill.get("resources", [])
        files = [(_safe_rel(res.get("path")), res) for res in listed]
        if any(rel == "SKILL.md" for rel, _ in files):
            raise FormatError(f"corrupt index: a resource of {command!r} is named SKILL.md")
        try:
            if os.path.lexists(root) and (not os.path.isdir(root) or os.path.islink(root) or os.listdir(root)):
                raise ReaderError(f"{root}: destination exists and is not an empty directory")
            os.makedirs(root, exist_ok=True)
            body = self._read_checked(_object(r["body"]), r["body"]).decode("utf-8")
            body = substitute(body, args, names=_names(fm.get("arguments")), skill_dir=root)
            _write_new(root, "SKILL.md", _frontmatter(skill) + body, False)
            for rel, res in files:
                _write_new(root, rel, self._read_checked(_object(res["sha256"]), res["sha256"]), res.get("executable") is True)
        except OSError as exc:
            raise ReaderError(f"{root}: cannot write: {exc.strerror or exc}") from None
        from pathlib import Path  # only here: a cold catalog() must not pay for pathlib

        return Path(root)

    # -- files -------------------------------------------------------------

    def _read_checked(self, rel: str, digest: str) -> bytes:
        if not _HEX.match(str(digest)) or ".." in rel.split("/") or rel.startswith("/") or "\x00" in rel:
            raise FormatError(f"corrupt index entry {rel!r}")
        where = os.path.join(self.path, *rel.split("/"))
        try:
            with builtins.open(where, "rb") as fh:
                data = fh.read()
        except OSError:
            raise IntegrityError(f"{where}: missing (dist/ is incomplete; rebuild it)") from None
        if _sha256(data).hexdigest() != digest:
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


_ABSENT = object()  # a _Slices answer: the layout is known and the key is not in it


class _Slices:
    """Entries of `_index.json` read from its text, without parsing the rest.

    At 10,000 skills the index is 48 MB and parsing it whole takes 0.3 s,
    while catalog() needs one persona's prompt hash and load() a skill and a
    resolution: a few hundred bytes. encode_index writes the index with
    two-space indentation and its top-level keys in a fixed order, so the
    entry for a key of a mapping at depth d starts with the line
    `<2d spaces>"key": {` and ends at the first later line `<2d spaces>}`: a
    JSON string never holds a raw newline, and everything inside the entry is
    indented deeper. Each entry found this way is parsed as JSON and checked
    like the whole index would be. Only that exact layout is recognised: for
    any other file (re-serialised, hand-edited, truncated, another format)
    the lookups answer None and the reader parses the index whole, with every
    check and its precise errors.

    catalog() streams the file only up to the persona's prompt entry (the
    personas come first); the first load() reads the file once, without
    parsing it, and later lookups slice those bytes.
    """

    _HEAD = b'{\n  "format": 1,\n'
    _PERSONAS, _SKILLS, _RESOLUTIONS = b'\n  "personas": {\n', b'\n  "skills": {\n', b'\n  "resolutions": {\n'
    _PROMPT = re.compile(rb'\n      "prompt": (\{\n.*?\n      \})', re.DOTALL)
    _CHUNK = 1 << 20

    def __init__(self, data: bytes):
        self.data = data
        self.personas_at = data.find(self._PERSONAS)
        self.skills_at = data.find(self._SKILLS, max(self.personas_at, 0))
        self.resolutions_at = data.find(self._RESOLUTIONS, max(self.skills_at, 0))
        self.ok = data.startswith(self._HEAD) and 0 < self.personas_at < self.skills_at < self.resolutions_at
        self._tables: dict[str, tuple[int, int] | None] = {}
        self._offsets: dict[tuple[int, int], dict[str, int]] = {}

    @classmethod
    def read(cls, where: str) -> _Slices:
        try:
            with builtins.open(where, "rb") as fh:
                return cls(fh.read())
        except OSError:
            return cls(b"")  # not ok: the parsed path reports the error

    @classmethod
    def stream_persona(cls, where: str, persona: str) -> dict[str, Any] | None:
        """{"prompt": ...} of one persona, reading the file only as far as that entry."""
        head = _entry_head(persona, 2)
        try:
            with builtins.open(where, "rb") as fh:
                buf = fh.read(cls._CHUNK)
                at = buf.find(cls._PERSONAS)
                if not buf.startswith(cls._HEAD) or at < 0:
                    return None
                buf = buf[at:]
                while True:
                    found, ends = buf.find(head), buf.find(cls._SKILLS)
                    if ends >= 0 and (found < 0 or ends < found):
                        return None  # not among the personas
                    if found >= 0:
                        buf = buf[found:]
                        close = buf.find(b"\n    }")
                        m = cls._PROMPT.search(buf, 0, close if close >= 0 else len(buf))
                        if m or close >= 0:
                            return cls._prompt(m)
                    else:  # keep a tail: a marker may straddle two chunks
                        buf = buf[-len(head) - len(cls._SKILLS):]
                    more = fh.read(cls._CHUNK)
                    if not more:
                        return None
                    buf += more
        except OSError:
            return None

    @staticmethod
    def _prompt(m: re.Match[bytes] | None) -> dict[str, Any] | None:
        prompt = _parse(m.group(1)) if m else None
        return {"prompt": prompt} if isinstance(prompt, dict) and _strs(prompt, "path", "sha256") else None

    def persona(self, persona: str) -> dict[str, Any] | None:
        span = self._span(persona, 2, self.personas_at, self.skills_at)
        return self._prompt(self._PROMPT.search(self.data, *span)) if span else None

    def skill(self, command: str) -> dict[str, Any] | None:
        span = self._span(command, 2, self.skills_at, self.resolutions_at)
        entry = _parse(self.data[span[0]:span[1]]) if span else None
        ok = isinstance(entry, dict) and _strs(entry, "name", "description") and _skill_lists_ok(entry)
        return entry if ok else None

    def resolution(self, persona: str, command: str) -> Any:
        """The entry, _ABSENT when the persona's table lacks it, None when unsure."""
        if persona not in self._tables:
            self._tables[persona] = self._span(persona, 2, self.resolutions_at, len(self.data))
        table = self._tables[persona]
        if table is None:
            return None
        span = self._span(command, 3, *table)
        if span is None:
            return _ABSENT
        entry = _parse(self.data[span[0]:span[1]])
        return entry if _resolution_ok(entry) else None

    def _span(self, key: str, depth: int, start: int, end: int) -> tuple[int, int] | None:
        """Where the object that is key's value starts and ends, "{" to "}"."""
        head = _entry_head(key, depth)
        if depth == 2 and start != self.skills_at:  # personas and resolution tables: a dozen, found directly
            at = self.data.find(head, start, end)
        else:  # skills and one persona's resolutions: thousands of keys, mapped once
            at = self._keys(depth, start, end).get(key, -1)
        if at < 0:
            return None
        first = at + len(head) - 2
        close = self.data.find(b"\n" + b"  " * depth + b"}", first, end)
        return (first, close + 2 * depth + 2) if close >= 0 else None


    def _keys(self, depth: int, start: int, end: int) -> dict[str, int]:
        """key -> offset of its entry line, for every entry of the mapping in [start, end)."""
        found = self._offsets.get((start, end))
        if found is None:
            found = {}
            line = re.compile(rb'\n' + b"  " * depth + rb'("(?:[^"\\\n]|\\.)*"): \{\n')
            for m in line.finditer(self.data, start, end):
                raw = m.group(1)
                key = json.loads(raw) if b"\\" in raw else raw[1:-1].decode("utf-8", "surrogatepass")
                found.setdefault(key, m.start())
            self._offsets[(start, end)] = found
        return found


def _entry_head(key: str, depth: int) -> bytes:
    # Keys are written as json.dumps(key, ensure_ascii=False) writes them.
    return b"\n" + b"  " * depth + json.dumps(key, ensure_ascii=False).encode("utf-8", "surrogatepass") + b": {\n"


def _parse(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _safe_rel(rel: Any) -> str:
    """A resource path from the index, refused unless it stays below the destination."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel or "\x00" in rel:
        raise FormatError(f"corrupt index: resource path {rel!r}")
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or re.match(r"^[A-Za-z]:", rel):
        raise FormatError(f"corrupt index: resource path {rel!r}")
    return rel


def _write_new(root: str, rel: str, data: str | bytes, executable: bool) -> None:
    """Create one file below root; every parent is a real directory created here (no symlink to follow)."""
    where = root
    for part in rel.split("/")[:-1]:
        where = os.path.join(where, part)
        if not os.path.isdir(where) or os.path.islink(where):
            os.mkdir(where)  # raises if something else is there
    path = os.path.join(root, *rel.split("/"))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o777 if executable else 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    if executable:  # the umask may have cleared x bits; restore the owner's at least
        os.chmod(path, os.stat(path).st_mode | 0o100)


def _frontmatter(skill: dict[str, Any]) -> str:
    """name and description, so the written folder is a skill a harness can load."""
    return f"---\nname: {json.dumps(skill['name'], ensure_ascii=False)}\ndescription: {json.dumps(skill['description'], ensure_ascii=False)}\n---\n\n"


def _object(digest: str) -> str:
    return f"objects/{str(digest)[:2]}/{digest}"


def substitute(body: str, args: str | Sequence[str] | None, *, names: Sequence[str] = (), skill_dir: str | None = None) -> str:
    """Claude Code's argument substitution.

    `$ARGUMENTS` is the argument string as typed; `$ARGUMENTS[N]` and `$N`
    (0-based) are its shell-style words, unchanged when there is no such
    word; `$name` for each name of the skill's `arguments:` list is the word
    at that position (empty when missing); `\\$1` stays `$1` (a doubled
    backslash does not escape). Without `$ARGUMENTS` in the body, given
    arguments are appended as `ARGUMENTS: <value>`. `${CLAUDE_SKILL_DIR}`
    becomes skill_dir when one is given.
    """
    if args is None and skill_dir is None:
        return body
    if args is None:
        raw, parts = "", []
    elif isinstance(args, str):
        raw, parts = args, _split(args)
    else:
        try:
            parts = [str(a) for a in args]
        except TypeError:
            raise ReaderError(f"args must be a string or a sequence of strings, not {type(args).__name__}") from None
        raw = " ".join(parts)
    raw = escape_delimiter(raw)
    parts = [escape_delimiter(p) for p in parts]
    named = {n: i for i, n in enumerate(names) if isinstance(n, str) and _NAME_ARG.match(n)}
    pattern = _placeholders(tuple(sorted(named, key=len, reverse=True)))
    used = False

    def replace(m: re.Match[str]) -> str:
        nonlocal used
        slashes, token = m.group("slashes"), m.group(0)[len(m.group("slashes")):]
        if len(slashes) % 2 == 1:  # escaped: drop the escaping backslash, keep the placeholder
            return slashes[:-1] + token
        if m.group("dir") is not None:
            return slashes + (skill_dir if skill_dir is not None else token)
        if args is None:
            return m.group(0)
        index = m.group("index") or m.group("num")
        if index is not None:
            used = True
            i = int(index) if len(index) < 10 else len(parts)  # a huge index has no word: never int() it
            return slashes + (parts[i] if i < len(parts) else token)
        name = m.group("name")
        if name is not None:
            i, used = named[name], True
            return slashes + (parts[i] if i < len(parts) else "")
        used = True
        return slashes + raw

    out = pattern.sub(replace, body)
    if args is not None and not used and raw:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {raw}\n"
    return out


def _names(value: Any) -> tuple[str, ...]:
    """The `arguments:` frontmatter list (the build wrote a list; be lenient with a string)."""
    if isinstance(value, str):
        return tuple(value.split())
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


_NAME_ARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _placeholders(names: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for every placeholder; named ones must not run on into a longer word."""
    hit = _PATTERNS.get(names)
    if hit is None:
        named = "|".join(re.escape(n) for n in names)
        hit = _PATTERNS[names] = re.compile(
            r"(?P<slashes>\\*)(?:\$\{(?P<dir>CLAUDE_SKILL_DIR)\}|\$ARGUMENTS\[(?P<index>\d+)\]"
            + (rf"|\$(?P<name>{named})(?![A-Za-z0-9_-])" if names else "|(?P<name>(?!))")
            + r"|\$ARGUMENTS(?![A-Za-z0-9_])|\$(?P<num>\d+))"
        )
    return hit


def _split(text: str) -> list[str]:
    import shlex  # only for arguments: kept out of the cold start

    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return text.split()
