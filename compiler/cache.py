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
- The memo (`memo.json`), each entry keyed by a digest of everything it was
  made from: the result of checking one SKILL.md (parse, schema, name rules)
  by its bytes, path, command and source (`SkillSource.origin`); the catalog
  entry cost of a skill by the template and the entry's fields; and each
  persona's catalog text and packing (what was included, the descriptions
  cut, the diagnostics: the rest is derived from the candidates) by the key
  `render` derives from its entries, persona, budget settings and template.
  A changed tree re-parses and re-renders only what those keys say changed;
  resolution runs whole (memoising it costs more than it saves, see
  resolve.py), and the index, shards and persona metas are assembled again.
  Entries not used by a build are dropped, so the memo follows the tree.

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

import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from . import fs
from . import write as write_mod
from .budget import Candidate, Packing, restore
from .cachestore import load_key, read_signed, write_signed
from .diagnostics import Diagnostic, Severity
from .model import Config, Skill, SkillSource
from .runtime.format import INDEX
from .snapshot import (
    Snapshot,
    Walked,
    decode_snapshot,
    encode_snapshot,
    for_inputs,
    same_inputs,
    take_snapshot,
)

DIRNAME = write_mod.CACHE_DIRNAME
FORMAT = 4  # 2: memo entries carry frontmatter anchors; 3: output files by [size, mtime, ctime, inode, mode]; 4: report text
_BUILD, _REPORT, _ROWS, _MEMO = "build.json", "report.json", "rows.json", "memo.json"

SkillResult = tuple[Skill | None, tuple[Diagnostic, ...]]


@dataclass
class Stats:
    """What the cache did in one build (tests and the benchmark read it)."""

    checked: int = 0  # SKILL.md files parsed and validated (memo misses)
    reused: int = 0  # SKILL.md results taken from the memo
    measured: int = 0  # catalog entries rendered to measure their cost
    rendered: int = 0  # persona catalogs packed and rendered (memo misses)
    replayed: bool = False  # the whole build was skipped
    unread: bool = False  # ... and the inputs were proven unchanged by their stat data, none was read


@dataclass(frozen=True)
class Record:
    """The last successful build, as `build.json` holds it (its diagnostics are in `report.json`)."""

    key: str
    dist: str
    files: dict[str, list[int]]  # path in the output -> [size, mtime_ns, ctime_ns, inode, mode]
    skills: int
    personas: int
    objects: int
    inputs: Snapshot | None = None  # its inputs by stat data, for the no-op fast path


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
    for path in sorted([*here.glob("*.py"), *here.glob("runtime/*.py"), *here.glob("schemas/*.json")]):
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
_VALUE = {s: s.value for s in Severity}  # and so is the enum's .value property


def decode_diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic(p, line, col, _SEVERITY[sev], code, msg) for p, line, col, sev, code, msg in rows)


