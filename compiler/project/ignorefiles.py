"""Ignore files: what git, ripgrep and ruff leave out of a tree, so a build leaves it out too.

A build must be the same on a fresh clone as in the working tree, and a fresh clone holds no
git-ignored file (`__pycache__/`, `node_modules/`). So every walk of discover honours:

- `.gitignore` and `.ignore` in every folder it enters, and in the folders above the walked root up to
  the repository's work tree root (the nearest folder holding `.git`), or up to the project's root
  outside a repository;
- git's rules for them (gitignore.py, a port of git's own): a pattern is relative to its file's
  folder, the last matching line wins, a deeper folder's file wins over the ones above it, and in
  one folder `.ignore` wins over `.gitignore` (as ripgrep reads them). A folder left out is not
  entered, so its files cannot be brought back (as in git).
- an ignore file that is a symlink is not followed, as git does not follow one: a warning says its
  patterns do not apply, and nothing it points to (outside the project, say) is read.

Not read: `.git/info/exclude` and git's global excludes file. They live on one machine only, and the
same commit must build the same everywhere.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

from ..dataclass import dataclass, field
from ..format import files
from ..names import gitignore

IGNORE_FILES = (".gitignore", ".ignore")  # in this order: the later file's lines win
IGNORE_CAP = 1024 * 1024
OuterFile = tuple[str, str, bytes]  # (folder, relative to the project root, POSIX; file name; bytes)
Problem = tuple[str, str]  # (path of the ignore file, why it could not be read)


def repository_top(project: Path) -> Path:
    """The work tree root holding `project` (the nearest folder with `.git`), else `project` itself."""
    here = project.resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def outer_folders(project: Path, roots: tuple[Path, ...]) -> list[Path]:
    """The folders above each walked root, within the repository, from its top down: where
    `outer_files` looks (the build cache watches the same places)."""
    top = repository_top(project)
    folders: set[Path] = set()
    for root in roots:
        real = root.resolve()
        if real != top and top in real.parents:
            folders.update(p for p in real.parents if p == top or top in p.parents)
    return sorted(folders, key=lambda p: len(p.parts))


def outer_files(project: Path, roots: tuple[Path, ...]) -> tuple[tuple[OuterFile, ...], tuple[Problem, ...]]:
    """The ignore files of the folders above each walked root, from the repository's top down.

    A root outside the repository (a source in `~/.claude/skills`) has none: its own walk reads its
    own ignore files.
    """
    base = project.resolve()
    found: list[OuterFile] = []
    problems: list[Problem] = []
    for folder in outer_folders(project, roots):
        rel = Path(os.path.relpath(folder, base)).as_posix()
        for name in IGNORE_FILES:
            data = _read(str(folder / name), name if rel == "." else f"{rel}/{name}", problems)
            if data is not None:
                found.append((rel, name, data))
    return tuple(found), tuple(problems)


def _read(path: str, shown: str, problems: list[Problem]) -> bytes | None:
    try:
        # never through a symlink at the name: git opens an ignore file with O_NOFOLLOW
        return files.read_regular(path, IGNORE_CAP, follow=False)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a symlink, too large, a FIFO, unreadable: said, never guessed around
        if exc.errno == errno.ELOOP:
            problems.append(
                (shown, "this ignore file is a symlink; git does not follow it, so its patterns do not apply")
            )
        else:
            problems.append((shown, f"cannot read this ignore file: {exc.strerror or exc}"))
        return None


@dataclass(frozen=True)
class _Level:
    """One folder's rules: `prefix` turns a path relative to the walked root into one relative to
    the folder (an outer folder) or `cut` strips the folder from it (a folder inside the walk)."""

    spec: gitignore.Spec
    prefix: str = ""
    cut: int = 0
    # The files the spec was read from, in order: (where, bytes), `where` relative to the project
    # root for a folder above the walk, else "./" and the path relative to the walked root. Only a
    # diagnostic reads them (`why`).
    files: tuple[tuple[str, bytes], ...] = field(default=(), compare=False)

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True: left out; False: taken back (`!`); None: no line of this folder speaks of it."""
        return self.spec.verdict(gitignore.as_text(self.prefix + path[self.cut :]), is_dir)


