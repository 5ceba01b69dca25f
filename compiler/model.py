"""Immutable data passed between pipeline stages.

Every stage is a function from these frozen dataclasses to others; nothing is
mutated after construction, which is what makes builds reproducible and the
stages testable one at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from .dataclass import dataclass, field
from .diagnostics import Diagnostic
from .digests import sha256_hex


class Access(StrEnum):
    """What a persona gets of a skill (format 3 writes the value)."""

    OPEN = "open"  # the skill is no persona's exclusive
    GRANTED = "granted"  # exclusive, and this persona (or a fallback, or unrestricted_skills) may have it
    STUB = "stub"  # exclusive to another persona: only the unavailability notice


class Strategy(StrEnum):
    """How a catalog over its character budget is cut (stages/budget.py)."""

    DROP = "drop"
    SHORTEN = "shorten"
    NAMES_ONLY = "names-only"


DEFAULT_BUDGET = 30_000
# The range of every number a project sets, in the config or on the command line (the config's
# schema says the same; tests/unit/test_config.py holds the two equal). Generous, yet far below
# where arithmetic on them overflows (a window is multiplied as a float) or a reader refuses a
# value: a catalog or listing of a billion characters, a context window of a billion tokens, and a
# resource no larger than the reader serves (format/layout.py MAX_OBJECT_BYTES).
MIN_BUDGET, MAX_CHARS = 100, 10**9  # budgets.catalog_chars, budgets.personas
MAX_WINDOW = 10**9  # targets.<name>.window, --window (tokens); --chars and targets...chars: 1 to MAX_CHARS
MAX_RESOURCE_BYTES = 1 << 30  # resources.max_bytes
SKILL_MD_CAP = 256 * 1024
# Never resources: version-control metadata and OS litter (gitignore syntax, applied before
# the project's own `resources.exclude`, so a `!` pattern there can take one back).
DEFAULT_EXCLUDES = (".git/", ".hg/", ".svn/", ".DS_Store", "Thumbs.db")
# Overlays and redirects are injected into prompts, so only text formats (SEC-002).
PERSONA_FILE_EXTENSIONS = (".md", ".yaml", ".json")


@dataclass(frozen=True)
class TargetSetting:
    """One harness of `targets:` with its settings; None means the harness's own default."""

    name: str  # claude-code, codex, gemini or opencode (targets.NAMES)
    window: int | None = None  # the model's context window in tokens
    chars: int | None = None  # claude-code: the listing budget in characters


class Duplicates(StrEnum):
    """What a source does with two skills that would have one id (docs/config.md, Sources)."""

    ERROR = "error"  # SKC306, as the spec's clients refuse them
    LAST_WINS = "last-wins"  # the later in discovery order is built, the other left out with a warning


@dataclass(frozen=True)
class SourceRules:
    """How one source is searched for skills, as the loader that reads it searches (`sources:`
    entries written as mappings; docs/config.md). The defaults are skillc's own discovery."""

    optional: bool = False  # a missing source is a warning (SKC324), not an error (SKC308)
    depth: int | None = None  # how many folders below the root a skill folder may be; None: any
    root_skill: bool = False  # a SKILL.md at the source root is a skill, named after the source folder
    # Folders by these names are not walked (their SKILL.md files are no skills, their files no resources)
    skip_folders: tuple[str, ...] = ("node_modules",)
    duplicates: Duplicates = Duplicates.ERROR
    git_ignored: bool = False  # the ignore files above the source are not read (those inside it are)


DEFAULT_SOURCE_RULES = SourceRules()


class Names(StrEnum):
    """How a skill's id follows from its `name` (`frontmatter.names`)."""

    LABELS = "labels"  # a name that is not a valid skill name is a label; the id is the folder's name
    LOWERCASE_HYPHENS = "lowercase-hyphens"  # every name made an id: lowercased, other runs one `-`


class DescriptionFallback(StrEnum):
    """Where a skill without a description takes one from (`frontmatter.description_fallback`)."""

    NONE = "none"
    FIRST_LINE = "first-line"  # the body's first non-empty line, as Claude Code reads it
    FIRST_PARAGRAPH = "first-paragraph"  # the body's first paragraph, as Pegasus reads it


