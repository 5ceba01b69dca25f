"""Builds of the project as it is at a git ref (or in the working tree), for `skillc diff --git`.

Only what a build reads is taken: the config, then the sources, personas and template it names, from
git's objects at the ref (`git ls-tree` and one `git cat-file --batch`, submodules followed) or from
the working tree (the files git lists under those paths). They are compiled in a temporary folder by
this very compiler, so a diff shows what the change to the sources does, not what a change of
compiler does. Nothing is written outside the temporary folder: the project's own output is never
touched, and nothing else of the repository is read (a huge or unreadable file elsewhere is no
concern of a build).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from .. import fs, pipeline
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..errors import BuildFailed, RefError
from ..model import InputFile
from ..options import DEFAULTS, Options
from ..project import config as config_mod
from ..project import pyproject
from ..project.config import DEFAULT_TEMPLATE
from ..stages.parse import parse_document

MAX_CONFIG_BYTES = 1 << 20
# A working-tree file larger than this is never read: no input may be that large (resources.max_bytes
# is far below), so the copy is a sparse file of the same size and the build says it is too large.
MAX_COPY_BYTES = 1 << 30


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=300, check=False)
    except FileNotFoundError:
        raise RefError("git is not installed") from None


def repository_root(start: Path) -> Path:
    proc = _git(start, "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise RefError(f"{start} is not inside a git repository")
    return Path(proc.stdout.decode().strip())


def resolve_ref(root: Path, ref: str) -> str:
    """The commit a ref names; a clear RefError when there is none."""
    if ref.startswith("-"):
        raise RefError(f"{ref!r} is not a ref")
    proc = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if proc.returncode == 0:
        return proc.stdout.decode().strip()
    shallow = _git(root, "rev-parse", "--is-shallow-repository").stdout.decode().strip() == "true"
    if shallow:
        raise RefError(
            f"{ref!r} is not in this shallow clone's history; fetch more of it first "
            f"(`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
        )
    raise RefError(f"{ref!r} names no commit in this repository (try `git fetch` if it is on a remote)")


def checkout(root: Path, commit: str, dest: Path, config_rel: Path) -> None:
    """What a build needs of `commit` under dest: the config, then the sources, personas and template
    it names, read from git's objects (never the working tree), submodules followed."""
    _export(root, commit, [config_rel.as_posix()], dest, "")
    _export(root, commit, needed_paths(dest, config_rel), dest, "")


def copy_worktree(root: Path, dest: Path, config_rel: Path) -> None:
    """What a build needs of the working tree: the same paths, tracked files and untracked ones
    not ignored, copied bounded (regular files only; symlinks as links, never followed)."""
    _copy_listed(root, dest, [config_rel.as_posix()], "")
    _copy_listed(root, dest, needed_paths(dest, config_rel), "")


def needed_paths(tree: Path, config_rel: Path) -> list[str]:
    """The repository paths the config in `tree` names: its sources, personas and template.

    Read from the config's text, not through config.load, which checks that they exist (they are
    what is about to be copied). Absolute and `~` sources are outside the repository: the build
    reads them where they are, as it always did. Paths leaving the repository are left out."""
    data = _config_data(tree / config_rel)
    base = config_rel.parent
    named = [*(s for s in data.get("sources", []) if isinstance(s, str))]
    named += [data[k] for k in ("personas", "template") if isinstance(data.get(k), str)]
    named += [] if "template" in data else [DEFAULT_TEMPLATE]
    paths = []
    for name in named:
        if name.startswith(("/", "~")):
            continue
        rel = os.path.normpath((base / name).as_posix())
        if rel != ".." and not rel.startswith("../"):
            paths.append("." if rel == "." else rel)
    return sorted(set(paths))


def _config_data(config: Path) -> dict[str, Any]:
    try:
        raw = fs.read_regular(config, MAX_CONFIG_BYTES)
    except OSError:
        return {}  # the build reports it
    if config.name == pyproject.NAME:  # [tool.skillc]
        doc = pyproject.document(config.name, raw)
    else:
        doc = parse_document(InputFile(config.name, raw), frontmatter="whole")
    return dict(doc.data) if isinstance(doc.data, Mapping) else {}


