"""Incremental builds: a content-hash cache in `<project>/.skillc-cache/`.

Two levels, both keyed by content hashes, never by modification times:

- The build record (`build.json`). When the build hash (every input byte,
  the config, the template, the generator), the compiler's own fingerprint,
  the flags and the discovery diagnostics are those of the last successful
  build, and the output directory still holds exactly the files that build
  left there (same size and mtime, checked with one directory walk), `build`
  skips every stage after discover and replays that build's diagnostics.
- The memo (`memo.json`): the result of checking one SKILL.md (parse, schema,
  name rules) keyed by its bytes, path, command and source, and the catalog
  entry cost of a skill keyed by the template and the entry's fields. A
  changed tree re-parses and re-measures only the files that changed;
  resolution, budgets, rendering and the index are recomputed (they are
  cheap next to YAML and JSON Schema, and depend on every skill at once).

Trust: a cache directory may arrive with an untrusted checkout or archive.
Nothing in it is ever executed (JSON, never pickle), and every file carries an
HMAC-SHA256 made with a per-user key kept outside the project
(`$XDG_CACHE_HOME/skillc/key`, else `~/.cache/skillc/key`), so a foreign,
truncated, hand-edited or older-format file is not used: the build runs from
scratch, and its output is the same bytes either way. When no key can be read
or created the cache is off.

Each build reads the cache once and writes it once; nothing here is global.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import orjson

from .diagnostics import Diagnostic, Severity
from .model import Config, Skill, SkillSource

DIRNAME = ".skillc-cache"
FORMAT = 1
_MAGIC = b"skillc-cache/1 "
_BUILD, _REPORT, _MEMO = "build.json", "report.json", "memo.json"

SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]


@dataclass
class Stats:
    """What the cache did in one build (tests and the benchmark read it)."""

    checked: int = 0        # SKILL.md files parsed and validated (memo misses)
    reused: int = 0         # SKILL.md results taken from the memo
    measured: int = 0       # catalog entries rendered to measure their cost
    replayed: bool = False  # the whole build was skipped


@dataclass(frozen=True)
class Record:
    """The last successful build, as `build.json` holds it (its diagnostics are in `report.json`)."""

    key: str
    dist: str
    files: dict[str, list[int]]     # path in the output -> [size, mtime_ns]
    skills: int
    personas: int
    objects: int


# --- the per-user key and signed files ---------------------------------------

def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skillc" / "key"


def load_key() -> bytes | None:
    """The HMAC key, created on first use; None (cache off) when that fails."""
    try:
        path = key_path()
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another build made it first
                data = path.read_bytes()
            else:
                data = secrets.token_bytes(32)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
        return data if len(data) >= 16 else None
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return None


def _mac(key: bytes, name: str, payload: bytes) -> bytes:
    # The file name is signed too, so a memo cannot pass for a build record.
    return hmac.new(key, name.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode()


def read_signed(directory: Path, name: str, key: bytes) -> Any:
    """The JSON in a signed cache file, or None when absent, foreign or corrupt."""
    try:
        raw = (directory / name).read_bytes()
    except OSError:
        return None
    head, _, payload = raw.partition(b"\n")
    if not head.startswith(_MAGIC) or not hmac.compare_digest(head[len(_MAGIC):], _mac(key, name, payload)):
        return None
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def write_signed(directory: Path, name: str, key: bytes, data: Any) -> None:
    """Atomically replace a cache file; failures are ignored (a cache is optional)."""
    tmp = directory / f".{name}.{os.getpid()}.tmp"
    try:
        payload = orjson.dumps(data)
        directory.mkdir(exist_ok=True)
        tmp.write_bytes(_MAGIC + _mac(key, name, payload) + b"\n" + payload)
        os.replace(tmp, directory / name)
    except (OSError, TypeError):
        try:
            tmp.unlink()
        except OSError:
            pass


# --- what the cached results depend on ------------------------------------

def fingerprint() -> str:
    """The compiler's own sources and schemas, Python, and the parsing libraries.

    Any edit to skillc itself, or an upgrade of PyYAML, jsonschema or Jinja2
    (their module files change), makes every cached result a miss.
    """
    import jinja2
    import jsonschema
    import yaml

    h = hashlib.sha256(f"{FORMAT}\0{sys.version}\0libyaml={yaml.__with_libyaml__}\0".encode())
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *here.glob("schemas/*.json")]):
        h.update(f"{path.relative_to(here)}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    for module in (yaml, jsonschema, jinja2):
        st = os.stat(module.__file__ or "")
        h.update(f"{module.__name__}\0{module.__file__}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        # surrogatepass: file names that are not UTF-8 reach diagnostics as surrogates
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)  # length-prefixed: no ambiguous joins
    return h.hexdigest()


# --- encoding: JSON only, checked to round-trip ------------------------------

def encode_diags(diags: tuple[Diagnostic, ...]) -> list[list[Any]]:
    return [[d.path, d.line, d.col, d.severity.value, d.code, d.message] for d in diags]


_SEVERITY = {s.value: s for s in Severity}  # a dict lookup: Severity(value) is slow for 100,000 rows


def decode_diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic(p, line, col, _SEVERITY[sev], code, msg) for p, line, col, sev, code, msg in rows)


def encode_report(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """A build's diagnostics with each message stored once.

    A big tree repeats a few messages (one budget warning per left-out skill
    and persona) a hundred thousand times; interning them makes the record a
    third of the size and quicker to load.
    """
    texts: dict[str, int] = {}
    rows = [[d.path, d.line, d.col, d.severity.value, d.code, texts.setdefault(d.message, len(texts))] for d in diags]
    return {"messages": list(texts), "rows": rows}


def decode_report(data: dict[str, Any]) -> tuple[Diagnostic, ...]:
    texts = data["messages"]
    return tuple(Diagnostic(p, line, col, _SEVERITY[sev], code, texts[m]) for p, line, col, sev, code, m in data["rows"])


def _json_exact(value: Any) -> bool:
    """JSON gives value back as it is: no tuples, no non-str keys, no NaN, no huge ints."""
    if value is None or type(value) in (str, bool):
        return True
    if type(value) is int:
        return -(2**63) <= value < 2**64
    if type(value) is float:
        return value == value and abs(value) != float("inf")
    if type(value) is list:
        return all(_json_exact(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _json_exact(v) for k, v in value.items())
    return False


def _encode_skill(skill: Skill | None) -> dict[str, Any] | None:
    if skill is None:
        return None
    return {"name": skill.name, "description": skill.description, "body": skill.body, "fields": dict(skill.fields)}


def _decode_skill(entry: dict[str, Any] | None, src: SkillSource) -> Skill | None:
    if entry is None:
        return None
    return Skill(
        command=src.command, name=entry["name"], description=entry["description"], source=src.source,
        path=src.skill_md.rel, dir_rel=src.dir_rel, body=entry["body"], fields=entry["fields"],
        resources=src.resources, parent=None, children=(),
    )


# --- the cache of one build -------------------------------------------------

@dataclass
class Cache:
    """Read once when a build starts, written once when it ends."""

    directory: Path
    key: bytes
    fingerprint: str
    skills: dict[str, Any] = field(default_factory=dict)     # memo key -> {"skill", "diags"}
    costs: dict[str, int] = field(default_factory=dict)      # entry fields -> characters
    costs_template: str = ""                                  # the template those costs were measured with
    used_skills: dict[str, Any] = field(default_factory=dict)
    used_costs: dict[str, int] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)

    # -- whole-build short circuit ---------------------------------------

    def build_key(self, build_hash: str, config: Config, early: tuple[Diagnostic, ...]) -> str:
        """Everything the result of the stages after discover depends on.

        `early` are the diagnostics of config loading and discovery: they
        cover what is not an input byte (ignored files, unreadable paths).
        """
        dist = str((config.root / config.output).resolve())
        return _digest(self.fingerprint, build_hash, str(config.strict), dist, *(d.format() for d in early))

    def replay(self, key: str, dist: Path, *, prune: bool) -> tuple[Record, tuple[Diagnostic, ...]] | None:
        """The recorded build and its diagnostics, when `key` matches and dist is as that build left it."""
        record = self._record()
        if record is None or record.key != key or not output_current(record, dist, prune=prune):
            return None
        # Loaded only now: a hundred thousand diagnostics cost more than the checks above.
        report = read_signed(self.directory, _REPORT, self.key)
        try:
            if report["key"] != key:
                return None
            diagnostics = decode_report(report)
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        self.stats.replayed = True
        return record, diagnostics

    def _record(self) -> Record | None:
        data = read_signed(self.directory, _BUILD, self.key)
        try:
            if data["format"] != FORMAT or data["fingerprint"] != self.fingerprint or not isinstance(data["files"], dict):
                return None
            return Record(data["key"], data["dist"], data["files"], data["skills"], data["personas"], data["objects"])
        except (KeyError, TypeError):
            return None

    def save_record(self, record: Record, diagnostics: tuple[Diagnostic, ...]) -> None:
        # The report carries the key too, so a record never replays another build's report.
        write_signed(self.directory, _REPORT, self.key, {"key": record.key, **encode_report(diagnostics)})
        write_signed(self.directory, _BUILD, self.key, {
            "format": FORMAT, "fingerprint": self.fingerprint, "key": record.key, "dist": record.dist,
            "files": record.files, "skills": record.skills, "personas": record.personas, "objects": record.objects,
        })

    # -- per-file memo -----------------------------------------------------

    def load_memo(self) -> None:
        """Read memo.json; only a build that is not replayed needs it."""
        data = read_signed(self.directory, _MEMO, self.key)
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fingerprint") != self.fingerprint:
            return
        if isinstance(data.get("skills"), dict) and isinstance(data.get("costs"), dict):
            self.skills, self.costs = data["skills"], data["costs"]
            self.costs_template = str(data.get("template", ""))

    def check_skill(self, check: Callable[[SkillSource], SkillResult]) -> Callable[[SkillSource], SkillResult]:
        """`check` memoised by the SKILL.md's bytes and everything else it reads from src."""

        def cached(src: SkillSource) -> SkillResult:
            key = _digest("skill", src.skill_md.rel, src.command, src.dir_rel, str(src.source), src.skill_md.data)
            hit = self.skills.get(key)
            if hit is not None:
                try:
                    result = _decode_skill(hit["skill"], src), decode_diags(hit["diags"])
                except (KeyError, TypeError, ValueError, IndexError):
                    result = None
                if result is not None:
                    self.stats.reused += 1
                    self.used_skills[key] = hit
                    return result
            skill, diags = check(src)
            self.stats.checked += 1
            entry = {"skill": _encode_skill(skill), "diags": encode_diags(diags)}
            # Remember only what JSON keeps as it is and decodes to the very same result.
            if _json_exact(entry) and _decode_skill(entry["skill"], src) == skill and decode_diags(entry["diags"]) == diags:
                self.used_skills[key] = entry
            return skill, diags

        return cached

    def entry_cost(self, measure: Callable[[Skill, Any], int]) -> Callable[[Skill, Any], int]:
        """`measure(skill, template)` memoised by the template and the entry's fields."""

        digests: dict[int, str] = {}

        def cached(skill: Skill, template: Any) -> int:
            tkey = digests.get(id(template))
            if tkey is None:
                tkey = digests[id(template)] = _digest(template.source, str(template.markup), template.suffix)
            if tkey != self.costs_template:  # another template: nothing measured so far applies
                self.costs, self.used_costs, self.costs_template = {}, {}, tkey
            try:  # the fields catalog_skill hands the template, as an unambiguous JSON array
                key = orjson.dumps([skill.command, skill.name, skill.description, skill.path, bool(skill.flag("always", False))]).decode()
            except TypeError:  # not representable (lone surrogates): measured, never memoised
                return measure(skill, template)
            hit = self.costs.get(key)
            if type(hit) is not int:
                hit = measure(skill, template)
                self.stats.measured += 1
            self.used_costs[key] = hit
            return hit

        return cached

    def save_memo(self) -> None:
        """Keep only what this build used, so the memo follows the tree."""
        if self.used_skills.keys() == self.skills.keys() and self.used_costs == self.costs:
            return  # nothing new: skip rewriting megabytes
        write_signed(self.directory, _MEMO, self.key, {
            "format": FORMAT, "fingerprint": self.fingerprint, "skills": self.used_skills,
            "template": self.costs_template, "costs": self.used_costs,
        })


