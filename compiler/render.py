"""Render stage: catalogs through Jinja2, the index, content-addressed objects.

Produces every output file as bytes (Artifacts); nothing touches the disk here.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import jinja2
import jinja2.meta
import orjson
from jinja2.loaders import split_template_path

from . import __version__, fs
from . import diagnostics as dg
from .budget import Candidate, Packing, pack
from .diagnostics import Diagnostic
from .model import (
    OUTPUT_MARKER,
    OUTPUT_MARKER_TEXT,
    Artifacts,
    Config,
    InputFile,
    Outcome,
    Persona,
    Program,
    Resolved,
    Skill,
)
from .runtime import format as fmt

GENERATOR = f"skillc {__version__}"


class TemplateFailure(Exception):
    """The template raised while rendering; reported as SKC104, never a traceback."""


def _guard(fn: Callable[..., Any]) -> Callable[..., str]:
    def call(*args: Any, **kwargs: Any) -> str:
        try:
            return str(fn(*args, **kwargs))
        except Exception as exc:  # a template is the project's code: whatever it raises is its author's error
            raise TemplateFailure(f"{type(exc).__name__}: {exc}") from None

    return call


@dataclass(frozen=True)
class Template:
    render: Callable[..., str]
    entry: Callable[[dict[str, Any]], str]
    suffix: str
    source: bytes
    markup: bool  # .xml/.html: values arrive escaped for text content


def load_template(config: Config) -> tuple[Template | None, tuple[Diagnostic, ...]]:
    path = config.template
    markup = path.name.removesuffix(".j2").endswith(MARKUP_SUFFIXES)
    env = jinja2.Environment(
        loader=_RegularFileLoader(str(path.parent)),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    try:
        sources, problem = _sources(env, path.name)
        if problem:
            return None, (dg.error(config.template_rel, "SKC104", problem),)
        template = env.get_template(path.name)
        # The macro lives in the template module; building it renders the
        # body once, so give it an empty but complete context.
        module = template.make_module(
            {"skills": [], "omitted": 0, "budget": 0, "persona": {"id": "", "name": "", "faction": None}}
        )
        entry = module.entry  # type: ignore[attr-defined]
    except jinja2.TemplateSyntaxError as exc:
        return None, (
            dg.error(
                config.template_rel, "SKC104", f"template syntax error: {exc.message}", exc.lineno or 1, 1
            ),
        )
    except AttributeError as exc:
        return None, (
            dg.error(config.template_rel, "SKC104", f"template must define a macro entry(skill): {exc}"),
        )
    except Exception as exc:  # the template body ran with an empty context and raised
        return None, (
            dg.error(config.template_rel, "SKC104", f"template failed: {type(exc).__name__}: {exc}"),
        )
    suffix = Path(path.name.removesuffix(".j2")).suffix or ".txt"
    return Template(_guard(template.render), _guard(entry), suffix, sources, markup), ()


TEMPLATE_CAP = 1024 * 1024
MARKUP_SUFFIXES = (".xml", ".html", ".htm", ".xhtml")  # values escaped for XML text content


class _RegularFileLoader(jinja2.FileSystemLoader):
    """FileSystemLoader that reads regular files only, bounded: an included FIFO must not hang a build."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        filename = posixpath.join(self.searchpath[0], *split_template_path(template))
        try:
            text = fs.read_regular(filename, TEMPLATE_CAP).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise jinja2.TemplateNotFound(f"{template} ({getattr(exc, 'strerror', None) or exc})") from None
        return text, os.path.normpath(filename), lambda: False


def _sources(env: jinja2.Environment, name: str) -> tuple[bytes, str | None]:
    """The template and everything it includes, imports or extends: all of it feeds the build hash."""
    seen: dict[str, str] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        try:
            seen[current] = env.loader.get_source(env, current)[0]  # type: ignore[union-attr]
            refs = list(jinja2.meta.find_referenced_templates(env.parse(seen[current])))
        except jinja2.TemplateNotFound as exc:
            return b"", f"template {current!r}: not found: {exc}"
        if None in refs:
            return (
                b"",
                f"template {current!r} includes a template by a computed name; skillc must know every file a build depends on",
            )
        todo.extend(r for r in refs if r is not None)
    return "".join(f"{n}\0{sha256(s.encode())}\n" for n, s in sorted(seen.items())).encode(), None


