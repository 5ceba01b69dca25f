"""Incremental builds: a cache in `<project>/.skillc-cache/`.

Three levels:

- The no-op fast path (`build.json`, its `inputs`). Before discover reads a
  byte, one stat walk (an os.scandir per directory, a stat per directory and
  per file) compares every walked directory's listing and stat data and every
  input file's size, mtime_ns, ctime_ns and inode with what they were when
  the last successful build read them. When all match, and the config, the
  template, the flags and the compiler are those of that build (they are
  read and hashed, as always), the inputs are taken to be unchanged without
  reading them, as git's index and make do, and the build is replayed as below.
- The build record (`build.json`), keyed by content. When the build hash
  (every input byte, the config, the template, the generator), the
  compiler's own fingerprint, the flags and the discovery diagnostics are
  those of the last successful build, and the output directory still holds
  exactly the files that build left there (same size, mtime, ctime, inode and type, checked with
  one directory walk), `build` skips every stage after discover and replays
  that build's diagnostics (`report.json`), discover's own warnings among
  them. A build with errors is never recorded, so never replayed.
- The memo (`memo.json`): the result of checking one SKILL.md (parse, schema,
  name rules) keyed by its bytes, path, command and source, and the catalog
  entry cost of a skill keyed by the template and the entry's fields. A
  changed tree re-parses and re-measures only the files that changed;
  resolution, budgets, rendering and the index are recomputed (they are
  cheap next to YAML and JSON Schema, and depend on every skill at once).

The trade-off of the fast path: a content change that keeps a file's size,
mtime_ns, ctime_ns and inode is not noticed, and the old output is kept. An
ordinary write cannot do that: it sets the ctime to the current time, which
utime() cannot set back. The stat data is taken after a file system time
stamp and before the read, and is recorded only when every input and
directory is older than the stamp, so a write during a build, or in the same
clock tick as the stat, is seen too. What remains: a clock set back, a file
system without a real ctime or with a coarser clock than the one
`.skillc-cache/` is on (a source on another mount), and tools that write the
device under the file system. `build --no-cache`, or touching the file (the
next build then reads every input), brings such a change in; `check` never
uses the cache, so CI still sees the truth.
Trees holding a symlink to a directory always take the content path (discover
follows it, with loop and escape checks the stat walk does not repeat), and
any change in a walked directory, even a hidden file, makes the next build
read the inputs once.

Trust: a cache directory may arrive with an untrusted checkout or archive.
Nothing in it is ever executed (JSON, never pickle), and every file carries an
HMAC-SHA256 made with a per-user key kept outside the project
(`$XDG_CACHE_HOME/skillc/key`, else `~/.cache/skillc/key`), so a foreign,
truncated, hand-edited or older-format file is not used: the build runs from
scratch, and its output is the same bytes either way. When no key can be read
or created the cache is off.

Each build reads the cache once and writes it at most once (and a time stamp
file, deleted at once); nothing here is global.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import os
import secrets
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import orjson

from . import fs
from . import write as write_mod
from .diagnostics import Diagnostic, Severity
from .discover import ignored
from .model import Config, Skill, SkillSource
from .paths import nfc

DIRNAME = write_mod.CACHE_DIRNAME
FORMAT = 3  # 2: memo entries carry frontmatter anchors; 3: output files by [size, mtime, ctime, inode, mode]
FILE_CAP = 1 << 30      # a cache file larger than this is foreign: never read into memory
KEY_CAP = 4096
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
    unread: bool = False    # ... and the inputs were proven unchanged by their stat data, none was read


@dataclass(frozen=True)
class Snapshot:
    """The inputs as one stat walk sees them, without reading a byte.

    Taken before discover reads the files, so a file that changes after its
    stat changes its stat data too (see `take_snapshot` for the clock).
    """

    head: str                       # key of config, template, flags and their diagnostics (no input bytes)
    stamp: int                      # file system time taken before the walk, in ns
    roots: dict[str, str]           # each walked root (config path) -> its real path
    dirs: dict[str, list[str]]      # each walked directory -> its entries, "<kind><name>", sorted
    # ... and its [mtime_ns, ctime_ns, inode]: a listing can change and change back
    # while a build runs; the directory's ctime cannot (see `take_snapshot`).
    dir_stats: dict[str, list[int]]
    files: dict[str, list[int]]     # path -> [size, mtime_ns, ctime_ns, inode] (inputs only, once recorded)


@dataclass(frozen=True)
class Record:
    """The last successful build, as `build.json` holds it (its diagnostics are in `report.json`)."""

    key: str
    dist: str
    files: dict[str, list[int]]     # path in the output -> [size, mtime_ns, ctime_ns, inode, mode]
    skills: int
    personas: int
    objects: int
    inputs: Snapshot | None = None  # its inputs by stat data, for the no-op fast path


# --- the per-user key and signed files ---------------------------------------

def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and must be ignored
        base = str(Path.home() / ".cache")
    return Path(base) / "skillc" / "key"


def load_key() -> bytes | None:
    """The HMAC key, created on first use; None (cache off) when that fails.

    Read only from a regular file, at most KEY_CAP bytes: a FIFO or a device
    planted there turns the cache off instead of hanging the build.
    """
    try:
        path = key_path()
        try:
            data = fs.read_regular(path, KEY_CAP)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW, 0o600)
            except FileExistsError:  # another build made it first
                data = fs.read_regular(path, KEY_CAP)
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
    try:  # never through a symlink, never a FIFO or device, never unbounded
        raw = fs.read_regular(directory / name, FILE_CAP, follow=False)
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
    tmp = directory / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        payload = orjson.dumps(data)
        fs.ensure_dir(directory, ignore_all=True)
        with write_mod.interrupt_deferred():  # Ctrl-C never leaves a temporary file behind
            # O_EXCL|O_NOFOLLOW: a symlink planted at the name is never written through.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC + _mac(key, name, payload) + b"\n" + payload)
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
_VALUE = {s: s.value for s in Severity}     # and so is the enum's .value property


def decode_diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic(p, line, col, _SEVERITY[sev], code, msg) for p, line, col, sev, code, msg in rows)


def encode_report(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """A build's diagnostics with each message stored once.

    A big tree repeats a few messages (one budget warning per left-out skill
    and persona) a hundred thousand times; interning them makes the record a
    third of the size and quicker to load.
    """
    texts: dict[str, int] = {}
    rows = [[d.path, d.line, d.col, _VALUE[d.severity], d.code, texts.setdefault(d.message, len(texts))] for d in diags]
    return {"messages": list(texts), "rows": rows}


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector, then restore it as it was.

    Decoding a report makes ~100,000 rows and as many Diagnostic objects, none
    in a cycle, and encoding one as many rows; the collector passes those
    allocations trigger cost as much as the work itself, or more on the heap
    of a whole build.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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
    return {"name": skill.name, "description": skill.description, "body": skill.body, "fields": dict(skill.fields),
            "anchors": {k: list(v) for k, v in skill.anchors.items()}}


def _decode_skill(entry: dict[str, Any] | None, src: SkillSource) -> Skill | None:
    if entry is None:
        return None
    return Skill(
        command=src.command, name=entry["name"], description=entry["description"], source=src.source,
        path=src.skill_md.rel, dir_rel=src.dir_rel, body=entry["body"], fields=entry["fields"],
        resources=src.resources, parent=None, children=(),
        anchors={k: (v[0], v[1]) for k, v in entry["anchors"].items()},
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
    loaded: tuple[Record | None] | None = None              # build.json, once read

    # -- whole-build short circuit ---------------------------------------

    def build_key(self, build_hash: str, config: Config, early: tuple[Diagnostic, ...]) -> str:
        """Everything the result of the stages after discover depends on.

        `early` are the diagnostics of config loading and discovery: they
        cover what is not an input byte (ignored files, unreadable paths).
        """
        dist = str((config.root / config.output).resolve())
        flags = f"{config.strict}/{config.skip_invalid}/{config.verbose}/{config.severities}"
        return _digest(self.fingerprint, build_hash, flags, dist, *(d.format() for d in early))

    def head_key(self, config_hash: str, config: Config, diags: tuple[Diagnostic, ...]) -> str:
        """`build_key` without the inputs: `config_hash` covers the generator, the config and the template,
        `diags` the problems found in them. With the same inputs, the same head means the same build key."""
        return _digest("head", self.build_key(config_hash, config, diags))

    def replay(self, key: str, dist: Path, *, prune: bool) -> tuple[Record, tuple[Diagnostic, ...]] | None:
        """The recorded build and its diagnostics, when `key` matches and dist is as that build left it."""
        record = self._record()
        if record is None or record.key != key or not output_current(record, dist, prune=prune):
            return None
        # Loaded only now: a hundred thousand diagnostics cost more than the checks above.
        with _collector_paused():
            report = read_signed(self.directory, _REPORT, self.key)
            try:
                if report["key"] != key:
                    return None
                diagnostics = decode_report(report)
            except (KeyError, TypeError, ValueError, IndexError):
                return None
        self.stats.replayed = True
        return record, diagnostics

    def replay_unchanged(self, now: Snapshot, dist: Path, *, prune: bool) -> tuple[Record, tuple[Diagnostic, ...]] | None:
        """The no-op fast path: `replay` without reading an input, when `now` shows them as recorded.

        Same stat data for every input of the last build, the same listing of
        every walked directory, the same config, template and flags (`head`):
        the inputs are taken to be unchanged, so the build key is the recorded
        one. The output directory is checked exactly as `replay` does.
        """
        record = self._record()
        if record is None or record.inputs is None or not same_inputs(record.inputs, now):
            return None
        hit = self.replay(record.key, dist, prune=prune)
        self.stats.unread = hit is not None
        return hit

    def _record(self) -> Record | None:
        if self.loaded is None:  # read once: the fast path and the content path both ask
            self.loaded = (self._read_record(),)
        return self.loaded[0]

    def _read_record(self) -> Record | None:
        data = read_signed(self.directory, _BUILD, self.key)
        try:
            if data["format"] != FORMAT or data["fingerprint"] != self.fingerprint or not isinstance(data["files"], dict):
                return None
            inputs = _decode_snapshot(data.get("inputs"))
            return Record(data["key"], data["dist"], data["files"], data["skills"], data["personas"], data["objects"], inputs)
        except (KeyError, TypeError):
            return None

    def save_record(self, record: Record, diagnostics: tuple[Diagnostic, ...]) -> None:
        # The report carries the key too, so a record never replays another build's report.
        with _collector_paused():  # 100,000 new rows on the heap of a whole build: 0.13 s of collector passes
            write_signed(self.directory, _REPORT, self.key, {"key": record.key, **encode_report(diagnostics)})
        self._write_record(record)

    def save_inputs(self, inputs: Snapshot | None) -> None:
        """After a replay that had to read the inputs: keep their stat data, so the next one need not."""
        record = self._record()
        if record is not None and inputs is not None and inputs != record.inputs:
            self._write_record(replace(record, inputs=inputs))

    def _write_record(self, record: Record) -> None:
        write_signed(self.directory, _BUILD, self.key, {
            "format": FORMAT, "fingerprint": self.fingerprint, "key": record.key, "dist": record.dist,
            "files": record.files, "skills": record.skills, "personas": record.personas, "objects": record.objects,
            "inputs": _encode_snapshot(record.inputs),
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
    """The project's cache, or None when it is off (no key can be kept, or `.skillc-cache` is not a real directory)."""
    directory = config.root / DIRNAME
    try:  # something planted at the name (a symlink out of the project, a FIFO): never read or written through
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    key = load_key()
    if key is None:
        return None
    return Cache(directory, key, fingerprint())


