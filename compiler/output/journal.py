"""Renames done as one: each step undone after a failure, or by the next run after a crash.

An export changes several places of a project (skill folders, settings files, its marker) that no
single rename covers. Everything new is first written into a staging folder; then `Journal.run`
does the steps, renames and hard links that each move one complete thing, with its list of steps
written into the staging folder first. The last step puts the marker in place: that is the commit.
A failure before it undoes every step done, in reverse; a process killed before it leaves the
journal, and `recover` undoes the same steps the next time. Every undo looks at what is there, so
a step that never ran is left alone and running an undo twice is harmless.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from .. import fs

JOURNAL = "journal.json"
STEPS = ("rename", "link", "mkdir", "rmdir")


class Journal:
    """The steps of one change below `root`, kept in `stage` (a folder below root); paths are
    relative to root. `commit` (relative to root too) is the staged file whose rename into place
    commits the change."""

    def __init__(self, root: Path, stage: Path, commit: str) -> None:
        self.root, self.stage, self.commit = root, stage, commit
        self.steps: list[tuple[str, str, str]] = []

    def rename(self, old: str, new: str) -> None:
        self.steps.append(("rename", old, new))

    def link(self, old: str, new: str) -> None:
        """A hard link: the file at old is kept at new too (its bytes for an undo)."""
        self.steps.append(("link", old, new))

    def mkdir(self, path: str) -> None:
        self.steps.append(("mkdir", path, ""))

    def rmdir(self, path: str) -> None:
        """Remove a folder if it is empty when the step runs (else the step does nothing)."""
        self.steps.append(("rmdir", path, ""))

    def run(self) -> None:
        """Write the journal, then do every step; on any failure undo the steps done and re-raise."""
        doc = {"commit": self.commit, "steps": [list(s) for s in self.steps]}
        (self.stage / JOURNAL).write_text(json.dumps(doc), encoding="utf-8")
        try:
            for kind, a, b in self.steps:
                _do(self.root, kind, a, b)
        except BaseException:
            undo(self.root, self.steps)
            raise


def _do(root: Path, kind: str, a: str, b: str) -> None:
    if kind == "rename":
        os.rename(root / a, root / b)
    elif kind == "link":
        os.link(root / a, root / b, follow_symlinks=False)
    elif kind == "mkdir":
        os.mkdir(root / a)
    elif kind == "rmdir":
        with contextlib.suppress(OSError):  # not empty: someone's folder now, left in place
            os.rmdir(root / a)


def undo(root: Path, steps: list[tuple[str, str, str]]) -> None:
    """Undo, newest first, each step whose effect is there; best effort, never raising."""
    for kind, a, b in reversed(steps):
        with contextlib.suppress(OSError):
            if kind in ("rename", "link") and os.path.lexists(root / b) and not os.path.lexists(root / a):
                os.rename(root / b, root / a)
            elif kind == "mkdir":
                os.rmdir(root / a)  # only when empty
            elif kind == "rmdir" and not os.path.lexists(root / a):
                os.mkdir(root / a)


def recover(root: Path, prefix: str) -> None:
    """Finish what a killed run left in `root/<prefix>*`: undo the steps of a change whose commit
    file is still staged, then remove the staging folder (a committed change's old files)."""
    for stage in sorted(root.glob(prefix + "*")):
        journal = _journal(stage)
        if journal is not None and os.path.lexists(root / journal[0]):
            undo(root, journal[1])
        fs.remove_tree(stage)


def _journal(stage: Path) -> tuple[str, list[tuple[str, str, str]]] | None:
    try:
        doc = json.loads(fs.read_regular(stage / JOURNAL, 64 * 1024 * 1024, follow=False))
        steps = [(k, a, b) for k, a, b in doc["steps"]]
        commit = doc["commit"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # killed while staging: nothing outside the staging folder was changed
    names = [commit, *(a for _, a, _ in steps), *(b for _, _, b in steps if b)]
    if not all(isinstance(n, str) and plain(n) for n in names) or any(k not in STEPS for k, _, _ in steps):
        return None  # not a journal this module wrote: no step of it is undone
    return commit, steps


def plain(path: str) -> bool:
    """A relative path of named parts only: no "", ".", "..", backslash, NUL or drive letter."""
    parts = path.split("/")
    return not (
        path.startswith("/")
        or "\\" in path
        or "\x00" in path
        or any(p in ("", ".", "..") for p in parts)
        or (len(path) > 1 and path[1] == ":")
    )


@contextlib.contextmanager
def staging(root: Path, name: str) -> Iterator[Path]:
    """A fresh staging folder below root, removed at the end whatever happens."""
    stage = root / name
    os.mkdir(stage)
    try:
        yield stage
    finally:
        fs.remove_tree(stage)
