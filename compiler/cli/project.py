"""init, codes and vendor-reader: set a project up, list the codes, hand an application the reader."""

from __future__ import annotations

from pathlib import Path

import click

from .. import diagnostics as dg
from ..diagnostics.codes import lowerable
from ..project import init as init_mod
from ..reader import vendor
from .invocation import working_directory


@click.command()
@click.option(
    "--preset",
    type=click.Choice(sorted(init_mod.PRESETS)),
    default=None,
    help="Layout to configure; default: detected from the folders present.",
)
def init(preset: str | None) -> None:
    """Write a commented skillc.yaml for this directory (never over an existing one)."""
    target, chosen = init_mod.write(working_directory(), preset)
    click.echo(
        f"skillc: wrote {target.name} ({chosen.summary}: {', '.join(chosen.sources)}); next: `skillc build`",
        err=True,
    )


@click.command()
def codes() -> None:
    """List every diagnostic code; `lowerable` marks spec-conformance codes a setting may lower
    (to warning or ignore); every other code is integrity and can only be raised."""
    for code, text in dg.CODES.items():
        kind = "lowerable" if lowerable(code) else "integrity"
        click.echo(f"{code}  {kind:<9}  {text}")


@click.command("vendor-reader")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def vendor_reader(out: Path) -> None:
    """Write the reader as one stdlib-only Python file OUT, for an application to copy.

    Rewrites a file it wrote before; never one it did not write.
    """
    vendor.write(out)
    click.echo(f"skillc: wrote {out} (the skillc reader, standard library only)", err=True)
