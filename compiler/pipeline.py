"""The pipeline: discover -> parse/validate -> resolve -> budget/render -> write."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from . import cache as cache_mod
from . import config as config_mod
from . import diagnostics as dg
from . import fs
from .budget import Packing
from .cache import Cache, Record, Snapshot, Stats
from .diagnostics import Diagnostic
from .discover import discover
from .model import Artifacts, Config, Discovery, Program, Resolution
from .render import Template, TemplateFailure, artifacts, build_hash, catalogs, entry_cost, load_template
from .resolve import resolve
from .validate import check_skill, validate
from .write import Comparison, WriteResult, compare, ownership_problem, scan, write


@dataclass(frozen=True)
class Summary:
    skills: int
    personas: int
    objects: int


@dataclass(frozen=True)
class Compilation:
    config: Config | None
    program: Program | None = None
    resolutions: tuple[Resolution, ...] = ()
    packings: dict[str, Packing] = field(default_factory=dict)
    artifacts: Artifacts | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    # Set when the build cache proved the output current: no stage after
    # discover ran, and `diagnostics` are the ones that build recorded.
    replayed: Summary | None = None
    cache: Stats | None = None          # what the build cache did, when it was on

    @property
    def ok(self) -> bool:
        return (self.artifacts is not None or self.replayed is not None) and not dg.has_errors(self.diagnostics)

    @property
    def summary(self) -> Summary | None:
        """Counts for the build report, also when the build was replayed."""
        if self.replayed is not None:
            return self.replayed
        if self.program is None or self.artifacts is None:
            return None
        return Summary(len(self.program.skills), len(self.program.personas), len(self.artifacts.objects))

    @property
    def output(self) -> Path | None:
        return self.config.root / self.config.output if self.config else None


@dataclass(frozen=True)
class Front:
    """Config, template and discovery: what every command reads from disk."""

    config: Config
    template: Template | None
    found: Discovery
    diagnostics: tuple[Diagnostic, ...]      # config, overlap and template problems


def compile_project(config_path: Path, *, strict: bool | None = None, listdir: Callable[[str], Any] = os.listdir, skip_invalid: bool | None = None, verbose: bool = False, ignore: tuple[str, ...] = ()) -> Compilation:
    """Run every stage up to rendering; nothing is written, the cache is not used.

    Raises config.UsageError.
    """
    front = _front(config_path, strict, listdir, skip_invalid, verbose, ignore)
    return front if isinstance(front, Compilation) else _back(front, None)


@dataclass(frozen=True)
class Head:
    """Config and template: what a build checks before it reads any input."""

    config: Config
    template: Template | None
    diagnostics: tuple[Diagnostic, ...]      # config, overlap and template problems


def _front(config_path: Path, strict: bool | None, listdir: Callable[[str], Any], skip_invalid: bool | None = None, verbose: bool = False, ignore: tuple[str, ...] = ()) -> Front | Compilation:
    head = _head(config_path, strict, skip_invalid, verbose, ignore)
    return head if isinstance(head, Compilation) else _discovered(head, listdir)


def _discovered(head: Head, listdir: Callable[[str], Any]) -> Front:
    return Front(head.config, head.template, discover(head.config, listdir), head.diagnostics)


def _head(config_path: Path, strict: bool | None, skip_invalid: bool | None = None, verbose: bool = False, ignore: tuple[str, ...] = ()) -> Head | Compilation:
    config, diags = config_mod.load(Path(config_path), strict=strict, skip_invalid=skip_invalid, verbose=verbose, ignore=ignore)
    if config is None:
        return Compilation(None, diagnostics=dg.ordered(diags))
    diags += _overlaps(config) + _outside_root(config)
    template, problems = load_template(config)
    return Head(config, template, diags + problems)


def _back(front: Front, memo: Cache | None, digest: str | None = None) -> Compilation:
    """validate -> resolve -> catalogs -> artifacts; `memo` skips unchanged per-file work.

    digest: the build hash when the caller already has it (hashing every input costs).
    """
    config, template = front.config, front.template
    program = validate(front.found, memo.check_skill(check_skill) if memo else None, skip_invalid=config.skip_invalid)
    diags = front.diagnostics + program.diagnostics
    resolutions = resolve(program)
    if template is None:
        return _finish(config, program, resolutions, {}, None, diags)
    cost = memo.entry_cost(entry_cost) if memo else entry_cost
    try:
        texts, packings, problems = catalogs(config, program, resolutions, template, cost)
    except TemplateFailure as exc:
        failed = dg.error(config.template_rel, "SKC104", f"template failed while rendering: {exc}")
        return _finish(config, program, resolutions, {}, None, diags + (failed,))
    digest = digest or build_hash(config, front.found.inputs, template)
    art = artifacts(config, program, resolutions, template, texts, packings, digest)
    return _finish(config, program, resolutions, packings, art, diags + problems)


def _finish(config: Config, program: Program, resolutions: tuple[Resolution, ...], packings: dict[str, Packing], art: Artifacts | None, diags: tuple[Diagnostic, ...]) -> Compilation:
    diags = dg.apply_policy(diags, dict(config.severities), config.strict)
    return Compilation(config, program, resolutions, packings, art, dg.ordered(diags))


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
        dg.error(config.config_rel, "SKC103", f"output {config.output!r} would replace the {what} {path.name!r}")
        for what, path in (("config file", config.root / config.config_rel), ("template", config.template))
        if _inside(path.resolve(), out)
    ]
    if out.exists() and not out.is_dir():
        problems.append(dg.error(config.config_rel, "SKC103", f"output {config.output!r} exists and is not a directory"))
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
        link = next((config.root.joinpath(*parts[:i]) for i in range(1, len(parts) + 1)
                     if config.root.joinpath(*parts[:i]).is_symlink()), None)
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
        dg.error(config.config_rel, "SKC103", f"{key} {path!r} resolves outside the project ({(root / path).resolve()})")
        for key, path in named
        if (key == "output" or (root / path).exists()) and not _inside((root / path).resolve(), root)
    )


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def build(config_path: Path, *, strict: bool | None = None, prune: bool = False, cache: bool = True, skip_invalid: bool | None = None, verbose: bool = False, ignore: tuple[str, ...] = ()) -> tuple[Compilation, WriteResult | None]:
    """Compile and write. With `cache`, `<project>/.skillc-cache/` makes rebuilds incremental;
    the output is byte-identical either way."""
    head = _head(config_path, strict, skip_invalid, verbose, ignore)
    if isinstance(head, Compilation):
        return head, None
    config, template = head.config, head.template
    dist = config.root / config.output
    problem = ownership_problem(dist)
    if problem and not dg.has_errors(head.diagnostics):
        # Nothing is written, but every other problem is still reported in this run.
        refused = dg.error(config.output, "SKC704", f"output directory {problem}")
        result = _back(_discovered(head, os.listdir), None)
        return replace(result, diagnostics=dg.ordered(result.diagnostics + (refused,))), None
    store = cache_mod.open_cache(config) if cache and template is not None else None
    if store is None:
        result = _back(_discovered(head, os.listdir), None)
        return result, (write(dist, result.artifacts, prune=prune) if result.ok else None)
    # Before discover reads a byte: inputs that all show their recorded stat data replay the last build.
    head_key = store.head_key(build_hash(config, (), template), config, head.diagnostics)
    now = cache_mod.take_snapshot(config, store.directory, head_key)
    replayed = _replay(store, config, store.replay_unchanged(now, dist, prune=prune) if now else None)
    if replayed is not None:
        return replayed, WriteResult(False, 0)
    front = _discovered(head, os.listdir)
    inputs = cache_mod.for_inputs(now, (f.rel for f in front.found.inputs))
    # Problems of files discover did not read (escaping links, oversized files) are no input bytes.
    early = front.diagnostics + front.found.diagnostics + tuple(d for s in front.found.skills for d in s.problems)
    digest = build_hash(config, front.found.inputs, template)
    key = store.build_key(digest, config, early)
    replayed = _replay(store, config, store.replay(key, dist, prune=prune))
    if replayed is not None:
        store.save_inputs(inputs)  # so that the next no-op build need not read them
        return replayed, WriteResult(False, 0)
    store.load_memo()
    result = replace(_back(front, store, digest), cache=store.stats)
    store.save_memo()
    if not result.ok:
        return result, None
    written = write(dist, result.artifacts, prune=prune)
    _save_record(store, key, result, inputs)
    return result, written


def _replay(store: Cache, config: Config, hit: tuple[Record, tuple[Diagnostic, ...]] | None) -> Compilation | None:
    """The last build's result, when the cache found its inputs and its output both unchanged."""
    if hit is None:
        return None
    record, diagnostics = hit
    summary = Summary(record.skills, record.personas, record.objects)
    return Compilation(config, diagnostics=diagnostics, replayed=summary, cache=store.stats)


