"""The pipeline: discover -> parse/validate -> resolve -> budget/render -> write."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from . import cache as cache_mod
from . import config as config_mod
from . import diagnostics as dg
from .budget import Packing
from .cache import Cache, Report, Stats
from .diagnostics import Diagnostic
from .discover import Lstat, discover
from .model import Artifacts, Config, Discovery, Program, Resolution, Resolved, pairs
from .render import Template, TemplateFailure, artifacts, build_hash, catalogs, entry_cost, load_template
from .resolve import resolve
from .validate import check_skills, validate
from .write import Comparison, WriteResult, compare, ownership_problem, write


@dataclass(frozen=True)
class Summary:
    skills: int
    personas: int
    objects: int


@dataclass(frozen=True)
class ConfigFailed:
    """The config could not be loaded: nothing else ran."""

    diagnostics: tuple[Diagnostic, ...]
    ok: ClassVar[bool] = False


@dataclass(frozen=True)
class Compiled:
    """Every stage ran. `artifacts` is None when the template is unusable or failed while rendering."""

    config: Config
    program: Program
    resolved: Resolved
    packings: Mapping[str, Packing]
    artifacts: Artifacts | None
    diagnostics: tuple[Diagnostic, ...]
    cache: Stats | None = None  # what the build cache did, when it was on

    @property
    def ok(self) -> bool:
        return self.artifacts is not None and not dg.has_errors(self.diagnostics)

    @cached_property
    def resolutions(self) -> tuple[Resolution, ...]:
        """Every persona x skill pair, ordered by persona then command (made on demand: a build needs none)."""
        return pairs(self.resolved, tuple(self.program.personas))

    @property
    def summary(self) -> Summary | None:
        if self.artifacts is None:
            return None
        return Summary(len(self.program.skills), len(self.program.personas), len(self.artifacts.objects))

    @property
    def output(self) -> Path:
        return self.config.root / self.config.output


@dataclass(frozen=True)
class Replayed:
    """The build cache proved the output current: no stage after discover ran, and
    `report` holds what the recorded build reported (it had no errors)."""

    config: Config
    summary: Summary
    report: Report
    cache: Stats | None = None

    @property
    def ok(self) -> bool:
        return self.report.errors == 0

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Decoded on demand: printing the report needs only its text."""
        return self.report.diagnostics()

    @property
    def output(self) -> Path:
        return self.config.root / self.config.output


Compilation = ConfigFailed | Compiled | Replayed  # what a build did


@dataclass(frozen=True)
class Front:
    """Config, template and discovery: what every command reads from disk."""

    config: Config
    template: Template | None
    found: Discovery
    diagnostics: tuple[Diagnostic, ...]  # config, overlap and template problems


def compile_project(
    config_path: Path,
    *,
    strict: bool | None = None,
    listdir: Callable[[str], Any] = os.listdir,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
) -> ConfigFailed | Compiled:
    """Run every stage up to rendering; nothing is written, the cache is not used.

    Raises config.UsageError.
    """
    front = _front(config_path, strict, listdir, skip_invalid, verbose, ignore)
    return front if isinstance(front, ConfigFailed) else _back(front, None)


@dataclass(frozen=True)
class Head:
    """Config and template: what a build checks before it reads any input."""

    config: Config
    template: Template | None
    diagnostics: tuple[Diagnostic, ...]  # config, overlap and template problems


def _front(
    config_path: Path,
    strict: bool | None,
    listdir: Callable[[str], Any],
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
) -> Front | ConfigFailed:
    head = _head(config_path, strict, skip_invalid, verbose, ignore)
    return head if isinstance(head, ConfigFailed) else _discovered(head, listdir)


# Told each stage as it starts ("validating 10000 SKILL.md files"): the CLI shows it on a terminal.
Progress = Callable[[str], None]


def _silent(_: str) -> None:
    """The default Progress: library callers see nothing."""


def _discovered(
    head: Head, listdir: Callable[[str], Any], progress: Progress = _silent, lstat: Lstat = os.lstat
) -> Front:
    progress(f"discovering {len(head.config.sources)} source(s)")
    return Front(head.config, head.template, discover(head.config, listdir, lstat), head.diagnostics)


def _head(
    config_path: Path,
    strict: bool | None,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
) -> Head | ConfigFailed:
    config, diags = config_mod.load(
        Path(config_path), strict=strict, skip_invalid=skip_invalid, verbose=verbose, ignore=ignore
    )
    if config is None:
        return ConfigFailed(dg.ordered(diags))
    diags += _overlaps(config) + _outside_root(config)
    template, problems = load_template(config)
    return Head(config, template, diags + problems)