def _escape_text(value: Any) -> Any:
    return fmt.escape_text(value) if isinstance(value, str) else value


sha256 = fmt.sha256_hex


def build_hash(config: Config, inputs: tuple[InputFile, ...], template: Template) -> str:
    h = hashlib.sha256()
    for label, data in (
        ("generator", GENERATOR.encode()),
        ("config", config.config_bytes),
        ("template", template.source),
    ):
        h.update(f"{label}\0{sha256(data)}\n".encode())
    for f in inputs:
        mode = "\0x" if f.executable else ""  # a chmod +x changes the index, so the hash too
        h.update(f"{f.rel}\0{f.digest}{mode}\n".encode())
    return h.hexdigest()


def catalog_skill(skill: Skill, template: Template, description: str | None = None) -> dict[str, Any]:
    """description: the budget's shortened (or removed, "") description instead of the skill's."""
    values = {
        "command": skill.command,
        "name": skill.name,
        "description": skill.description if description is None else description,
        "location": skill.path,
        "always": bool(skill.flag("always", False)),
    }
    return {k: _escape_text(v) for k, v in values.items()} if template.markup else values


def entry_cost(entry: dict[str, Any], template: Template) -> int:
    """Characters one catalog entry (catalog_skill's values) adds to a catalog."""
    return len(template.entry(entry))


def catalogs(
    config: Config,
    program: Program,
    resolved: Resolved,
    template: Template,
    cost: Callable[[dict[str, Any], Template], int] = entry_cost,
    memo: CatalogMemo | None = None,
) -> tuple[dict[str, str], dict[str, Packing], tuple[Diagnostic, ...]]:
    """Per persona: the budgeted catalog text and the packing that produced it.

    `cost` stands in for entry_cost, and `memo` gives back the catalogs of earlier builds whose
    entries, persona and budget are unchanged: the build cache passes both.
    """
    entries = {c: catalog_skill(s, template) for c, s in program.skills.items()}
    costs = {c: cost(e, template) for c, e in entries.items()}
    texts: dict[str, str] = {}
    packings: dict[str, Packing] = {}
    diags: list[Diagnostic] = [
        dg.warning(config.config_rel, "SKC412", f"budgets.personas names unknown persona {pid!r}")
        for pid, _ in config.persona_budgets
        if pid not in program.personas
    ]
    listed: dict[str, list[str]] = {pid: [] for pid in program.personas}  # commands the model may invoke
    for command, res in resolved.items():
        for pid, outcome in res.outcomes.items():
            if outcome.model:
                listed[pid].append(command)
    # A skill's candidate is the same for every persona: made once, not once per pair.
    made = {
        c: _candidate(program.skills[c], costs[c], template, config)
        for c in dict.fromkeys(c for commands in listed.values() for c in commands)
    }
    keys = _entry_keys(entries, made) if memo else {}
    for persona in program.personas.values():
        candidates = tuple(made[c] for c in listed[persona.id])
        key = _catalog_key(config, persona, template, listed[persona.id], keys) if memo else None
        found = memo.catalog(key, candidates, config.budget_priority) if memo and key else None
        if found is None:
            found = _fit_catalog(config, program, persona, template, candidates)
            if memo and key:
                memo.remember(key, *found)
        texts[persona.id], packings[persona.id] = found
        diags.extend(packings[persona.id].diagnostics)
    return texts, packings, tuple(diags)


class CatalogMemo(Protocol):
    """Catalogs of earlier builds by the key of everything they were rendered from (the build cache)."""

    def catalog(
        self, key: str, candidates: tuple[Candidate, ...], priority: tuple[str, ...]
    ) -> tuple[str, Packing] | None: ...

    def remember(self, key: str, text: str, packing: Packing) -> None: ...


def _entry_keys(entries: dict[str, dict[str, Any]], made: dict[str, Candidate]) -> dict[str, bytes | None]:
    """Per listed command, a digest of its catalog entry and budget candidate (None: not JSON)."""
    keys: dict[str, bytes | None] = {}
    for command, candidate in made.items():
        try:
            entry = orjson.dumps(entries[command], option=orjson.OPT_SORT_KEYS)
        except TypeError:  # a lone surrogate: measured and rendered, never memoised
            keys[command] = None
            continue
        keys[command] = hashlib.sha256(
            entry + b"\0" + repr(candidate).encode("utf-8", "surrogatepass")
        ).digest()
    return keys