def encode_report(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """A build's diagnostics with each message stored once.

    A big tree repeats a few messages (one budget warning per left-out skill
    and persona) a hundred thousand times; interning them makes the record a
    third of the size and quicker to load.
    """
    texts: dict[str, int] = {}
    rows = [
        [d.path, d.line, d.col, _VALUE[d.severity], d.code, texts.setdefault(d.message, len(texts))]
        for d in diags
    ]
    return {"messages": list(texts), "rows": rows}


def encode_text(diags: tuple[Diagnostic, ...]) -> dict[str, Any]:
    """The printed form: a no-op build prints it as it is, without reading or decoding a row."""
    errors = sum(d.severity is Severity.ERROR for d in diags)
    return {
        "text": "".join(d.format() + "\n" for d in diags),
        "errors": errors,
        "warnings": len(diags) - errors,
    }


@dataclass(frozen=True, eq=False)
class Report:
    """A recorded build's diagnostics: printed from `text`, decoded into Diagnostics only on demand."""

    text: str  # every diagnostic as `Diagnostic.format()` prints it, one per line
    errors: int
    warnings: int
    rows: Callable[[], Any]  # reads the rows file (signed, keyed like the report)

    def diagnostics(self) -> tuple[Diagnostic, ...]:
        data = self.rows()
        try:
            diags = decode_report(data)
        except (KeyError, TypeError, ValueError, IndexError):
            diags = None
        if diags is None or len(diags) != self.errors + self.warnings:
            raise RuntimeError("the cache's recorded diagnostics are unreadable; rebuild with --no-cache")
        return diags


def _report_of(data: Any, rows: Callable[[], Any]) -> Report | None:
    try:
        text, errors, warnings = data["text"], data["errors"], data["warnings"]
    except (KeyError, TypeError):
        return None
    if type(text) is not str or type(errors) is not int or type(warnings) is not int:
        return None
    return Report(text, errors, warnings, rows)


def decode_report(data: dict[str, Any]) -> tuple[Diagnostic, ...]:
    texts = data["messages"]
    return tuple(
        Diagnostic(p, line, col, _SEVERITY[sev], code, texts[m])
        for p, line, col, sev, code, m in data["rows"]
    )


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
    return {
        "name": skill.name,
        "description": skill.description,
        "body": skill.body,
        "fields": dict(skill.fields),
        "anchors": {k: list(v) for k, v in skill.anchors.items()},
    }


def _decode_skill(entry: dict[str, Any] | None, src: SkillSource) -> Skill | None:
    if entry is None:
        return None
    return Skill(
        command=src.command,
        name=entry["name"],
        description=entry["description"],
        source=src.source,
        path=src.skill_md.rel,
        dir_rel=src.dir_rel,
        body=entry["body"],
        fields=entry["fields"],
        resources=src.resources,
        parent=None,
        children=(),
        anchors={k: (v[0], v[1]) for k, v in entry["anchors"].items()},
        origin=src.origin,
    )


# --- the cache of one build -------------------------------------------------


@dataclass
class Cache:
    """Read once when a build starts, written once when it ends."""

    directory: Path
    key: bytes
    fingerprint: str
    skills: dict[str, Any] = field(default_factory=dict)  # memo key -> {"skill", "diags"}
    costs: dict[str, int] = field(default_factory=dict)  # entry fields -> characters
    costs_template: str = ""  # the template those costs were measured with
    catalogs: dict[str, Any] = field(default_factory=dict)  # catalog key -> text and packing
    used_skills: dict[str, Any] = field(default_factory=dict)
    used_costs: dict[str, int] = field(default_factory=dict)
    used_catalogs: dict[str, Any] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    loaded: tuple[Record | None] | None = None  # build.json, once read

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

    def replay(self, key: str, dist: Path, *, prune: bool) -> tuple[Record, Report] | None:
        """The recorded build and its diagnostics, when `key` matches and dist is as that build left it."""
        record = self._record()
        if record is None or record.key != key or not output_current(record, dist, prune=prune):
            return None
        # Loaded only now: a hundred thousand diagnostics cost more than the checks above.
        data = read_signed(self.directory, _REPORT, self.key)

        def rows() -> Any:
            found = read_signed(self.directory, _ROWS, self.key)
            return found if isinstance(found, dict) and found.get("key") == key else None

        report = _report_of(data, rows)
        if report is None or data.get("key") != key:
            return None
        self.stats.replayed = True
        return record, report

    def replay_unchanged(self, now: Snapshot, dist: Path, *, prune: bool) -> tuple[Record, Report] | None:
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
            if (
                data["format"] != FORMAT
                or data["fingerprint"] != self.fingerprint
                or not isinstance(data["files"], dict)
            ):
                return None
            inputs = decode_snapshot(data.get("inputs"))
            return Record(
                data["key"],
                data["dist"],
                data["files"],
                data["skills"],
                data["personas"],
                data["objects"],
                inputs,
            )
        except (KeyError, TypeError):
            return None

    def save_record(self, record: Record, diagnostics: tuple[Diagnostic, ...]) -> None:
        # The report carries the key too, so a record never replays another build's report.
        write_signed(self.directory, _ROWS, self.key, {"key": record.key, **encode_report(diagnostics)})
        write_signed(self.directory, _REPORT, self.key, {"key": record.key, **encode_text(diagnostics)})
        self._write_record(record)

    def save_inputs(self, inputs: Snapshot | None) -> None:
        """After a replay that had to read the inputs: keep their stat data, so the next one need not."""
        record = self._record()
        if record is not None and inputs is not None and inputs != record.inputs:
            self._write_record(replace(record, inputs=inputs))

    def _write_record(self, record: Record) -> None:
        write_signed(
            self.directory,
            _BUILD,
            self.key,
            {
                "format": FORMAT,
                "fingerprint": self.fingerprint,
                "key": record.key,
                "dist": record.dist,
                "files": record.files,
                "skills": record.skills,
                "personas": record.personas,
                "objects": record.objects,
                "inputs": encode_snapshot(record.inputs),
            },
        )

    # -- per-file memo -----------------------------------------------------

    def load_memo(self) -> None:
        """Read memo.json; only a build that is not replayed needs it."""
        data = read_signed(self.directory, _MEMO, self.key)
        if (
            not isinstance(data, dict)
            or data.get("format") != FORMAT
            or data.get("fingerprint") != self.fingerprint
        ):
            return
        if isinstance(data.get("skills"), dict) and isinstance(data.get("costs"), dict):
            self.skills, self.costs = data["skills"], data["costs"]
            self.costs_template = str(data.get("template", ""))
        if isinstance(data.get("catalogs"), dict):
            self.catalogs = data["catalogs"]

    def check_skills(
        self, checks: Callable[[Sequence[SkillSource]], list[SkillResult]]
    ) -> Callable[[Sequence[SkillSource]], list[SkillResult]]:
        """`checks` memoised per file by the SKILL.md's bytes and everything else it reads from src;
        the misses go to `checks` in one batch (which may spread them over the cores)."""

        def cached(sources: Sequence[SkillSource]) -> list[SkillResult]:
            keys = [s.origin for s in sources]
            results: list[SkillResult | None] = [self._hit(k, s) for k, s in zip(keys, sources, strict=False)]
            misses = [i for i, r in enumerate(results) if r is None]
            for i, (skill, diags) in zip(misses, checks([sources[i] for i in misses]), strict=False):
                results[i] = (skill, diags)
                self._remember(keys[i], sources[i], skill, diags)
            self.stats.checked += len(misses)
            self.stats.reused += len(sources) - len(misses)
            return [r for r in results if r is not None]

        return cached

    def _hit(self, key: str, src: SkillSource) -> SkillResult | None:
        hit = self.skills.get(key)
        if hit is None:
            return None
        try:
            result = _decode_skill(hit["skill"], src), decode_diags(hit["diags"])
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        self.used_skills[key] = hit
        return result

    def _remember(
        self, key: str, src: SkillSource, skill: Skill | None, diags: tuple[Diagnostic, ...]
    ) -> None:
        entry: dict[str, Any] = {"skill": _encode_skill(skill), "diags": encode_diags(diags)}
        # Remember only what JSON keeps as it is and decodes to the very same result.
        if (
            _json_exact(entry)
            and _decode_skill(entry["skill"], src) == skill
            and decode_diags(entry["diags"]) == diags
        ):
            self.used_skills[key] = entry

    def entry_cost(
        self, measure: Callable[[dict[str, Any], Any], int]
    ) -> Callable[[dict[str, Any], Any], int]:
        """`measure(entry, template)` memoised by the template and the catalog entry itself
        (whatever render.catalog_entry hands the template, so the two cannot drift apart)."""

        digests: dict[int, str] = {}

        def cached(entry: dict[str, Any], template: Any) -> int:
            tkey = digests.get(id(template))
            if tkey is None:
                tkey = digests[id(template)] = _digest(template.source, str(template.markup), template.suffix)
            if tkey != self.costs_template:  # another template: nothing measured so far applies
                self.costs, self.used_costs, self.costs_template = {}, {}, tkey
            try:  # sorted keys: one entry, one key
                key = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS).decode()
            except TypeError:  # not representable (lone surrogates): measured, never memoised
                return measure(entry, template)
            hit = self.costs.get(key)
            if type(hit) is not int:
                hit = measure(entry, template)
                self.stats.measured += 1
            self.used_costs[key] = hit
            return hit

        return cached

    def save_memo(self) -> None:
        """Keep only what this build used, so the memo follows the tree."""
        if (
            self.used_skills.keys() == self.skills.keys()
            and self.used_costs == self.costs
            and self.used_catalogs.keys() == self.catalogs.keys()
        ):
            return  # nothing new: skip rewriting megabytes
        write_signed(
            self.directory,
            _MEMO,
            self.key,
            {
                "format": FORMAT,
                "fingerprint": self.fingerprint,
                "skills": self.used_skills,
                "template": self.costs_template,
                "costs": self.used_costs,
                "catalogs": self.used_catalogs,
            },
        )

    def catalog_memo(self) -> Catalogs:
        """The catalogs' memo: text and packing by the key render derives from what they were made of."""
        return Catalogs(self)


