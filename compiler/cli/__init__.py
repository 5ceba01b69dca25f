"""The skillc command line: a thin layer over the pipeline, the reader and review.

Each command lives in a module by what it does (build.py, explain.py, review.py, project.py);
boundary.py is the one place failures become messages and exit codes.
"""

from __future__ import annotations

import gc
from pathlib import Path

import click

from .. import __version__
from .boundary import Group, guarded
from .build import build, check, validate
from .explain import explain
from .project import codes, init, vendor_reader
from .review import audit, diff
from .shared import COLOR, CONFIG_HELP

GC_THRESHOLD = (50_000, 20, 100)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillc")
@click.option(
    "--config", "config_path", default=None, type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP
)
@COLOR
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None) -> None:
    """skillc: compile agent skills into immutable, deterministic artifacts."""
    ctx.obj = config_path  # `skillc --config X build` and `skillc build --config X` both work


for command in (build, validate, check, init, explain, diff, audit, codes, vendor_reader):
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    # A build allocates hundreds of thousands of long-lived objects and frees
    # little; the default gen-0 threshold (700) rescans them thousands of times.
    # Measured at 10,000 skills: 7% faster, same peak memory. CLI process only (bench/ sets it too).
    gc.set_threshold(*GC_THRESHOLD)
    guarded(cli, argv)