def open_cache(config: Config) -> Cache | None:
    """The project's cache, or None when it is off (no key can be kept)."""
    key = load_key()
    if key is None:
        return None
    return Cache(config.root / DIRNAME, key, fingerprint())


# --- the output directory, as the build record describes it ------------------

def scan(dist: Path) -> dict[str, list[int]] | None:
    """path -> [size, mtime_ns] of every file below dist; None if it cannot be walked."""
    found: dict[str, list[int]] = {}
    stack = [("", str(dist))]
    try:
        while stack:
            rel, path = stack.pop()
            with os.scandir(path) as it:
                for entry in it:
                    name = f"{rel}{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((name + "/", entry.path))
                    else:
                        st = entry.stat(follow_symlinks=False)
                        found[name] = [st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    return found


def output_current(record: Record, dist: Path, *, prune: bool) -> bool:
    """dist holds every file the recorded build left, unchanged, and nothing a build would remove."""
    if str(dist.resolve()) != record.dist:
        return False
    if any(dist.parent.glob(f".{dist.name}.tmp-*")) or any(dist.parent.glob(f".{dist.name}.old-*")):
        return False  # a killed build left debris that a real build cleans up
    present = scan(dist)
    if present is None:
        return False
    if any(present.get(rel) != stat for rel, stat in record.files.items()):
        return False
    extra = present.keys() - record.files.keys()
    # Objects of earlier builds are kept unless --prune; any other extra file a build would delete.
    return not extra if prune else all(rel.startswith("objects/") for rel in extra)