@dataclass(frozen=True)
class FrontmatterRules:
    """What the project's loader reads of a SKILL.md beyond the spec (`frontmatter:` in the config).
    Part of each SkillSource: checking a SKILL.md reads them, so they key its memo entry."""

    names: Names = Names.LABELS
    description_fallback: DescriptionFallback = DescriptionFallback.NONE
    # Extension fields the project declares: (field, its JSON Schema as canonical JSON, or "" for any value)
    extensions: tuple[tuple[str, str], ...] = ()


DEFAULT_FRONTMATTER_RULES = FrontmatterRules()


@dataclass(frozen=True)
class Config:
    root: Path  # directory holding the config; every path is relative to it
    config_rel: str
    sources: tuple[str, ...]  # lowest precedence first, as labels: the path as written (normalised)
    personas: str | None
    output: str
    template: Path
    template_rel: str
    strict: bool
    catalog_chars: int
    persona_budgets: tuple[tuple[str, int], ...]
    max_resource_bytes: int
    config_bytes: bytes
    # Where each source is on this machine (`~` expanded, absolute); index and
    # diagnostics use the labels in `sources`, so builds agree across machines.
    source_dirs: tuple[Path, ...] = ()
    exclude: tuple[str, ...] = ()  # resources.exclude, gitignore syntax, after DEFAULT_EXCLUDES
    skip_invalid: bool = False
    # `follow_symlinks: outside`: a link out of the project is followed, with a warning (SKC302)
    symlinks_outside: bool = False
    budget_strategy: Strategy = Strategy.DROP
    budget_priority: tuple[str, ...] = ()
    verbose: bool = False  # SKC601 names every skill the budget touched
    # code -> error | warning | ignore: the config's `diagnostics:` with `--ignore` on top, sorted
    severities: tuple[tuple[str, str], ...] = ()
    # The ignore files above the walked roots (ignorefiles.outer_files): (folder, name, bytes)
    ignore_outer: tuple[tuple[str, str, bytes], ...] = ()
    # gitignore-style pattern -> ((code, level), ...): `diagnostics: per_path:`, in the config's order
    path_severities: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # (line, col) in the config of each setting a later stage may report on: ("sources", i) by the
    # index in `sources`, ("personas",), ("output",), ("budgets", "personas", id), ...
    anchors: tuple[tuple[tuple[str | int, ...], tuple[int, int]], ...] = ()
    # `targets:`: the harnesses the project ships to, in the config's order (docs/targets.md)
    targets: tuple[TargetSetting, ...] = ()
    # `knowledge:`: the project's knowledge folder (sven's `.sven/knowledge`), whose docs' titles
    # the reader gives beside each skill's `knowledge:` entries
    knowledge: str | None = None
    # Each source's discovery rules, as `sources` (empty: every source has the defaults)
    source_rules: tuple[SourceRules, ...] = ()
    frontmatter: FrontmatterRules = DEFAULT_FRONTMATTER_RULES

    def rules(self, index: int) -> SourceRules:
        return self.source_rules[index] if self.source_rules else DEFAULT_SOURCE_RULES

    def at(self, *keys: str | int) -> tuple[int, int]:
        """Where a setting is written in the config: its key's line and column (1:1 if unknown)."""
        return dict(self.anchors).get(keys, (1, 1))

    def source_dir(self, index: int) -> Path:
        return self.source_dirs[index] if self.source_dirs else self.root / self.sources[index]

    def budget_for(self, persona: str) -> int:
        return dict(self.persona_budgets).get(persona, self.catalog_chars)


@dataclass(frozen=True)
class InputFile:
    rel: str  # POSIX path relative to the project root (a source's label for outside sources)
    data: bytes
    executable: bool = False  # any x bit set; recorded for resources, part of the build hash

    @cached_property
    def digest(self) -> str:
        """sha256 of the bytes, hashed once: the build hash, the memo keys and the object address share it."""
        return sha256_hex(self.data)


