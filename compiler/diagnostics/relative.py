"""Where a diagnostic's path is shown from: the working directory, as ruff and mypy print theirs.

Diagnostics are made with paths relative to the project root (the config's folder), which keeps
them independent of where a command runs (the build cache records them so). They are shown
relative to the working directory in text, json and github output, so that
`skillc --config packages/agent/skillc.yaml validate --format github` annotates
`packages/agent/skills/...`, the file GitHub knows. SARIF keeps project-relative URIs and says
where the project is (`originalUriBaseIds`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..dataclass import replace
from . import Diagnostic


def rebase(diags: tuple[Diagnostic, ...], root: Path, cwd: Path) -> tuple[Diagnostic, ...]:
    """diags with each project-relative path made relative to cwd (unchanged when cwd is the root)."""
    root, cwd = root.resolve(), cwd.resolve()
    if root == cwd:
        return diags
    # By text, each path once: a replayed build prints hundreds of diagnostics on a few paths.
    paths = {d.path: shown(d.path, root, cwd) for d in diags}
    return tuple(replace(d, path=paths[d.path]) for d in diags)


def shown(path: str, root: Path, cwd: Path) -> str:
    """Relative below cwd, absolute elsewhere (as ruff shows them: never a chain of '..').

    A source outside the project keeps its label (`~/...` or absolute), as the config spells it."""
    if path.startswith(("~", "/")):
        return path
    full, here = os.path.normpath(os.path.join(root, path)), str(cwd)
    if full == here:
        return "."
    below = here if here.endswith("/") else here + "/"
    return full[len(below) :] if full.startswith(below) else full


def root_uri(root: Path) -> str:
    """The project root as SARIF's PROJECTROOT: an absolute file URI ending in '/'."""
    return root.resolve().as_uri().rstrip("/") + "/"
