"""What a build leaves for the next one to edit: `carry.json`, and `carry-catalog.json` beside it.

An edit build (edit.py) takes the skills that changed from discover and everything else from here
instead of discovering, checking and resolving every other skill: the input lines of the build
hash, what discover found of each source (its skill folders, the hidden ones, its own diagnostics,
the ignore files it read), each skill's own diagnostics and discover's problems, the shard
digests, how many skill entries name each object, the personas and exclusive bodies, each
catalog's packing and the build's report before ordering. The other skills' entries are read from
their shard in the output (content-addressed, checked by digest). What only a catalog change
needs (every listed skill's catalog row, stages/catalog.py `row`, and which personas list it) is
in `carry-catalog.json`, read only then.

Both are signed JSON like every cache file, and keyed: `carry.json` by the build key of the build
it describes (head.json's), the catalog file by an id `carry.json` names. A carry whose key is not
the record's is not used. Each build that records itself writes them whole (the catalog rows only
when they changed).
"""

from __future__ import annotations

import base64
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..dataclass import dataclass, replace
from ..diagnostics import Diagnostic
from ..digests import sha256_hex
from ..fastjson import orjson
from ..format.layout import INDEX
from ..model import Artifacts, Config, Discovery, Persona, Program, Strategy, TargetSetting
from ..stages.budget import Packing
from ..stages.catalog import row
from .codec import decode_diags, encode_diags
from .packed import pack_text, unpack_text
from .store import read_signed, write_signed

NAME, CATALOG = "carry.json", "carry-catalog.json"
Row = list[Any]  # a listed skill's catalog row (stages/catalog.py `row`)


@dataclass(frozen=True)
class Catalog:
    """Every listed skill's catalog row, each persona's listed commands in command order
    (CatalogParts.listed), and with `targets:` every served skill's `name` (their reports compare
    names across skills: an edit build adding or removing a skill must know them all)."""

    rows: dict[str, Row]
    listed: dict[str, list[str]]
    names: dict[str, str]


@dataclass(frozen=True)
class Found:
    """What the carry keeps of a build's discovery: taken before the stages run, so that the
    discovery's bytes can go once they are checked, as in a build without the cache."""

    lines: str  # the build hash's input lines (buildhash.input_line), in order
    problems: dict[str, tuple[Diagnostic, ...]]  # command -> discover's problems, for each that has some
    diagnostics: tuple[Diagnostic, ...]  # discover's own (Discovery.diagnostics)
    ignore_files: tuple[str, ...]
    folders: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # Discovery.folders

    @classmethod
    def of(cls, found: Discovery, lines: list[bytes]) -> Found:
        """`lines`: each of found's inputs' line, as the build hash was made of them."""
        problems = {s.command: s.problems for s in found.skills if s.problems}
        return cls(b"".join(lines).decode(), problems, found.diagnostics, found.ignore_files, found.folders)


@dataclass(frozen=True)
class Carry:
    """One build, as an edit build starts from it."""

    key: str  # the build key of the build it describes
    index: str  # sha256 of that build's _index.json
    found: Found
    # Where each skill's `name` value is (line, col; (0, 0): none): the most common place, and each
    # skill's that differs. (The rest of a served skill is its entry in its shard.)
    anchor: tuple[int, int]
    anchors: dict[str, tuple[int, int]]
    own: dict[str, tuple[Diagnostic, ...]]  # command -> Program.own
    shards: dict[str, str]  # shard name -> digest
    refs: dict[str, int]  # object digest -> the skill entries that name it
    personas: dict[str, Persona]
    exclusive: dict[tuple[str, str], tuple[str, str]]  # Program.exclusive_bodies
    lookups: frozenset[str]  # Program.lookups
    packings: dict[str, tuple[Diagnostic, ...]]  # persona -> its packing's diagnostics
    # Each persona's last packing as an edit build resumes it (budget.refit): the commands it
    # included, in command order, and what its candidates cost together.
    included: dict[str, list[str]]
    totals: dict[str, int]
    unordered: tuple[Diagnostic, ...]  # the report before --strict and ordering (pipeline._back's)
    early: tuple[Diagnostic, ...]  # what the build key covers beside the inputs (session.Discovered)
    counts: tuple[int, int, int]  # skills, personas, objects
    catalog: str  # the id carry-catalog.json holds beside its Catalog
    # The config as the build loaded it, and of the template what a build needs but the rendering (its
    # sources' digests, the prompt copies' suffix): an edit build loads neither the YAML nor the
    # template (the quick path has checked their bytes). None: the config does not round-trip.
    config: Config | None
    template: tuple[bytes, str]

    def name_at(self, command: str) -> tuple[int, int]:
        return self.anchors.get(command, self.anchor)