def _save_record(store: Cache, key: str, result: Compilation, inputs: Snapshot | None) -> None:
    """Remember the build and the state of its output, for the next build's replay."""
    dist = result.output
    present = scan(dist)
    art, summary = result.artifacts, result.summary
    if present is None or art is None or summary is None or any(rel not in present for rel in art.files):
        return
    # The lock is released after the swap: a concurrent build of other sources
    # may have replaced dist since; its index names another build hash (one of
    # the same sources wrote the same bytes). The hash is near the top.
    try:
        if f'"build_hash": "{art.build_hash}"'.encode() not in fs.read_head(dist / "_index.json", 4096, follow=False):
            return
    except OSError:
        return
    files = {rel: present[rel] for rel in art.files}
    record = Record(key, str(dist.resolve()), files, summary.skills, summary.personas, summary.objects, inputs)
    store.save_record(record, result.diagnostics)


def check(config_path: Path, *, strict: bool | None = None, skip_invalid: bool | None = None, verbose: bool = False, ignore: tuple[str, ...] = ()) -> tuple[Compilation, Comparison | None]:
    result = compile_project(config_path, strict=strict, skip_invalid=skip_invalid, verbose=verbose, ignore=ignore)
    if not result.ok:
        return result, None
    return result, compare(result.output, result.artifacts)
