"""Discover stage: the only stage that reads input files.

Walks every source and the personas directory in sorted order (never in file
system order), refuses unsafe names and escaping symlinks, applies source
precedence, and returns the bytes of everything later stages need.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from . import diagnostics as dg
from . import fs
from .diagnostics import Diagnostic
from .model import (
    PERSONA_FILE_EXTENSIONS, SKILL_MD_CAP, Config, Discovery, ExclusiveSource,
    InputFile, PersonaSource, Resource, SkillSource,
)
from .paths import extension, nfc, sanitize_command, unsafe_name

IGNORED_DIRS = frozenset({".git", "node_modules"})
# Names skillc reads as files: a directory by one of them would make a skill or persona vanish.
FILE_NAMES = frozenset({"SKILL.md", "manifest.yaml"})
EXCLUSIVE_SUFFIX = "-exclusive"


@dataclass(frozen=True)
class Entry:
    rel: str          # POSIX path relative to the walked root
    abs: str


@dataclass(frozen=True)
class Walk:
    files: tuple[Entry, ...]
    dirs: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]


def discover(config: Config, listdir=os.listdir) -> Discovery:
    """`listdir` is injectable so tests can prove the output ignores listing order."""
    diags: list[Diagnostic] = []
    inputs: list[InputFile] = []
    chosen: dict[str, SkillSource] = {}
    for index, src in enumerate(config.sources):
        found = _source_skills(config, index, src, listdir, diags, inputs)
        for skill in found:
            _take(chosen, skill, diags)
    skills = tuple(chosen[c] for c in sorted(chosen))
    diags.extend(_collisions(skills))
    personas, exclusives = _personas(config, listdir, diags, inputs)
    return Discovery(
        skills=skills,
        personas=personas,
        exclusives=exclusives,
        inputs=tuple(sorted(inputs, key=lambda f: f.rel)),
        diagnostics=tuple(diags),
    )


def ignored(name: str) -> bool:
    """Names (NFC) the walk never looks at; the build cache's stat walk skips the same."""
    return name in IGNORED_DIRS or name.startswith(".")


def walk(root: Path, rel_prefix: str, listdir=os.listdir) -> Walk:
    """Every file below root, sorted, with symlinks confined to root."""
    root_real = os.path.realpath(root)
    files: list[Entry] = []
    dirs: list[str] = []
    diags: list[Diagnostic] = []
    # (path, rel, real paths of the ancestors, real path of this directory)
    stack: list[tuple[str, str, frozenset[str], str]] = [(str(root), "", frozenset({root_real}), root_real)]
    while stack:
        path, rel, ancestors, here = stack.pop()
        dirs.append(rel)
        try:
            names = _unique(sorted((nfc(n), n) for n in listdir(path)), rel_prefix, rel, diags)
        except OSError as exc:
            diags.append(dg.error(_join(rel_prefix, rel) or ".", "SKC310", f"cannot list directory: {exc.strerror}"))
            continue
        subdirs: list[tuple[str, str, frozenset[str], str]] = []
        for name, disk_name in names:
            if ignored(name):
                continue
            child_rel = _join(rel, name)
            where = _join(rel_prefix, child_rel)
            reason = unsafe_name(name)
            if reason:
                diags.append(dg.error(where, "SKC301", f"unsafe file name: {reason}"))
                continue
            child = os.path.join(path, disk_name)
            kind = _classify(child, root_real, where, ancestors, diags)
            if kind == "dir" and name in FILE_NAMES:
                diags.append(dg.error(where, "SKC310", f"{name} is a directory; it must be a regular file"))
                continue
            if kind == "dir":
                # realpath lstats every component (0.4 s for 10,000 skills); a
                # plain directory's real path is its parent's plus its name.
                real = os.path.realpath(child) if os.path.islink(child) else os.path.join(here, disk_name)
                subdirs.append((child, child_rel, ancestors | {real}, real))
            elif kind == "file":
                files.append(Entry(child_rel, child))
        stack.extend(reversed(subdirs))
    return Walk(tuple(sorted(files, key=lambda e: e.rel)), tuple(sorted(dirs)), tuple(diags))


