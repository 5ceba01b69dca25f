"""Assembly: every file of a format 3 dist/ (Artifacts); nothing is written to dist/ here.

Memory stays bounded by one shard, not the tree: a shard's entries are made, encoded and dropped
one shard at a time, and the encoded documents (shards, table nodes, metas) go to an unnamed
scratch file as they are made (`Spool`), read back when the write stage asks for them, one at a
time. Bodies are not held as bytes either: their text is already in the program, so an object made
of one is encoded again when it is asked for. Resources are the bytes discover read.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..digests import GENERATOR, sha256_hex
from ..fastjson import orjson
from ..format import layout as fmt
from ..format.jsonio import dumps
from ..format.shardtree import build_table
from ..model import (
    Artifacts,
    Config,
    Outcome,
    Persona,
    Program,
    Resolved,
    Skill,
)
from ..stages.budget import Packing
from ..stages.template import Template

if TYPE_CHECKING:  # types only: importing typing's TypedDicts costs a build start-up
    from ..format.shapes import (
        FrontmatterDoc,
        IndexDoc,
        NeedsDoc,
        PersonaEntry,
        PersonaMetaDoc,
        ResolutionDoc,
        ShardTableDoc,
        SkillDoc,
    )

sha256 = sha256_hex


def artifacts(
    config: Config,
    program: Program,
    resolved: Resolved,
    template: Template,
    texts: dict[str, str],
    packings: dict[str, Packing],
    digest: str,
    split: Any = None,
    personas_hash: str | None = None,
    knowledge: Any = None,
) -> Artifacts:
    """Every file of a format 3 dist/ (see skillc/format/layout.py for the layout).

    digest: build_hash of the inputs, computed once by the caller (the cache keys on it too).
    split: the template's split document (stages/split.py; None: it does not split);
    personas_hash: the persona inputs' digest (`personas_digest`); knowledge: the knowledge folder
    and its docs' titles (stages/knowledge.py).
    """
    from ..stages.split import plan

    out = Objects()
    personas = {
        pid: persona_entry(
            persona,
            texts[pid],
            packings[pid],
            template.suffix,
            out,
            plan(split, pid, texts[pid], packings[pid], program.skills.__getitem__),
        )
        for pid, persona in program.personas.items()
    }
    ids = tuple(program.personas)
    shards = {
        name: shard(config, program, resolved, ids, name, commands, out)
        for name, commands in sorted(shard_commands(program.skills).items())
    }
    rest = {
        "split": None if split is None else out.put_document(encode(split)),
        "requires": requires_object(requirements(program.skills.values()), out),
        "personas_hash": personas_hash,
        "knowledge": knowledge,
    }
    out.files[fmt.INDEX] = encode(index_document(config, digest, personas, table(shards, out), rest))
    out.files[fmt.OUTPUT_MARKER] = fmt.OUTPUT_MARKER_TEXT
    return Artifacts(
        out.files.sorted(),
        frozenset(out.objects),
        digest,
        frozenset(out.documents),
        shards,
        out.refs,
    )


def shard_commands(commands: Iterable[str]) -> dict[str, list[str]]:
    """Shard name -> its commands, in the order given (the program's)."""
    found: list[str] = list(commands)
    digits = fmt.shard_digits(len(found))
    by_shard: dict[str, list[str]] = {}
    for command in found:
        by_shard.setdefault(fmt.shard_of(command, digits), []).append(command)
    return by_shard


def persona_entry(
    persona: Persona, text: str, packing: Packing, suffix: str, out: Objects, plan: Any = None
) -> PersonaEntry:
    """One persona's line of the index: its catalog, meta and plan (stages/split.py `plan`; None:
    none) stored in `out`, the readable copy too."""
    prompt = text.encode("utf-8")
    copy = fmt.prompt_path(persona.id, suffix)
    out.files[copy] = prompt
    return {
        "prompt": out.put(prompt),
        "chars": len(text),
        "meta": out.put_document(encode(_persona_meta(persona, packing))),
        "copy": copy,
        "plan": None if plan is None else out.put_document(encode(plan)),
    }


def needs(skill: Skill) -> NeedsDoc | None:
    """A skill's run-time requirements (sven's `requires_bins`, `requires_env`), if it has any."""
    bins, env = skill.flag("requires_bins") or [], skill.flag("requires_env") or []
    return {"bins": list(bins), "env": list(env)} if bins or env else None


def requirements(skills: Iterable[Skill]) -> dict[str, NeedsDoc]:
    """Every skill's requirements, by command, for the skills that have any."""
    return {s.command: found for s in skills if (found := needs(s)) is not None}


def index_after(
    config: Config,
    digest: str,
    personas: dict[str, PersonaEntry],
    root: str,
    last: IndexDoc,
    changed: Mapping[str, Skill | None],
    read: Callable[[str], bytes],
    out: Objects,
) -> IndexDoc:
    """The index of an edit build of `last` (`read` gives an object of the last build by its
    digest): the requirements with the `changed` skills' (None: gone) made again and stored in
    `out`, the split, personas_hash and knowledge as they were (a change to the template,
    a persona or a knowledge doc is a full build)."""
    found: dict[str, NeedsDoc] = (
        {} if last["requires"] is None else orjson.loads(read(last["requires"]))["requires"]
    )
    for command, skill in changed.items():
        now = None if skill is None else needs(skill)
        if now is None:
            found.pop(command, None)
        else:
            found[command] = now
    rest = {**last, "requires": requires_object(found, out)}
    return index_document(config, digest, personas, root, rest)


def requires_object(found: Mapping[str, NeedsDoc], out: Objects) -> str | None:
    """The requirements document, stored in `out`; None when no skill has requirements."""
    if not found:
        return None
    return out.put_document(encode({"format": fmt.VERSION, "requires": dict(sorted(found.items()))}))


def personas_digest(config: Config, inputs: Iterable[Any]) -> str | None:
    """The persona inputs' digest: every input file below the personas folder, by its path below
    it and its bytes' digest. A stack holds its tiers to the same persona inputs."""
    if config.personas is None:
        return None
    below = config.personas + "/"
    lines = sorted(f"{f.rel[len(below) :]}\0{f.digest}\n" for f in inputs if f.rel.startswith(below))
    return sha256("".join(lines).encode("utf-8", "surrogatepass"))


def index_objects(index: IndexDoc) -> set[str]:
    """The objects the index names itself (not through the shard table): each persona's catalog,
    meta and plan, the split and the requirements."""
    found = {e[k] for e in index["personas"].values() for k in ("prompt", "meta")}
    found.update(e["plan"] for e in index["personas"].values() if e["plan"] is not None)
    found.update(d for d in (index["split"], index["requires"]) if d is not None)
    return found


def shard(
    config: Config,
    program: Program,
    resolved: Resolved,
    ids: tuple[str, ...],
    name: str,
    commands: list[str],
    out: Objects,
) -> str:
    """One shard's entries, encoded and stored in `out` (spooled, then dropped); its digest."""
    skills = {
        command: skill_entry(config, program.skills[command], resolved[command].outcomes, ids, out)
        for command in commands
    }
    return out.put_document(encode(shard_document(name, skills)))


def shard_document(name: str, skills: Mapping[str, SkillDoc]) -> dict[str, Any]:
    return {"format": fmt.VERSION, "shard": name, "skills": skills}


def skill_entry(
    config: Config, skill: Skill, outcomes: Mapping[str, Outcome], ids: tuple[str, ...], out: Objects
) -> SkillDoc:
    """One skill's entry in its shard, its objects stored in `out` and counted in `out.refs`."""
    default, exceptions = _default_and_exceptions(ids, outcomes, out.put_text)
    entry = _skill_entry(config, skill, out, default, exceptions)
    out.refs.update(entry_refs(entry))
    return entry


def entry_refs(entry: SkillDoc) -> set[str]:
    """The objects a shard entry names: its body, its resolved bodies, its resources."""
    found = {entry["body"], *(r["sha256"] for r in entry["resources"])}
    for res in (entry["default"], *entry["exceptions"].values()):
        if res is not None:
            found.add(res["body"])
    return found


def table(shards: dict[str, str], out: Objects) -> str:
    """The shard table over `shards` (name -> digest), its nodes stored in `out`; the root's digest.
    The table is a tree of objects of its own: open() and catalog() never read it."""
    return build_table(shards, lambda node: out.put_document(encode(node)))


def table_nodes(shards: dict[str, str]) -> set[str]:
    """The digests of the objects `table` makes over `shards`, without making them."""
    nodes: set[str] = set()

    def put(node: ShardTableDoc) -> str:
        digest = sha256(encode(node))
        nodes.add(digest)
        return digest

    build_table(shards, put)
    return nodes


def index_document(
    config: Config, digest: str, personas: dict[str, PersonaEntry], root: str, rest: Mapping[str, Any]
) -> IndexDoc:
    """rest: the split, requires, personas_hash and knowledge values (an edit or delta build keeps
    the last build's but requires: a change to the template, a persona or a knowledge doc is a
    full build)."""
    return {
        "format": fmt.VERSION,
        "generator": GENERATOR,
        "build_hash": digest,
        "config": {
            "sources": list(config.sources),
            "personas": config.personas,
            "template": config.template_rel,
            "catalog_chars": config.catalog_chars,
            "priority": list(config.budget_priority),
        },
        "personas": personas,
        "shards": root,
        "split": rest["split"],
        "requires": rest["requires"],
        "personas_hash": rest["personas_hash"],
        "knowledge": rest["knowledge"],
    }


class Files(Mapping[str, bytes]):
    """path -> bytes of every file of a build, in path order, without holding most of the bytes:
    a value held as text is encoded on each access (the text is the program's own), a spooled one
    is read back from the scratch file (`Spool`)."""

    def __init__(self, spool: Spool, held: dict[str, bytes | str | tuple[int, int]] | None = None) -> None:
        self._spool = spool
        self._held: dict[str, bytes | str | tuple[int, int]] = held if held is not None else {}

    def __getitem__(self, rel: str) -> bytes:
        value = self._held[rel]
        if isinstance(value, tuple):
            return self._spool.read(value)
        return value.encode("utf-8") if isinstance(value, str) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, rel: object) -> bool:
        return rel in self._held

    def __setitem__(self, rel: str, value: bytes | str | tuple[int, int]) -> None:
        self._held[rel] = value

    def size(self, rel: str) -> int:
        """The length of a file's bytes, without reading a spooled one or encoding ASCII text."""
        value = self._held[rel]
        if isinstance(value, tuple):
            return value[1]
        if isinstance(value, str):
            return len(value) if value.isascii() else len(value.encode("utf-8"))
        return len(value)

    def spool(self, data: bytes) -> tuple[int, int]:
        return self._spool.add(data)

    def sorted(self) -> Files:
        return Files(self._spool, {rel: self._held[rel] for rel in sorted(self._held)})