# --- a commit, from git's objects ---------------------------------------------------


def _export(repo: Path, commit: str, paths: list[str], dest: Path, prefix: str) -> None:
    """Write `paths` of `commit` in `repo` under dest/prefix: blobs from `git cat-file --batch`,
    symlinks as links (their text as committed), submodules from their own repositories.

    No `git archive`: it applies export-ignore and export-subst, which are for release tarballs,
    so a build at a ref would differ from the build of the same files checked out."""
    if not paths:
        return
    listed = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths)
    if listed.returncode != 0:
        raise RefError(f"git ls-tree {commit[:12]} failed: {listed.stderr.decode(errors='replace').strip()}")
    blobs: list[tuple[str, str, str]] = []  # (mode, object, path)
    for rel, obj in _gitlinks_above(repo, commit, paths):
        _submodule(repo, obj, rel, paths, dest, prefix)
    for record in listed.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, obj = meta.decode().split()
        rel = os.fsdecode(raw_path)
        if kind == "commit":
            _submodule(repo, obj, rel, paths, dest, prefix)
        elif kind == "blob":
            blobs.append((mode, obj, rel))
    _write_blobs(repo, blobs, dest / prefix if prefix else dest)


def _gitlinks_above(repo: Path, commit: str, paths: list[str]) -> list[tuple[str, str]]:
    """(path, commit) of each submodule that holds a needed path (`vendor/sub` for a source
    `vendor/sub/skills`): a pathspec below a submodule matches nothing in the outer tree."""
    found: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")
        for cut in range(1, len(parts)):
            above = "/".join(parts[:cut])
            entry = _git(repo, "ls-tree", "-z", "--full-tree", commit, "--", above).stdout.split(b"\0")[0]
            meta, _, name = entry.partition(b"\t")
            if meta.split()[1:2] == [b"commit"] and os.fsdecode(name) == above:
                found[above] = meta.split()[2].decode()
                break
    return sorted(found.items())


