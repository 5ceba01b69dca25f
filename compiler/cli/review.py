"""diff and audit: what changed between two builds, and what a build's skills can do."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from .. import reader, review, targets
from ..diagnostics import Diagnostic
from ..diagnostics import formats as report
from ..errors import BuildFailed, NoBuild, UsageError
from ..model import TargetSetting
from ..options import Options
from ..project import config as config_mod
from ..review import gitrefs
from ..targets import view
from .boundary import fail
from .invocation import emit, find_config
from .shared import COLOR, CONFIG, QUIET, dist_option

# Exit codes, as `git diff` documents its own: 0 no change (or changes, without --exit-code or
# --fail-on); 1 changes (with --exit-code) or a capability change (with --fail-on capabilities);
# 2 usage (a wrong option, a ref that names no commit); 3 a side is not a build (a missing directory,
# a directory that is not a build, a project that does not compile at a ref).
CHANGED = 1


@click.command()
@click.argument("builds", nargs=-1)
@click.option(
    "--git",
    "use_git",
    is_flag=True,
    help="BUILDS are git refs: compile the project at REF (and REF2, else the working tree) and compare.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True
)
@click.option("--exit-code", is_flag=True, help="Exit 1 when the builds differ at all.")
@click.option(
    "-q", "--quiet", is_flag=True, help="Print no review; implies --exit-code (as `git diff --quiet`)."
)
@click.option(
    "--fail-on",
    type=click.Choice(["capabilities"]),
    default=None,
    help="Exit 1 only when a capability changes (capability field, audit finding, bundled script).",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="With --git: leave out skills with errors at either ref (said on stderr) instead of failing.",
)
@click.option(
    "--target",
    "target_names",
    multiple=True,
    type=click.Choice(list(targets.NAMES)),
    help="Also report skills whose place in this harness's listing changes (repeatable; with --git,"
    " default: the config's targets).",
)
@CONFIG
def diff(
    builds: tuple[str, ...],
    use_git: bool,
    fmt: str,
    exit_code: bool,
    quiet: bool,
    fail_on: str | None,
    skip_invalid: bool,
    target_names: tuple[str, ...],
    config_path: Path | None,
) -> int:
    """Compare two builds: OLD_DIST NEW_DIST, or --git REF [REF2].

    Exit status: 0 no change (or changes, without --exit-code or --fail-on); 1 changes with
    --exit-code, or a capability change with --fail-on capabilities; 2 usage; 3 a side is not a build
    (missing, not a build, or the project does not compile there).
    """
    if skip_invalid and not use_git:
        raise UsageError("--skip-invalid applies to --git, where skillc builds each side")
    notes: list[Diagnostic] = []
    with tempfile.TemporaryDirectory(prefix="skillc-diff-") as scratch:
        old, new = _diff_inputs(
            builds, use_git, config_path, Path(scratch), Options(skip_invalid=skip_invalid), notes
        )
        report.emit(tuple(notes), "text", summary=False)  # stderr: stdout is the review
        labels = ("the base build", "the new build") if use_git else (repr(builds[0]), repr(builds[1]))
        chosen = _targets(target_names, use_git, config_path)
        result = review.compare(_open(old, labels[0]), _open(new, labels[1]), chosen)
    render = {"text": review.render_text, "markdown": review.render_markdown, "json": review.render_json}[fmt]
    if quiet:
        exit_code = True
    else:
        click.echo(render(result), nl=False)
    return (
        CHANGED
        if (fail_on == "capabilities" and result.capability_changes) or (exit_code and result.changes)
        else 0
    )


def _targets(
    names: tuple[str, ...], use_git: bool, config_path: Path | None
) -> tuple[tuple[str, view.Budget], ...]:
    """The harnesses to review, each with its budget: the config's settings where it has them."""
    settings: dict[str, TargetSetting] = {}
    priority: tuple[str, ...] = ()
    if use_git or config_path is not None:
        loaded, _ = config_mod.load(find_config(config_path))
        settings = {t.name: t for t in loaded.targets} if loaded is not None else {}
        priority = loaded.budget_priority if loaded is not None else ()
    chosen = names or (tuple(settings) if use_git else ())
    given = [(n, settings.get(n, TargetSetting(n))) for n in chosen]
    return tuple((n, view.budget_for(n, s.window, s.chars, priority)) for n, s in given)


def _open(path: Path, label: str) -> reader.Dist:
    """A side of the comparison: a missing folder and one that is not a build fail alike (exit 3)."""
    if not path.is_dir():
        raise NoBuild(f"{label} is not a directory")
    try:
        return reader.open(path)
    except reader.ReaderError as exc:
        raise NoBuild(f"{label} is not a build skillc can read: {exc}") from None


def _diff_inputs(
    builds: tuple[str, ...],
    use_git: bool,
    config_path: Path | None,
    scratch: Path,
    options: Options,
    notes: list[Diagnostic],
) -> tuple[Path, Path]:
    if not use_git:
        if len(builds) != 2:
            raise UsageError("give two build directories (OLD_DIST NEW_DIST), or --git REF [REF2]")
        return Path(builds[0]), Path(builds[1])
    if len(builds) not in (1, 2):
        raise UsageError("--git takes one ref (compared with the working tree) or two")
    config = find_config(config_path).resolve()
    root = gitrefs.repository_root(config.parent)
    config_rel = config.relative_to(root)
    outputs = []
    refs = (*builds, None) if len(builds) == 1 else builds
    for i, ref in enumerate(refs):
        tree = scratch / f"tree{i}"
        tree.mkdir()
        if ref is None:
            gitrefs.copy_worktree(root, tree, config_rel)
        else:
            gitrefs.checkout(root, gitrefs.resolve_ref(root, ref), tree, config_rel)
        side = "the working tree" if ref is None else f"{'the base ' if i == 0 else ''}{ref!r}"
        try:
            outputs.append(gitrefs.build_tree(tree, config_rel, options, notes))
        except BuildFailed as exc:
            raise BuildFailed(f"{side}: {exc}") from None
    return outputs[0], outputs[1]


@click.command()
@CONFIG
@dist_option("Audit")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@QUIET
@COLOR
def audit(config_path: Path | None, dist_path: Path | None, fmt: str) -> int:
    """List what every skill can do: tool grants, dynamic context, hooks, executables, hidden text."""
    if dist_path is None:
        loaded, problems = config_mod.load(find_config(config_path))
        if loaded is None:
            emit(problems)
            return 1
        dist_path = loaded.root / loaded.output
    try:
        findings = review.AuditReport(review.audit(reader.open(dist_path)))
    except reader.ReaderError as exc:
        fail(f"{exc} (run `skillc build` first)", 1)
    click.echo(findings.json() if fmt == "json" else findings.text(), nl=False)
    return 0