class Spool:
    """Documents written once to an unnamed scratch file and read back by position: the shards of
    100,000 skills are some 150 MB that a build would otherwise hold until it writes them. The file
    has no name (it goes when the build's Artifacts do, or the process ends, killed or not) and is
    never in the output, so nothing reaches dist/ before the write stage decides to write. The
    first MEMORY bytes stay in memory: an edit build's few documents never make a file."""

    MEMORY = 8 << 20

    def __init__(self) -> None:
        self._held = bytearray()  # the first bytes, until there are MEMORY of them
        self._file: Any = None
        self._end = 0

    def add(self, data: bytes) -> tuple[int, int]:
        at = self._end
        if self._file is None and at + len(data) <= self.MEMORY:
            self._held += data
        else:
            self._write(data, at)
        self._end += len(data)
        return at, len(data)

    def _write(self, data: bytes, at: int) -> None:
        if self._file is None:
            import tempfile  # here: a build that spools less than MEMORY never imports it

            self._file = tempfile.TemporaryFile(prefix="skillc-spool-")  # noqa: SIM115 - lives with the build
            self._write(bytes(self._held), 0)
            self._held = bytearray()
        done = 0
        while done < len(data):  # pwrite may write less than asked
            done += os.pwrite(self._file.fileno(), memoryview(data)[done:], at + done)

    def read(self, where: tuple[int, int]) -> bytes:
        at, size = where
        if self._file is None:
            return bytes(self._held[at : at + size])
        data = os.pread(self._file.fileno(), size, at)
        while len(data) < size:
            more = os.pread(self._file.fileno(), size - len(data), at + len(data))
            if not more:
                raise OSError(f"the build's scratch file ended at {at + len(data)} of {at + size}")
            data += more
        return data


