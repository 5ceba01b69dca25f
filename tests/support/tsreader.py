"""The TypeScript reader (readers/typescript) from a test: node, and the package built from its
sources. Tests that run it skip when node or the package's dev dependencies (`npm ci` there) are
missing; the package is rebuilt when a source is newer than its build."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.files import REPO

PACKAGE = REPO / "readers" / "typescript"
BUILD = PACKAGE / "build"
ENTRY = BUILD / "skillc-reader.js"


def node() -> str:
    """The node program, once the package (and the test hosts it compiles) is built; else a skip."""
    program = shutil.which("node")
    if program is None:
        pytest.skip("node is not installed")
    built = [BUILD / "test" / "hosts" / "v1.js", BUILD / "skillc-reader-core.js", ENTRY]
    sources = [*PACKAGE.glob("src/*.ts"), *PACKAGE.glob("test/**/*.ts"), *PACKAGE.glob("scripts/*.mjs")]
    newest = max(p.stat().st_mtime for p in sources)
    if all(p.exists() and p.stat().st_mtime >= newest for p in built):
        return program
    if not (PACKAGE / "node_modules" / ".bin" / "tsc").exists():
        pytest.skip("the TypeScript reader is not built: run `npm ci` in readers/typescript")
    subprocess.run(["npm", "run", "build"], cwd=PACKAGE, check=True, capture_output=True)
    return program


def run_json(program: str, argv: list[str | Path]) -> Any:
    """What a node program printed (JSON); its failure fails the test with its stderr."""
    done = subprocess.run([program, *map(str, argv)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def module(program: str, code: str, *args: str | Path) -> Any:
    """An ES module run by node (`reader` is the package, `args` its arguments); what it printed."""
    head = f"import * as reader from {json.dumps(ENTRY.as_uri())};\nconst args = process.argv.slice(1);\n"
    return run_json(program, ["--input-type=module", "-e", head + code, *args])