def _unique(names: list[tuple[str, str]], rel_prefix: str, rel: str, diags: list[Diagnostic]) -> list[tuple[str, str]]:
    """Two names that normalise alike (NFC vs NFD) would be one command: refuse the second."""
    kept: list[tuple[str, str]] = []
    for name, disk in names:
        if kept and kept[-1][0] == name:
            where = _join(rel_prefix, _join(rel, name))
            diags.append(dg.error(where, "SKC306", f"two entries named {name!r} that differ only in Unicode normalisation"))
            continue
        kept.append((name, disk))
    return kept


def _classify(child: str, root_real: str, where: str, ancestors: frozenset[str], diags: list[Diagnostic]) -> str | None:
    try:
        st = os.lstat(child)
    except OSError as exc:
        diags.append(dg.error(where, "SKC310", f"cannot stat: {exc.strerror}"))
        return None
    if stat.S_ISLNK(st.st_mode):
        return _classify_link(child, root_real, where, ancestors, diags)
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return _regular(st.st_mode, where, diags)


def _regular(mode: int, where: str, diags: list[Diagnostic]) -> str | None:
    """A FIFO, device or socket is never read (it could block or never end), and never dropped silently."""
    if stat.S_ISREG(mode):
        return "file"
    diags.append(dg.error(where, "SKC310", f"{fs.kind(mode)}, not a regular file: not read"))
    return None


def _classify_link(child: str, root_real: str, where: str, ancestors: frozenset[str], diags: list[Diagnostic]) -> str | None:
    try:
        st = os.stat(child)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            diags.append(dg.error(where, "SKC303", "symlink loop"))
        else:
            diags.append(dg.error(where, "SKC302", "broken symlink"))
        return None
    real = os.path.realpath(child)
    if real != root_real and not real.startswith(root_real + os.sep):
        diags.append(dg.error(where, "SKC302", "symlink resolves outside its root"))
        return None
    if stat.S_ISDIR(st.st_mode):
        if real in ancestors:
            diags.append(dg.error(where, "SKC303", "symlink loop: points to a directory containing it"))
            return None
        return "dir"
    return _regular(st.st_mode, where, diags)


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a and b else a or b


def _read(entry: Entry, rel: str, cap: int, diags: list[Diagnostic]) -> InputFile | None:
    # Checked again on the open file: the walk's lstat is older than this read.
    try:
        data = fs.read_regular(entry.abs, cap)
    except fs.TooLarge as exc:
        diags.append(dg.error(rel, "SKC207", f"file {exc.strerror}"))
        return None
    except OSError as exc:
        diags.append(dg.error(rel, "SKC310", f"cannot read: {exc.strerror or exc}"))
        return None
    return InputFile(rel, data)


def _source_skills(config: Config, index: int, src: str, listdir, diags: list[Diagnostic], inputs: list[InputFile]) -> list[SkillSource]:
    root = config.root / src
    if not root.is_dir():
        diags.append(dg.error(config.config_rel, "SKC308", f"source {src!r} is not a directory"))
        return []
    tree = walk(root, src, listdir)
    diags.extend(tree.diagnostics)
    skill_dirs = sorted(
        (e.rel.rsplit("/", 1)[0] if "/" in e.rel else "") for e in tree.files if e.rel.split("/")[-1] == "SKILL.md"
    )
    if "" in skill_dirs:
        diags.append(dg.warning(f"{src}/SKILL.md", "SKC309", "SKILL.md at a source root is ignored (the root is not a skill)"))
        skill_dirs.remove("")
    owned = _assign_files(tree.files, set(skill_dirs))
    found: list[SkillSource] = []
    for d in skill_dirs:
        skill = _load_skill(config, index, src, d, owned.get(d, []), diags, inputs)
        if skill:
            found.append(skill)
    return found


def _assign_files(files: tuple[Entry, ...], skill_dirs: set[str]) -> dict[str, list[Entry]]:
    """Each file belongs to its nearest enclosing skill directory (sub-skills own theirs)."""
    owned: dict[str, list[Entry]] = {}
    for entry in files:
        parts = entry.rel.split("/")
        for cut in range(len(parts) - 1, 0, -1):
            candidate = "/".join(parts[:cut])
            if candidate in skill_dirs:
                owned.setdefault(candidate, []).append(entry)
                break
    return owned


