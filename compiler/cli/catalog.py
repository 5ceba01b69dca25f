"""catalog --target: the skill listing a harness shows the model, predicted from the build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .. import reader, targets
from ..diagnostics import printable
from ..errors import UsageError
from ..model import MAX_CHARS, MAX_WINDOW, Config, TargetSetting
from ..names.suggest import did_you_mean
from ..project import config as config_mod
from ..targets import view
from ..targets.model import Entry, Listing
from .boundary import fail
from .invocation import emit, find_config
from .shared import CONFIG, dist_option


@click.command()
@CONFIG
@click.option(
    "--target", "target", required=True, type=click.Choice(list(targets.NAMES)), help="The harness."
)
@click.option("--persona", required=True, help="The persona whose export the harness loads.")
@click.option("--window", type=click.IntRange(1, MAX_WINDOW), help="The model's context window, in tokens.")
@click.option(
    "--chars", type=click.IntRange(1, MAX_CHARS), help="claude-code: the listing budget in characters."
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@dist_option("Read")
@click.option(
    "--project",
    "project",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder the export is in (`skillc export ... DIR`), for the paths the listing shows; "
    "default: the project root.",
)
def catalog(
    config_path: Path | None,
    target: str,
    persona: str,
    window: int | None,
    chars: int | None,
    fmt: str,
    dist_path: Path | None,
    project: Path | None,
) -> int:
    """Print the skill listing TARGET shows the model for PERSONA's export (docs/targets.md)."""
    config, dist, budget = for_target(config_path, dist_path, target, window, chars)
    known_persona(dist, persona)
    listing = view.listing_for(dist, target, persona, budget, project.absolute() if project else config.root)
    click.echo(listing.text if fmt == "text" else _json(target, persona, budget, listing))
    for entry in listing.entries:  # what the export changed or left out for listing injection
        if entry.injection or entry.reason.startswith(view.NOT_EXPORTED + "listing injection"):
            why = entry.injection or entry.reason.removeprefix(view.NOT_EXPORTED)
            click.echo(printable(f"skillc: warning: {target}: {entry.command!r}: {why}"), err=True)
    return 0


def for_target(
    config_path: Path | None, dist_path: Path | None, target: str, window: int | None, chars: int | None
) -> tuple[Config, reader.Dist, view.Budget]:
    """The config, the build (exit 1 when there is none) and the target's budget: the command line's
    window or chars, else the config's `targets:` setting, else the harness's default (catalog, export)."""
    config = load_config(config_path)
    setting = next((t for t in config.targets if t.name == target), TargetSetting(target))
    try:
        dist = reader.open(dist_path or config.root / config.output)
    except reader.ReaderError as exc:
        fail(f"{exc} (run `skillc build` first)", 1)
    budget = view.budget_for(target, window or setting.window, chars or setting.chars, config.budget_priority)
    return config, dist, budget


def known_persona(dist: reader.Dist, persona: str) -> None:
    if persona not in dist.personas():
        raise UsageError(f"unknown persona {persona!r}{did_you_mean(persona, dist.personas())}")


def load_config(config_path: Path | None) -> Config:
    """The project's config, or exit 1 with its problems printed (catalog, export)."""
    loaded, problems = config_mod.load(find_config(config_path))
    if loaded is None:
        emit(problems)
        fail("the config does not load", 1)
    return loaded


def _json(target: str, persona: str, budget: view.Budget, listing: Listing) -> str:
    doc = {
        "target": target,
        "persona": persona,
        "budget": budget.json(),
        "text": listing.text,
        "skills": [_skill(e) for e in listing.entries],
        "builtins": list(listing.builtins),
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


def _skill(entry: Entry) -> dict[str, Any]:
    return {
        "command": entry.command,
        "name": entry.name,
        "listed": entry.listed,
        "description": entry.description,
        "status": entry.status.value,
        "reason": entry.reason,
        "injection": entry.injection,
    }
