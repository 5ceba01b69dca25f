"""Running the command line in-process: its plain output, or a `Run` with the diagnostics parsed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from skillc.cli import cli

DIAG = re.compile(
    r"^(?P<path>.*):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>SKC\d{3})\]: (?P<msg>.*)$"
)


@dataclass(frozen=True)
class Diag:
    path: str
    line: int
    col: int
    severity: str
    code: str
    message: str


@dataclass(frozen=True)
class Run:
    exit_code: int
    stderr: str
    stdout: str
    diags: tuple[Diag, ...]
    exception: BaseException | None

    def codes(self) -> set[str]:
        return {d.code for d in self.diags}

    def find(self, code: str) -> list[Diag]:
        return [d for d in self.diags if d.code == code]

    def one(self, code: str) -> Diag:
        hits = self.find(code)
        assert len(hits) == 1, f"expected one {code}, got {hits}\n{self.stderr}"
        return hits[0]


def run(*args: str) -> tuple[int, str]:
    """The exit code and the output (stdout and stderr mixed); an exception propagates."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def invoke(*args: str, config: Path) -> Run:
    """`skillc ARGS --config CONFIG`, its streams apart and its diagnostics parsed; an exception is kept."""
    result = CliRunner().invoke(cli, [*args, "--config", str(config)], catch_exceptions=True)
    stderr = result.stderr
    diags = tuple(
        Diag(m["path"], int(m["line"]), int(m["col"]), m["sev"], m["code"], m["msg"])
        for m in map(DIAG.match, stderr.splitlines())
        if m
    )
    exc = result.exception if not isinstance(result.exception, SystemExit) else None
    return Run(result.exit_code, stderr, result.stdout, diags, exc)


def build(config: Path, *extra: str) -> Run:
    return invoke("build", *extra, config=config)
