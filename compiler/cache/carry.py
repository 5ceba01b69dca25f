"""What a build leaves for the next one to edit: `carry.json`, and `carry-catalog.json` beside it.

An edit build (edit.py) takes one changed skill from here instead of discovering, checking and
resolving every other: the input lines of the build hash, where each skill is, its own diagnostics
and discover's problems, the shard digests, how many skill entries name each object, the personas
and exclusive bodies, each catalog's packing diagnostics and the build's report before ordering.
The other skills' entries are read from their shard in the output (content-addressed, checked by
digest). What only a catalog change needs (every skill's catalog row and which personas list it)
is in `carry-catalog.json`, read only then.

Both are signed JSON like every cache file, and keyed: `carry.json` by the build key of the build
it describes (head.json's), the catalog file by a digest `carry.json` names. A carry whose key is
not the record's is not used.
"""

from __future__ import annotations

import array
import base64
import os
from collections import Counter
from collections.abc import Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson

from ..dataclass import dataclass, field
from ..diagnostics import Diagnostic
from ..digests import sha256_hex
from ..format.layout import INDEX
from ..model import Artifacts, Config, Discovery, Persona, Program, Strategy, TargetSetting
from ..stages.budget import Packing
from . import catalogrows
from .codec import decode_diags, encode_diags
from .packed import Raw, is_raw, pack, pack_text, pack_texts, unpack, unpack_text, unpack_texts
from .store import read_signed, write_signed

NAME, CATALOG = "carry.json", "carry-catalog.json"

Row = catalogrows.Row  # a catalog row: name, description, path, always, cost, bare cost