# --- the output directory, as the build record describes it ------------------

def output_current(record: Record, dist: Path, *, prune: bool) -> bool:
    """dist holds every file the recorded build left, unchanged, and nothing a build would remove."""
    if str(dist.resolve()) != record.dist:
        return False
    if any(dist.parent.glob(f".{dist.name}.tmp-*")) or any(dist.parent.glob(f".{dist.name}.old-*")):
        return False  # a killed build left debris that a real build cleans up
    present = write_mod.scan(dist)
    if present is None:
        return False
    if any(present.get(rel) != stat for rel, stat in record.files.items()):
        return False
    extra = present.keys() - record.files.keys()
    # Objects of earlier builds are kept unless --prune; any other extra file a build would delete.
    return not extra if prune else all(rel.startswith("objects/") for rel in extra)


# --- the inputs, as one stat walk sees them ---------------------------------------

def take_snapshot(config: Config, directory: Path, head: str) -> Snapshot | None:
    """Stamp the file system's clock, then stat the inputs; None when either fails.

    The stamp comes first, then each directory's and file's stat, and only
    then does discover read. Any change after the stamp (a write, a chmod,
    an entry added to or removed from a directory) sets the ctime of the file
    or directory to the stamp or later, so one whose recorded ctime is older
    than the stamp cannot change, even while this build runs, without the
    next walk seeing another ctime. Snapshots holding a newer ctime are not
    recorded (`for_inputs`): a coarse clock gives writes within one tick the
    same time stamp.
    """
    stamp = _fs_now(directory)
    walked = _stat_walk(config) if stamp is not None else None
    if walked is None:
        return None
    roots, dirs, dir_stats, files = walked
    return Snapshot(head, stamp, roots, dirs, dir_stats, files)


