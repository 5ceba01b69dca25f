"""What a build leaves for the next one to edit: `carry.json`, and `carry-catalog.json` beside it.

An edit build (edit.py) takes one changed skill from here instead of discovering, checking and
resolving every other: the input lines of the build hash, where each skill is, its own diagnostics
and discover's problems, the shard digests, how many skill entries name each object, the personas
and exclusive bodies, each catalog's packing diagnostics and the build's report before ordering.
The other skills' entries are read from their shard in the output (content-addressed, checked by
digest). What only a catalog change needs (every skill's catalog row and which personas list it)
is in `carry-catalog.json`, read only then.

Both are signed JSON like every cache file, and keyed: `carry.json` by the build key of the build
it describes (head.json's), the catalog file by an id `carry.json` names. A carry whose key is
not the record's is not used.

An edit build does not write them again whole (3.6 and 3.7 MB at 10,000 skills, 15 ms of a 250 ms
add). It writes `carry-edits.json`: the build's own small parts whole, and a `Journal` of what
changed since the whole carry it started from (input lines, object references, catalog rows), keyed
by its build key and naming that carry's. The next edit build reads both and applies the journal.
Past `LIMITS` the edit build writes the carry whole again, and the journal starts over.
"""

from __future__ import annotations

import array
import base64
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..dataclass import dataclass, field, replace
from ..diagnostics import Diagnostic
from ..digests import sha256_hex
from ..fastjson import orjson
from ..format.layout import INDEX
from ..model import Artifacts, Config, Discovery, Persona, Program, Strategy, TargetSetting
from ..names.paths import run_below
from ..stages.budget import Packing
from . import catalogrows
from .codec import decode_diags, encode_diags
from .packed import Raw, is_raw, pack, pack_text, pack_texts, unpack, unpack_text, unpack_texts
from .store import read_signed, write_signed

NAME, CATALOG, EDITS = "carry.json", "carry-catalog.json", "carry-edits.json"
# A journal kept while it holds no more than this many input lines, object references and catalog
# rows (carry-edits.json then stays under about 300 KB); past any, the carry is written whole.
LIMITS = (1024, 2048, 256)

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
    # new list: catalogrows.toggled). A description edit then packs no places (3 ms at 10,000 skills).
    read: tuple[Raw, dict[str, list[str]]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Journal:
    """What changed since the whole carry (carry.json, of the build `base`) an edit build started
    from: each input's line ("\n"-ended; None: no longer an input), each object's references (0:
    none), each catalog row and the personas that list it (None: no row), each skill's `name` (with
    `targets:`; None: no skill). An empty one for a carry read whole."""

    base: str
    lines: dict[str, str | None] = field(default_factory=dict)
    refs: dict[str, int] = field(default_factory=dict)
    rows: dict[str, tuple[Row | None, list[str]]] = field(default_factory=dict)
    names: dict[str, str | None] = field(default_factory=dict)
    commands: dict[str, bool] = field(default_factory=dict)  # "label\0command": found there or not

    def kept(self) -> bool:
        """Small enough to be kept as it is (LIMITS; a command added or removed comes with a row)."""
        lines, refs, rows = LIMITS
        return (
            len(self.lines) <= lines
            and len(self.refs) <= refs
            and len(self.rows) <= rows
            and len(self.commands) <= rows
        )

    def then(
        self,
        lines: Mapping[str, str | None],
        refs: Mapping[str, int],
        rows: Mapping[str, tuple[Row | None, list[str]]],
        names: Mapping[str, str | None],
        commands: Mapping[str, bool] = {},
    ) -> Journal:
        """This journal with one more build's changes."""
        return Journal(
            self.base,
            {**self.lines, **lines},
            {**self.refs, **refs},
            {**self.rows, **rows},
            {**self.names, **names},
            {**self.commands, **commands},
        )


@dataclass(frozen=True)
class Carry:
    """One build, as an edit build starts from it."""

    key: str  # the build key of the build it describes
    index: str  # sha256 of that build's _index.json
    lines: str  # the build hash's input lines (buildhash.input_line), in order
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
    # Source label -> every command discover found there, served or overridden (`commands_of`): what
    # an added or removed skill is held to (edit._added, edit._alone)
    commands: dict[str, frozenset[str]] = field(default_factory=dict)
    # What changed since the whole carry this one was read from, or None: a carry made whole by a
    # full build. An edit build keeps it (`save_edit`) unless it grew past LIMITS.
    journal: Journal | None = field(default=None, compare=False, repr=False)

    def name_at(self, command: str) -> tuple[int, int]:
        return self.anchors.get(command, self.anchor)


@dataclass(frozen=True)
class Found:
    """What the carry keeps of a build's discovery: taken before the stages run, so that the
    discovery's bytes can go once they are checked, as in a build without the cache."""

    lines: str  # the build hash's input lines (buildhash.input_line), in order
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
        # None declines every edit build from this carry: a skill with a label (a name that is not
        # its id) is rendered from its catalog row, which keeps the id alone (edit._Rows).
        config if _round_trips(config) and all(s.label == s.name for s in program.skills.values()) else None,
        template,
        program.lookups,
        {pid: list(p.included) for pid, p in packings.items()},
        {pid: sum(c.cost for c in p.candidates) for pid, p in packings.items()},
        commands_of(found.lines, config.sources),
    )
    return carry, catalog