@dataclass(frozen=True)
class Catalog:
    """Every listed skill's catalog row (what catalog_skill and the budget read of it), and each
    persona's listed commands in command order (CatalogParts.listed). The rows are columns, decoded
    as they are read (catalogrows.py); carry-catalog.json holds each persona's commands as places
    among the rows (`_encode_catalog`)."""

    rows: catalogrows.Rows
    listed: dict[str, list[str]]
    # command -> `name`, every served skill's, when `targets:` are selected (their reports compare
    # names across skills: an edit build adding or removing a skill must know them all)
    names: dict[str, str]
    # The places as read, and the lists they were read into: written again as they are while no row
    # was put in or taken out and each persona's list is the one read (an edit gives a persona a
    # new list: delta.toggled). A description edit then packs no places (3 ms at 10,000 skills).
    read: tuple[Raw, dict[str, list[str]]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Carry:
    """One build, as an edit build starts from it."""

    key: str  # the build key of the build it describes
    index: str  # sha256 of that build's _index.json
    lines: str  # the build hash's input lines (digests.input_line), in order
    # Where each skill's `name` value is (line, col; (0, 0): none): the most common place, and each
    # skill's that differs. (The rest of a served skill is its entry in its shard.)
    anchor: tuple[int, int]
    anchors: dict[str, tuple[int, int]]
    own: dict[str, tuple[Diagnostic, ...]]  # command -> Program.own
    problems: dict[str, tuple[Diagnostic, ...]]  # command -> discover's problems (SkillSource.problems)
    shards: dict[str, str]  # shard name -> digest
    refs: dict[str, int]  # object digest -> the skill entries that name it
    personas: dict[str, Persona]
    exclusive: dict[tuple[str, str], tuple[str, str]]  # Program.exclusive_bodies
    packings: dict[str, tuple[Diagnostic, ...]]  # persona -> its packing's diagnostics
    unordered: tuple[Diagnostic, ...]  # the report before --strict and ordering (pipeline._back's)
    early: tuple[Diagnostic, ...]  # what the build key covers beside the inputs (session.Discovered)
    counts: tuple[int, int, int]  # skills, personas, objects
    catalog: str  # the id carry-catalog.json holds beside its Catalog (new_catalog_id)
    # The config as the build loaded it, and of the template what a build needs but the rendering (its
    # sources' digests, the prompt copies' suffix): an edit build loads neither the YAML nor the
    # template (the quick path has checked their bytes). None: the config does not round-trip.
    config: Config | None = None
    template: tuple[bytes, str] = (b"", "")
    lookups: frozenset[str] = frozenset()  # Program.lookups
    # Each persona's last packing as an edit build resumes it (budget.refit): the commands
    # it included, in command order, and what its candidates cost together.
    included: dict[str, list[str]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)

    def name_at(self, command: str) -> tuple[int, int]:
        return self.anchors.get(command, self.anchor)


@dataclass(frozen=True)
class Found:
    """What the carry keeps of a build's discovery: taken before the stages run, so that the
    discovery's bytes can go once they are checked, as in a build without the cache."""

    lines: str  # the build hash's input lines (digests.input_line), in order
    problems: dict[str, tuple[Diagnostic, ...]]  # command -> discover's problems, for each that has some

    @classmethod
    def of(cls, found: Discovery, lines: list[bytes]) -> Found:
        """`lines`: each of found's inputs' line, as the build hash was made of them."""
        return cls(b"".join(lines).decode(), {s.command: s.problems for s in found.skills if s.problems})


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
                name = program.skills[c.command].name
                rows[c.command] = [name, c.description, c.path, c.always, c.cost, c.bare_cost]
    names = {c: s.name for c, s in program.skills.items()} if config.targets else {}
    catalog = Catalog(catalogrows.Rows.of(dict(sorted(rows.items()))), listed, names)
    at = {c: s.anchors.get("name", (0, 0)) for c, s in program.skills.items()}
    anchor = Counter(at.values()).most_common(1)[0][0] if at else (0, 0)
    carry = Carry(
        key,
        sha256_hex(art.files[INDEX]),
        found.lines,
        anchor,
        {c: where for c, where in at.items() if where != anchor},
        dict(program.own),
        {c: problems for c, problems in found.problems.items() if c in program.skills},
        dict(art.shards),
        dict(art.refs),
        dict(program.personas),
        dict(program.exclusive_bodies),
        {pid: p.diagnostics for pid, p in packings.items()},
        unordered,
        early,
        counts,
        new_catalog_id(),
        config if _round_trips(config) else None,
        template,
        program.lookups,
        {pid: list(p.included) for pid, p in packings.items()},
        {pid: sum(c.cost for c in p.candidates) for pid, p in packings.items()},
    )
    return carry, catalog


def _round_trips(config: Config) -> bool:
    try:
        return decode_config(orjson.loads(orjson.dumps(encode_config(config)))) == config
    except (TypeError, ValueError, KeyError, orjson.JSONEncodeError):
        return False


def save(directory: Path, signing_key: bytes, carry: Carry, catalog: Catalog | None) -> None:
    """Keep `carry`, and `catalog` when given (else the one kept is the carry's)."""
    if catalog is not None:
        write_signed(directory, CATALOG, signing_key, _encode_catalog(carry.catalog, catalog))
    write_signed(directory, NAME, signing_key, _encode(carry))


def load(directory: Path, signing_key: bytes, key: str) -> Carry | None:
    """The carry of the build `key`; None when there is none or it does not decode."""
    data = read_signed(directory, NAME, signing_key)
    try:
        return _decode(data) if isinstance(data, dict) and data.get("key") == key else None
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def load_catalog(directory: Path, signing_key: bytes, carry: Carry) -> Catalog | None:
    data = read_signed(directory, CATALOG, signing_key)
    try:
        if not isinstance(data, dict) or data.get("id") != carry.catalog:
            return None
        commands, texts, names = unpack_texts(data["commands"]), data["texts"], data["names"]
        lengths, numbers = unpack(data["lengths"], "I"), unpack(data["numbers"])
        ok = is_raw(texts) and isinstance(names, dict)
        if not ok or commands is None or lengths is None or numbers is None:  # signed: a wrong shape
            return None  # fails, here or below
        rows = catalogrows.Rows(commands, texts, lengths, numbers)
        listed = _listed(commands, data["listed"], data["places"])
        return Catalog(rows, listed, names, (data["places"], dict(listed)))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def new_catalog_id() -> str:
    """What ties carry.json to the carry-catalog.json written with it: unique, not a digest (a
    digest of 10,000 rows costs more than the rows' JSON)."""
    return os.urandom(16).hex()


def _encode_catalog(name: str, catalog: Catalog) -> dict[str, Any]:
    # The rows as their columns (catalogrows.py), and each persona's listed commands as their places
    # among them (uint32, one raw section for every persona, `listed` saying how many are whose):
    # the commands come back from JSON as the same string objects the rows hold.
    commands, texts, lengths, numbers = catalog.rows.columns()
    return {
        "id": name,
        "commands": pack_texts(commands),
        "texts": texts,
        "lengths": pack(lengths),
        "numbers": pack(numbers),
        "listed": [[pid, len(listed)] for pid, listed in catalog.listed.items()],
        "places": _places(catalog),
        "names": catalog.names,
    }


def _places(catalog: Catalog) -> Raw:
    """Each persona's listed commands as their places among the rows, one section for all."""
    if catalog.read is not None and not catalog.rows.moved:
        places, lists = catalog.read
        if list(lists) == list(catalog.listed) and all(
            catalog.listed[pid] is listed for pid, listed in lists.items()
        ):
            return places
    at = catalog.rows.place()
    found: array.array[int] = array.array("I")
    for listed in catalog.listed.values():
        found.extend([at[c] for c in listed] if len(listed) < 2 else itemgetter(*listed)(at))
    return pack(found)


def _listed(commands: list[str], listed: list[list[Any]], packed: object) -> dict[str, list[str]]:
    places = unpack(packed, "I")
    if places is None or sum(n for _pid, n in listed) != len(places):
        raise ValueError("not packed places")
    found: dict[str, list[str]] = {}
    start = 0
    for pid, n in listed:
        these = places[start : start + n]
        found[pid] = [commands[i] for i in these] if n < 2 else list(itemgetter(*these)(commands))
        start += n
    return found


def _encode(carry: Carry) -> dict[str, Any]:
    return {
        "key": carry.key,
        "index": carry.index,
        "lines": pack_text(carry.lines),  # a raw section: its NULs would be escapes in JSON
        "anchor": list(carry.anchor),
        "anchors": carry.anchors,
        "own": {c: encode_diags(d) for c, d in carry.own.items()},
        "problems": {c: encode_diags(d) for c, d in carry.problems.items()},
        "shards": carry.shards,
        "refs": carry.refs,
        "personas": [_encode_persona(p) for p in carry.personas.values()],
        "exclusive": [[*key, *value] for key, value in carry.exclusive.items()],
        "packings": {pid: encode_diags(d) for pid, d in carry.packings.items()},
        "unordered": encode_diags(carry.unordered),
        "early": encode_diags(carry.early),
        "counts": list(carry.counts),
        "catalog": carry.catalog,
        "config": None if carry.config is None else encode_config(carry.config),
        "template": [carry.template[0].decode("utf-8", "surrogateescape"), carry.template[1]],
        "lookups": sorted(carry.lookups),
        "included": carry.included,
        "totals": carry.totals,
    }


def _decode(data: dict[str, Any]) -> Carry:
    personas = [_decode_persona(p) for p in data["personas"]]
    return Carry(
        str(data["key"]),
        str(data["index"]),
        _text(data["lines"]),
        (int(data["anchor"][0]), int(data["anchor"][1])),
        {c: (int(a[0]), int(a[1])) for c, a in data["anchors"].items()},
        {c: decode_diags(d) for c, d in data["own"].items()},
        {c: decode_diags(d) for c, d in data["problems"].items()},
        dict(data["shards"]),
        dict(data["refs"]),
        {p.id: p for p in personas},
        {(e[0], e[1]): (e[2], e[3]) for e in data["exclusive"]},
        {pid: decode_diags(d) for pid, d in data["packings"].items()},
        decode_diags(data["unordered"]),
        decode_diags(data["early"]),
        (int(data["counts"][0]), int(data["counts"][1]), int(data["counts"][2])),
        str(data["catalog"]),
        None if data["config"] is None else decode_config(data["config"]),
        (str(data["template"][0]).encode("utf-8", "surrogateescape"), str(data["template"][1])),
        frozenset(str(c) for c in data["lookups"]),
        {str(pid): [str(c) for c in cs] for pid, cs in data["included"].items()},
        {str(pid): int(n) for pid, n in data["totals"].items()},
    )


def _text(data: object) -> str:
    text = unpack_text(data)
    if text is None:
        raise ValueError("not packed text")
    return text


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