@dataclass(frozen=True)
class Resource:
    path: str  # POSIX path relative to the skill directory
    file: InputFile

    @property
    def executable(self) -> bool:
        return self.file.executable


@dataclass(frozen=True)
class SkillSource:
    command: str
    source: int  # index into Config.sources
    dir_rel: str
    skill_md: InputFile
    resources: tuple[Resource, ...]
    # Discovery's errors and warnings for files of this skill (resources, names):
    # with --skip-invalid an error here leaves the skill out, after its frontmatter is checked too.
    problems: tuple[Diagnostic, ...] = ()
    readable: bool = True  # False: SKILL.md itself could not be read (its error is in problems)
    # The config's `targets:` names: graded validation reads the frontmatter as they do
    targets: tuple[str, ...] = ()
    rules: FrontmatterRules = DEFAULT_FRONTMATTER_RULES  # the config's `frontmatter:`

    @cached_property
    def origin(self) -> str:
        """A digest of everything checking this SKILL.md reads: its bytes, path, command, source,
        the selected targets and the config's frontmatter rules (each left out when it is the
        default, so such keys stay what they were)."""
        fields: tuple[object, ...] = (self.skill_md.rel, self.command, self.dir_rel, self.source)
        fields += (self.targets,) if self.targets else ()
        fields += (self.rules,) if self.rules != DEFAULT_FRONTMATTER_RULES else ()
        where = repr(fields).encode("utf-8", "surrogatepass")
        return sha256_hex(where + b"\0" + self.skill_md.digest.encode())


@dataclass(frozen=True)
class PersonaSource:
    id: str
    dir_rel: str
    manifest: InputFile | None
    overlays: tuple[tuple[str, InputFile], ...]  # (command, file)


@dataclass(frozen=True)
class ExclusiveSource:
    persona: str
    dir_rel: str
    bodies: tuple[tuple[str, InputFile], ...]  # (command, file)


@dataclass(frozen=True)
class Discovery:
    skills: tuple[SkillSource, ...]  # sorted by command, precedence applied
    personas: tuple[PersonaSource, ...]
    exclusives: tuple[ExclusiveSource, ...]
    inputs: tuple[InputFile, ...]  # every input file, sorted, for the build hash
    diagnostics: tuple[Diagnostic, ...]  # not tied to one skill (skill problems: SkillSource)
    ignore_files: tuple[str, ...] = ()  # the ignore files the walks read: watched like inputs, not hashed
    # Each source's skill folders (served or overridden) and those below a hidden folder (left out):
    # what an edit build asks discover about a change with (discover.closed_folder, source_notes)
    folders: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    knowledge: tuple[tuple[str, InputFile], ...] = ()  # the knowledge folder's docs, by name
    # The copies of a command that a later source overrides, by command then source: validate serves
    # the latest of them that is valid when the served one is left out for its errors (--skip-invalid).
    shadowed: tuple[SkillSource, ...] = ()
    # The SKILL.md paths `duplicates: last-wins` left out (each said, SKC305): the summary counts them.
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    """A YAML-frontmatter document after parsing."""

    rel: str
    data: Mapping[str, Any] | None  # None when the frontmatter is unusable
    positions: Mapping[tuple[Any, ...], tuple[int, int]]
    body: str
    body_line: int
    diagnostics: tuple[Diagnostic, ...]

    def pos(self, *keys: Any) -> tuple[int, int]:
        """Line/col of a value, or of its nearest known ancestor."""
        for end in range(len(keys), -1, -1):
            hit = self.positions.get(("v", *tuple(keys[:end])))
            if hit:
                return hit
        return (1, 1)

    def key_pos(self, *keys: Any) -> tuple[int, int]:
        return self.positions.get(("k", *tuple(keys))) or self.pos(*keys)