class Objects:
    """The files of a build being assembled; objects stored once under their hash."""

    def __init__(self) -> None:
        self.files = Files(Spool())
        self.objects: set[str] = set()
        self.documents: set[str] = set()
        self.refs: Counter[str] = Counter()  # object digest -> the skill entries that name it
        self._texts: dict[str, str] = {}

    def put(self, data: bytes, digest: str = "") -> str:
        digest = digest or sha256(data)
        rel = fmt.object_path(digest)
        self.files[rel] = data
        self.objects.add(rel)
        return digest

    def put_document(self, data: bytes) -> str:
        """A JSON document the reader parses (bounded by layout.MAX_INDEX_BYTES, not MAX_OBJECT_BYTES);
        spooled (Spool), as nothing else holds its bytes."""
        digest = sha256(data)
        rel = fmt.object_path(digest)
        if rel not in self.files:
            self.files[rel] = self.files.spool(data)
        self.objects.add(rel)
        self.documents.add(rel)
        return digest

    def put_text(self, text: str) -> str:
        # Most personas share a skill's body: hash each distinct text once. The object keeps the text,
        # not its bytes (Files encodes it when asked).
        digest = self._texts.get(text)
        if digest is None:
            digest = self._texts[text] = sha256(text.encode("utf-8"))
            rel = fmt.object_path(digest)
            self.files[rel] = text
            self.objects.add(rel)
        return digest


