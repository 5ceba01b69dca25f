"""Discover stage: the only stage that reads input files.

Walks every source and the personas directory in sorted order (never in file
system order), refuses unsafe names and escaping symlinks, applies source
precedence, and returns the bytes of everything later stages need.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from .. import diagnostics as dg
from .. import fs
from ..dataclass import dataclass, field, replace
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import (
    DEFAULT_EXCLUDES,
    DEFAULT_SOURCE_RULES,
    PERSONA_FILE_EXTENSIONS,
    SKILL_MD_CAP,
    Config,
    Discovery,
    Duplicates,
    ExclusiveSource,
    InputFile,
    PersonaSource,
    Resource,
    SkillSource,
    SourceRules,
)
from ..names import gitignore
from ..names.confusables import skeleton
from ..names.paths import (
    CACHE_DIRNAME,
    IGNORED_DIRS,
    extension,
    nfc,
    sanitize_command,
    sanitize_joined,
    unsafe_name,
)
from ..project import ignorefiles
from ..targets.model import Issue, Verdict
from ..targets.verdicts import any_verdict, suffix
from .frontmatter import valid_name
from .readinput import Entry, read_input
from .seen import Seen

EXCLUSIVE_SUFFIX = "-exclusive"
SKILL_FILES = ("SKILL.md", "skill.md")  # the second is accepted as skills-ref does, with a warning
# Names skillc reads as files: a directory by one of them would make a skill or persona vanish.
FILE_NAMES = frozenset({*SKILL_FILES, "manifest.yaml"})

# os.listdir, or a stand-in (tests shuffle the listing to prove the output ignores its order).
Listdir = Callable[[str], list[str]]
# os.lstat, or the build cache's stat walk answering from what it saw (snapshot.Walked): one walk per build.
Lstat = Callable[[str], os.stat_result]
# skip(rel, is_dir) -> True to leave an entry out of the walk (rel: relative to the walked root).
Skip = Callable[[str, bool], bool]


@dataclass(frozen=True)
class Walk:
    files: tuple[Entry, ...]
    dirs: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]


def discover(config: Config, listdir: Listdir = os.listdir, lstat: Lstat = os.lstat) -> Discovery:
    """`listdir` is injectable so tests can prove the output ignores listing order; `listdir` and
    `lstat` together let a build that has already walked the inputs (the cache's snapshot) reuse it."""
    return _discover(config, (listdir, lstat), None)


# How a split walk checks the SKILL.md files it reads (stages/skills.py's, handed in: discover does
# not import the checks): (check one here, check one in a forked helper and pack the result,
# what this process makes of a packed result and its source).
Checks = tuple[Callable[[SkillSource], Any], Callable[[SkillSource], Any], Callable[[Any, SkillSource], Any]]
# (source index, command) -> the check's result, for each skill a split walk checked.
Checked = dict[tuple[int, str], Any]


def discover_checked(
    config: Config,
    checks: Checks,
    listdir: Listdir = os.listdir,
    lstat: Lstat = os.lstat,
    seen: Seen | None = None,
) -> tuple[Discovery, Checked]:
    """discover, with a large source's top-level folders shared with a forked helper (`_split`):
    each process walks, reads and checks its share. The Discovery is discover's, to the byte and
    in every order; with the results of the checks made on the way (not every skill's: a source
    walked whole leaves its skills to the check stage). listdir and lstat must answer alike in a
    forked process (no state of their own that the walk changes), or be `seen`'s: the helper then
    sends what it saw back with its chunks."""
    checked: Checked = {}
    return _discover(config, (listdir, lstat), (checks, checked, seen)), checked


def _discover(config: Config, lister: tuple[Listdir, Lstat], split: _Split | None) -> Discovery:
    diags: list[Diagnostic] = list(_excludes_skill_md(config))
    inputs: list[InputFile] = []
    chosen: dict[str, SkillSource] = {}
    shadowed: list[SkillSource] = []  # the copies a later source overrides, lowest precedence first
    lost: list[str] = []  # the SKILL.md files `duplicates: last-wins` leaves out
    watched: list[str] = []  # the ignore files the walks read
    folders: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    listdir, lstat = lister
    for index, src in enumerate(config.sources):
        found, dirs, hidden = _source_skills(
            config, index, src, (listdir, lstat), diags, inputs, watched, split
        )
        folders.append((tuple(dirs), tuple(hidden)))
        for skill in found:
            _take(config, chosen, skill, diags, (shadowed, lost))
    skills, dropped = _last_wins(config, tuple(chosen[c] for c in sorted(chosen)), diags)
    dropped = tuple(sorted((*dropped, *lost)))
    skills = _collisions(skills)
    diags.extend(_lookalikes(skills))
    personas, exclusives = _personas(config, (listdir, lstat), diags, inputs, watched)
    knowledge = _knowledge(config, (listdir, lstat), diags, inputs, watched)
    return Discovery(
        skills=skills,
        personas=personas,
        exclusives=exclusives,
        inputs=tuple(sorted(inputs, key=lambda f: f.rel)),
        diagnostics=tuple(diags),
        ignore_files=tuple(sorted(watched)),
        folders=tuple(folders),
        knowledge=knowledge,
        shadowed=tuple(sorted(shadowed, key=lambda s: (s.command, s.source))),
        dropped=dropped,
    )


def _ignoring(
    config: Config,
    root: Path,
    label: str,
    skip: Skip,
    walking: tuple[Listdir, list[str]],
    outer: tuple[ignorefiles.OuterFile, ...],
) -> tuple[Skip, Listdir, Callable[[list[Diagnostic]], None]]:
    """`skip` plus the ignore files (ignorefiles; `outer`: those above the root), the listdir to
    walk with (it tells the rules which folders hold an ignore file), and what to call after the
    walk: it records the ignore files read (`watched`, for the cache) and reports the unreadable ones."""
    listdir, watched = walking
    rules = ignorefiles.rules_for(root, config.root, outer)

    def after(diags: list[Diagnostic]) -> None:
        watched.extend(_join(label, rel) for rel in rules.read)
        diags.extend(dg.warning(_join(label, rel), Code.UNREADABLE, why) for rel, why in rules.problems)

    return ignorefiles.combined(rules, skip), rules.listing(listdir), after


def _walk_with_rules(
    config: Config,
    root: Path,
    label: str,
    skip: Skip,
    walking: tuple[tuple[Listdir, Lstat], list[str]],
    diags: list[Diagnostic],
    outside: Outside | None = None,
    outer: tuple[ignorefiles.OuterFile, ...] | None = None,
) -> Walk:
    """One source's or the personas' walk, with the ignore files and the output and cache kept
    out. `outer`: the ignore files above the root (default: the config's)."""
    (listdir, lstat), watched = walking
    above = config.ignore_outer if outer is None else outer
    skip, listdir, after = _ignoring(config, root, label, skip, (listdir, watched), above)
    tree = walk(
        root,
        label,
        listdir,
        confine=_confine(config, root),
        skip=skip,
        lstat=lstat,
        reserved=_reserved(config),
        outside=outside or Outside(),
    )
    after(diags)
    return tree


def _hidden(rel: str, is_dir: bool) -> bool:
    """The personas walk: dot-names are notes and editor files there, as before."""
    return rel.rsplit("/", 1)[-1].startswith(".")


def resource_filter(config: Config) -> Skip:
    """DEFAULT_EXCLUDES then resources.exclude, with gitignore semantics (last match wins).

    A SKILL.md is never excluded by a file pattern (`*.md` would drop every skill); a directory
    pattern still leaves out the skills below it, as it says."""
    if not config.exclude:
        return default_excludes  # the common case, by name
    spec = _exclude_spec(config)
    return lambda rel, is_dir: (
        spec.verdict(gitignore.as_text(rel), is_dir) is True
        and (is_dir or rel.rsplit("/", 1)[-1] not in SKILL_FILES)
    )


def _exclude_spec(config: Config) -> gitignore.Spec:
    return gitignore.from_entries((*DEFAULT_EXCLUDES, *config.exclude))


def _excludes_skill_md(config: Config) -> tuple[Diagnostic, ...]:
    """resources.exclude patterns that match a SKILL.md: said once, since it is never applied to one."""
    if not config.exclude:
        return ()
    spec = _exclude_spec(config)
    hits = [p for p in SKILL_FILES if spec.verdict(f"skill/{p}", False)]
    if not hits:
        return ()
    return (
        dg.warning(
            config.config_rel,
            Code.EXCLUDES_SKILL_MD,
            f"resources.exclude matches {hits[0]}; a skill's {hits[0]} is never excluded (the pattern "
            "applies to the other files); to leave skills out, exclude their directories",
            *config.at("resources", "exclude"),
        ),
    )


# DEFAULT_EXCLUDES by name, as gitignore reads them: `.git/` (no other slash) is a directory of that
# name at any depth, `.DS_Store` a file or directory of that name at any depth. A test holds the two
# equal to gitignore's reading of the same lines.
_EXCLUDED_DIRS = frozenset(p[:-1] for p in DEFAULT_EXCLUDES if p.endswith("/"))
_EXCLUDED_NAMES = frozenset(p for p in DEFAULT_EXCLUDES if not p.endswith("/"))


def default_excludes(rel: str, is_dir: bool) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name in _EXCLUDED_NAMES or (is_dir and name in _EXCLUDED_DIRS)


def walk(
    root: Path,
    rel_prefix: str,
    listdir: Listdir = os.listdir,
    *,
    confine: str | None = None,
    skip: Skip = _hidden,
    lstat: Lstat = os.lstat,
    reserved: Reserved = (),
    outside: Outside | None = None,
) -> Walk:
    """Every file below root, sorted, each real directory visited once.

    Symlinks are followed when they resolve inside `confine` (a real path,
    default: root's): a link to a directory already walked is skipped with a
    warning, a link to an ancestor is a loop, so neither loops nor a diamond
    of links can make the walk revisit a directory.
    """
    state, top = _start(root, rel_prefix, confine, skip, lstat, reserved, outside)
    _descend(state, listdir, [top])
    files = tuple(sorted(state.files, key=lambda e: e.rel))
    return Walk(files, tuple(sorted(state.dirs)), tuple(state.diags))


_Dir = tuple[str, str, frozenset[str], str]  # (path, rel, real paths of the ancestors, real path)


def _start(
    root: Path,
    rel_prefix: str,
    confine: str | None,
    skip: Skip,
    lstat: Lstat,
    reserved: Reserved,
    outside: Outside | None,
) -> tuple[_WalkState, _Dir]:
    """A walk's state, and its root as the first directory to enter."""
    root_real = os.path.realpath(root)
    state = _WalkState(
        confine or root_real, rel_prefix, skip, {root_real: ""}, lstat, reserved, outside or Outside()
    )
    return state, (str(root), "", frozenset({root_real}), root_real)


def _descend(state: _WalkState, listdir: Listdir, stack: list[_Dir]) -> None:
    """Depth first, each folder's entries in sorted order: the order of the walk's diagnostics."""
    while stack:
        stack.extend(reversed(_enter(state, listdir, stack.pop())))


def _enter(state: _WalkState, listdir: Listdir, folder: _Dir) -> list[_Dir]:
    """One folder listed and its entries visited: its files recorded, its folders to walk returned.
    A folder tagged as a cache (`_tagged`) below the walk's root is left as it is found: empty."""
    path, rel, ancestors, here = folder
    state.dirs.append(rel)
    try:
        names = _listing(listdir(path), state.rel_prefix, rel, state.diags)
    except OSError as exc:
        where = _join(state.rel_prefix, rel) or "."
        state.diags.append(dg.error(where, Code.UNREADABLE, f"cannot list directory: {exc.strerror}"))
        return []
    if rel and any(name == CACHE_TAG for name, _disk in names) and _tagged(path, state.lstat):
        return []
    return [sub for name, disk in names if (sub := state.visit(path, rel, name, disk, ancestors, here))]


# A cache's folder says so with this file, beginning with this signature (the Cache Directory Tagging
# specification, https://bford.info/cachedir/): cargo's target/, .pytest_cache, .mypy_cache,
# .ruff_cache. What a tool made again at will holds no skill and no resource of one.
CACHE_TAG = "CACHEDIR.TAG"
CACHE_TAG_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"


def _tagged(folder: str, lstat: Lstat) -> bool:
    """Whether `folder` holds a cache directory tag: a regular file named CACHE_TAG that begins
    with its signature. Stat'ed with the walk's `lstat`, so that a recorded walk (seen.py) sees the
    tag change."""
    tag = _under(folder, CACHE_TAG)
    try:
        if not stat.S_ISREG(lstat(tag).st_mode):
            return False
        return fs.read_head(tag, len(CACHE_TAG_SIGNATURE), follow=False) == CACHE_TAG_SIGNATURE
    except OSError:
        return False


@dataclass(frozen=True)
class Outside:
    """What a symlink that resolves outside the project gets: refused (SKC302, an error), or with
    `follow_symlinks: outside` followed with a warning, as every harness follows it (golden
    discovery: link-outside). `note` is what the selected targets do, said in either diagnostic."""

    follow: bool = False
    note: str = ""


# (what, real path) of the directories no symlink may lead into: the output and the build cache.
Reserved = tuple[tuple[str, str], ...]


@dataclass
class _WalkState:
    confine: str
    rel_prefix: str
    skip: Skip
    seen: dict[str, str]  # real path of each directory walked -> its rel
    lstat: Lstat
    reserved: Reserved
    outside: Outside
    files: list[Entry] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    diags: list[Diagnostic] = field(default_factory=list)
    # A symlink to a folder was followed: which folder a walk meets first (and walks; the other is
    # WALKED_ONCE) depends on the whole walk's order, so a split walk is done again as one (_split).
    linked: bool = False

    def visit(
        self, path: str, rel: str, name: str, disk: str, ancestors: frozenset[str], here: str
    ) -> _Dir | None:
        """One directory entry: a file is recorded, a directory to walk is returned.

        It runs for each of the 29,000 entries of a 10,000-skill tree: the common cases (a plain
        file, a plain directory) are decided inline, the rest by _classify_stat."""
        if name in IGNORED_DIRS:  # names.paths.ignored
            return None
        child_rel = f"{rel}/{name}" if rel else name
        # Asked as a directory only when it matters: the entry is left out as a file too (then it
        # is not even stat'ed), or it is a directory. A file, most entries, costs one question.
        as_file = self.skip(child_rel, False)
        as_dir = self.skip(child_rel, True) if as_file else None
        if as_dir:
            return None
        reason = unsafe_name(name)
        if reason:
            self.diags.append(
                dg.error(self._where(child_rel), Code.UNSAFE_PATH, f"unsafe file name: {reason}")
            )
            return None
        child = _under(path, disk)
        try:
            st = self.lstat(child)
        except OSError as exc:
            self.diags.append(
                dg.error(self._where(child_rel), Code.UNREADABLE, f"cannot stat: {exc.strerror}")
            )
            return None
        kind = _PLAIN.get(st.st_mode & _S_IFMT)  # a regular file or a directory, not a link
        linked = kind is None and stat.S_ISLNK(st.st_mode)
        if kind is None:
            limits = (self.confine, self.reserved, self.outside)
            kind, found = _classify_stat(child, st, limits, self._where(child_rel), ancestors, self.diags)
            st = found or st
        if kind == "dir" and name in FILE_NAMES:
            self.diags.append(
                dg.error(
                    self._where(child_rel),
                    Code.UNREADABLE,
                    f"{name} is a directory; it must be a regular file",
                )
            )
            return None
        if kind == "file" and not as_file:
            # A link is read at its target (checked above), so the read can refuse any link it meets.
            at = os.path.realpath(child) if linked else child
            self.files.append(Entry(child_rel, at, bool(st.st_mode & 0o111), (st.st_dev, st.st_ino)))
        if kind != "dir" or (as_dir if as_dir is not None else self.skip(child_rel, True)):
            return None
        # realpath lstats every component (0.4 s for 10,000 skills); a
        # plain directory's real path is its parent's plus its name.
        self.linked = self.linked or linked
        real = os.path.realpath(child) if linked else _under(here, disk)
        first = self.seen.get(real)
        if first is not None:
            where_first = _join(self.rel_prefix, first) or "."
            self.diags.append(
                dg.warning(
                    self._where(child_rel),
                    Code.WALKED_ONCE,
                    f"same directory as {where_first} (a symlink); walked once, there",
                )
            )
            return None
        self.seen[real] = child_rel
        return (child, child_rel, ancestors | {real}, real)

    def _where(self, child_rel: str) -> str:
        """The entry's path as diagnostics give it: only a diagnostic needs it."""
        return _join(self.rel_prefix, child_rel)


# A file type from st_mode that visit decides inline: no link to follow, no diagnostic to give.
_S_IFMT = 0o170000  # stat.S_IFMT as a mask
_PLAIN = {stat.S_IFREG: "file", stat.S_IFDIR: "dir"}


def _under(folder: str, name: str) -> str:
    """os.path.join(folder, name) for a name from a listing (never absolute, never empty), at a
    third of its cost: it runs twice for each of the 29,000 entries of a 10,000-skill tree."""
    return folder + name if folder.endswith(("/", os.sep)) else folder + os.sep + name


def _listing(listed: list[str], rel_prefix: str, rel: str, diags: list[Diagnostic]) -> list[tuple[str, str]]:
    """(NFC name, name on disk) of each entry, sorted by the NFC name. An ASCII name is its own NFC
    form and two names listed are never equal, so a listing of ASCII names (almost every one) is
    sorted as it is, without normalising each name or looking for twins."""
    if all(map(str.isascii, listed)):
        return [(n, n) for n in sorted(listed)]
    return _unique(sorted((nfc(n), n) for n in listed), rel_prefix, rel, diags)


def _unique(
    names: list[tuple[str, str]], rel_prefix: str, rel: str, diags: list[Diagnostic]
) -> list[tuple[str, str]]:
    """Two names that normalise alike (NFC vs NFD) would be one command: refuse the second."""
    kept: list[tuple[str, str]] = []
    for name, disk in names:
        if kept and kept[-1][0] == name:
            where = _join(rel_prefix, _join(rel, name))
            diags.append(
                dg.error(
                    where,
                    Code.COLLISION,
                    f"two entries named {name!r} that differ only in Unicode normalisation",
                )
            )
            continue
        kept.append((name, disk))
    return kept


def _classify_stat(
    child: str,
    st: os.stat_result,
    limits: tuple[str, Reserved, Outside],
    where: str,
    ancestors: frozenset[str],
    diags: list[Diagnostic],
) -> tuple[str | None, os.stat_result | None]:
    """(kind, stat of what is read) from child's lstat result."""
    if stat.S_ISLNK(st.st_mode):
        return _classify_link(child, limits, where, ancestors, diags)
    if stat.S_ISDIR(st.st_mode):
        return "dir", st
    return _regular(st.st_mode, where, diags), st


def _regular(mode: int, where: str, diags: list[Diagnostic]) -> str | None:
    """A FIFO, device or socket is never read (it could block or never end), and never dropped silently."""
    if stat.S_ISREG(mode):
        return "file"
    diags.append(dg.error(where, Code.UNREADABLE, f"{fs.kind(mode)}, not a regular file: not read"))
    return None


def _classify_link(
    child: str,
    limits: tuple[str, Reserved, Outside],
    where: str,
    ancestors: frozenset[str],
    diags: list[Diagnostic],
) -> tuple[str | None, os.stat_result | None]:
    confine, reserved, outside = limits
    try:
        st = os.stat(child)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            diags.append(dg.error(where, Code.SYMLINK_LOOP, "symlink loop"))
        else:
            diags.append(dg.error(where, Code.SYMLINK_ESCAPES, "broken symlink"))
        return None, None
    real = os.path.realpath(child)
    if real != confine and not real.startswith(confine.rstrip(os.sep) + os.sep):
        if not outside.follow:
            hint = "; `follow_symlinks: outside` follows it" if outside.note else ""
            message = f"symlink resolves outside the project{outside.note}{hint}"
            diags.append(dg.error(where, Code.SYMLINK_ESCAPES, message))
            return None, None
        message = f"symlink resolves outside the project{outside.note}; followed (follow_symlinks: outside)"
        diags.append(dg.warning(where, Code.SYMLINK_ESCAPES, message))
    into = _reserved_target(real, confine, reserved)
    if into:
        diags.append(dg.error(where, Code.SYMLINK_RESERVED, f"symlink resolves into {into}; not followed"))
        return None, None
    if stat.S_ISDIR(st.st_mode):
        if real in ancestors:
            diags.append(
                dg.error(where, Code.SYMLINK_LOOP, "symlink loop: points to a directory containing it")
            )
            return None, None
        return "dir", st
    return _regular(st.st_mode, where, diags), st


def _reserved_target(real: str, confine: str, reserved: Reserved) -> str | None:
    """What a link's target lies in that no input may come from, wherever the link is: version-control
    metadata (a link to `.git/config` would ship the repository's remotes), the output or the build
    cache (each build would change the inputs of the next)."""
    parts = os.path.relpath(real, confine).split(os.sep)
    meta = next((p for p in parts if nfc(p).casefold() in IGNORED_DIRS), None)  # .GIT: .git on macOS
    if meta is not None:
        return f"{meta}/ (version-control metadata)"
    for what, path in reserved:
        if real == path or real.startswith(path.rstrip(os.sep) + os.sep):
            return what
    return None


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a and b else a or b


def _linked_out(config: Config, written: str, root: Path) -> bool:
    """A configured directory written as a relative path that resolves outside the project (a
    symlink out of it). Sources written as absolute or `~` paths are meant to be outside."""
    if written.startswith(("/", "~")):
        return False
    project, real = _project_real(config), os.path.realpath(root)
    return not (real == project or real.startswith(project.rstrip(os.sep) + os.sep))


def _inner_dirs(config: Config, index: int, root: Path) -> dict[str, tuple[str, tuple[str | int, ...]]]:
    """The other configured inputs inside source `index`, by path relative to it: a nested source
    or the personas directory would otherwise be read as this source's skills and resources too
    (one SKILL.md compiled twice, exclusive bodies shipped as resources)."""
    here = os.path.realpath(root)
    others: list[tuple[str, Path, tuple[str | int, ...]]] = [
        (f"source {s!r}", config.source_dir(i), ("sources", i))
        for i, s in enumerate(config.sources)
        if i != index
    ]
    if config.personas:
        others.append(
            (f"personas directory {config.personas!r}", config.root / config.personas, ("personas",))
        )
    inner: dict[str, tuple[str, tuple[str | int, ...]]] = {}
    for what, path, key in others:
        real = os.path.realpath(path)
        if real.startswith(here.rstrip(os.sep) + os.sep):
            inner[Path(os.path.relpath(real, here)).as_posix()] = (
                what,
                key,
            )  # key: where the config names it
    return inner


def _reserved(config: Config) -> Reserved:
    """The directories no input may be read from through a symlink: the output and the build cache."""
    return (
        ("the output directory", os.path.realpath(config.root / config.output)),
        ("the build cache", os.path.realpath(config.root / CACHE_DIRNAME)),
    )


def _project_real(config: Config) -> str:
    return os.path.realpath(config.root)


def _outside(config: Config) -> Outside:
    return Outside(config.symlinks_outside, suffix(Issue.LINK_OUTSIDE, [t.name for t in config.targets]))


def _confine(config: Config, root: Path) -> str:
    """Symlinks may point anywhere in the project; a source outside it (`~/...`) confines its own."""
    project, real = _project_real(config), os.path.realpath(root)
    inside = real == project or real.startswith(project.rstrip(os.sep) + os.sep)
    return project if inside else real


def _source_skills(
    config: Config,
    index: int,
    src: str,
    lister: tuple[Listdir, Lstat],
    diags: list[Diagnostic],
    inputs: list[InputFile],
    watched: list[str],
    split: _Split | None = None,
) -> tuple[list[SkillSource], list[str], list[str]]:
    """The skills of source `index`, their folders, and the skill folders below hidden folders
    (left out)."""
    root, rules = config.source_dir(index), config.rules(index)
    if not root.is_dir():
        if rules.optional and not os.path.lexists(root):
            diags.append(
                dg.warning(
                    config.config_rel,
                    Code.OPTIONAL_SOURCE_MISSING,
                    f"optional source {src!r} does not exist here: nothing compiled from it",
                    *config.at("sources", index),
                )
            )
            return [], [], []
        diags.append(
            dg.error(
                config.config_rel,
                Code.SOURCE_MISSING,
                f"source {src!r} is not a directory"
                + ("" if rules.optional else "; `optional: true` on it makes a missing one a warning"),
                *config.at("sources", index),
            )
        )
        return [], [], []
    if _linked_out(config, src, root):
        return [], [], []  # output/placement.py reported it; walking it could mean walking `/`
    inner = _inner_dirs(config, index, root)
    diags.extend(
        dg.warning(
            config.config_rel,
            Code.NESTED_DIRECTORY,
            f"{what} is inside source {src!r}: left out of that source's walk, so no file is read twice",
            *config.at(*key),
        )
        for what, key in inner.values()
    )
    skip = _source_skip(config, inner, rules)
    if split is not None and rules.depth is None and not rules.root_skill:
        shares = _split(config, index, root, skip, lister, split)
        if shares is not None:
            return _merged(config, index, shares, diags, (inputs, watched), split[1])
    outer = _outer(config, index)
    tree = _walk_with_rules(config, root, src, skip, (lister, watched), diags, _outside(config), outer)
    skill_files = _skill_files(tree.files, src, diags, rules)
    hidden = sorted(d for d in skill_files if _is_hidden(d))
    skill_dirs = sorted(d for d in skill_files if not _is_hidden(d))
    diags.extend(source_notes(config, index, skill_dirs, hidden))
    owned = _assign_files(tree.files, set(skill_dirs))
    diags.extend(_too_deep(src, tree.files, set(skill_dirs), rules))
    problems = _assign_diagnostics(tree.diagnostics, src, set(skill_dirs), diags)
    skills = [
        _load_skill(config, index, src, d, skill_files[d], owned.get(d, []), problems.get(d, []), inputs)
        for d in skill_dirs
    ]
    return skills, skill_dirs, hidden


def _source_skip(config: Config, inner: Mapping[str, object], rules: SourceRules) -> Skip:
    """What a source's walk leaves out: `resources.exclude`, the other inputs inside it, and the
    folders its rules never walk (`skip_folders`: node_modules)."""
    base = resource_filter(config)
    never = frozenset(rules.skip_folders)
    return lambda rel, is_dir: (
        (is_dir and (rel in inner or rel.rpartition("/")[2] in never)) or base(rel, is_dir)
    )


def _outer(config: Config, index: int) -> tuple[ignorefiles.OuterFile, ...]:
    """The ignore files above source `index` that its walk reads: none for a source that is
    git-ignored on purpose (`git_ignored: true`, Pegasus's `data/skills`)."""
    return () if config.rules(index).git_ignored else config.ignore_outer


def _too_deep(
    src: str, files: tuple[Entry, ...], skill_dirs: set[str], rules: SourceRules
) -> list[Diagnostic]:
    """A SKILL.md deeper than the source's `depth` is a file of the skill above it, bundled with
    it (V1: `*/SKILL.md` only); one no skill holds is said, never dropped silently (SKC316)."""
    if rules.depth is None:
        return []
    found = []
    for entry in files:
        d, _, base = entry.rel.rpartition("/")
        deep = base in SKILL_FILES and d.count("/") + 1 > rules.depth and not _is_hidden(d)
        if deep and _owner(entry.rel, skill_dirs, d.count("/") + 1) is None:
            found.append(
                dg.warning(
                    f"{src}/{entry.rel}",
                    Code.NOT_COMPILED,
                    f"{d.count('/') + 1} folders below the source, deeper than its depth "
                    f"({rules.depth}), and no skill above it holds it: not compiled",
                )
            )
    return found


# --- a large source walked, read and checked by two processes ----------------------------------

# Below this many top-level folders a source is walked by this process alone: a fork and its pipes
# would cost more than half of a small walk saves.
SPLIT_THRESHOLD = 500
_TOPS = 40  # top-level folders a chunk; each process claims the next chunk as it is free

_Split = tuple[Checks, Checked, Seen | None]


class Part(NamedTuple):
    """What discover finds below some folders of a source: a chunk of its top-level folders, walked,
    read and checked, by this process or (as plain rows, `_packed`) by a forked helper; or one folder
    an edit build asks for (`discover_under`). A skill's folder and every file it owns lie below
    one top-level folder, so a chunk's skills are whole; what spans the source is merged (`_merged`)."""

    problems: list[ignorefiles.Problem]  # the ignore files in it that could not be read, in walk order
    read: list[str]  # the ignore files in it that were read
    hidden: list[str]  # skill folders below a hidden folder
    loose: list[Diagnostic]  # the walk's diagnostics no skill owns, in walk order
    skills: list[SkillSource]  # sorted by folder
    results: list[Any]  # each skill's check; None for a SKILL.md not read
    linked: bool  # a symlink to a folder was followed: the source is walked again, whole


class _Root(NamedTuple):
    """The source's root, listed and visited by this process before any chunk: each chunk starts
    from it (forked helpers inherit it)."""

    config: Config
    source: int  # its index in the config's sources
    state: _WalkState  # the root's entries: its files and diagnostics
    tops: list[_Dir]  # the top-level folders to walk, in the walk's order
    listdir: Listdir
    rules: ignorefiles.Rules
    head: tuple[list[ignorefiles.Problem], list[str]]  # the ignore files the root's visit met
    seen: Seen | None  # what the walk saw, when asked (a helper sends its share back)


def _split(
    config: Config, index: int, root: Path, skip: Skip, lister: tuple[Listdir, Lstat], split: _Split
) -> tuple[_Root, list[Part]] | None:
    """The source's root listed here, its top-level folders in chunks shared with a forked helper
    (workers.share): each process walks, reads and checks the chunks it claims. Why: discover alone
    is 0.6 s of one core at 10,000 skills, with the other idle. None: walk it whole (a small source,
    one core, no fork, a followed symlink to a folder)."""
    helpers = min(os.cpu_count() or 1, 8) - 1
    if helpers < 1 or not hasattr(os, "fork"):
        return None
    listdir, lstat = lister
    rules = ignorefiles.rules_for(root, config.root, _outer(config, index))
    listdir = rules.listing(listdir)
    state, top = _start(
        root,
        config.sources[index],
        _confine(config, root),
        ignorefiles.combined(rules, skip),
        lstat,
        _reserved(config),
        _outside(config),
    )
    tops = _enter(state, listdir, top)
    if len(tops) < SPLIT_THRESHOLD or state.linked:
        return None
    from . import workers  # processes: not for the folder an edit build discovers (discover_under)

    checks, _checked, seen = split
    head = (list(rules.problems), list(rules.read))
    start = _Root(config, index, state, tops, listdir, rules, head, seen)
    size = max(_TOPS, -(-len(tops) // workers.MAX_CHUNKS))
    ranges = [range(i, min(i + size, len(tops))) for i in range(0, len(tops), size)]
    check, pack, adopt = checks

    def here(k: int) -> Part:
        return _share(start, ranges[k], check)

    def theirs_packed(k: int) -> tuple[Any, ...]:
        mark = seen.mark() if seen is not None else (0, 0)
        share = _share(start, ranges[k], pack)
        return _packed(share, seen.since(mark) if seen is not None else None)

    try:
        mine, theirs = workers.share(
            len(ranges),
            helpers,
            here,
            theirs_packed,
            lambda k, rows: _unpacked(rows, config, index, adopt, seen),
        )
    except OSError:  # no process could be forked: only the root was listed
        return None
    # A chunk of a helper that died is walked here.
    shares = [mine[k] if k in mine else theirs[k] if k in theirs else here(k) for k in range(len(ranges))]
    return None if any(share.linked for share in shares) else (start, shares)


def _share(start: _Root, tops: range, check: Callable[[SkillSource], Any]) -> Part:
    """Chunk `tops` of the root's folders, walked, read and checked as _source_skills does the whole."""
    root, rules = start.state, start.rules
    at = len(rules.problems), len(rules.read)
    state = _WalkState(root.confine, root.rel_prefix, root.skip, {}, root.lstat, root.reserved, root.outside)
    _descend(state, start.listdir, start.tops[tops.start : tops.stop][::-1])
    # The root's diagnostics come first in the walk: a problem with a top-level entry (a name twin)
    # may be one of these skills'.
    return _part(start.config, start.source, state, tuple(root.diags), (rules, at), check)


def _part(
    config: Config,
    index: int,
    state: _WalkState,
    above: tuple[Diagnostic, ...],
    rules: tuple[ignorefiles.Rules, tuple[int, int]],
    check: Callable[[SkillSource], Any] | None,
) -> Part:
    """What a walk of some folders of source `index` found (`state`), as discover serves it: its
    skills read and checked (`check`; None: not checked), the ignore files it read (those of `rules`
    past `at`), the hidden skill folders, the diagnostics no skill owns. `above`: the diagnostics
    of the walk above those folders, given to the skills they are about."""
    src, source_rules = config.sources[index], config.rules(index)
    files = tuple(sorted(state.files, key=lambda e: e.rel))
    loose: list[Diagnostic] = []
    found = _skill_files(files, src, loose, source_rules)
    dirs = sorted(d for d in found if not _is_hidden(d))
    ours = set(dirs)
    owned = _assign_files(files, ours)
    loose.extend(_too_deep(src, files, ours, source_rules))
    problems = _assign_diagnostics(above, src, ours, [])
    for d, more in _assign_diagnostics(tuple(state.diags), src, ours, loose).items():
        problems[d] = problems.get(d, []) + more
    skills = [
        _load_skill(config, index, src, d, found[d], owned.get(d, []), problems.get(d, []), []) for d in dirs
    ]
    checked = [] if check is None else [check(skill) if skill.readable else None for skill in skills]
    found_rules, (problems_at, read_at) = rules
    return Part(
        found_rules.problems[problems_at:],
        found_rules.read[read_at:],
        [d for d in found if _is_hidden(d)],
        loose,
        skills,
        checked,
        state.linked,
    )


def _packed(share: Part, seen: Any = None) -> tuple[Any, ...]:
    """A helper's chunk as plain rows (its results packed already): no dataclass crosses the pipe.
    The resources' digests go with them, hashed in the helper (the build hash needs them), and what
    the helper saw (`Seen.since`), when the build asked for it."""
    if share.linked:
        return ([], [], [], [], [], True, None)
    rows = [
        (
            s.command,
            s.skill_md.rel,
            s.skill_md.data,
            s.skill_md.executable,
            s.problems,
            s.readable,
            tuple((r.path, r.file.rel, r.file.data, r.file.executable, r.file.digest) for r in s.resources),
            result,
        )
        for s, result in zip(share.skills, share.results, strict=True)
    ]
    return (share.problems, share.read, share.hidden, share.loose, rows, False, seen)


def _unpacked(
    packed: tuple[Any, ...],
    config: Config,
    index: int,
    adopt: Callable[[Any, SkillSource], Any],
    seen: Seen | None = None,
) -> Part:
    """A helper's rows as the SkillSources (and check results) this process would have made; what
    the helper saw goes into `seen`."""
    problems, read, hidden, loose, rows, linked, saw = packed
    if seen is not None and saw is not None:
        seen.add(saw)
    src, targets = config.sources[index], tuple(t.name for t in config.targets)
    skills: list[SkillSource] = []
    results: list[Any] = []
    for command, rel, data, executable, found, readable, files, result in rows:
        resources = tuple(
            Resource(path, _hashed(InputFile(frel, fdata, fexec), digest))
            for path, frel, fdata, fexec, digest in files
        )
        skill = SkillSource(
            command,
            index,
            f"{src}/{command}",
            InputFile(rel, data, executable),
            resources,
            found,
            readable,
            targets,
            config.frontmatter,
        )
        skills.append(skill)
        results.append(None if result is None else adopt(result, skill))
    return Part(problems, read, hidden, loose, skills, results, linked)


def _hashed(file: InputFile, digest: str) -> InputFile:
    vars(file)["digest"] = digest  # the cached_property's own slot: the helper hashed it
    return file


def _merged(
    config: Config,
    index: int,
    split: tuple[_Root, list[Part]],
    diags: list[Diagnostic],
    lists: tuple[list[InputFile], list[str]],
    checked: Checked,
) -> tuple[list[SkillSource], list[str], list[str]]:
    """The shares as one walk of the source: the diagnostics, ignore files, inputs and skills that
    _source_skills gives from the serial walk, in its order."""
    start, shares = split
    inputs, watched = lists
    src, root = config.sources[index], start.state
    problems = start.head[0] + [p for share in shares for p in share.problems]
    watched.extend(_join(src, rel) for rel in start.head[1] + [r for share in shares for r in share.read])
    diags.extend(dg.warning(_join(src, rel), Code.UNREADABLE, why) for rel, why in problems)
    _skill_files(tuple(sorted(root.files, key=lambda e: e.rel)), src, diags)  # a SKILL.md at the root
    hidden = sorted(d for share in shares for d in share.hidden)
    pairs = sorted(
        (pair for share in shares for pair in zip(share.skills, share.results, strict=True)),
        key=lambda pair: pair[0].command,
    )
    diags.extend(source_notes(config, index, [skill.command for skill, _ in pairs], hidden))
    _assign_diagnostics(tuple(root.diags), src, {skill.command for skill, _ in pairs}, diags)
    diags.extend(d for share in shares for d in share.loose)
    for skill, result in pairs:
        inputs.extend(([skill.skill_md] if skill.readable else []) + [r.file for r in skill.resources])
        if result is not None:
            checked[(index, skill.command)] = result
    return [skill for skill, _ in pairs], [skill.command for skill, _ in pairs], hidden


def discover_under(
    config: Config, index: int, folder: str, lister: tuple[Listdir, Lstat] = (os.listdir, os.lstat)
) -> Part | None:
    """discover's answer for the tree of `folder`, a folder of source `index` (its path below the
    source's root, as on disk; "" the root): what a whole walk of the source finds there, found by
    the same walk with the context a whole walk has there (the source's rules, the ignore files of
    the folders above it, `resources.exclude`, the other sources and the personas left out, the link
    and name rules), unchecked. Nothing when nothing is there. None when a whole walk would not
    walk it as a folder of its own: left out, reported, a link on the way or followed in it, or a
    name on the way that is not ASCII (two names of one NFC form are told apart only by a listing of
    their folder). `closed_folder` says which folder's tree is whole for a change."""
    src, root, source_rules = config.sources[index], config.source_dir(index), config.rules(index)
    if not folder.isascii() or not root.is_dir() or _linked_out(config, src, root):
        return None
    rules = ignorefiles.rules_for(root, config.root, _outer(config, index))
    skip = _source_skip(config, _inner_dirs(config, index, root), source_rules)
    skip = ignorefiles.combined(rules, skip)
    listdir, lstat = lister
    state, here = _start(root, src, _confine(config, root), skip, lstat, _reserved(config), _outside(config))
    try:
        os.lstat(root / folder)
    except (FileNotFoundError, NotADirectoryError):
        return Part([], [], [], [], [], [], False)
    for name in folder.split("/") if folder else ():  # the way down, as the whole walk visits it
        path, rel, ancestors, real = here
        if rel and _tagged(path, os.lstat):  # the whole walk leaves a cache's folder empty
            return Part([], [], [], [], [], [], False)
        found = state.visit(path, rel, name, name, ancestors, real)
        if found is None or state.diags or state.linked:
            return None
        here = found
    at = len(rules.problems), len(rules.read)
    walked = _WalkState(state.confine, src, skip, {}, state.lstat, state.reserved, state.outside)
    _descend(walked, rules.listing(listdir), [here])
    return _part(config, index, walked, (), (rules, at), None)


def folder_of(config: Config, skill: SkillSource) -> str:
    """A skill's folder below its source's root: its command, or "" for the root (`root_skill`)."""
    return "" if skill.dir_rel == config.sources[skill.source] else skill.command


def command_at(config: Config, index: int, folder: str) -> str:
    """The command of the skill at `folder` of source `index` (`folder_of` the other way)."""
    return folder or root_command(config, index)


def closed_folder(entry: str, folder: bool, dirs: Collection[str]) -> str:
    """The folder of a source whose tree discover finds alike walked alone (`discover_under`) or
    with the whole source, for a change at `entry` (a file or, `folder`, a folder, below the source's
    root): a file belongs to the nearest skill folder around it (`_assign_files`; the root, when it
    is a skill, holds what no other does), so the tree of the outermost skill folder around `entry`
    (`dirs`: the source's skill folders, as the last walk found them), else of `entry` itself, or
    its folder for a file. A skill folder made or unmade above that one changes the listing of a
    folder above it, whose own change gives a folder around this one."""
    if "" in dirs:
        return ""
    parts = entry.split("/")
    for i in range(1, len(parts) + 1):
        around = "/".join(parts[:i])
        if around in dirs:
            return around
    return entry if folder else entry.rpartition("/")[0]


def source_notes(config: Config, index: int, dirs: Collection[str], hidden: list[str]) -> list[Diagnostic]:
    """What discover says of source `index` as a whole, from its skill folders (`dirs`) and the
    sorted skill folders below hidden folders (`hidden`): a source without a skill (SKC313, with
    why when the ignore files leave out every one), the hidden skill folders (SKC316, SKC217). An
    edit build asks it again after a change."""
    src, root, rules = config.sources[index], config.source_dir(index), config.rules(index)
    ignored = None
    if not dirs and not hidden:
        skip = _source_skip(config, _inner_dirs(config, index, root), rules)
        ignored = _all_ignored(config, index, skip, rules)
    return _hidden_skills(config, src, hidden, set(dirs), ignored)


class Across:
    """The command of each skill folder of every source after a change (served or not, one per
    folder), keyed as the rules across skills key them: what an edit build asks of the skills a
    change adds, removes or edits. Each key of every command is one search of a string in C (the
    commands "\0\0"-separated: no command holds one), not a call per command."""

    def __init__(self, commands: Collection[str]) -> None:
        joined = "\0" + "\0\0".join(commands) + "\0"
        self._keys = (joined, joined.casefold(), sanitize_joined(joined), skeleton(joined))

    def _counts(self, command: str) -> tuple[int, ...]:
        keys = (command, command.casefold(), sanitize_command(command), skeleton(command))
        return tuple(keyed.count(f"\0{key}\0") for key, keyed in zip(keys, self._keys, strict=True))

    def moved(self, command: str, added: bool) -> bool:
        """Whether a folder of `command` added (or taken away) changes what discover says of
        another skill: another folder has the command (a later source overrides it, or one source
        holds two: `_take`), or another command shares its case fold or sanitised id (`_last_wins`,
        `_collisions`) or its look (`_lookalikes`)."""
        return any(n > added for n in self._counts(command))

    def touches(self, command: str) -> bool:
        """Whether what discover says of skill `command` itself is made with other skills, so that
        its folder walked alone (`discover_under`) does not say it: another command shares its case
        fold or sanitised id (`_collisions` gives the skill an error)."""
        exact, folded, sanitized, _look = self._counts(command)
        return max(folded, sanitized) > exact


def _skill_files(
    files: tuple[Entry, ...], src: str, diags: list[Diagnostic], rules: SourceRules = DEFAULT_SOURCE_RULES
) -> dict[str, Entry]:
    """Skill directory -> its SKILL.md (or skill.md, which skills-ref accepts too), as the source's
    rules say: the root ("") with `root_skill`, none deeper than `depth` (a file of the skill above)."""
    found: dict[str, Entry] = {}
    for entry in files:
        d, _, base = entry.rel.rpartition("/")
        if base not in SKILL_FILES or (base == "skill.md" and d in found):
            continue
        if d == "" and not rules.root_skill:
            diags.append(
                dg.warning(
                    f"{src}/{base}",
                    Code.ROOT_SKILL_MD,
                    f"{base} at a source root is ignored (the root is not a skill; `root_skill: true` on "
                    "the source makes it one)",
                )
            )
            continue
        if rules.depth is not None and d and d.count("/") + 1 > rules.depth:
            continue  # below the depth: a file of the skill above it (_too_deep)
        found[d] = entry  # sorted: SKILL.md comes before skill.md
    return found


def _hidden_skills(
    config: Config, src: str, hidden: list[str], skill_dirs: set[str], ignored: Diagnostic | None = None
) -> list[Diagnostic]:
    """What a source's walk found and left out below hidden folders, said: in SKC313 when the
    source has no other skill (`ignored`: what to say when its SKILL.md files are all git-ignored),
    else per hidden folder (SKC316), unless SKC217 says it already. A SKILL.md below a hidden folder
    inside a skill is one of that skill's files (a resource)."""
    said = _hidden_for_targets(config, src, hidden)
    if not skill_dirs:
        return [_empty_source(config, src, hidden) if hidden or ignored is None else ignored, *said]
    tops: dict[str, int] = {}
    for d in hidden:
        top = "/".join(_through_hidden(d))
        if (said and "/" not in d) or _owner(d, skill_dirs, d.count("/")) is not None:
            continue  # SKC217 names a skill folder just below the source; a skill holds the other
        tops[top] = tops.get(top, 0) + 1
    return said + [
        dg.warning(
            f"{src}/{top}",
            Code.NOT_COMPILED,
            f"hidden folder holding {count} SKILL.md file(s): not compiled, as the spec's clients do "
            "not search hidden folders; list it in sources to compile them",
        )
        for top, count in sorted(tops.items())
    ]


def _hidden_for_targets(config: Config, src: str, hidden: list[str]) -> list[Diagnostic]:
    """A skill in a hidden folder just below a source: skillc leaves it out, as the spec's clients
    do, but a selected harness that loads it (Claude Code) would show it: say so (SKC217)."""
    names = [t.name for t in config.targets]
    if not any_verdict(Issue.HIDDEN_FOLDER, names, Verdict.LOADS):
        return []
    return [
        dg.warning(
            f"{src}/{d}/SKILL.md",
            Code.TARGET_DIFFERS,
            f"skill folder {d!r} is hidden: skillc does not compile it{suffix(Issue.HIDDEN_FOLDER, names)}."
            " Rename the folder without its leading dot to compile it",
        )
        for d in hidden
        if "/" not in d
    ]


def _is_hidden(d: str) -> bool:
    return any(part.startswith(".") for part in d.split("/"))


def _empty_source(config: Config, src: str, hidden: list[str]) -> Diagnostic:
    """A source with no skill: most often its skills sit below hidden directories (openai/skills)."""
    tops = sorted({f"{src}/" + "/".join(_through_hidden(d)) for d in hidden})
    if not tops:
        return dg.warning(
            config.config_rel,
            Code.EMPTY_SOURCE,
            f"source {src!r} holds no skills (no SKILL.md below it)",
            *config.at("sources", config.sources.index(src)),
        )
    names = ", ".join(tops[:10]) + (f" and {len(tops) - 10} more" if len(tops) > 10 else "")
    return dg.warning(
        config.config_rel,
        Code.EMPTY_SOURCE,
        f"source {src!r} holds no skills; hidden directories below it hold SKILL.md files, "
        f"which skillc does not search: {names}; list them in sources to compile them",
        *config.at("sources", config.sources.index(src)),
    )


def _all_ignored(config: Config, index: int, skip: Skip, rules: SourceRules) -> Diagnostic | None:
    """A source whose walk found no SKILL.md: when the ignore files left out every one it holds
    (Pegasus's `data/skills` is git-ignored on purpose), say so, with the file and line that
    decide it, instead of "no SKILL.md below it". A second walk, without the ignore files: only
    an empty source pays for it."""
    src, root = config.sources[index], config.source_dir(index)
    tree = walk(
        root,
        src,
        confine=_confine(config, root),
        skip=skip,
        reserved=_reserved(config),
        outside=_outside(config),
    )
    found = [d for d in _skill_files(tree.files, src, [], rules) if not _is_hidden(d)]
    if not found:
        return None
    first = found[0]
    ignore = ignorefiles.rules_for(root, config.root, _outer(config, index))
    why = ignore.why(f"{first}/SKILL.md" if first else "SKILL.md", False)
    if why is None:
        return None
    where, line, pattern = why
    shown = f"{src}/{where[2:]}" if where.startswith("./") else where
    fix = (
        "; `git_ignored: true` on the source compiles it"
        if not where.startswith("./") and not config.rules(index).git_ignored
        else ""
    )
    return dg.warning(
        config.config_rel,
        Code.EMPTY_SOURCE,
        f"source {src!r} holds no skills: its {len(found)} SKILL.md file(s) are git-ignored "
        f"({shown}:{line}: {pattern}){fix}",
        *config.at("sources", index),
    )


def _through_hidden(d: str) -> list[str]:
    parts = d.split("/")
    cut = next(i for i, p in enumerate(parts) if p.startswith("."))
    return parts[: cut + 1]


def _assign_files(files: tuple[Entry, ...], skill_dirs: set[str]) -> dict[str, list[Entry]]:
    """Each file belongs to its nearest enclosing skill directory (sub-skills own theirs)."""
    owned: dict[str, list[Entry]] = {}
    for entry in files:
        owner = _owner(entry.rel, skill_dirs, len(entry.rel.split("/")) - 1)
        if owner is not None:
            owned.setdefault(owner, []).append(entry)
    return owned


def _owner(rel: str, skill_dirs: set[str], depth: int) -> str | None:
    """The nearest skill folder holding `rel` within its first `depth` parts; the root ("", a
    source's `root_skill`) holds what no other does."""
    parts = rel.split("/")
    for cut in range(depth, 0, -1):
        candidate = "/".join(parts[:cut])
        if candidate in skill_dirs:
            return candidate
    return "" if "" in skill_dirs else None


def _assign_diagnostics(
    found: tuple[Diagnostic, ...], src: str, skill_dirs: set[str], diags: list[Diagnostic]
) -> dict[str, list[Diagnostic]]:
    """A walk problem inside a skill is that skill's problem (--skip-invalid leaves the skill out)."""
    mine: dict[str, list[Diagnostic]] = {}
    for d in found:
        rel = d.path[len(src) + 1 :] if d.path.startswith(src + "/") else ""
        owner = _owner(rel, skill_dirs, len(rel.split("/"))) if rel else None
        if owner is None:
            diags.append(d)
        else:
            mine.setdefault(owner, []).append(d)
    return mine


def _load_skill(
    config: Config,
    index: int,
    src: str,
    d: str,
    skill_entry: Entry,
    entries: list[Entry],
    problems: list[Diagnostic],
    inputs: list[InputFile],
) -> SkillSource:
    """Every file of the skill is read and checked; problems travel with the skill."""
    diags = list(problems)
    dir_rel = _join(src, d)
    skill_rel = f"{src}/{skill_entry.rel}"
    skill_md = read_input(skill_entry, skill_rel, SKILL_MD_CAP, diags)
    if skill_entry.rel.endswith("/skill.md"):
        diags.append(
            dg.warning(
                skill_rel, Code.LOWERCASE_SKILL_MD, "lowercase skill.md accepted; the spec's name is SKILL.md"
            )
        )
    resources: list[Resource] = []
    for entry in entries:
        if entry is skill_entry:
            continue
        data = read_input(
            entry, f"{src}/{entry.rel}", config.max_resource_bytes, diags, "resources.max_bytes"
        )
        if data is not None:
            resources.append(Resource(entry.rel[len(d) + 1 :] if d else entry.rel, data))
        elif config.skip_invalid and diags[-1].code == Code.TOO_LARGE:
            diags[-1] = _without(diags[-1], command_at(config, index, d))
    inputs.extend(([skill_md] if skill_md else []) + [r.file for r in resources])
    return SkillSource(
        command_at(config, index, d),
        index,
        dir_rel,
        skill_md or InputFile(skill_rel, b""),
        tuple(resources),
        problems=tuple(diags),
        readable=skill_md is not None,
        targets=tuple(t.name for t in config.targets),
        rules=config.frontmatter,
    )


def _without(too_large: Diagnostic, command: str) -> Diagnostic:
    """One bad file costs one file: under --skip-invalid a resource over `resources.max_bytes` is
    left out and its skill built without it, with a warning naming both."""
    return replace(
        too_large,
        severity=dg.Severity.WARNING,
        message=f"left out of skill {command!r}, which is built without it (--skip-invalid): {too_large.message}",
    )


def root_command(config: Config, index: int) -> str:
    """The command of a source's root skill (`root_skill: true`): the source folder's own name, as
    every other command is its folder's path (`~/.agent/skills` gives `skills`)."""
    name = posixpath.basename(config.sources[index])
    return name if name not in ("", ".", "..", "~") else config.source_dir(index).resolve().name


def _take(
    config: Config,
    chosen: dict[str, SkillSource],
    skill: SkillSource,
    diags: list[Diagnostic],
    aside: tuple[list[SkillSource], list[str]],
) -> None:
    """Source precedence: the later source's copy of a command is served; the earlier one is kept
    aside (`Discovery.shadowed`), served instead when the later one is left out for its errors.
    Two of one source (a root skill and a folder of the source's name) are duplicates."""
    shadowed, lost = aside
    old = chosen.get(skill.command)
    if old is not None and old.source == skill.source:
        if config.rules(skill.source).duplicates is Duplicates.ERROR:
            diags.append(
                dg.error(
                    skill.skill_md.rel,
                    Code.COLLISION,
                    f"command {skill.command!r} is also {old.skill_md.rel} of this source; "
                    "`duplicates: last-wins` on the source keeps the later",
                )
            )
            return
        diags.append(_lost(old, skill))
        lost.append(old.skill_md.rel)
    elif old is not None:
        diags.append(
            dg.warning(
                skill.skill_md.rel,
                Code.OVERRIDDEN,
                f"command {skill.command!r} from this source overrides {old.skill_md.rel}",
            )
        )
        shadowed.append(old)
    chosen[skill.command] = skill


def _lost(loser: SkillSource, winner: SkillSource) -> Diagnostic:
    return dg.warning(
        loser.skill_md.rel,
        Code.OVERRIDDEN,
        f"left out: {winner.skill_md.rel} has the same id ({winner.command!r}) and comes later "
        "(duplicates: last-wins)",
    )


# The ids two commands must not share: in any case, and once sanitized (sven's TUI ids).
_ID_KEYS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("differs only in case from", str.casefold),
    ("has the same sanitized id as", sanitize_command),
)


def _last_wins(
    config: Config, skills: tuple[SkillSource, ...], diags: list[Diagnostic]
) -> tuple[tuple[SkillSource, ...], tuple[str, ...]]:
    """Skills sharing an id (`_ID_KEYS`) where the later one's source says `duplicates:
    last-wins`, as V1 keeps the last discovered: the later (by source, then path) is kept, each
    other is left out with a warning. The rest are `_collisions`' to report. With the SKILL.md
    paths left out."""
    if all(config.rules(i).duplicates is Duplicates.ERROR for i in range(len(config.sources))):
        return skills, ()
    dropped: list[str] = []
    for _label, key in _ID_KEYS:
        groups: dict[str, list[SkillSource]] = {}
        for skill in skills:
            groups.setdefault(key(skill.command), []).append(skill)
        gone: set[str] = set()
        for group in groups.values():
            last = max(group, key=lambda s: (s.source, s.command))
            if len(group) < 2 or config.rules(last.source).duplicates is not Duplicates.LAST_WINS:
                continue
            for loser in group:
                if loser is not last:
                    diags.append(_lost(loser, last))
                    dropped.append(loser.skill_md.rel)
                    gone.add(loser.command)
        skills = tuple(s for s in skills if s.command not in gone)
    return skills, tuple(sorted(dropped))


def _collisions(skills: tuple[SkillSource, ...]) -> tuple[SkillSource, ...]:
    """Commands that share an id (`_ID_KEYS`): only what cannot keep its id has an error (SKC306),
    its own, so --skip-invalid leaves out that skill alone. The one command of them whose every
    folder is a valid skill name (`foo-bar` beside `foo_bar`, `foo` beside `Foo`: the names the
    spec's clients accept) keeps it; when none is, each has the error."""
    errors: dict[str, list[Diagnostic]] = {}
    for label, key in _ID_KEYS:
        groups: dict[str, list[SkillSource]] = {}
        for skill in skills:
            groups.setdefault(key(skill.command), []).append(skill)
        for ident, group in groups.items():
            if len(group) < 2:
                continue
            valid = [s for s in group if all(map(valid_name, s.command.split("/")))]
            keeper = valid[0] if len(valid) == 1 else None
            for skill in group:
                if skill is keeper:
                    continue
                twin = keeper or next(s for s in group if s is not skill)
                why = (
                    ", a valid skill name, which keeps the id"
                    if keeper
                    else f" (the id {ident!r}), and neither is a valid skill name: neither keeps it"
                )
                errors.setdefault(skill.command, []).append(
                    dg.error(
                        skill.skill_md.rel,
                        Code.COLLISION,
                        f"command {skill.command!r} {label} {twin.command!r} ({twin.skill_md.rel}){why}",
                    )
                )
    if not errors:
        return skills
    return tuple(
        replace(s, problems=(*s.problems, *errors[s.command])) if s.command in errors else s for s in skills
    )


def _lookalikes(skills: tuple[SkillSource, ...]) -> list[Diagnostic]:
    """Two commands that look the same (a Cyrillic `а` for a Latin `a`): a user typing one may get
    the other, so the second is reported. Case and sanitised-id twins are _collisions' errors."""
    diags: list[Diagnostic] = []
    first: dict[str, SkillSource] = {}
    for skill in skills:
        key = skeleton(skill.command)
        twin = first.setdefault(key, skill)
        if twin.command != skill.command and twin.command.casefold() != skill.command.casefold():
            diags.append(
                dg.warning(
                    skill.skill_md.rel,
                    Code.CONFUSABLE,
                    f"command {printable_name(skill.command)} looks like {printable_name(twin.command)} "
                    f"({twin.skill_md.rel}): they differ only in look-alike characters",
                )
            )
    return diags


def printable_name(command: str) -> str:
    """A command as a reviewer can tell it apart: its non-ASCII characters named by code point."""
    return "'" + "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in command) + "'"


def _personas(
    config: Config,
    lister: tuple[Listdir, Lstat],
    diags: list[Diagnostic],
    inputs: list[InputFile],
    watched: list[str],
) -> tuple[tuple[PersonaSource, ...], tuple[ExclusiveSource, ...]]:
    if not config.personas:
        return (), ()
    root = config.root / config.personas
    if not root.is_dir():
        diags.append(
            dg.error(
                config.config_rel,
                Code.CONFIG_PATH,
                f"personas directory {config.personas!r} does not exist",
                *config.at("personas"),
            )
        )
        return (), ()
    if _linked_out(config, config.personas, root):
        return (), ()  # output/placement.py reported it
    tree = _walk_with_rules(config, root, config.personas, _hidden, (lister, watched), diags)
    diags.extend(tree.diagnostics)
    top = sorted({e.rel.split("/")[0] for e in tree.files if "/" in e.rel})
    personas: list[PersonaSource] = []
    exclusives: list[ExclusiveSource] = []
    for name in top:
        if name.startswith("_"):
            continue
        mine = [e for e in tree.files if e.rel.startswith(name + "/")]
        if name.endswith(EXCLUSIVE_SUFFIX):
            bodies = _persona_files(config, mine, name + "/", diags, inputs)
            exclusives.append(
                ExclusiveSource(name[: -len(EXCLUSIVE_SUFFIX)], f"{config.personas}/{name}", bodies)
            )
        else:
            personas.append(_persona(config, name, mine, diags, inputs))
    return tuple(personas), tuple(exclusives)


def _knowledge(
    config: Config,
    lister: tuple[Listdir, Lstat],
    diags: list[Diagnostic],
    inputs: list[InputFile],
    watched: list[str],
) -> tuple[tuple[str, InputFile], ...]:
    """The knowledge folder's docs (`*.md` at its top, as sven reads `.sven/knowledge`), read as
    inputs: the build names their titles (stages/knowledge.py)."""
    if not config.knowledge:
        return ()
    root = config.root / config.knowledge
    if not root.is_dir():
        diags.append(
            dg.error(
                config.config_rel,
                Code.CONFIG_PATH,
                f"knowledge folder {config.knowledge!r} does not exist",
                *config.at("knowledge"),
            )
        )
        return ()
    if _linked_out(config, config.knowledge, root):
        return ()  # output/placement.py reported it
    tree = _walk_with_rules(config, root, config.knowledge, _hidden, (lister, watched), diags)
    diags.extend(tree.diagnostics)
    found = []
    for entry in tree.files:
        if "/" not in entry.rel and entry.rel.endswith(".md"):
            data = read_input(entry, f"{config.knowledge}/{entry.rel}", SKILL_MD_CAP, diags)
            if data:
                inputs.append(data)
                found.append((entry.rel, data))
    return tuple(sorted(found))


def _persona(
    config: Config, name: str, entries: list[Entry], diags: list[Diagnostic], inputs: list[InputFile]
) -> PersonaSource:
    dir_rel = f"{config.personas}/{name}"
    manifest = None
    for entry in entries:
        if entry.rel == f"{name}/manifest.yaml":
            manifest = read_input(entry, f"{config.personas}/{entry.rel}", SKILL_MD_CAP, diags)
            if manifest:
                inputs.append(manifest)
    if manifest is None and not any(d.path == f"{dir_rel}/manifest.yaml" for d in diags):
        diags.append(
            dg.warning(
                dir_rel, Code.PERSONA_NO_MANIFEST, f"persona directory {name!r} has no manifest.yaml; ignored"
            )
        )
    prefix = f"{name}/skill-overlays/"
    overlays = _persona_files(config, [e for e in entries if e.rel.startswith(prefix)], prefix, diags, inputs)
    return PersonaSource(name, dir_rel, manifest, overlays)


def _persona_files(
    config: Config, entries: list[Entry], prefix: str, diags: list[Diagnostic], inputs: list[InputFile]
) -> tuple[tuple[str, InputFile], ...]:
    """Overlay and redirect files: `<command>.md|.yaml|.json`, text formats only (SEC-002)."""
    found: dict[str, InputFile] = {}
    for entry in entries:
        rel = f"{config.personas}/{entry.rel}"
        inner = entry.rel[len(prefix) :]
        ext = extension(inner)
        if ext not in PERSONA_FILE_EXTENSIONS:
            diags.append(
                dg.error(
                    rel,
                    Code.PERSONA_FILE_TYPE,
                    f"extension {ext or '(none)'!r} is not allowed here; use .md, .yaml or .json",
                )
            )
            continue
        command = inner[: -len(ext)]
        if command in found:
            diags.append(
                dg.error(
                    rel, Code.COLLISION, f"second file for command {command!r} (also {found[command].rel})"
                )
            )
            continue
        data = read_input(entry, rel, SKILL_MD_CAP, diags)
        if data:
            found[command] = data
            inputs.append(data)
    return tuple(sorted(found.items()))