@dataclass(frozen=True)
class Skill:
    command: str
    name: str
    description: str
    source: int
    path: str  # SKILL.md, relative to the project root
    dir_rel: str
    body: str
    fields: Mapping[str, Any]  # normalised frontmatter, keys as in the spec
    resources: tuple[Resource, ...]
    parent: str | None
    children: tuple[str, ...]
    # (line, col) of each top-level frontmatter value, for diagnostics raised
    # after parsing (an exclusive skill's persona is only known later).
    anchors: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    origin: str = ""  # SkillSource.origin of what it was checked from ("" when made by hand)

    def flag(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    @property
    def label(self) -> str:
        """What the skill is shown as: its frontmatter `name` as written (kept in `fields`; a label
        when it is not a valid skill name, Claude Code's display name), else its name. The readers
        derive it the same way from a build (docs/format.md)."""
        written = self.fields.get("name")
        return written if type(written) is str and written else self.name


@dataclass(frozen=True)
class Persona:
    id: str
    name: str
    fallback: str | None
    chain: tuple[str, ...]  # fallback chain, nearest first, without the persona itself
    unrestricted: bool
    faction: str | None
    allowlist: tuple[str, ...] | None  # None = every skill
    manifest_rel: str | None
    overlays: Mapping[str, tuple[str, str]]  # command -> (rel, text)
    # (line, col) of the manifest's values, for diagnostics raised after loading (fallback, allowlist)
    positions: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Program:
    """Validated input: what resolution works on."""

    skills: Mapping[str, Skill]
    personas: Mapping[str, Persona]
    exclusive_bodies: Mapping[tuple[str, str], tuple[str, str]]  # (persona, command) -> (rel, body)
    diagnostics: tuple[Diagnostic, ...]
    # each skill left out for its errors, with their codes (with --skip-invalid the build goes on)
    invalid: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Each served skill's own diagnostics at their levels (its files' problems and its check's), for
    # those that have any: what an edit build takes out of the report when the skill changes.
    own: Mapping[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    # Every command a persona names (allowlists, overlays, exclusive bodies), a skill or not: what
    # an edit build must not add or remove a skill under (its diagnostics and suggestions read them).
    lookups: frozenset[str] = frozenset()
    # Every SKILL.md found and not built (or entry discover refused), by path: the summary counts them
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What one persona gets of one skill: a Resolution without the pair it belongs to."""

    access: Access
    via: str | None  # persona | fallback:<id> | unrestricted
    body: str
    overlay: str | None  # overlay source path, relative to the project root
    model: bool
    user: bool
    trace: tuple[str, ...]


@dataclass(frozen=True)
class Resolution(Outcome):
    """One persona x skill pair and its Outcome (explain and the tests read pairs; a build does not)."""

    persona: str
    command: str


@dataclass(frozen=True)
class SkillResolutions:
    """Every persona's resolution of one skill: persona id -> Outcome, in persona order, for the
    personas that see the skill. Most skills give every persona the very same Outcome object, so a
    build holds one per skill plus one per persona that differs, not one per persona x skill pair."""

    command: str
    outcomes: Mapping[str, Outcome]


# The resolve stage's result: command -> its resolutions, in command order.
Resolved = Mapping[str, SkillResolutions]


def pairs(resolved: Resolved, personas: tuple[str, ...]) -> tuple[Resolution, ...]:
    """Every persona x skill pair a persona sees, ordered by persona then command."""
    return tuple(
        Resolution(o.access, o.via, o.body, o.overlay, o.model, o.user, o.trace, pid, command)
        for pid in personas
        for command, res in resolved.items()
        if (o := res.outcomes.get(pid)) is not None
    )


@dataclass(frozen=True)
class Artifacts:
    """Everything the write stage puts on disk, path -> bytes.

    `files` need not hold the bytes (output/assemble.py's `Files` spools documents and encodes
    bodies on access): take one file at a time, and do not copy it into a dict."""

    files: Mapping[str, bytes]
    objects: frozenset[str]  # relative paths of object files among `files`
    build_hash: str
    documents: frozenset[str] = frozenset()  # objects that are JSON documents (the reader parses them)
    # What an edit build starts from (incremental/carry.py): each shard's name -> its object's digest, and
    # each object a skill's entry names (body, resolved bodies, resources) -> how many entries do.
    shards: Mapping[str, str] = field(default_factory=dict)
    refs: Mapping[str, int] = field(default_factory=dict)