def made(
    key: str,
    program: Program,
    packings: Mapping[str, Packing],
    unordered: tuple[Diagnostic, ...],
    art: Artifacts,
    found: Found,
    early: tuple[Diagnostic, ...],
    counts: tuple[int, int, int],
    config: Config,
    template: tuple[bytes, str],
) -> tuple[Carry, Catalog]:
    """The carry of a build written whole (`key`: its build key), and its catalog rows."""
    rows: dict[str, Row] = {}
    listed: dict[str, list[str]] = {}
    for pid in program.personas:
        listed[pid] = [c.command for c in packings[pid].candidates]
        for c in packings[pid].candidates:
            if c.command not in rows:
                rows[c.command] = row(program.skills[c.command], c)
    names = {c: s.name for c, s in program.skills.items()} if config.targets else {}
    catalog = Catalog(dict(sorted(rows.items())), listed, names)
    at = {c: s.anchors.get("name", (0, 0)) for c, s in program.skills.items()}
    anchor = Counter(at.values()).most_common(1)[0][0] if at else (0, 0)
    problems = {c: problems for c, problems in found.problems.items() if c in program.skills}
    carry = Carry(
        key=key,
        index=sha256_hex(art.files[INDEX]),
        found=replace(found, problems=problems),
        anchor=anchor,
        anchors={c: where for c, where in at.items() if where != anchor},
        own=dict(program.own),
        shards=dict(art.shards),
        refs=dict(art.refs),
        personas=dict(program.personas),
        exclusive=dict(program.exclusive_bodies),
        lookups=program.lookups,
        packings={pid: p.diagnostics for pid, p in packings.items()},
        included={pid: list(p.included) for pid, p in packings.items()},
        totals={pid: sum(c.cost for c in p.candidates) for pid, p in packings.items()},
        unordered=unordered,
        early=early,
        counts=counts,
        catalog=new_catalog_id(),
        config=config if _round_trips(config) else None,
        template=template,
    )
    return carry, catalog


def new_catalog_id() -> str:
    """What ties carry.json to the carry-catalog.json written with it: unique, not a digest (a
    digest of the rows would cost a pass over them at every write)."""
    return os.urandom(16).hex()


def _round_trips(config: Config) -> bool:
    try:
        return decode_config(orjson.loads(orjson.dumps(encode_config(config)))) == config
    except (TypeError, ValueError, KeyError, orjson.JSONEncodeError):
        return False


def save(directory: Path, signing_key: bytes, carry: Carry, catalog: Catalog | None) -> bool:
    """Keep `carry`, and `catalog` when given (else the one kept is the carry's); whether it was."""
    if catalog is not None and not write_signed(
        directory, CATALOG, signing_key, _encode_catalog(carry, catalog)
    ):
        return False
    return write_signed(directory, NAME, signing_key, _encode(carry))


