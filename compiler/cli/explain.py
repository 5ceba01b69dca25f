"""explain: why a persona gets what it gets for a skill, step by step."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from .. import diagnostics as dg
from .. import pipeline, reader, targets
from ..diagnostics.codes import Code
from ..digests import sha256_hex as sha256
from ..model import Config, Resolution, Skill, TargetSetting
from ..names.suggest import did_you_mean
from ..stages.budget import Packing
from ..targets import view
from .boundary import fail
from .invocation import emit, find_config, options
from .shared import COLOR, CONFIG, QUIET, SKIP, VERBOSE_NOTED


@click.command()
@CONFIG
@SKIP
@QUIET
@VERBOSE_NOTED
@COLOR
@click.option(
    "--target",
    "target_names",
    multiple=True,
    type=click.Choice(list(targets.NAMES)),
    help="Also say what this harness does with the skill (repeatable; default: the config's targets).",
)
@click.argument("persona")
@click.argument("command")
def explain(
    config_path: Path | None,
    skip_invalid: bool | None,
    target_names: tuple[str, ...],
    persona: str,
    command: str,
) -> int:
    """Print why PERSONA gets what it gets for COMMAND."""
    result = pipeline.compile_project(find_config(config_path), options(skip_invalid=skip_invalid))
    if isinstance(result, pipeline.ConfigFailed):
        emit(result.diagnostics)
        return 1
    program = result.program
    if persona not in program.personas:
        fail(f"unknown persona {persona!r}{_known(persona, program.personas, 'persona(s)')}", 1)
    hit = next((r for r in result.resolutions if r.persona == persona and r.command == command), None)
    if hit is None:
        _explain_missing(result, persona, command)
        return 1
    _explain(result, hit)
    _explain_targets(result.config, target_names, persona, command)
    return 0


def _explain_targets(config: Config, names: tuple[str, ...], persona: str, command: str) -> None:
    """What each harness does with the skill, read from the last build in the output directory."""
    settings = {t.name: t for t in config.targets}
    chosen = names or tuple(settings)
    if not chosen:
        return
    try:
        dist = reader.open(config.root / config.output)
    except reader.ReaderError:
        click.echo(f"  targets: no build in {config.output}/ (run `skillc build`)")
        return
    for name in chosen:
        setting = settings.get(name, TargetSetting(name))
        budget = view.budget_for(name, setting.window, setting.chars, config.budget_priority)
        listing = view.listing_for(dist, name, persona, budget, config.root)
        click.echo(dg.printable("  " + view.explain(listing, command, name, budget)))


def _explain_missing(result: pipeline.Compiled, persona: str, command: str) -> None:
    program = result.program
    p = program.personas[persona]
    invalid = dict(program.invalid)
    if command in invalid:
        outcome = (
            "left out of the build (--skip-invalid is on)"
            if result.config.skip_invalid
            else "the build fails until they are fixed"
        )
        click.echo(
            dg.printable(
                f"{persona} x {command}: the skill has errors ({', '.join(invalid[command])}); {outcome}:"
            ),
            err=True,
        )
        emit(_errors_of(result, command))
    elif command in program.skills:
        click.echo(
            dg.printable(
                f"{persona} x {command}: not visible: the persona's allowlist does not name it "
                f"({p.manifest_rel}: skills)"
            ),
            err=True,
        )
    else:
        fail(f"unknown skill {command!r}{_known(command, program.skills, 'valid skill(s)')}", 1)


def _known(word: str, names: Iterable[str], what: str) -> str:
    """Close matches and a count, never the whole list: a tree may hold thousands of skills."""
    names = sorted(names)
    return f"{did_you_mean(word, names)}; the build has {len(names)} {what}"


def _errors_of(result: pipeline.Compiled, command: str) -> list[dg.Diagnostic]:
    """The errors reported on a skill's own folder (its SKILL.md, resources, exclusive bodies)."""
    folders = tuple(f"{src}/{command}/" for src in result.config.sources)
    return [d for d in result.diagnostics if d.path.startswith(folders) and d.code != Code.SKIPPED_INVALID]


def _explain(result: pipeline.Compiled, r: Resolution) -> None:
    program = result.program
    persona = program.personas[r.persona]
    skill = program.skills[r.command]
    packing = result.packings.get(r.persona)
    chain = " -> ".join((persona.id, *persona.chain))
    lines = [
        f"{r.persona} x {r.command}",
        f"  persona: {persona.name} ({persona.manifest_rel or 'implicit'}); fallback chain: {chain}; "
        f"unrestricted_skills: {str(persona.unrestricted).lower()}",
        f"  skill: {skill.path} (source {result.config.sources[skill.source]!r})",
        "  allowlist: "
        + ("every skill" if persona.allowlist is None else "named in the persona's skills list"),
        *(f"  {step}" for step in r.trace),
    ]
    if packing is not None and r.model:
        lines.append("  catalog: " + _catalog_reason(packing, skill))
    lines.append(
        f"  result: access={r.access}"
        + (f" via {r.via}" if r.via else "")
        + f", body sha256 {sha256(r.body.encode('utf-8'))[:16]}, overlay {r.overlay or 'none'}"
    )
    # Names, paths and manifest values are untrusted: printed escaped, like diagnostics.
    click.echo("\n".join(dg.printable(line) for line in lines))


def _catalog_reason(packing: Packing, skill: Skill) -> str:
    """Why the budget kept, cut or shortened this skill's catalog entry."""
    how = f"budget {packing.budget} characters, strategy {packing.strategy}"
    rank = f"priority rank {packing.ranks.get(skill.command, '?')} of {len(packing.ranks)}"
    if skill.command not in packing.included:
        return (
            f"left out: the catalog is over its budget ({how}); {rank}, and every skill ranked "
            f"below it was cut first (always first, then budgets.priority, then command order)"
        )
    if skill.command in packing.descriptions:
        short = packing.descriptions[skill.command]
        what = "description removed" if not short else f"description shortened to {len(short)} characters"
        return f"included, {what} to fit ({how}); {rank}"
    return "included" + (" (always: true)" if skill.flag("always") else "") + f"; {how}"