def _round_trips(config: Config) -> bool:
    try:
        return decode_config(orjson.loads(orjson.dumps(encode_config(config)))) == config
    except (TypeError, ValueError, KeyError, orjson.JSONEncodeError):
        return False


def save(directory: Path, signing_key: bytes, carry: Carry, catalog: Catalog | None) -> None:
    """Keep `carry` whole, and `catalog` when given (else the one kept is the carry's)."""
    if catalog is not None:
        write_signed(directory, CATALOG, signing_key, _encode_catalog(carry.catalog, catalog))
    write_signed(directory, NAME, signing_key, _encode(carry))


def save_edit(directory: Path, signing_key: bytes, carry: Carry, catalog: Callable[[], Catalog]) -> None:
    """Keep an edit build's carry: its journal, while it is small and encodes (a text JSON cannot
    hold: a lone surrogate); else the carry whole, with the catalog rows (`catalog`: read with the
    journal's rows) whole too when the journal changed any."""
    journal = carry.journal
    if (
        journal is not None
        and journal.kept()
        and write_signed(directory, EDITS, signing_key, _encode_edits(carry, journal))
    ):
        return
    if journal is None or journal.rows or journal.names:
        rows = catalog()
        carry = replace(carry, catalog=new_catalog_id())
        write_signed(directory, CATALOG, signing_key, _encode_catalog(carry.catalog, rows))
    write_signed(directory, NAME, signing_key, _encode(carry))


def load(directory: Path, signing_key: bytes, key: str) -> Carry | None:
    """The carry of the build `key`: carry.json when it is that build's, else carry.json with the
    journal of carry-edits.json applied when that is; None when there is none or it does not decode."""
    data = read_signed(directory, NAME, signing_key)
    try:
        if not isinstance(data, dict):
            return None
        if data.get("key") == key:
            return _decode(data)
        edits = read_signed(directory, EDITS, signing_key)
        if not isinstance(edits, dict) or edits.get("key") != key or edits.get("base") != data.get("key"):
            return None
        return _patched(_decode(data, edits), edits)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
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
        journal = carry.journal
        if journal is None or not (journal.rows or journal.names):
            return Catalog(rows, listed, names, (data["places"], dict(listed)))
        return _journaled(Catalog(rows, listed, dict(names)), journal)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def _journaled(catalog: Catalog, journal: Journal) -> Catalog:
    """The catalog rows with the journal's changes, as the edit builds made them (edit._catalogs):
    each row put in or taken out, each persona's list given the command or not, each name."""
    catalog.rows.apply({command: row for command, (row, _pids) in journal.rows.items()})
    for pid, commands in catalog.listed.items():
        present = {command: pid in pids for command, (_row, pids) in journal.rows.items()}
        catalog.listed[pid] = catalogrows.listed_after(commands, present)
    for command, name in journal.names.items():
        if name is None:
            catalog.names.pop(command, None)
        else:
            catalog.names[command] = name
    return catalog


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
        "lines": pack_text(carry.lines),  # a raw section: its NULs would be escapes in JSON
        "anchor": list(carry.anchor),
        "refs": carry.refs,
        "personas": [_encode_persona(p) for p in carry.personas.values()],
        "exclusive": [[*key, *value] for key, value in carry.exclusive.items()],
        "early": encode_diags(carry.early),
        "config": None if carry.config is None else encode_config(carry.config),
        "template": [carry.template[0].decode("utf-8", "surrogateescape"), carry.template[1]],
        "lookups": sorted(carry.lookups),
        # Every source's commands in one raw section, sorted within each, and how many are whose
        "commands": pack_texts([c for found in carry.commands.values() for c in sorted(found)]),
        "command_counts": [[label, len(found)] for label, found in carry.commands.items()],
        **_encode_own(carry),
    }