def _catalog_key(
    config: Config, persona: Persona, template: Template, listed: list[str], keys: dict[str, bytes | None]
) -> str | None:
    """Everything one persona's catalog is made of: template, budget settings, persona, and its entries."""
    head = repr(
        (
            persona.id,
            persona.name,
            persona.faction,
            config.budget_for(persona.id),
            config.budget_strategy,
            config.budget_priority,
            config.verbose,
            config.config_rel,
            template.suffix,
            template.markup,
        )
    ).encode("utf-8", "surrogatepass")
    # The head and the template are length-prefixed; each entry is a 32-byte digest.
    parts = [
        len(head).to_bytes(8, "little"),
        head,
        len(template.source).to_bytes(8, "little"),
        template.source,
    ]
    for command in listed:
        entry = keys[command]
        if entry is None:  # not JSON: never memoised
            return None
        parts.append(entry)
    return sha256(b"".join(parts))


def _candidate(skill: Skill, cost: int, template: Template, config: Config) -> Candidate:
    bare = -1
    if config.budget_strategy == "names-only":  # one more render per skill, only for this strategy
        bare = len(template.entry(catalog_skill(skill, template, "")))
    return Candidate(
        skill.command, bool(skill.flag("always", False)), cost, skill.path, skill.description, bare
    )


def _fit_catalog(
    config: Config, program: Program, persona: Persona, template: Template, candidates: tuple[Candidate, ...]
) -> tuple[str, Packing]:
    """Pack, render, and pack tighter while shortened entries came out longer than estimated."""
    budget = config.budget_for(persona.id)

    def frame(omitted: int) -> int:
        return len(_render(template, persona, [], omitted, budget))

    slack = 0
    for _ in range(8):
        packing = pack(
            persona.id,
            budget,
            candidates,
            frame,
            strategy=config.budget_strategy,
            priority=config.budget_priority,
            verbose=config.verbose,
            where=config.config_rel,
            slack=slack,
        )
        skills = [
            catalog_skill(program.skills[c], template, packing.descriptions.get(c)) for c in packing.included
        ]
        text = _render(template, persona, skills, len(packing.left_out), budget)
        if len(text) <= budget or not packing.descriptions:
            break
        slack += len(text) - budget
    return text, packing


def _render(
    template: Template, persona: Persona, skills: list[dict[str, Any]], omitted: int, budget: int
) -> str:
    # Manifests are untrusted like skills: their values are escaped exactly as catalog entries are.
    who = {"id": persona.id, "name": persona.name, "faction": persona.faction}
    if template.markup:
        who = {k: _escape_text(v) for k, v in who.items()}
    return template.render(persona=who, skills=skills, omitted=omitted, budget=budget)


def artifacts(
    config: Config,
    program: Program,
    resolved: Resolved,
    template: Template,
    texts: dict[str, str],
    packings: dict[str, Packing],
    digest: str,
) -> Artifacts:
    """Every file of a format 2 dist/ (see runtime/format.py for the layout).

    digest: build_hash of the inputs, computed once by the caller (the cache keys on it too).
    """
    out = _Objects()
    personas: dict[str, Any] = {}
    for pid, persona in program.personas.items():
        prompt = texts[pid].encode("utf-8")
        copy = fmt.prompt_path(pid, template.suffix)
        out.files[copy] = prompt
        meta = _persona_meta(persona, packings[pid])
        personas[pid] = {
            "prompt": out.put(prompt),
            "chars": len(texts[pid]),
            "meta": out.put(encode(meta)),
            "copy": copy,
        }
    shards: dict[str, dict[str, Any]] = {}
    ids = tuple(program.personas)
    digits = fmt.shard_digits(len(program.skills))
    for command, skill in program.skills.items():
        entry = _skill_entry(config, skill, out)
        entry.update(_default_and_exceptions(ids, resolved[command].outcomes, out.put_text))
        shards.setdefault(fmt.shard_of(command, digits), {})[command] = entry
    index = {
        "format": fmt.VERSION,
        "generator": GENERATOR,
        "build_hash": digest,
        "config": {
            "sources": list(config.sources),
            "personas": config.personas,
            "template": config.template_rel,
            "catalog_chars": config.catalog_chars,
        },
        "personas": personas,
        # The shard table is a tree of objects of its own: open() and catalog() never read it.
        "shards": _shard_table(
            out,
            {
                name: out.put(encode({"format": fmt.VERSION, "shard": name, "skills": skills}))
                for name, skills in sorted(shards.items())
            },
            "",
        ),
    }
    out.files[fmt.INDEX] = encode(index)
    out.files[OUTPUT_MARKER] = OUTPUT_MARKER_TEXT
    return Artifacts(dict(sorted(out.files.items())), frozenset(out.objects), digest)


