"""Where the repository and its golden data are; writing a tree of files and reading one back."""

from __future__ import annotations

import hashlib
import os
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"
GOLDEN_PROJECT = GOLDEN / "project"
GOLDEN_DIST = GOLDEN / "expected"


def write_tree(root: Path, files: Mapping[str, str | bytes], *, exact: bool = False) -> Path:
    """Write files (POSIX relative paths) below root; returns root.

    A str is dedented and stripped of leading newlines, so a test can indent its literals,
    unless `exact`: then it is written as UTF-8 byte for byte (hostile input must arrive as typed).
    """
    for rel, content in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            text = content if exact else textwrap.dedent(content).lstrip("\n")
            content = text.encode("utf-8")
        path.write_bytes(content)
    return root


def snapshot(dist: Path) -> dict[str, bytes]:
    """Every file below dist (relative POSIX path -> bytes); {} when absent."""
    if not dist.is_dir():
        return {}
    out: dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(dist):
        for name in names:
            full = Path(dirpath) / name
            out[full.relative_to(dist).as_posix()] = full.read_bytes()
    return out


def tree_digest(root: Path) -> dict[str, str]:
    """Every path below root (files, dirs, links) -> a short fingerprint."""
    out: dict[str, str] = {}
    for dirpath, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                out[rel] = "link:" + os.readlink(full)
            elif full.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(full.read_bytes()).hexdigest()[:16]
    return out


def served(got: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes]) -> str | None:
    """Which build a snapshot of dist/ serves, "old" or "new" (snapshots as `snapshot` takes them), or
    None for anything mixed: its index and every object of that build intact, every object of the
    old build still there (a reader holding it keeps working), and nothing but files of the two
    builds (objects, prompt copies) and temporary files of a killed build beside them."""
    from skillc.format.layout import INDEX, TEMP_PREFIX, is_object

    if any(got.get(rel) != data for rel, data in old.items() if is_object(rel)):
        return None
    if not all(rel in old or rel in new or rel.startswith(TEMP_PREFIX) for rel in got):
        return None
    for name, build in (("old", old), ("new", new)):
        objects_intact = all(got.get(rel) == data for rel, data in build.items() if is_object(rel))
        if got.get(INDEX) == build[INDEX] and objects_intact:
            return name
    return None


def settle(root: Path) -> None:
    """Wait until the file system clock is past the ctime of everything below root.

    A build records stat data only when every input is older than its stamp:
    a file changed in the stamp's clock tick could change again unseen.
    """
    newest = max(p.lstat().st_ctime_ns for p in [root, *root.rglob("*")])
    probe = root.parent / f".probe-{root.name}"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        probe.write_bytes(b"")
        now = probe.stat().st_ctime_ns
        probe.unlink()
        if now > newest:
            return
        time.sleep(0.002)