class Catalogs:
    """render.CatalogMemo over the cache: the text and what a Packing cannot be derived without
    (what was included, the descriptions cut, the diagnostics); the rest comes from the candidates."""

    def __init__(self, cache: Cache):
        self.cache = cache

    def catalog(
        self, key: str, candidates: tuple[Candidate, ...], priority: tuple[str, ...]
    ) -> tuple[str, Packing] | None:
        hit = self.cache.catalogs.get(key)
        found = _restored(hit, candidates, priority)
        if found is not None:
            self.cache.used_catalogs[key] = hit
        return found

    def remember(self, key: str, text: str, packing: Packing) -> None:
        self.cache.stats.rendered += 1
        p = packing
        kept = {
            "persona": p.persona,
            "budget": p.budget,
            "included": list(p.included),
            "diags": encode_diags(p.diagnostics),
            "strategy": p.strategy,
            "descriptions": dict(p.descriptions),
        }
        entry: dict[str, Any] = {"text": text, "packing": kept}
        # Kept only when JSON gives it back exactly and it restores to the very same Packing.
        if _json_exact(entry) and _restored(entry, p.candidates, p.priority) == (text, p):
            self.cache.used_catalogs[key] = entry


def _restored(
    entry: Any, candidates: tuple[Candidate, ...], priority: tuple[str, ...]
) -> tuple[str, Packing] | None:
    try:
        text, p = entry["text"], entry["packing"]
        packing = restore(
            p["persona"],
            p["budget"],
            tuple(p["included"]),
            decode_diags(p["diags"]),
            p["strategy"],
            p["descriptions"],
            candidates,
            priority,
        )
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return (text, packing) if type(text) is str else None


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