def _shard_table(out: _Objects, shards: dict[str, str], prefix: str) -> str:
    """The node of the shard table for `prefix` (see runtime/format.py), written as an object.

    Names are the prefix plus two hex digits at the root, one more below it; a node whose names
    are as long as the shard names lists shards, any other lists the nodes below it. So no node
    holds more than 256 names, and load() reads a few kilobytes of the table at any size.
    """
    width = fmt.node_width(prefix)
    mine = {n: d for n, d in shards.items() if n.startswith(prefix)}
    if all(len(n) <= width for n in mine):
        return out.put(encode({"format": fmt.VERSION, "prefix": prefix, "shards": mine}))
    children = sorted({n[:width] for n in mine})
    below = {c: _shard_table(out, {n: d for n, d in mine.items() if n.startswith(c)}, c) for c in children}
    return out.put(encode({"format": fmt.VERSION, "prefix": prefix, "tables": below}))


class _Objects:
    """The files of a build being assembled; objects stored once under their hash."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.objects: set[str] = set()
        self._texts: dict[str, str] = {}

    def put(self, data: bytes, digest: str = "") -> str:
        digest = digest or sha256(data)
        rel = fmt.object_path(digest)
        self.files[rel] = data
        self.objects.add(rel)
        return digest

    def put_text(self, text: str) -> str:
        # Most personas share a skill's body: hash each distinct text once.
        digest = self._texts.get(text)
        if digest is None:
            digest = self._texts[text] = self.put(text.encode("utf-8"))
        return digest


_Pair = tuple[
    str, "str | None", str, "str | None", bool, bool
]  # access, via, body text, overlay, model, user


def _default_and_exceptions(
    personas: tuple[str, ...], outcomes: Mapping[str, Outcome], put_text: Callable[[str], str]
) -> dict[str, Any]:
    """A skill's resolutions: the most common one (None = not visible) plus each persona that differs.

    Outcomes are compared without their traces (the index holds none). Ties go to the resolution of
    the earliest persona, so the choice is deterministic.
    """
    shared = next(iter(outcomes.values()), None)
    if len(outcomes) == len(personas) and all(o is shared for o in outcomes.values()):
        return {"default": _stored(shared, put_text), "exceptions": {}}  # most skills: one outcome for all
    keyed = [_pair(outcomes.get(pid)) for pid in personas]
    counts = Counter(keyed)
    best = max(counts.values(), default=0)
    default = next((k for k in keyed if counts[k] == best), None)
    exceptions = {
        pid: _stored(outcomes.get(pid), put_text)
        for pid, k in zip(personas, keyed, strict=False)
        if k != default
    }
    return {
        "default": _stored(outcomes.get(personas[keyed.index(default)]) if default else None, put_text),
        "exceptions": exceptions,
    }


def _pair(o: Outcome | None) -> _Pair | None:
    return None if o is None else (o.access, o.via, o.body, o.overlay, o.model, o.user)


def _stored(o: Outcome | None, put_text: Callable[[str], str]) -> dict[str, Any] | None:
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


def encode(value: dict[str, Any]) -> bytes:
    # orjson's OPT_INDENT_2 writes the very bytes of format.dumps (the files hold only str, bool,
    # None and small ints; tests/test_cache.py checks the two agree) at a tenth of the cost.
    # Anything orjson refuses (a lone surrogate) goes the stdlib way.
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except TypeError:
        return fmt.dumps(value)


def _skill_entry(config: Config, skill: Skill, out: _Objects) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "source": config.sources[skill.source],
        "path": skill.path,
        "frontmatter": dict(skill.fields),
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
    }


def _persona_meta(persona: Persona, packing: Packing) -> dict[str, Any]:
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
