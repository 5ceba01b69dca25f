"""Small helpers for the hostile-input tests: build a project tree, run the CLI.

Self-contained on purpose (no shared conftest fixtures): every test states the
whole tree it builds.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from skillc.cli import cli

DIAG = re.compile(
    r"^(?P<path>.*):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>SKC\d{3})\]: (?P<msg>.*)$"
)

CONFIG = "format: 1\nsources:\n  - skills\noutput: dist\n"
CONFIG_PERSONAS = CONFIG + "personas: personas\n"


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


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write files (POSIX relative paths) below root; str is written as UTF-8 verbatim."""
    for rel, content in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
    return root


def skill_md(description: str = "Does a thing.", body: str = "Do the thing.\n", **fields: str) -> str:
    """A SKILL.md with the given (already YAML-formatted) extra fields."""
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"---\ndescription: {description}\n{extra}---\n{body}"


def project(root: Path, files: dict[str, str | bytes], config: str = CONFIG) -> Path:
    """A project: skillc.yaml plus files; returns the config path."""
    make_tree(root, {"skillc.yaml": config, **files})
    return root / "skillc.yaml"


def run(*args: str, config: Path) -> Run:
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
    return run("build", *extra, config=config)


def snapshot(dist: Path) -> dict[str, bytes]:
    """Every file below dist (relative POSIX path -> bytes); {} when absent."""
    if not dist.is_dir():
        return {}
    out: dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(dist):
        for name in names:
            full = Path(dirpath) / name
            out[full.relative_to(dist).as_posix()] = full.read_bytes()
    return out


def tree_digest(root: Path) -> dict[str, str]:
    """Every path below root (files, dirs, links) -> a short fingerprint."""
    out: dict[str, str] = {}
    for dirpath, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                out[rel] = "link:" + os.readlink(full)
            elif full.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(full.read_bytes()).hexdigest()[:16]
    return out