# --- the door: one build's use of the cache ------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A build the cache proved current: its counts and the diagnostics it reported."""

    skills: int
    personas: int
    objects: int
    report: Report


class Session:
    """Everything the pipeline asks of the cache, in the order it asks.

    `replay_unread` (before discover), `replay` (after it), `memo` (during the stages), `finish`
    (after the write): the pipeline calls these from one function and knows nothing of keys,
    snapshots or files.
    """

    def __init__(
        self, store: Cache, config: Config, config_hash: str, head_diags: tuple[Diagnostic, ...], prune: bool
    ):
        self.store, self.config, self.prune = store, config, prune
        self.dist = config.root / config.output
        self.now = take_snapshot(config, store.directory, store.head_key(config_hash, config, head_diags))
        self.key = ""
        self.inputs: Snapshot | None = None
        self._memo_loaded = False

    @property
    def stats(self) -> Stats:
        return self.store.stats

    def replay_unread(self) -> Hit | None:
        """The no-op path: inputs unchanged by their stat data, output as the last build left it."""
        return _hit(self.store.replay_unchanged(self.now, self.dist, prune=self.prune) if self.now else None)

    def replay(self, inputs: Iterable[str], build_hash: str, early: tuple[Diagnostic, ...]) -> Hit | None:
        """The content path: the inputs hash to the last build's key and the output is unchanged."""
        self.inputs = for_inputs(self.now, inputs)
        self.key = self.store.build_key(build_hash, self.config, early)
        hit = _hit(self.store.replay(self.key, self.dist, prune=self.prune))
        if hit is not None:
            self.store.save_inputs(self.inputs)  # so that the next no-op build need not read them
        return hit

    def walked(self) -> Walked | None:
        """What the stat walk saw, for discover to reuse (None when it could not vouch for the tree)."""
        return self.now.walked if self.now else None

    def output_files(self) -> dict[str, list[int]] | None:
        """Stat data of the files the last recorded build left in this output (write.compare's `known`)."""
        record = self.store._record()
        if record is None or record.dist != str(self.dist.resolve()):
            return None
        return record.files

    @property
    def memo(self) -> Cache:
        if not self._memo_loaded:
            self.store.load_memo()
            self._memo_loaded = True
        return self.store

    def finish(
        self,
        files: Iterable[str] | None,
        build_hash: str,
        summary: tuple[int, int, int],
        diagnostics: tuple[Diagnostic, ...],
    ) -> None:
        """Keep the memo; and when the build was written (`files`), the record its replay needs."""
        if self._memo_loaded:
            self.store.save_memo()
        if files is not None:
            self._record(tuple(files), build_hash, summary, diagnostics)

    def _record(
        self,
        files: tuple[str, ...],
        build_hash: str,
        summary: tuple[int, int, int],
        diagnostics: tuple[Diagnostic, ...],
    ) -> None:
        present = write_mod.scan(self.dist)
        if present is None or any(rel not in present for rel in files):
            return
        # The lock is released after the swap: a concurrent build of other sources may have
        # replaced dist since; its index names another build hash. The hash is near the top.
        try:
            if f'"build_hash": "{build_hash}"'.encode() not in fs.read_head(
                self.dist / INDEX, 4096, follow=False
            ):
                return
        except OSError:
            return
        record = Record(
            self.key, str(self.dist.resolve()), {rel: present[rel] for rel in files}, *summary, self.inputs
        )
        self.store.save_record(record, diagnostics)


def _hit(found: tuple[Record, Report] | None) -> Hit | None:
    if found is None:
        return None
    record, report = found
    return Hit(record.skills, record.personas, record.objects, report)


def session(
    config: Config, config_hash: str, head_diags: tuple[Diagnostic, ...], *, prune: bool
) -> Session | None:
    """The cache's door for one build; None when the cache is off (no key can be kept)."""
    store = open_cache(config)
    return None if store is None else Session(store, config, config_hash, head_diags, prune)
