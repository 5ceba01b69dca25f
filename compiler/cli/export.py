"""export --target: write the project tree a harness loads, for one persona or each of them."""

from __future__ import annotations

from pathlib import Path

import click

from .. import targets
from ..diagnostics import printable
from ..errors import UsageError
from ..model import MAX_CHARS, MAX_WINDOW
from ..output import placement
from ..output.export import write_export
from ..targets import export as export_mod
from ..targets import view
from .boundary import fail
from .catalog import for_target, known_persona
from .shared import CONFIG, dist_option


@click.command()
@CONFIG
@click.option(
    "--target", "target", required=True, type=click.Choice(list(targets.NAMES)), help="The harness."
)
@click.option("--persona", help="The persona whose skills DEST gets.")
@click.option("--all-personas", is_flag=True, help="One project folder per persona: DEST/<persona>/.")
@click.option(
    "--window",
    type=click.IntRange(1, MAX_WINDOW),
    help="claude-code: the model's context window, for budgets.priority.",
)
@click.option(
    "--chars", type=click.IntRange(1, MAX_CHARS), help="claude-code: the listing budget in characters."
)
@dist_option("Read")
@click.argument("dest", type=click.Path(path_type=Path))
def export(
    config_path: Path | None,
    target: str,
    persona: str | None,
    all_personas: bool,
    window: int | None,
    chars: int | None,
    dist_path: Path | None,
    dest: Path,
) -> int:
    """Write into the project folder DEST what TARGET loads as project skills (docs/targets.md#export)."""
    if (persona is None) == (not all_personas):
        raise UsageError("give either --persona PERSONA or --all-personas")
    config, dist, budget = for_target(config_path, dist_path, target, window, chars)
    if persona is not None:
        known_persona(dist, persona)
    personas = dist.personas() if all_personas else [persona or ""]
    plan = export_mod.plan(dist, target, personas, per_persona=all_personas, budget=budget)
    for warning in plan.warnings:
        click.echo(printable(f"skillc: warning: {warning}"), err=True)
    places = [*placement.places(config), ("the build it exports", Path(dist.path))]
    try:
        changed = write_export(dest.absolute(), plan.export, places)
    except OSError as exc:  # disk full, permissions: the project is as it was
        fail(f"{dest}: cannot write the export: {exc.strerror or exc}; nothing was changed", 1)
    where = f"{dest}/<persona>/{view.ROOTS[target]}" if all_personas else f"{dest}/{view.ROOTS[target]}"
    state = "exported" if changed else "already current:"
    click.echo(
        f"{state} {plan.skills} skill(s) for {target}, {len(personas)} persona(s), in {where}", err=True
    )
    return 0