def _back(
    front: Front, memo: Cache | None, digest: str | None = None, progress: Progress = _silent
) -> Compiled:
    """validate -> resolve -> catalogs -> artifacts; `memo` skips unchanged per-file work.

    digest: the build hash when the caller already has it (hashing every input costs).
    """
    config, template = front.config, front.template
    progress(f"validating {len(front.found.skills)} SKILL.md file(s)")
    program = validate(
        front.found, memo.check_skills(check_skills) if memo else None, skip_invalid=config.skip_invalid
    )
    diags = front.diagnostics + program.diagnostics
    progress(f"resolving {len(program.skills)} skill(s) x {len(program.personas)} persona(s)")
    resolved = resolve(program)
    if template is None:
        return _finish(config, program, resolved, {}, None, diags)
    cost = memo.entry_cost(entry_cost) if memo else entry_cost
    progress(f"rendering {len(program.personas)} catalog(s) and the index")
    try:
        texts, packings, problems = catalogs(
            config, program, resolved, template, cost, memo.catalog_memo() if memo else None
        )
    except TemplateFailure as exc:
        failed = dg.error(config.template_rel, "SKC104", f"template failed while rendering: {exc}")
        return _finish(config, program, resolved, {}, None, (*diags, failed))
    digest = digest or build_hash(config, front.found.inputs, template)
    art = artifacts(config, program, resolved, template, texts, packings, digest)
    return _finish(config, program, resolved, packings, art, diags + problems)


def _finish(
    config: Config,
    program: Program,
    resolved: Resolved,
    packings: dict[str, Packing],
    art: Artifacts | None,
    diags: tuple[Diagnostic, ...],
) -> Compiled:
    diags = dg.apply_policy(diags, dict(config.severities), config.strict)
    return Compiled(config, program, resolved, packings, art, dg.ordered(diags))


def _overlaps(config: Config) -> tuple[Diagnostic, ...]:
    """The output directory is swapped wholesale, so it must not hold any input."""
    out = (config.root / config.output).resolve()
    dirs = [*((s, config.source_dir(i)) for i, s in enumerate(config.sources))]
    dirs += [(config.personas, config.root / config.personas)] if config.personas else []
    problems = [
        dg.error(config.config_rel, "SKC103", f"output {config.output!r} overlaps input {src!r}")
        for src, where in dirs
        if _inside(where.resolve(), out) or _inside(out, where.resolve())
    ]
    problems += [
        dg.error(
            config.config_rel, "SKC103", f"output {config.output!r} would replace the {what} {path.name!r}"
        )
        for what, path in (("config file", config.root / config.config_rel), ("template", config.template))
        if _inside(path.resolve(), out)
    ]
    if out.exists() and not out.is_dir():
        problems.append(
            dg.error(config.config_rel, "SKC103", f"output {config.output!r} exists and is not a directory")
        )
    return tuple(problems) + _reserved_output(config)


def _reserved_output(config: Config) -> tuple[Diagnostic, ...]:
    """Places the output must never be: a repository's .git, the build cache, or a path through a symlink."""
    parts = Path(config.output).parts
    folded = [p.casefold() for p in parts]  # .GIT is .git on a case-insensitive file system
    real = [p.casefold() for p in (config.root / config.output).resolve().parts]
    why = None
    if ".git" in folded or ".git" in real:
        why = "is inside a .git directory; skillc replaces its output wholesale"
    elif folded and folded[0] == cache_mod.DIRNAME:
        why = f"is the build cache directory {cache_mod.DIRNAME}/"
    else:
        link = next(
            (
                config.root.joinpath(*parts[:i])
                for i in range(1, len(parts) + 1)
                if config.root.joinpath(*parts[:i]).is_symlink()
            ),
            None,
        )
        if link is not None:
            # Refused rather than resolved: swapping a symlink for a directory would leave the link's
            # target behind as debris, and writing through it would put the output somewhere else.
            why = f"goes through the symlink {link.relative_to(config.root).as_posix()!r}; use the real path"
    return (dg.error(config.config_rel, "SKC103", f"output {config.output!r} {why}"),) if why else ()