def _load_skill(config: Config, index: int, src: str, d: str, entries: list[Entry], diags: list[Diagnostic], inputs: list[InputFile]) -> SkillSource | None:
    dir_rel = f"{src}/{d}"
    skill_md: InputFile | None = None
    resources: list[Resource] = []
    ok = True
    for entry in entries:
        rel = f"{src}/{entry.rel}"
        inner = entry.rel[len(d) + 1 :]
        if inner == "SKILL.md":
            skill_md = _read(entry, rel, SKILL_MD_CAP, diags)
            ok = ok and skill_md is not None
            continue
        if extension(inner) not in config.allowed_extensions:
            diags.append(dg.error(rel, "SKC304", f"extension {extension(inner) or '(none)'!r} is not allowed for resources"))
            ok = False
            continue
        data = _read(entry, rel, config.max_resource_bytes, diags)
        if data is None:
            ok = False
            continue
        resources.append(Resource(inner, data))
    if skill_md is None or not ok:
        return None
    inputs.append(skill_md)
    inputs.extend(r.file for r in resources)
    return SkillSource(d, index, dir_rel, skill_md, tuple(resources))


def _take(chosen: dict[str, SkillSource], skill: SkillSource, diags: list[Diagnostic]) -> None:
    old = chosen.get(skill.command)
    if old is not None:
        diags.append(dg.warning(
            skill.skill_md.rel, "SKC305",
            f"command {skill.command!r} from this source overrides {old.skill_md.rel}",
        ))
    chosen[skill.command] = skill


def _collisions(skills: tuple[SkillSource, ...]) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for label, key in (("differs only in case from", lambda c: c.casefold()), ("has the same sanitized id as", sanitize_command)):
        first: dict[str, SkillSource] = {}
        for skill in skills:
            k = key(skill.command)
            if k in first and first[k].command != skill.command:
                diags.append(dg.error(
                    skill.skill_md.rel, "SKC306",
                    f"command {skill.command!r} {label} {first[k].command!r} ({first[k].skill_md.rel})",
                ))
            first.setdefault(k, skill)
    return diags


def _personas(config: Config, listdir, diags: list[Diagnostic], inputs: list[InputFile]) -> tuple[tuple[PersonaSource, ...], tuple[ExclusiveSource, ...]]:
    if not config.personas:
        return (), ()
    root = config.root / config.personas
    if not root.is_dir():
        diags.append(dg.error(config.config_rel, "SKC103", f"personas directory {config.personas!r} does not exist"))
        return (), ()
    tree = walk(root, config.personas, listdir)
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
            exclusives.append(ExclusiveSource(name[: -len(EXCLUSIVE_SUFFIX)], f"{config.personas}/{name}", bodies))
        else:
            personas.append(_persona(config, name, mine, diags, inputs))
    return tuple(personas), tuple(exclusives)


def _persona(config: Config, name: str, entries: list[Entry], diags: list[Diagnostic], inputs: list[InputFile]) -> PersonaSource:
    dir_rel = f"{config.personas}/{name}"
    manifest = None
    for entry in entries:
        if entry.rel == f"{name}/manifest.yaml":
            manifest = _read(entry, f"{config.personas}/{entry.rel}", SKILL_MD_CAP, diags)
            if manifest:
                inputs.append(manifest)
    if manifest is None and not any(d.path == f"{dir_rel}/manifest.yaml" for d in diags):
        diags.append(dg.warning(dir_rel, "SKC410", f"persona directory {name!r} has no manifest.yaml; ignored"))
    prefix = f"{name}/skill-overlays/"
    overlays = _persona_files(config, [e for e in entries if e.rel.startswith(prefix)], prefix, diags, inputs)
    return PersonaSource(name, dir_rel, manifest, overlays)


def _persona_files(config: Config, entries: list[Entry], prefix: str, diags: list[Diagnostic], inputs: list[InputFile]) -> tuple[tuple[str, InputFile], ...]:
    """Overlay and redirect files: `<command>.md|.yaml|.json`, text formats only (SEC-002)."""
    found: dict[str, InputFile] = {}
    for entry in entries:
        rel = f"{config.personas}/{entry.rel}"
        inner = entry.rel[len(prefix):]
        ext = extension(inner)
        if ext not in PERSONA_FILE_EXTENSIONS:
            diags.append(dg.error(rel, "SKC304", f"extension {ext or '(none)'!r} is not allowed here; use .md, .yaml or .json"))
            continue
        command = inner[: -len(ext)]
        if command in found:
            diags.append(dg.error(rel, "SKC306", f"second file for command {command!r} (also {found[command].rel})"))
            continue
        data = _read(entry, rel, SKILL_MD_CAP, diags)
        if data:
            found[command] = data
            inputs.append(data)
    return tuple(sorted(found.items()))