@dataclass
class Rules:
    """The ignore rules of one walk, read lazily as the walk enters each folder.

    `read` lists the ignore files found inside the walk (relative to its root), so the build cache
    can watch them like inputs; `problems` the ones that could not be read.
    """

    root: str
    outer: tuple[_Level, ...]
    # The outer level and the folder (relative to that level's folder) that leave the walked root
    # itself out: a folder at or above the root that git ignores is never entered, so nothing below
    # it is read, whatever the files inside say (`buried`). None for a root git walks into.
    above: tuple[_Level, str] | None = None
    # path -> names, as the walk listed them (`listing` records them): a folder listed without an
    # ignore file is not asked for one, which saves two failed opens per folder of a large tree
    listed: dict[str, frozenset[str]] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # folder -> the levels that apply in it, the top first: each folder's files are read once
    _chains: dict[str, tuple[_Level, ...]] = field(default_factory=dict)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        if self.above is not None:
            return True
        folder = rel.rpartition("/")[0]
        levels = self._chains.get(folder)  # known for every entry of a folder after its first
        if levels is None:
            levels = self._chain(folder)
        if not levels:
            return False  # the common case: no ignore file anywhere above
        for level in reversed(levels):  # the nearest folder's verdict wins
            verdict = level.verdict(rel, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _chain(self, folder: str) -> tuple[_Level, ...]:
        """Iterative, from the nearest folder already known: a deep tree cannot exhaust the stack."""
        found = self._chains.get(folder)
        if found is not None:  # every entry of a folder after its first
            return found
        pending: list[str] = []
        while folder not in self._chains:
            pending.append(folder)
            if not folder:
                break
            folder = folder.rpartition("/")[0]
        chain = self._chains.get(folder, self.outer)  # the root's parent is the outer folders
        for f in reversed(pending):
            own = self._level(f)
            chain = (*chain, own) if own is not None else chain
            self._chains[f] = chain
        return chain

    def listing(self, listdir: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
        """`listdir`, noting which listed folders hold an ignore file."""

        def listed(path: str) -> list[str]:
            names = listdir(path)
            self.listed[path] = _IGNORE_NAMES.intersection(names)
            return names

        return listed

    def _level(self, folder: str) -> _Level | None:
        known = self.listed.get(_joined(self.root, folder) if folder else self.root)
        if known is not None and not known:
            return None
        blobs = []
        files = []
        for name in IGNORE_FILES:
            rel = f"{folder}/{name}" if folder else name
            data = _read(os.path.join(self.root, rel), rel, self.problems)
            if data is not None:
                self.read.append(rel)
                blobs.append(data)
                files.append(("./" + rel, data))
        spec = gitignore.from_blobs(blobs)
        return _Level(spec, cut=len(folder) + 1 if folder else 0, files=tuple(files)) if spec else None

    def why(self, rel: str, is_dir: bool) -> tuple[str, int, str] | None:
        """Why the walk leaves `rel` out: the ignore file (as `_Level.files` names it), the line and
        the pattern that decide it for the first of its folders (from the top) or itself that is
        left out, as git leaves out what is below an ignored folder. None when nothing does."""
        if self.above is not None:
            level, above = self.above
            return _deciding_line(level, above, True, relative=True)
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            path, folder = "/".join(parts[:i]), i < len(parts) or is_dir
            if self.ignored(path, folder):
                levels = self._chains.get(path.rpartition("/")[0]) or self._chain(path.rpartition("/")[0])
                for level in reversed(levels):
                    if level.verdict(path, folder) is not None:
                        return _deciding_line(level, path, folder)
        return None


_IGNORE_NAMES = frozenset(IGNORE_FILES)


def _joined(root: str, folder: str) -> str:
    """os.path.join(root, folder) for a folder relative to root (never absolute, never empty), as
    the walk spells the path it lists (discover._under), at a third of the cost: once per folder."""
    return root + folder if root.endswith(("/", os.sep)) else root + os.sep + folder


def _deciding_line(
    level: _Level, path: str, is_dir: bool, *, relative: bool = False
) -> tuple[str, int, str] | None:
    """The last line of a level's files that speaks of `path` (relative to the walked root, or to
    the level's folder when `relative`: the one git obeys), as (file, line number, pattern)."""
    asked = gitignore.as_text(path if relative else level.prefix + path[level.cut :])
    for where, data in reversed(level.files):
        for number, text in reversed(gitignore.lines(data)):
            if (
                gitignore.compile_patterns([gitignore.pattern(number, text)]).verdict(asked, is_dir)
                is not None
            ):
                return where, number, text.encode("latin-1").decode("utf-8", "replace")  # as written
    return None


def rules_for(root: Path, project: Path, outer: tuple[OuterFile, ...]) -> Rules:
    """The rules for a walk of `root`: the outer files of the folders above it, then its own."""
    base, real = project.resolve(), root.resolve()
    levels: list[_Level] = []
    by_folder: dict[str, list[tuple[str, bytes]]] = {}
    for folder, name, data in outer:
        by_folder.setdefault(folder, []).append((f"{folder}/{name}" if folder != "." else name, data))
    for folder, read in by_folder.items():
        where = (base / folder).resolve()
        spec = gitignore.from_blobs([data for _, data in read])
        if spec is None or where not in real.parents:
            continue
        prefix = Path(os.path.relpath(real, where)).as_posix() + "/"
        levels.append(_Level(spec, prefix=prefix, files=tuple(read)))
    levels.sort(key=lambda level: -level.prefix.count("/"))  # the top folder first, the nearest last
    return Rules(str(root), tuple(levels), above=_buried(levels))


def _buried(levels: list[_Level]) -> tuple[_Level, str] | None:
    """Whether git would walk into the root at all: each folder from the top down to the root itself
    is asked of the outer levels above it, the nearest that speaks deciding, as git asks each folder
    before it enters it. The first one left out, with the level that leaves it out; else None."""
    chains = [level.prefix.rstrip("/").split("/") for level in levels]
    for up in range(max(map(len, chains), default=0) - 1, -1, -1):  # the top folder first
        for level, parts in zip(reversed(levels), reversed(chains), strict=True):  # the nearest first
            if len(parts) - up < 1:
                continue
            folder = "/".join(parts[: len(parts) - up])
            verdict = level.spec.verdict(gitignore.as_text(folder), True)
            if verdict is not None:
                if verdict:
                    return level, folder
                break
    return None


Skip = Callable[[str, bool], bool]


def combined(rules: Rules, skip: Skip) -> Skip:
    """Left out when either says so: `resources.exclude` cannot bring back a git-ignored file,
    which a fresh clone would not have."""
    chains = rules._chains  # this module's own

    def skipped(rel: str, is_dir: bool) -> bool:
        if skip(rel, is_dir):
            return True
        # Rules.ignored's common case inline (a folder known to have no rules above it): asked for
        # each of the 29,000 entries of a 10,000-skill tree.
        if chains.get(rel.rpartition("/")[0]) == ():
            return False
        return rules.ignored(rel, is_dir)

    return skipped
