"""Builds of the project as it is at a git ref (or in the working tree), for `skillc diff --git`.

The ref's files come from `git archive` into a temporary folder and are
compiled there by this very compiler, so a diff shows what the change to
the sources does, not what a change of compiler does. Nothing is written
outside the temporary folder: the project's own output is never touched.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from .. import config as config_mod
from .. import fs, pipeline
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..errors import BuildFailed, RefError
from ..options import DEFAULTS, Options


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


def checkout(root: Path, commit: str, dest: Path) -> None:
    """The tree of `commit` under dest (git archive: no .git, no working-tree state)."""
    proc = _git(root, "archive", "--format=tar", commit)
    if proc.returncode != 0:
        raise RefError(f"git archive {commit[:12]} failed: {proc.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(dest, filter="data")


def copy_worktree(root: Path, dest: Path) -> None:
    """The working tree as git sees it: tracked files and untracked ones not ignored."""
    proc = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if proc.returncode != 0:
        raise RefError("git ls-files failed")
    for rel in sorted(set(proc.stdout.decode("utf-8", "surrogateescape").split("\0")) - {""}):
        src = root / rel
        if src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).symlink_to(src.readlink())
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
            (dest / rel).chmod(src.stat().st_mode & 0o777)


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
