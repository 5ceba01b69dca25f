"""Issue 17's acceptance, end to end: a fresh Python project installs skillc from a wheel, configures
it in pyproject.toml, builds, commits, and passes `skillc check` on a fresh clone, as CI would.

It builds the sdist and wheel itself (`python -m build`, which must print no warning), so it runs in
the normal suite: about 10-20 s, most of it the build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support.files import REPO, write_tree
from support.project import skill_md

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "skillc test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "skillc test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,  # the machine's git config (hooks, templates) plays no part
    "GIT_CONFIG_NOSYSTEM": "1",
}

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "my-agent"
version = "0.1.0"

[tool.skillc]
sources = ["skills"]
output = "skillc-dist"
"""

GITIGNORE = """\
__pycache__/
node_modules/
dist/
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build` of this checkout, asserted quiet: no line of its output is a warning."""
    out = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # setuptools warns that it cannot byte-compile otherwise
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    warnings = [line for line in (proc.stdout + proc.stderr).splitlines() if "warning" in line.lower()]
    assert warnings == [], "\n".join(warnings)
    return next(out.glob("*.whl"))


@pytest.fixture(scope="module")
def skillc(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path]:
    """The command that runs the installed wheel's skillc, and the folder it is installed in.

    `python -S` with PYTHONPATH (see `run`): the editable install of this checkout cannot answer."""
    site = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return [sys.executable, "-S", "-m", "skillc"], site


def run(argv: list[str], cwd: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), sysconfig.get_paths()["purelib"]])
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_fresh_project_builds_commits_and_checks_on_a_fresh_clone(
    skillc: tuple[list[str], Path], tmp_path: Path
) -> None:
    command, site = skillc
    project = tmp_path / "my-agent"
    write_tree(
        project,
        {
            "pyproject.toml": PYPROJECT,
            ".gitignore": GITIGNORE,
            "skills/greet/SKILL.md": skill_md("greet"),
            "skills/greet/scripts/greet.py": "print('hello')\n",
            # What running the script and installing a tool leave behind: git-ignored, never bundled.
            "skills/greet/scripts/__pycache__/greet.cpython-311.pyc": b"\x00\x01",
            "skills/greet/node_modules/left-pad/index.js": "module.exports = 1\n",
        },
    )
    for argv in (
        ["git", "init", "-q"],
        [*command, "build"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "skills"],
    ):
        proc = run(argv, project, site)
        assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
    assert (project / "skillc-dist").is_dir() and not (project / "dist").exists()

    clone = tmp_path / "clone"
    proc = run(["git", "clone", "-q", str(project), str(clone)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = run([*command, "check", "--strict", "--format", "github"], clone, site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""  # no annotation
    proc = run([*command, "check"], clone, site)
    assert proc.returncode == 0 and "is current" in proc.stderr, proc.stderr