def _outside_root(config: Config) -> tuple[Diagnostic, ...]:
    """A configured directory that is a symlink out of the project is refused like any escaping symlink."""
    root = config.root.resolve()
    # Sources written as absolute or `~` paths are meant to be outside: the config is trusted.
    named = [("sources", s) for s in config.sources if not s.startswith(("/", "~"))]
    named += [("personas", config.personas)] if config.personas else []
    named.append(("output", config.output))  # written to: through a symlink it would land elsewhere
    return tuple(
        dg.error(
            config.config_rel,
            "SKC103",
            f"{key} {path!r} resolves outside the project ({(root / path).resolve()})",
        )
        for key, path in named
        if (key == "output" or (root / path).exists()) and not _inside((root / path).resolve(), root)
    )


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def build(
    config_path: Path,
    *,
    strict: bool | None = None,
    prune: bool = False,
    cache: bool = True,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
    progress: Progress = _silent,
) -> tuple[Compilation, WriteResult | None]:
    """Compile and write. With `cache`, `<project>/.skillc-cache/` makes rebuilds incremental;
    the output is byte-identical either way."""
    head = _head(config_path, strict, skip_invalid, verbose, ignore)
    if isinstance(head, ConfigFailed):
        return head, None
    config, template = head.config, head.template
    dist = config.root / config.output
    problem = ownership_problem(dist)
    if problem and not dg.has_errors(head.diagnostics):
        # Nothing is written, but every other problem is still reported in this run.
        refused = dg.error(config.output, "SKC704", f"output directory {problem}")
        result = _back(_discovered(head, os.listdir), None)
        return replace(result, diagnostics=dg.ordered((*result.diagnostics, refused))), None
    door = None
    if cache and template is not None:
        door = cache_mod.session(config, build_hash(config, (), template), head.diagnostics, prune=prune)
    if door is None or template is None:
        result = _back(_discovered(head, os.listdir, progress), None, progress=progress)
        return result, _write(result, prune, progress)
    return _build_cached(head, template, door, prune, progress)


def _build_cached(
    head: Head, template: Template, door: cache_mod.Session, prune: bool, progress: Progress
) -> tuple[Compilation, WriteResult | None]:
    """The one place the pipeline uses the cache."""
    hit = door.replay_unread()  # before discover reads a byte
    if hit is not None:
        return _replayed(head, hit, door)
    walked = door.walked()  # the cache's stat walk has listed and stat'ed the inputs: not again
    front = (
        _discovered(head, walked.listdir, progress, walked.lstat)
        if walked
        else _discovered(head, os.listdir, progress)
    )
    digest = build_hash(head.config, front.found.inputs, template)
    # Problems of files discover did not read (escaping links, oversized files) are no input bytes.
    early = (
        front.diagnostics + front.found.diagnostics + tuple(d for s in front.found.skills for d in s.problems)
    )
    hit = door.replay((f.rel for f in front.found.inputs), digest, early)
    if hit is not None:
        return _replayed(head, hit, door)
    result = replace(_back(front, door.memo, digest, progress), cache=door.stats)
    written = _write(result, prune, progress, door.output_files())
    counts = result.summary
    files = result.artifacts.files if written is not None and result.artifacts is not None else None
    door.finish(
        files,
        digest,
        (counts.skills, counts.personas, counts.objects) if counts else (0, 0, 0),
        result.diagnostics,
    )
    return result, written


def _replayed(head: Head, hit: cache_mod.Hit, door: cache_mod.Session) -> tuple[Replayed, WriteResult]:
    summary = Summary(hit.skills, hit.personas, hit.objects)
    return Replayed(head.config, summary, hit.report, door.stats), WriteResult(False, 0)


def check(
    config_path: Path,
    *,
    strict: bool | None = None,
    skip_invalid: bool | None = None,
    verbose: bool = False,
    ignore: tuple[str, ...] = (),
) -> tuple[ConfigFailed | Compiled, Comparison | None]:
    result = compile_project(
        config_path, strict=strict, skip_invalid=skip_invalid, verbose=verbose, ignore=ignore
    )
    if isinstance(result, ConfigFailed) or not result.ok or result.artifacts is None:
        return result, None
    return result, compare(result.output, result.artifacts)


def _write(
    result: Compiled, prune: bool, progress: Progress = _silent, known: Mapping[str, list[int]] | None = None
) -> WriteResult | None:
    """Write a build without errors; None (nothing written) otherwise. known: see write.compare."""
    if not result.ok or result.artifacts is None:
        return None
    progress(f"writing {len(result.artifacts.files)} file(s) to {result.config.output}/")
    return write(result.output, result.artifacts, prune=prune, known=known)