def _fs_now(directory: Path) -> int | None:
    """The ctime of a new file: file time stamps come from a coarser clock than time.time_ns(),
    which can be ahead of the stamp of a later write."""
    path = directory / f".stamp.{os.getpid()}"
    try:
        fs.ensure_dir(directory, ignore_all=True)
        try:
            path.unlink()  # left by a killed build: only a new file has a ctime of now
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            return os.fstat(fd).st_ctime_ns
        finally:
            os.close(fd)
            os.unlink(path)
    except OSError:
        return None


def _stat_walk(config: Config) -> tuple[dict[str, str], dict[str, list[str]], dict[str, list[int]], dict[str, list[int]]] | None:
    """Listings and stat data below every source and the personas directory, as discover walks them.

    One os.scandir per directory: the entry type comes with the listing, so
    only directories and files are stat'ed. None for a tree this cannot vouch
    for: a symlink to a directory (discover follows it, with loop and escape
    checks this walk does not repeat) or two names with one NFC form.
    """
    roots: dict[str, str] = {}
    dirs: dict[str, list[str]] = {}
    dir_stats: dict[str, list[int]] = {}
    files: dict[str, list[int]] = {}
    try:
        tops = [(s, config.source_dir(i)) for i, s in enumerate(config.sources)]
        tops += [(config.personas, config.root / config.personas)] if config.personas else []
        for top, where in tops:
            roots[top] = os.path.realpath(where)
            stack = [(top, str(where))]
            while stack:
                rel, path = stack.pop()
                st = os.stat(path)  # before the listing: an entry added after it changes the ctime
                dir_stats[rel] = [st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                listing: list[str] = []
                with os.scandir(path) as it:
                    for entry in it:
                        name = nfc(entry.name)
                        if ignored(name):
                            continue
                        kind = _kind(entry)
                        if kind is None:
                            return None
                        # A symlink is recorded with its target text: retargeting it changes the listing.
                        listing.append(kind + entry.name + (f"\0{os.readlink(entry.path)}" if kind == "l" else ""))
                        child = f"{rel}/{name}"
                        if kind == "d":
                            stack.append((child, entry.path))
                        elif kind == "f" or (kind == "l" and entry.is_file()):
                            if child in files:
                                return None
                            st = entry.stat()  # through a symlink: the file discover reads
                            files[child] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                dirs[rel] = sorted(listing)
    except OSError:
        return None
    return roots, dirs, dir_stats, files


def _kind(entry: os.DirEntry[str]) -> str | None:
    """d(irectory), f(ile), l(ink to a file or nothing), o(ther); None for a link to a directory."""
    if entry.is_symlink():
        return None if entry.is_dir() else "l"
    if entry.is_dir(follow_symlinks=False):
        return "d"
    return "f" if entry.is_file(follow_symlinks=False) else "o"


def for_inputs(snapshot: Snapshot | None, inputs: Iterable[str]) -> Snapshot | None:
    """The snapshot cut down to these input files; None if one is missing or anything is too new to vouch for."""
    if snapshot is None or any(st[1] >= snapshot.stamp for st in snapshot.dir_stats.values()):
        return None
    files: dict[str, list[int]] = {}
    for rel in inputs:
        st = snapshot.files.get(rel)
        if st is None or st[2] >= snapshot.stamp:  # changed in the stamp's clock tick, or after it
            return None
        files[rel] = st
    return replace(snapshot, files=files)


def same_inputs(recorded: Snapshot, now: Snapshot) -> bool:
    """Same config side, same roots, same directories, and every recorded input with the same stat data."""
    return (
        recorded.head == now.head and recorded.roots == now.roots and recorded.dir_stats == now.dir_stats
        and recorded.dirs == now.dirs and all(now.files.get(rel) == st for rel, st in recorded.files.items())
    )


def _encode_snapshot(snap: Snapshot | None) -> dict[str, Any] | None:
    # Not dataclasses.asdict: it deep-copies 30,000 lists (0.15 s at 10,000 skills).
    if snap is None:
        return None
    return {
        "head": snap.head, "stamp": snap.stamp, "roots": snap.roots, "dirs": snap.dirs,
        "dir_stats": snap.dir_stats, "files": snap.files,
    }


def _decode_snapshot(data: Any) -> Snapshot | None:
    if not isinstance(data, dict):
        return None
    try:
        snap = Snapshot(data["head"], data["stamp"], data["roots"], data["dirs"], data["dir_stats"], data["files"])
    except (KeyError, TypeError):
        return None
    shapes = (
        (snap.head, str), (snap.stamp, int), (snap.roots, dict), (snap.dirs, dict),
        (snap.dir_stats, dict), (snap.files, dict),
    )
    return snap if all(type(value) is kind for value, kind in shapes) else None