def load(directory: Path, signing_key: bytes, key: str) -> Carry | None:
    """The carry of the build `key`; None when there is none or it does not decode."""
    data = read_signed(directory, NAME, signing_key)
    try:
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        return _decode(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def load_catalog(directory: Path, signing_key: bytes, carry: Carry) -> Catalog | None:
    data = read_signed(directory, CATALOG, signing_key)
    try:
        if not isinstance(data, dict) or data.get("id") != carry.catalog:
            return None
        rows, listed, names = data["rows"], data["listed"], data["names"]
        if not isinstance(rows, dict) or not isinstance(names, dict):
            return None
        commands = list(rows)
        return Catalog(rows, {pid: [commands[i] for i in places] for pid, places in listed.items()}, names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def _encode_catalog(carry: Carry, catalog: Catalog) -> dict[str, Any]:
    """The rows by command, and each persona's listed commands as places among them."""
    at = {command: i for i, command in enumerate(catalog.rows)}
    listed = {pid: [at[c] for c in commands] for pid, commands in catalog.listed.items()}
    return {"id": carry.catalog, "rows": catalog.rows, "listed": listed, "names": catalog.names}


def _encode(carry: Carry) -> dict[str, Any]:
    found = carry.found
    return {
        "key": carry.key,
        "index": carry.index,
        "lines": pack_text(found.lines),  # a raw section: its NULs would be escapes in JSON
        "problems": {c: encode_diags(d) for c, d in found.problems.items()},
        "found": encode_diags(found.diagnostics),
        "ignore_files": list(found.ignore_files),
        "folders": [[list(dirs), list(hidden)] for dirs, hidden in found.folders],
        "anchor": list(carry.anchor),
        "anchors": carry.anchors,
        "own": {c: encode_diags(d) for c, d in carry.own.items()},
        "shards": carry.shards,
        "refs": carry.refs,
        "personas": [_encode_persona(p) for p in carry.personas.values()],
        "exclusive": [[*key, *value] for key, value in carry.exclusive.items()],
        "lookups": sorted(carry.lookups),
        "packings": {pid: encode_diags(d) for pid, d in carry.packings.items()},
        "included": carry.included,
        "totals": carry.totals,
        "unordered": encode_diags(carry.unordered),
        "early": encode_diags(carry.early),
        "counts": list(carry.counts),
        "catalog": carry.catalog,
        "config": None if carry.config is None else encode_config(carry.config),
        "template": [carry.template[0].decode("utf-8", "surrogateescape"), carry.template[1]],
    }


def _decode(data: dict[str, Any]) -> Carry:
    lines = unpack_text(data["lines"])
    if lines is None:
        raise ValueError("not packed text")
    found = Found(
        lines,
        {str(c): decode_diags(d) for c, d in data["problems"].items()},
        decode_diags(data["found"]),
        tuple(str(rel) for rel in data["ignore_files"]),
        tuple((tuple(dirs), tuple(hidden)) for dirs, hidden in data["folders"]),
    )
    personas = [_decode_persona(p) for p in data["personas"]]
    return Carry(
        key=str(data["key"]),
        index=str(data["index"]),
        found=found,
        anchor=(int(data["anchor"][0]), int(data["anchor"][1])),
        anchors={c: (int(a[0]), int(a[1])) for c, a in data["anchors"].items()},
        own={c: decode_diags(d) for c, d in data["own"].items()},
        shards=dict(data["shards"]),
        refs=dict(data["refs"]),
        personas={p.id: p for p in personas},
        exclusive={(e[0], e[1]): (e[2], e[3]) for e in data["exclusive"]},
        lookups=frozenset(str(c) for c in data["lookups"]),
        packings={pid: decode_diags(d) for pid, d in data["packings"].items()},
        included={str(pid): [str(c) for c in cs] for pid, cs in data["included"].items()},
        totals={str(pid): int(n) for pid, n in data["totals"].items()},
        unordered=decode_diags(data["unordered"]),
        early=decode_diags(data["early"]),
        counts=(int(data["counts"][0]), int(data["counts"][1]), int(data["counts"][2])),
        catalog=str(data["catalog"]),
        config=None if data["config"] is None else decode_config(data["config"]),
        template=(str(data["template"][0]).encode("utf-8", "surrogateescape"), str(data["template"][1])),
    )


def encode_config(config: Config) -> dict[str, Any]:
    """A config as JSON data (`decode_config` gives it back; `made` keeps it only when it does)."""
    return {
        "root": str(config.root),
        "config_rel": config.config_rel,
        "sources": list(config.sources),
        "personas": config.personas,
        "output": config.output,
        "template": str(config.template),
        "template_rel": config.template_rel,
        "strict": config.strict,
        "catalog_chars": config.catalog_chars,
        "persona_budgets": [list(b) for b in config.persona_budgets],
        "max_resource_bytes": config.max_resource_bytes,
        "config_bytes": base64.b64encode(config.config_bytes).decode("ascii"),
        "source_dirs": [str(d) for d in config.source_dirs],
        "exclude": list(config.exclude),
        "skip_invalid": config.skip_invalid,
        "symlinks_outside": config.symlinks_outside,
        "budget_strategy": config.budget_strategy.value,
        "budget_priority": list(config.budget_priority),
        "verbose": config.verbose,
        "severities": [list(s) for s in config.severities],
        "ignore_outer": [[d, n, base64.b64encode(b).decode("ascii")] for d, n, b in config.ignore_outer],
        "path_severities": [[p, [list(lv) for lv in levels]] for p, levels in config.path_severities],
        "anchors": [[list(keys), list(at)] for keys, at in config.anchors],
        "targets": [[t.name, t.window, t.chars] for t in config.targets],
    }


def decode_config(data: dict[str, Any]) -> Config:
    return Config(
        root=Path(data["root"]),
        config_rel=data["config_rel"],
        sources=tuple(data["sources"]),
        personas=data["personas"],
        output=data["output"],
        template=Path(data["template"]),
        template_rel=data["template_rel"],
        strict=data["strict"],
        catalog_chars=data["catalog_chars"],
        persona_budgets=tuple((p, b) for p, b in data["persona_budgets"]),
        max_resource_bytes=data["max_resource_bytes"],
        config_bytes=base64.b64decode(data["config_bytes"]),
        source_dirs=tuple(Path(d) for d in data["source_dirs"]),
        exclude=tuple(data["exclude"]),
        skip_invalid=data["skip_invalid"],
        symlinks_outside=data["symlinks_outside"],
        budget_strategy=Strategy(data["budget_strategy"]),
        budget_priority=tuple(data["budget_priority"]),
        verbose=data["verbose"],
        severities=tuple((c, lv) for c, lv in data["severities"]),
        ignore_outer=tuple((d, n, base64.b64decode(b)) for d, n, b in data["ignore_outer"]),
        path_severities=tuple(
            (p, tuple((c, lv) for c, lv in levels)) for p, levels in data["path_severities"]
        ),
        anchors=tuple((tuple(keys), (at[0], at[1])) for keys, at in data["anchors"]),
        targets=tuple(TargetSetting(n, w, c) for n, w, c in data["targets"]),
    )


def _encode_persona(p: Persona) -> list[Any]:
    overlays = {c: list(v) for c, v in p.overlays.items()}
    allow = None if p.allowlist is None else list(p.allowlist)
    return [
        p.id,
        p.name,
        p.fallback,
        list(p.chain),
        p.unrestricted,
        p.faction,
        allow,
        p.manifest_rel,
        overlays,
    ]


def _decode_persona(row: list[Any]) -> Persona:
    pid, name, fallback, chain, unrestricted, faction, allow, manifest_rel, overlays = row
    return Persona(
        pid,
        name,
        fallback,
        tuple(chain),
        bool(unrestricted),
        faction,
        None if allow is None else tuple(allow),
        manifest_rel,
        {c: (v[0], v[1]) for c, v in overlays.items()},
    )
