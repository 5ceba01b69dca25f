"""The pipeline: config -> discover -> validate -> resolve -> catalog -> assemble -> write, with the
cache's door around it; the entry points are compile_project, build and check."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, ParamSpec, Protocol, TypeAlias, TypeVar

from . import diagnostics as dg
from .dataclass import dataclass, replace
from .diagnostics import Diagnostic
from .diagnostics.codes import Code
from .diagnostics.policy import Policy
from .errors import TemplateFailure
from .incremental import Hit, Report, Stats, Summary, quick_hit, quick_replay
from .options import DEFAULTS, Options, Progress, silent
from .output.placement import placement_problems

# A build the quick path replays imports neither the model nor the write stage (ctypes, subprocess):
# a quarter of a no-op build's imports. They are imported where a build that runs uses them.
if TYPE_CHECKING:
    from .incremental import Edited, Memo, Session
    from .incremental.carry import Carry, Catalog
    from .incremental.records import Records
    from .model import Artifacts, Config, Discovery, Program, Resolution, Resolved
    from .output.survey import Survey
    from .output.write import Comparison
    from .stages.budget import Packing
    from .stages.discover import Checked, Lstat
    from .stages.seen import Seen
    from .stages.template import Template


class Written(Protocol):
    """What the write stage did (output/write.py's WriteResult), as a build's callers read it."""

    @property
    def written(self) -> bool: ...

    @property
    def pruned(self) -> int: ...


@dataclass(frozen=True)
class _Unwritten:
    """What a replayed build wrote: nothing (WriteResult(False, 0), without the write stage)."""

    written: bool = False
    pruned: int = 0


P = ParamSpec("P")
R = TypeVar("R")


def _uncollected(run: Callable[P, R]) -> Callable[P, R]:
    """`run` with the cyclic garbage collector paused, as it was again after. A build's objects
    live until it ends and form almost no cycles (418 unreachable objects after a build of 10,000
    skills): each collection scanned the young ones for nothing, 0.1 s of a 10,000-skill build.
    Paused, not off: a long-lived process (--watch) still collects, between builds."""

    @functools.wraps(run)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        was = gc.isenabled()
        gc.disable()
        try:
            return run(*args, **kwargs)
        finally:
            if was:
                # The build's survivors go to the oldest generation as they are (freeze, then unfreeze:
                # no scan); left young, the first allocation after would scan them all (0.08 s).
                gc.freeze()
                gc.unfreeze()
                gc.enable()

    return paused


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
    # The diagnostics before _finish levelled (--strict), completed and ordered them: the cache keeps
    # them for the next edit build (incremental/carry.py)
    unordered: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return self.artifacts is not None and not dg.has_errors(self.diagnostics)

    @cached_property
    def resolutions(self) -> tuple[Resolution, ...]:
        """Every persona x skill pair, ordered by persona then command (made on demand: a build needs none)."""
        from .model import pairs

        return pairs(self.resolved, tuple(self.program.personas))

    @property
    def summary(self) -> Summary | None:
        if self.artifacts is None:
            return None
        program = self.program
        return Summary(
            len(program.skills), len(program.personas), len(self.artifacts.objects), len(program.left_out)
        )

    @property
    def output(self) -> Path:
        return self.config.root / self.config.output

    @property
    def output_rel(self) -> str:
        return self.config.output


@dataclass(frozen=True)
class Replayed:
    """The build cache proved the output current: no stage after discover ran (none at all, and
    the config was not parsed, when the quick path proved it), and `report` holds what the
    recorded build reported (it had no errors)."""

    root: Path  # the project: the config's folder
    output_rel: str  # the output directory as the config names it
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
        return self.root / self.output_rel


Compilation: TypeAlias = "ConfigFailed | Compiled | Replayed | Edited"  # what a build did


@dataclass(frozen=True)
class Front:
    """Config, template and discovery: what every command reads from disk."""

    config: Config
    template: Template | None
    found: Discovery
    diagnostics: tuple[Diagnostic, ...]  # config, overlap and template problems
    checked: Checked | None = None  # the skills checked as discover read them (discover_checked)


@_uncollected
def compile_project(
    config_path: Path, options: Options = DEFAULTS, *, listdir: Callable[[str], Any] = os.listdir
) -> ConfigFailed | Compiled:
    """Run every stage up to rendering; nothing is written, the cache is not used.

    Raises errors.UsageError. `listdir` stands in for os.listdir (the tests count what is listed).
    """
    head = _head(config_path, options)
    if isinstance(head, ConfigFailed):
        return head
    # Front passed as its only reference: _back lets the inputs' bytes go after the check.
    share = listdir is os.listdir
    return _back(_discovered(head, listdir, options.progress, share=share), None, progress=options.progress)


@dataclass(frozen=True)
class Head:
    """Config and template: what a build checks before it reads any input."""

    config: Config
    template: Template | None
    diagnostics: tuple[Diagnostic, ...]  # config, overlap and template problems


def _discovered(
    head: Head,
    listdir: Callable[[str], Any],
    progress: Progress = silent,
    lstat: Lstat = os.lstat,
    share: bool = False,
    seen: Seen | None = None,
) -> Front:
    """share: a large source is walked, read and checked by two processes (discover_checked); only
    for a build without the memo or with an empty one (a full memo would check most skills for
    nothing) and with a listdir and an lstat that answer alike in a forked process, or `seen`'s."""
    # Not on a replayed build: the cache's walk vouches for it.
    from .stages.discover import discover, discover_checked

    progress(f"discovering {len(head.config.sources)} source(s)")
    if not share:
        return Front(head.config, head.template, discover(head.config, listdir, lstat), head.diagnostics)
    from .stages.skills import walk_checks

    found, checked = discover_checked(head.config, walk_checks(), listdir, lstat, seen)
    return Front(head.config, head.template, found, head.diagnostics, checked)


def _head(config_path: Path, options: Options, given: Config | None = None) -> Head | ConfigFailed:
    """given: the config itself (`skillc build SOURCE -o OUTPUT`, which has no file)."""
    # Imported here: a build the cache's quick path replays parses no YAML and loads no template.
    from .project import config as config_mod
    from .stages.template import load_template

    config, diags = (given, ()) if given is not None else config_mod.load(Path(config_path), options)
    if config is None:
        return ConfigFailed(dg.ordered(diags))
    diags += placement_problems(config)
    template, problems = load_template(config)
    return Head(config, template, diags + problems)


def _back(
    front: Front,
    memo: Memo | None,
    digest: str | None = None,
    progress: Progress = silent,
) -> Compiled:
    """validate -> resolve -> catalogs -> artifacts; `memo` skips unchanged per-file work.

    digest: the build hash when the caller already has it (hashing every input costs).
    A caller that passes its only reference to `front` (`_back(_discovered(...))`) lets the inputs'
    bytes go once the skills are checked and the build hashed: the SKILL.md files are then the
    program's text and the resources are held by the skills (about 120 MB fewer at 100,000 skills).
    """
    # The back end, imported here: a build the cache replays never needs it.
    from .output.assemble import artifacts, personas_digest
    from .output.bounds import over_bounds
    from .stages.buildhash import build_hash
    from .stages.catalog import catalogs
    from .stages.knowledge import knowledge
    from .stages.resolve import resolve
    from .stages.skills import check_skills, checked_first
    from .stages.split import split
    from .stages.validate import kept_by_name, validate

    config, template, head_diags, found = front.config, front.template, front.diagnostics, front.found
    first = checked_first(front.checked) if front.checked else None  # what a split discover checked
    checks = memo.check_skills(first or check_skills) if memo else first
    del front
    policy = Policy(config.severities, config.path_severities)
    progress(f"validating {len(found.skills)} SKILL.md file(s)")
    program = validate(
        found,
        checks,
        skip_invalid=config.skip_invalid,
        policy=policy,
        sources=config.sources,
        targets=tuple(t.name for t in config.targets),
        by_name=kept_by_name(config),
    )
    del checks, first  # the results a split walk made are the program's now: their table goes
    # validate set the levels of its own diagnostics (a skill left out has its errors as warnings:
    # levelling them again would raise them back); the head's and the catalogs' are set here.
    diags = tuple(policy.apply(head_diags)) + program.diagnostics
    if template is not None:
        digest = digest or build_hash(config, found.inputs, template)
    personas_hash = personas_digest(config, found.inputs)
    titles = knowledge(config, found.knowledge)
    del found
    progress(f"resolving {len(program.skills)} skill(s) x {len(program.personas)} persona(s)")
    resolved = resolve(program)
    if template is None:
        return _finish(config, program, resolved, {}, None, diags)
    progress(f"rendering {len(program.personas)} catalog(s) and the index")
    try:
        texts, packings, problems = catalogs(config, program, resolved, template)
        split_doc, unsplit = split(config, program.personas, template)
    except TemplateFailure as exc:
        failed = dg.error(config.template_rel, Code.TEMPLATE, f"template failed while rendering: {exc}")
        return _finish(config, program, resolved, {}, None, (*diags, failed))
    problems += unsplit
    assert digest is not None  # hashed above, with the template
    art = artifacts(
        config, program, resolved, template, texts, packings, digest, split_doc, personas_hash, titles
    )
    problems += over_bounds(art, config.config_rel)
    return _finish(config, program, resolved, packings, art, diags + tuple(policy.apply(problems)))


def _finish(
    config: Config,
    program: Program,
    resolved: Resolved,
    packings: dict[str, Packing],
    art: Artifacts | None,
    diags: tuple[Diagnostic, ...],
) -> Compiled:
    from .stages.report import final_diagnostics

    final = final_diagnostics(config, not program.skills, diags)
    return Compiled(config, program, resolved, packings, art, final, None, diags)


@_uncollected
def build(
    config_path: Path,
    options: Options = DEFAULTS,
    *,
    prune: bool = False,
    cache: bool = True,
    given: Config | None = None,
) -> tuple[Compilation, Written | None]:
    """Compile and write. With `cache`, `<project>/.skillc-cache/` makes rebuilds incremental;
    the output is byte-identical either way. given: the config itself, without a file (then
    without the cache: `skillc build SOURCE -o OUTPUT` writes nothing beside its output)."""
    progress = options.progress
    early = None
    cache = cache and given is None
    if cache:
        progress("checking whether the build is current")
        ahead = None if prune else _edit_ahead  # what the edit build below reads first
        early = quick_replay(Path(config_path), options, prune=prune, meanwhile=ahead)
    hit = quick_hit(early)
    if hit is not None and early is not None and early.hit is not None:
        stats = Stats(replayed=True, unread=True, quick=True)
        summary = Summary(hit.skills, hit.personas, hit.objects, hit.left_out)
        root = Path(config_path).resolve().parent
        quick = early.hit[0].quick
        assert quick is not None  # a quick hit is made from one
        return Replayed(root, quick.output, summary, hit.report, stats), _Unwritten()
    declined = ""
    if cache and early is not None and early.edits and not prune:
        # Inputs changed, the config side did not: maybe only they need be read, nor the config parsed.
        from .incremental import edit_build

        edited = edit_build(early)
        if not isinstance(edited, str):
            return edited
        declined = edited
    if cache:
        progress("loading the config and the template")
    head = _head(config_path, options, given)
    if isinstance(head, ConfigFailed):
        return head, None
    from .output.write import ownership_problem

    config, template = head.config, head.template
    dist = config.root / config.output
    problem = ownership_problem(dist)
    if problem and not dg.has_errors(head.diagnostics):
        # Nothing is written, but every other problem is still reported in this run.
        refused = dg.error(config.output, Code.OUTPUT_NOT_OURS, f"output directory {problem}")
        result = _back(_discovered(head, os.listdir, share=True), None)
        return replace(result, diagnostics=dg.ordered((*result.diagnostics, refused))), None
    door = None
    if cache and template is not None:
        from .incremental import open_session  # the door: past the quick path only
        from .stages.buildhash import build_hash

        config_side = (build_hash(config, (), template), head.diagnostics, template.source)
        door = open_session(config, config_side, options, prune=prune, early=early)
        if door is not None:
            door.stats.declined = declined
    if door is None or template is None:
        with _surveying() as survey:
            result = _owned(_compiled(head, progress, survey))
            return result, _write(result, prune, progress, survey=survey)
    try:
        return _build_cached(head, template, door, prune, progress)
    finally:
        door.end()  # a helper it started (the late walk) never outlives the build


def _compiled(head: Head, progress: Progress, survey: _Surveying) -> Compiled:
    """A build without the cache, from its config on, with the output's objects surveyed from the
    end of discover: the split discover takes both cores, the rest takes one."""
    fronts = [_discovered(head, os.listdir, progress, share=True)]
    survey.start(head.config.root / head.config.output)
    return _back(fronts.pop(), None, progress=progress)


class _Surveying:
    """The helper that checks the output's objects while the build goes on (output/survey.py), for
    a build without the cache's record of them, which would otherwise read each one back."""

    def __init__(self) -> None:
        self.running: Survey | None = None

    def start(self, dist: Path) -> None:
        from .output import survey

        self.running = survey.start(str(dist))

    def known(self, recorded: Mapping[str, list[int]] | None = None) -> Mapping[str, list[int]] | None:
        """What the helper found (it is stopped first), or `recorded` when none was started."""
        return recorded if self.running is None else self.running.known()


@contextmanager
def _surveying() -> Iterator[_Surveying]:
    """A survey that the block may start, ended (its helper stopped and reaped) however it ends."""
    survey = _Surveying()
    try:
        yield survey
    finally:
        if survey.running is not None:
            survey.running.end()


def _edit_ahead(records: Records) -> object:
    """The edit build's module imported and what it reads first read, while the quick path waits
    for the lstats (incremental.ahead)."""
    from .incremental import ahead

    try:
        return ahead(records)
    except Exception:  # a bug here costs only the reading ahead: the edit build reads for itself
        return None


@dataclass(frozen=True)
class _Keyed:
    """A discovery with what the cache keys the build by (incremental.session.Discovered)."""

    front: Front
    build_hash: str
    lines: list[bytes]  # each input's line of the build hash (stages/buildhash.py): the carry keeps them

    @property
    def ignore_files(self) -> tuple[str, ...]:
        return self.front.found.ignore_files

    @property
    def early(self) -> tuple[Diagnostic, ...]:
        # Problems of files discover did not read (escaping links, oversized files) are no input bytes.
        found = self.front.found
        return self.front.diagnostics + found.diagnostics + tuple(d for s in found.skills for d in s.problems)


def _build_cached(
    head: Head, template: Template, door: Session, prune: bool, progress: Progress
) -> tuple[Compilation, Written | None]:
    """The one place the pipeline uses the cache: replay, memo, finish."""
    from .stages.buildhash import hash_lines, input_line

    def discovered(seen: Seen) -> _Keyed:
        # Discover walks through `seen`, which the cache records as the walk the next build checks.
        # A cache with no record of a build to reuse (a first build) checks every skill, as a build
        # without it does: discover shares the walk and the checks with a forked helper then too.
        front = _discovered(head, seen.listdir, progress, seen.lstat, share=door.fresh, seen=seen)
        lines = [input_line(f) for f in front.found.inputs]
        return _Keyed(front, hash_lines(head.config, template.source, lines), lines)

    progress("checking the build cache")
    found = door.replay(discovered)
    if isinstance(found, Hit):
        summary = Summary(found.skills, found.personas, found.objects, found.left_out)
        replayed = Replayed(head.config.root, head.config.output, summary, found.report, door.stats)
        return replayed, _Unwritten()
    memo = door.memo
    from .incremental import Found

    # What the carry needs of the discovery, taken now: `_back` is then handed the front's only
    # reference and lets the inputs' bytes go after the check, as a build without the cache does
    # (at 100,000 skills, hundreds of MB held to the end otherwise).
    kept_of, early, hashed = Found.of(found.front.found, found.lines), found.early, found.build_hash
    fronts = [found.front]
    del found
    with _surveying() as survey:
        if not memo.output_files:  # no record of the output: the helper tells which objects stand
            survey.start(head.config.root / head.config.output)
        result = _owned(replace(_back(fronts.pop(), memo, hashed, progress), cache=door.stats))
        door.save_memo_aside()  # the checks are done: the memo is saved beside the write and record
        written = _write(result, prune, progress, memo.output_files, survey)
    counts = result.summary
    files = result.artifacts.files if written is not None and result.artifacts is not None else None
    progress("recording the build in the cache")
    made_counts = (
        (counts.skills, counts.personas, counts.objects, counts.left_out) if counts else (0, 0, 0, 0)
    )

    def carry(key: str) -> tuple[Carry, Catalog]:
        from .incremental.carry import made

        assert result.artifacts is not None  # written
        return made(
            key,
            result.program,
            result.packings,
            result.unordered,
            result.artifacts,
            kept_of,
            early,
            made_counts,
            head.config,
            (template.source, template.suffix),
        )

    door.finish(files, hashed, made_counts, result.diagnostics, carry)
    return result, written


def check(
    config_path: Path, options: Options = DEFAULTS
) -> tuple[ConfigFailed | Compiled, Comparison | None]:
    """Compile without the cache and compare with the output on disk; nothing is written."""
    from .output.write import compare

    head = _head(config_path, options)
    if isinstance(head, ConfigFailed):
        return head, None
    with _surveying() as survey:
        result = _compiled(head, options.progress, survey)
        if not result.ok or result.artifacts is None:
            return result, None
        return result, compare(result.output, result.artifacts, survey.known())


def _owned(result: Compiled) -> Compiled:
    """The build, with an error per file in the output that skillc did not write (nothing is then
    written, so nothing is removed); see output/ownership.py."""
    from .output.ownership import foreign_files, refusal

    if result.artifacts is None:
        return result
    foreign = foreign_files(result.output, result.artifacts)
    if not foreign:
        return result
    out = result.config.output
    refused = dg.error(out, Code.OUTPUT_NOT_OURS, refusal(out, foreign))
    each = (
        dg.error(f"{out}/{rel}", Code.OUTPUT_NOT_OURS, "not written by skillc: refusing to remove it")
        for rel in foreign
    )
    return replace(result, diagnostics=dg.ordered((*result.diagnostics, refused, *each)))


def _write(
    result: Compiled,
    prune: bool,
    progress: Progress = silent,
    known: Mapping[str, list[int]] | None = None,
    survey: _Surveying | None = None,
) -> Written | None:
    """Write a build without errors; None (nothing written) otherwise. known: see write.compare;
    or what `survey` found, when it was started."""
    from .output.write import write

    if not result.ok or result.artifacts is None:
        return None
    if survey is not None:
        known = survey.known(known)
    progress(f"writing {len(result.artifacts.files)} file(s) to {result.config.output}/")
    return write(result.output, result.artifacts, prune=prune, known=known)
