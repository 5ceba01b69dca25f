"""What a build leaves for the next one to edit (edit.py): `carry.json`, and `carry-catalog.json`.

The carry holds what the edit build takes instead of discovering, checking and resolving every
other skill: the input lines of the build hash, what discover found of each source (its skill
folders, its own diagnostics, the ignore files it read), each skill's own diagnostics and
discover's problems, the shard digests, how many skill entries name each object, the personas,
each catalog's packing and the report before ordering; the other skills' entries are their shards
in the output. What only a catalog change needs (each listed skill's row, stages/catalog.py `row`,
and which personas list it) is in `carry-catalog.json`, read only then. Both are signed like every
cache file and keyed: `carry.json` by the build key of the build it describes, the catalog file by
an id `carry.json` names. Each recorded build writes them whole (the rows only when they changed).
"""

from __future__ import annotations

import array
import os
from collections import Counter
from collections.abc import Mapping
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..dataclass import dataclass, replace
from ..diagnostics import Diagnostic
from ..digests import sha256_hex
from ..fastjson import orjson
from ..format.layout import INDEX
from ..model import Artifacts, Config, Discovery, Persona, Program
from ..stages.budget import Packing
from ..stages.catalog import row
from .codec import decode_diags, encode_diags, from_json, to_json
from .packed import pack, pack_text, unpack, unpack_text
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
    counts: tuple[int, int, int, int]  # skills, personas, objects, left out
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
    counts: tuple[int, int, int, int],
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
    from ..stages.validate import names_read  # loaded: the build validated

    names = {c: s.name for c, s in program.skills.items()} if names_read(config) else {}
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
        return bool(from_json(orjson.loads(orjson.dumps(to_json(config)))) == config)
    except (TypeError, ValueError, KeyError, AttributeError, orjson.JSONEncodeError):
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
        rows, names = data["rows"], data["names"]
        if not isinstance(rows, dict) or not isinstance(names, dict):
            return None
        return Catalog(rows, _listed(rows, data["listed"], data["places"]), names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def _encode_catalog(carry: Carry, catalog: Catalog) -> dict[str, Any]:
    """The rows by command, and each persona's listed commands as places among them: packed
    (uint32, packed.py) in one raw section, made and read in C (12 lists of 10,000 places as JSON
    cost 10 ms more each way)."""
    at = {command: i for i, command in enumerate(catalog.rows)}
    places: array.array[int] = array.array("I")
    for commands in catalog.listed.values():
        places.extend(map(at.__getitem__, commands))
    listed = [[pid, len(commands)] for pid, commands in catalog.listed.items()]
    return {
        "id": carry.catalog,
        "rows": catalog.rows,
        "listed": listed,
        "places": pack(places),
        "names": catalog.names,
    }


def _listed(rows: dict[str, Row], listed: list[list[Any]], packed: object) -> dict[str, list[str]]:
    """Each persona's listed commands, from their packed places among the rows."""
    places, commands = unpack(packed, "I"), list(rows)
    if places is None or sum(n for _pid, n in listed) != len(places):
        raise ValueError("not packed places")
    found: dict[str, list[str]] = {}
    start = 0
    for pid, n in listed:
        these = places[start : start + n]
        found[str(pid)] = [commands[i] for i in these] if n < 2 else list(itemgetter(*these)(commands))
        start += n
    return found


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
        "personas": to_json(carry.personas),
        "exclusive": to_json(carry.exclusive),
        "lookups": sorted(carry.lookups),
        "packings": {pid: encode_diags(d) for pid, d in carry.packings.items()},
        "included": carry.included,
        "totals": carry.totals,
        "unordered": encode_diags(carry.unordered),
        "early": encode_diags(carry.early),
        "counts": list(carry.counts),
        "catalog": carry.catalog,
        "config": to_json(carry.config),
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
    skills, personas, objects, left_out = (int(n) for n in data["counts"])
    return Carry(
        key=str(data["key"]),
        index=str(data["index"]),
        found=found,
        anchor=(int(data["anchor"][0]), int(data["anchor"][1])),
        anchors={c: (int(a[0]), int(a[1])) for c, a in data["anchors"].items()},
        own={c: decode_diags(d) for c, d in data["own"].items()},
        shards=dict(data["shards"]),
        refs=dict(data["refs"]),
        personas=from_json(data["personas"]),
        exclusive=from_json(data["exclusive"]),
        lookups=frozenset(str(c) for c in data["lookups"]),
        packings={pid: decode_diags(d) for pid, d in data["packings"].items()},
        included={str(pid): [str(c) for c in cs] for pid, cs in data["included"].items()},
        totals={str(pid): int(n) for pid, n in data["totals"].items()},
        unordered=decode_diags(data["unordered"]),
        early=decode_diags(data["early"]),
        counts=(skills, personas, objects, left_out),
        catalog=str(data["catalog"]),
        config=from_json(data["config"]),
        template=(str(data["template"][0]).encode("utf-8", "surrogateescape"), str(data["template"][1])),
    )