_Pair = tuple[
    str, "str | None", str, "str | None", bool, bool
]  # access, via, body text, overlay, model, user


def _default_and_exceptions(
    personas: tuple[str, ...], outcomes: Mapping[str, Outcome], put_text: Callable[[str], str]
) -> tuple[ResolutionDoc | None, dict[str, ResolutionDoc | None]]:
    """A skill's resolutions: the most common one (None = not visible) plus each persona that differs.

    Outcomes are compared without their traces (the index holds none). Ties go to the resolution of
    the earliest persona, so the choice is deterministic.
    """
    shared = next(iter(outcomes.values()), None)
    if len(outcomes) == len(personas) and all(o is shared for o in outcomes.values()):
        return _stored(shared, put_text), {}  # most skills: one outcome for all
    keyed = [_pair(outcomes.get(pid)) for pid in personas]
    counts = Counter(keyed)
    best = max(counts.values(), default=0)
    default = next((k for k in keyed if counts[k] == best), None)
    exceptions = {
        pid: _stored(outcomes.get(pid), put_text)
        for pid, k in zip(personas, keyed, strict=False)
        if k != default
    }
    return _stored(outcomes.get(personas[keyed.index(default)]) if default else None, put_text), exceptions


def _pair(o: Outcome | None) -> _Pair | None:
    return None if o is None else (o.access, o.via, o.body, o.overlay, o.model, o.user)


def _stored(o: Outcome | None, put_text: Callable[[str], str]) -> ResolutionDoc | None:
    if o is None:
        return None
    return {
        "access": o.access,
        "via": o.via,
        "body": put_text(o.body),
        "overlay": o.overlay,
        "model": o.model,
        "user": o.user,
    }


def encode(value: Mapping[str, Any]) -> bytes:
    # orjson's OPT_INDENT_2 writes the very bytes of format/jsonio.dumps (the files hold only str, bool,
    # None and small ints; tests/e2e/test_incremental_cache.py checks the two agree) at a tenth of the
    # cost.
    # Anything orjson refuses (a lone surrogate) goes the stdlib way.
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except TypeError:
        return dumps(value)


def _skill_entry(
    config: Config,
    skill: Skill,
    out: Objects,
    default: ResolutionDoc | None,
    exceptions: dict[str, ResolutionDoc | None],
) -> SkillDoc:
    return {
        "name": skill.name,
        "description": skill.description,
        "source": config.sources[skill.source],
        "path": skill.path,
        "frontmatter": cast("FrontmatterDoc", dict(skill.fields)),  # any field the source had
        "body": out.put_text(skill.body),  # shared with the resolutions' bodies: hashed once
        "resources": [
            {
                "path": r.path,
                "sha256": out.put(r.file.data, r.file.digest),
                "size": len(r.file.data),
                "executable": r.executable,
            }
            for r in sorted(skill.resources, key=lambda r: r.path)
        ],
        "parent": skill.parent,
        "children": list(skill.children),
        "default": default,
        "exceptions": exceptions,
    }


def _persona_meta(persona: Persona, packing: Packing) -> PersonaMetaDoc:
    return {
        "format": fmt.VERSION,
        "id": persona.id,
        "name": persona.name,
        "faction": persona.faction,
        "fallback": persona.fallback,
        "chain": list(persona.chain),
        "unrestricted": persona.unrestricted,
        "allowlist": None if persona.allowlist is None else list(persona.allowlist),
        "budget": packing.budget,
        "included": list(packing.included),
        "left_out": list(packing.left_out),
        "shortened": list(packing.shortened),
        "strategy": packing.strategy,
    }
