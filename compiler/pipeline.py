"""The pipeline: discover -> parse/validate -> resolve -> budget/render -> write."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import config as config_mod
from . import diagnostics as dg
from .budget import Packing
from .diagnostics import Diagnostic
from .discover import discover
from .model import Artifacts, Config, Program, Resolution
from .render import artifacts, catalogs, load_template
from .resolve import resolve
from .validate import validate
from .write import Comparison, WriteResult, compare, write


@dataclass(frozen=True)
class Compilation:
    config: Config | None
    program: Program | None = None
    resolutions: tuple[Resolution, ...] = ()
    packings: dict[str, Packing] = field(default_factory=dict)
    artifacts: Artifacts | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return self.artifacts is not None and not dg.has_errors(self.diagnostics)

    @property
    def output(self) -> Path | None:
        return self.config.root / self.config.output if self.config else None


def compile_project(config_path: Path, *, strict: bool | None = None, listdir: Callable[[str], Any] = os.listdir) -> Compilation:
    """Run every stage up to rendering; nothing is written. Raises config.UsageError."""
    config, diags = config_mod.load(Path(config_path), strict=strict)
    if config is None:
        return Compilation(None, diagnostics=dg.ordered(diags))
    diags += _overlaps(config)
    template, problems = load_template(config)
    diags += problems
    found = discover(config, listdir)
    program = validate(found)
    diags += program.diagnostics
    resolutions = resolve(program)
    if template is None:
        return _finish(config, program, resolutions, {}, None, diags)
    texts, packings, problems = catalogs(config, program, resolutions, template)
    diags += problems
    art = artifacts(config, program, resolutions, template, texts, packings, found.inputs)
    return _finish(config, program, resolutions, packings, art, diags)


def _finish(config: Config, program: Program, resolutions: tuple[Resolution, ...], packings: dict[str, Packing], art: Artifacts | None, diags: tuple[Diagnostic, ...]) -> Compilation:
    diags = dg.promote(diags) if config.strict else diags
    return Compilation(config, program, resolutions, packings, art, dg.ordered(diags))


def _overlaps(config: Config) -> tuple[Diagnostic, ...]:
    """The output directory is swapped wholesale, so it must not hold any input."""
    out = (config.root / config.output).resolve()
    inputs = [*config.sources, *([config.personas] if config.personas else [])]
    return tuple(
        dg.error(config.config_rel, "SKC103", f"output {config.output!r} overlaps input {src!r}")
        for src in inputs
        if _inside((config.root / src).resolve(), out) or _inside(out, (config.root / src).resolve())
    )


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def build(config_path: Path, *, strict: bool | None = None, prune: bool = False) -> tuple[Compilation, WriteResult | None]:
    result = compile_project(config_path, strict=strict)
    if not result.ok:
        return result, None
    return result, write(result.output, result.artifacts, prune=prune)


def check(config_path: Path, *, strict: bool | None = None) -> tuple[Compilation, Comparison | None]:
    result = compile_project(config_path, strict=strict)
    if not result.ok:
        return result, None
    return result, compare(result.output, result.artifacts)
