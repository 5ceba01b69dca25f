"""serve: one build over MCP for one persona (compiler/serve/, docs/serve.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from ..errors import UsageError
from ..names.suggest import did_you_mean
from .boundary import fail
from .shared import CONFIG

MCP_MISSING = (
    "skillc serve needs the MCP Python SDK, an optional extra: pip install 'skillc[mcp]' "
    "(or pip install mcp into skillc's environment)"
)


@click.command()
@CONFIG
@click.option("--persona", required=True, help="The persona whose skills are served.")
@click.option(
    "--http",
    "address",
    metavar="[HOST:]PORT",
    default=None,
    help="Serve streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1; PORT 0 takes a "
    "free one) instead of stdio.",
)
@click.option(
    "--tools",
    "with_tools",
    is_flag=True,
    help="Add the list_skills and load_skill tools, for hosts without the extension.",
)
@click.argument("dist", required=False, type=click.Path(file_okay=False, path_type=Path))
def serve(
    config_path: Path | None, persona: str, address: str | None, with_tools: bool, dist: Path | None
) -> int:
    """Serve PERSONA's skills of the build DIST over MCP, with the Skills Extension (default DIST:
    the config's output)."""
    where = address and _address(address)
    if importlib.util.find_spec("mcp") is None:
        fail(MCP_MISSING, 1)
    from .. import reader
    from ..serve import builds as builds_mod
    from ..serve import run

    try:
        builds = builds_mod.Builds(str(dist or _output(config_path)), persona)
    except reader.ReaderError as exc:
        fail(f"{exc} (run `skillc build` first)", 1)
    known = builds.latest().dist.personas()
    if persona not in known:
        raise UsageError(f"unknown persona {persona!r}{did_you_mean(persona, known)}")
    if where:
        run.http(
            builds, with_tools, where[0], where[1], lambda url: _say(f"skillc: serving {persona} on {url}")
        )
    else:
        run.stdio(builds, with_tools, lambda: _say(f"skillc: serving {persona} on stdio"))
    return 0


def _say(text: str) -> None:
    click.echo(text, err=True)


def _output(config_path: Path | None) -> Path:
    from .catalog import load_config

    config = load_config(config_path)
    return config.root / config.output


def _address(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPv6]:PORT`."""
    host, _, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if (
        not port.isdigit()
        or not 0 <= int(port) <= 65535
        or (host and ":" in host and not text.startswith("["))
    ):
        raise UsageError(f"--http {text!r}: expected [HOST:]PORT, PORT a number from 0 to 65535")
    return host or "127.0.0.1", int(port)
