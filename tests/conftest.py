"""Shared helpers: build small projects in a temp dir and run the CLI on them."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile_util import snapshot  # noqa: F401  (re-exported: one way to read a dist/)

from skillc.cli import cli

REPO = Path(__file__).resolve().parent.parent
pytest_plugins = ["cwd_plugin"]  # run from the test's tmp_path: paths are shown from there (issue 17)


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def skill_md(
    name: str | None,
    description: str = "Does a thing. Use when a thing is needed.",
    body: str = "Do the thing.\n",
    **fields: object,
) -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    lines.append(f"description: {description}")
    for key, value in fields.items():
        key = key.replace("__", "-")
        if isinstance(value, bool):
            value = "true" if value else "false"
        lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


CONFIG = """\
format: 1
sources: [src]
personas: personas
output: dist
"""


def project(root: Path, files: Mapping[str, str | bytes], config: str | None = None) -> Path:
    """A project with a config at root/skillc.yaml; returns the config path."""
    cfg = config if config is not None else CONFIG
    write_tree(root, {"skillc.yaml": cfg, **files})
    (root / "src").mkdir(exist_ok=True)
    (root / "personas").mkdir(exist_ok=True)
    return root / "skillc.yaml"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(autouse=True)
def _private_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build cache keeps a per-user key under XDG_CACHE_HOME; tests never touch the real one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
