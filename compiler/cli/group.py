"""The `skillc` group: its own options, and each command imported from its module when it runs."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from .. import __version__
from .boundary import contained, said_interrupted
from .shared import COLOR, CONFIG_HELP

# Each command by its module: a run imports only the module of the command it runs (a no-op
# build does not pay for review, git or the vendoring code).
COMMANDS = {
    "build": ("build", "build"),
    "validate": ("build", "validate"),
    "check": ("build", "check"),
    "init": ("project", "init"),
    "explain": ("explain", "explain"),
    "catalog": ("catalog", "catalog"),
    "export": ("export", "export"),
    "serve": ("serve", "serve"),
    "diff": ("review", "diff"),
    "audit": ("review", "audit"),
    "codes": ("project", "codes"),
    "vendor-reader": ("project", "vendor_reader"),
}


class Group(click.Group):
    """click's group, with skillc's exit codes and its error boundary around every command."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        contained(lambda: self._clicked(args, prog_name, complete_var, **extra))

    def _clicked(
        self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None, **extra: Any
    ) -> Any:
        """click's own run of the command line, its failures made skillc's."""
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:  # click's name for KeyboardInterrupt (and EOF at a prompt)
            said_interrupted()
        except click.ClickException as exc:
            exc.show()
            raise SystemExit(exc.exit_code) from None


class _Commands(Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = COMMANDS.get(cmd_name)
        if found is None:
            return None
        command = getattr(importlib.import_module(f".{found[0]}", __package__), found[1])
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillc")
@click.option(
    "--config", "config_path", default=None, type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP
)
@COLOR
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None) -> None:
    """skillc: compile agent skills into immutable, deterministic artifacts."""
    ctx.obj = config_path  # `skillc --config X build` and `skillc build --config X` both work