def _encode_own(carry: Carry) -> dict[str, Any]:
    """The parts an edit build makes again (the others it keeps, or journals: lines and refs)."""
    return {
        "index": carry.index,
        "anchors": carry.anchors,
        "own": {c: encode_diags(d) for c, d in carry.own.items()},
        "problems": {c: encode_diags(d) for c, d in carry.problems.items()},
        "shards": carry.shards,
        "packings": {pid: encode_diags(d) for pid, d in carry.packings.items()},
        "unordered": encode_diags(carry.unordered),
        "counts": list(carry.counts),
        "catalog": carry.catalog,
        "included": carry.included,
        "totals": carry.totals,
    }


def _decode(data: dict[str, Any], own: dict[str, Any] | None = None) -> Carry:
    """A whole carry, with the parts an edit build makes again taken from `own` when given (the
    edits' own, which `_patched` keeps: the whole carry's are not decoded for nothing)."""
    personas = [_decode_persona(p) for p in data["personas"]]
    key = str(data["key"])
    return Carry(
        key=key,
        lines=_text(data["lines"]),
        anchor=(int(data["anchor"][0]), int(data["anchor"][1])),
        refs=dict(data["refs"]),
        personas={p.id: p for p in personas},
        exclusive={(e[0], e[1]): (e[2], e[3]) for e in data["exclusive"]},
        early=decode_diags(data["early"]),
        config=None if data["config"] is None else decode_config(data["config"]),
        template=(str(data["template"][0]).encode("utf-8", "surrogateescape"), str(data["template"][1])),
        lookups=frozenset(str(c) for c in data["lookups"]),
        commands=_commands(data["commands"], data["command_counts"]),
        journal=Journal(key),
        **_decode_own(data if own is None else own),
    )


def _commands(packed: object, counts: list[list[Any]]) -> dict[str, frozenset[str]]:
    every = unpack_texts(packed)
    if every is None or sum(n for _label, n in counts) != len(every):
        raise ValueError("not packed commands")
    found: dict[str, frozenset[str]] = {}
    start = 0
    for label, n in counts:
        found[str(label)] = frozenset(every[start : start + n])
        start += n
    return found


def _decode_own(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": str(data["index"]),
        "anchors": {c: (int(a[0]), int(a[1])) for c, a in data["anchors"].items()},
        "own": {c: decode_diags(d) for c, d in data["own"].items()},
        "problems": {c: decode_diags(d) for c, d in data["problems"].items()},
        "shards": dict(data["shards"]),
        "packings": {pid: decode_diags(d) for pid, d in data["packings"].items()},
        "unordered": decode_diags(data["unordered"]),
        "counts": (int(data["counts"][0]), int(data["counts"][1]), int(data["counts"][2])),
        "catalog": str(data["catalog"]),
        "included": {str(pid): [str(c) for c in cs] for pid, cs in data["included"].items()},
        "totals": {str(pid): int(n) for pid, n in data["totals"].items()},
    }


def _encode_edits(carry: Carry, journal: Journal) -> dict[str, Any]:
    """carry-edits.json: the build's own parts whole, and its journal since the whole carry."""
    return {
        "key": carry.key,
        "base": journal.base,
        **_encode_own(carry),
        "journal_lines": journal.lines,
        "journal_refs": journal.refs,
        "journal_rows": {c: [row, pids] for c, (row, pids) in journal.rows.items()},
        "journal_names": journal.names,
        "journal_commands": journal.commands,
    }


def _patched(base: Carry, edits: dict[str, Any]) -> Carry:
    """The carry of carry-edits.json's build: the whole carry `base` (decoded with the edits' own
    parts) with its journal applied."""
    journal = Journal(
        base.key,
        {str(rel): None if line is None else str(line) for rel, line in edits["journal_lines"].items()},
        {str(d): int(n) for d, n in edits["journal_refs"].items()},
        {str(c): (row, [str(p) for p in pids]) for c, (row, pids) in edits["journal_rows"].items()},
        {str(c): None if name is None else str(name) for c, name in edits["journal_names"].items()},
        {str(key): bool(there) for key, there in edits["journal_commands"].items()},
    )
    refs = dict(base.refs)
    for digest, count in journal.refs.items():
        if count:
            refs[digest] = count
        else:
            refs.pop(digest, None)
    lines = patched_lines(base.lines, journal.lines)
    return replace(
        base,
        key=str(edits["key"]),
        lines=lines,
        refs=refs,
        commands=commands_after(base.commands, journal.commands),
        journal=journal,
    )


