"""The documents of format 3 as types: what each JSON file of dist/ holds.

Type checkers read these; at run time the reader checks documents with `documents.py` (no `typing`
import on its cold path) and the compiler builds them with these types. A test holds each type's
keys equal to its JSON Schema in `skillc/schemas/`, so the types, the checks and the schemas
describe one format. `docs/format.md` is the prose of the same.
"""

from __future__ import annotations

from typing import Required, TypedDict


class ConfigDoc(TypedDict):
    sources: list[str]
    personas: str | None
    template: str
    catalog_chars: int
    priority: list[str]  # budgets.priority: a stack refuses a base that ranks by it


class PersonaEntry(TypedDict):
    prompt: str  # the catalog object
    chars: int
    meta: str  # the persona meta object
    copy: str  # the readable copy of the catalog, relative to dist/
    plan: str | None  # the plan of the catalog (PlanDoc); None: the template does not split for it


class KnowledgeDoc(TypedDict):
    folder: str  # relative to the project root
    titles: dict[str, str]  # a doc's name in the folder -> its title


class IndexDoc(TypedDict):
    """`_index.json`."""

    format: int
    generator: str
    build_hash: str
    config: ConfigDoc
    personas: dict[str, PersonaEntry]
    shards: str  # the root node of the shard table
    split: str | None  # the catalog template split (SplitDoc); None: it does not split
    requires: str | None  # the skills' run-time requirements (RequiresDoc); None: no skill has any
    personas_hash: str | None  # sha256 of the persona inputs; None: no personas folder
    knowledge: KnowledgeDoc | None  # the knowledge folder and its docs' titles; None: no folder


class ShardTableDoc(TypedDict, total=False):
    """One node of the shard table: `shards` at the leaves, `tables` above them (exactly one)."""

    format: Required[int]
    prefix: Required[str]
    shards: dict[str, str]
    tables: dict[str, str]


class ResourceDoc(TypedDict):
    path: str
    sha256: str
    size: int
    executable: bool


class ResolutionDoc(TypedDict):
    access: str  # open | granted | stub: skillc.model.Access writes it, documents.py checks it
    via: str | None
    body: str
    overlay: str | None
    model: bool
    user: bool


# The frontmatter as the build keeps it: any field the source had; these are the ones the reader
# reads (documents.py, or prompts.py for `arguments`, checks each before it is used).
FrontmatterDoc = TypedDict(
    "FrontmatterDoc",
    {
        "name": str,  # the name as written: the label (docs/format.md §7), when not the entry's name
        "allowed-tools": list[str],
        "knowledge": list[str],
        "requires_bins": list[str],
        "requires_env": list[str],
        "context": str,
        "argument-hint": str,
        "agent": str,
        "model": str,
        "arguments": list[str],
    },
    total=False,
)


class SkillDoc(TypedDict):
    """One skill in a shard: its facts and its resolution, a default plus per-persona exceptions."""

    name: str
    description: str
    source: str
    path: str
    frontmatter: FrontmatterDoc
    body: str
    resources: list[ResourceDoc]
    parent: str | None
    children: list[str]
    default: ResolutionDoc | None
    exceptions: dict[str, ResolutionDoc | None]


class ShardDoc(TypedDict):
    format: int
    shard: str
    skills: dict[str, SkillDoc]


class PersonaMetaDoc(TypedDict):
    format: int
    id: str
    name: str
    faction: str | None
    fallback: str | None
    chain: list[str]
    unrestricted: bool
    allowlist: list[str] | None
    budget: int
    included: list[str]
    left_out: list[str]
    shortened: list[str]
    strategy: str


# A piece of an entry or frame pattern: fixed text, or a field's value (format/split.py).
class FieldDoc(TypedDict):
    field: str
    lines: bool


class FramesDoc(TypedDict):
    none: list[str]  # head, tail: no skill left out
    one: list[str]  # head, tail: one skill left out
    many: list[list[str | dict[str, str]]]  # head, tail: any other number, {"field": "omitted"}


class SplitDoc(TypedDict):
    """The catalog template split into its frame and its entries."""

    format: int
    markup: bool
    entry: list[str | FieldDoc]
    always: list[str | FieldDoc]
    frames: dict[str, FramesDoc | None]


class PlaceDoc(TypedDict):
    at: int
    lines: bool


class PlannedDoc(TypedDict):
    command: str
    start: int
    end: int
    locations: list[PlaceDoc]


class PlanDoc(TypedDict):
    """Where each entry of a persona's catalog is, and where each relative location starts."""

    format: int
    persona: str
    markup: bool
    entries: list[PlannedDoc]


class NeedsDoc(TypedDict):
    bins: list[str]
    env: list[str]


class RequiresDoc(TypedDict):
    """Every skill with `requires_bins` or `requires_env`, by command."""

    format: int
    requires: dict[str, NeedsDoc]


# Each document type with the schema that describes the same JSON (the test's pairing).
SCHEMAS: dict[str, type] = {
    "index": IndexDoc,
    "shard-table": ShardTableDoc,
    "shard": ShardDoc,
    "persona-meta": PersonaMetaDoc,
    "split": SplitDoc,
    "plan": PlanDoc,
    "requires": RequiresDoc,
}