def _submodule(repo: Path, commit: str, rel: str, paths: list[str], dest: Path, prefix: str) -> None:
    """A submodule below a needed path (or holding one): its files from its own repository."""
    sub = repo / rel
    if _git(sub, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise RefError(
            f"submodule {prefix + rel!r} at {commit[:12]} is not available here; "
            "run `git submodule update --init` first"
        )
    inner = [p[len(rel) + 1 :] for p in paths if p.startswith(rel + "/")] or ["."]
    _export(sub, commit, inner, dest, f"{prefix}{rel}/")


def _write_blobs(repo: Path, blobs: list[tuple[str, str, str]], dest: Path) -> None:
    """Every blob through one `git cat-file --batch`, streamed to its file: memory stays bounded
    whatever the size of a committed file."""
    if not blobs:
        return
    with subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        feeder = threading.Thread(target=_feed, args=(proc.stdin, [obj for _, obj, _ in blobs]), daemon=True)
        feeder.start()
        for mode, obj, rel in blobs:
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                raise RefError(f"git cat-file cannot read {rel!r} ({obj[:12]})")
            _place(proc.stdout, int(header[2]), mode, _inside(dest, rel))
            proc.stdout.read(1)  # the newline after each object
        feeder.join()


def _feed(stdin: IO[bytes], objects: list[str]) -> None:
    with contextlib.suppress(BrokenPipeError):
        for obj in objects:
            stdin.write(obj.encode() + b"\n")
        stdin.close()


def _place(stream: IO[bytes], size: int, mode: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(target):  # the config, inside a source too: written once
        stream.read(size)
        return
    if mode == "120000":  # a symlink: its target text, committed; recreated, never followed here
        os.symlink(os.fsdecode(stream.read(size)), target)
        return
    with open(target, "xb") as out:
        left = size
        while left:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                raise RefError(f"git cat-file ended early on {target.name!r}")
            out.write(chunk)
            left -= len(chunk)
    if mode == "100755":
        target.chmod(0o755)


def _inside(dest: Path, rel: str) -> Path:
    """dest/rel, refused if a committed path could leave dest (git never stores one; a hostile
    repository might)."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise RefError(f"refusing the path {rel!r} from git")
    return dest.joinpath(*parts)


# --- the working tree ------------------------------------------------------------------


def _copy_listed(repo: Path, dest: Path, paths: list[str], prefix: str) -> None:
    """Files git lists under `paths` (tracked, and untracked but not ignored), copied one by one."""
    if not paths:
        return
    for path in paths:
        _make_dir_if_dir(repo / path, dest / prefix / path)
        checkout = _checkout_above(repo, path)
        if checkout is not None:  # the path lies in a submodule: git lists it from there
            _copy_listed(repo / checkout, dest, [path[len(checkout) + 1 :]], f"{prefix}{checkout}/")
    listed = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *paths)
    if listed.returncode != 0:
        raise RefError(f"git ls-files failed: {listed.stderr.decode(errors='replace').strip()}")
    for rel in sorted({os.fsdecode(r) for r in listed.stdout.split(b"\0") if r}):
        src = repo / rel
        if src.is_dir() and not src.is_symlink() and (src / ".git").exists():  # a submodule's checkout
            inner = [p[len(rel) + 1 :] for p in paths if p.startswith(rel + "/")] or ["."]
            _copy_listed(src, dest, inner, f"{prefix}{rel}/")
        else:
            _copy_one(src, _inside(dest, prefix + rel))


def _checkout_above(repo: Path, path: str) -> str | None:
    """The submodule checkout (a directory holding `.git`) that holds `path`, below repo."""
    parts = path.split("/")
    for cut in range(1, len(parts)):
        above = "/".join(parts[:cut])
        if (repo / above / ".git").exists() and not (repo / above).is_symlink():
            return above
    return None


def _make_dir_if_dir(src: Path, target: Path) -> None:
    """A configured directory that exists but holds no file git lists (an empty personas folder):
    created, so the build of the copy sees what the build of the working tree sees."""
    if src.is_dir() and not src.is_symlink():
        target.mkdir(parents=True, exist_ok=True)


def _copy_one(src: Path, target: Path) -> None:
    """One working-tree file: a symlink as a link, a regular file bounded; anything else (a FIFO,
    a file removed since it was listed, one this user cannot read) is left out: the build of the
    working tree reports it the same way when it is an input."""
    try:
        st = src.lstat()
    except OSError:
        return
    if os.path.lexists(target):  # the config, inside a source too: copied once
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), target)
    elif stat.S_ISREG(st.st_mode):
        try:
            data = fs.read_regular(src, MAX_COPY_BYTES, follow=False)
        except fs.TooLarge:
            # Larger than any input may be: the same size, as a sparse file, so the build reports it
            # as too large exactly as it would in the working tree, without copying the bytes.
            with open(target, "xb") as out:
                out.truncate(st.st_size)
            return
        except OSError:
            return
        target.write_bytes(data)
        target.chmod(st.st_mode & 0o777)


def build_tree(
    tree: Path, config_rel: Path, options: Options = DEFAULTS, notes: list[Diagnostic] | None = None
) -> Path:
    """Compile the project copied to `tree` into its configured output, with no cache; returns that output.

    options: --skip-invalid leaves out skills with errors; `notes` receives what says so (SKC314).
    """
    config = tree / config_rel
    if not config.is_file():
        raise RefError(f"{config_rel} does not exist in that tree")
    loaded, _ = config_mod.load(config)
    if loaded is not None and (loaded.root / loaded.output).is_dir():
        # That tree's committed build: this compiler makes its own.
        fs.remove_tree(loaded.root / loaded.output)
    result, written = pipeline.build(config, options, cache=False)
    if written is None or isinstance(result, pipeline.ConfigFailed):
        errors = [d.format() for d in result.diagnostics if d.severity.value == "error"]
        shown = "; ".join(errors[:3])[:2000] + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")
        hint = (
            ""
            if options.skip_invalid
            else " (--skip-invalid leaves out skills with errors and builds the rest)"
        )
        raise BuildFailed(f"the project does not compile: {len(errors)} error(s): {shown}{hint}")
    if notes is not None:
        notes.extend(d for d in result.diagnostics if d.code == Code.SKIPPED_INVALID)
    return result.output