def commands_after(
    commands: dict[str, frozenset[str]], changes: Mapping[str, bool]
) -> dict[str, frozenset[str]]:
    """Each source's commands with those of `changes` put in ("label\0command": True) or taken
    out, as a journal holds them."""
    changed: dict[str, set[str]] = {}
    for key, there in changes.items():
        label, command = key.split("\0")
        found = changed.setdefault(label, set(commands[label]))
        (found.add if there else found.discard)(command)
    return {**commands, **{label: frozenset(found) for label, found in changed.items()}}


def commands_of(lines: str, labels: Sequence[str]) -> dict[str, frozenset[str]]:
    """Source label -> every command discover found there (served or overridden), from the build
    hash's input lines: each input that is a SKILL.md names one (a command is its folder below the
    source; the deepest source a path is below is its)."""
    deepest = sorted(labels, key=len, reverse=True)  # a nested source's label first
    found: dict[str, frozenset[str]] = {}
    # Each SKILL.md's folder: the text before each "/SKILL.md\0", from the line's start (split in C;
    # a regex anchored at each line costs three times more), in path order as the lines are.
    if "/skill.md\0" in lines:  # a lowercase one (the spec's alternative): line by line
        skill_lines = [h for h in lines.split("\n") if "/SKILL.md\0" in h or "/skill.md\0" in h]
        rels = [line[: line.index("\0") - len("/SKILL.md")] for line in skill_lines]
    else:
        rels = [part[part.rfind("\n") + 1 :] for part in lines.split("/SKILL.md\0")[:-1]]
    for label in deepest:
        found[label] = _below_source(rels, label, [other for other in labels if other != label])
    return {label: found[label] for label in labels}


def _below_source(rels: list[str], label: str, others: list[str]) -> frozenset[str]:
    """The commands of source `label`: the folders in `rels` (sorted) below it and below no source
    nested in it. Its folders are one run of `rels` (run_below); a SKILL.md below a hidden folder is a
    resource of the skill around it (discover), and no command."""
    prefix, cut = label + "/", len(label) + 1
    start, end = run_below(rels, label)
    run = rels[start:end]
    nested = tuple(o + "/" for o in others if o.startswith(prefix))
    if nested:
        run = [r for r in run if not r.startswith(nested)]
    found = set(map(itemgetter(slice(cut, None)), run))
    found.discard("")
    joined = "\n" + "\n".join(found)
    if "\n." in joined or "/." in joined:
        found = {c for c in found if "/." not in "/" + c}
    return frozenset(found)


def patched_lines(lines: str, changes: Mapping[str, str | None]) -> str:
    """The input lines ("\n"-ended, in path order) with each input's line of `changes` put in its
    place, in place of the one there, or taken out (None); in one pass, each place found by a
    binary search of the text."""
    pieces: list[str] = []
    at = 0
    for rel in sorted(changes):
        head = rel + "\0"
        start = line_place(lines, rel, at)  # before its line: a line is `rel`, a NUL, then more
        end = lines.index("\n", start) + 1 if lines.startswith(head, start) else start
        pieces += (lines[at:start], changes[rel] or "")
        at = end
    pieces.append(lines[at:])
    return "".join(pieces)


def line_place(lines: str, line: str, lo: int = 0) -> int:
    """Where `line` (without its newline) goes in `lines` ("\n"-ended, in order), from `lo` (a
    line's start) on and after any equal one, as bisect.insort puts it among the lines: a binary
    search of the text, not of its 30,000 lines split out."""
    hi = len(lines)  # each the start of a line, or the end
    while lo < hi:
        start = lines.rfind("\n", lo, (lo + hi) // 2) + 1 or lo  # the line around the middle
        end = lines.index("\n", start)
        if line < lines[start:end]:
            hi = start
        else:
            lo = end + 1
    return lo


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
        "knowledge": config.knowledge,
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
        knowledge=data.get("knowledge"),
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
