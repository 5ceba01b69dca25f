"""The distribution as users get it: a wheel installed non-editable, and an sdist that tests itself."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
from support.files import REPO, write_tree
from support.project import skill_md


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build the sdist, then the wheel from it (python -m build): what `pip install skillc` would get."""
    out = tmp_path_factory.mktemp("dists")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


@pytest.fixture(scope="module")
def installed(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed (not editable) into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(dists["wheel"]),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return target


def _python(installed: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Python with only the installed wheel and skillc's dependencies on its path.

    -S skips site-packages' .pth files, so the editable install of this checkout cannot answer
    `import skillc`; the dependencies are found in the plain site-packages folder.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), sysconfig.get_paths()["purelib"]])}
    return subprocess.run(
        [sys.executable, "-S", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_wheel_holds_one_package_named_skillc(dists: dict[str, Path]) -> None:
    names = zipfile.ZipFile(dists["wheel"]).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"skillc", "skillc-0.1.0.dist-info"}, tops
    for needed in (
        "skillc/py.typed",
        "skillc/reader/__init__.py",
        "skillc/format/layout.py",
        "skillc/templates/catalog.xml.j2",
        "skillc/templates/catalog.md.j2",
        "skillc/schemas/frontmatter.schema.json",
    ):
        assert needed in names
    assert any(n.endswith("licenses/LICENSE") for n in names)


def test_installed_wheel_builds_a_project_without_templates(installed: Path, tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"skillc.yaml": "sources: [.claude/skills]\n", ".claude/skills/hello/SKILL.md": skill_md("hello")},
    )
    proc = _python(installed, "-m", "skillc", "build", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    code = (
        f"import skillc, skillc.reader as r; assert skillc.__file__.startswith({str(installed)!r}), skillc.__file__; "
        "d = r.open('dist'); p = d.personas()[0]; print(d.catalog(p)); print(d.load(p, 'hello').body)"
    )
    proc = _python(installed, "-c", code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Do the thing." in proc.stdout
    assert "<available_skills>" in proc.stdout  # the built-in template, shipped as package data


def test_sdist_runs_its_own_tests(dists: dict[str, Path], installed: Path, tmp_path: Path) -> None:
    with tarfile.open(dists["sdist"]) as tar:
        tar.extractall(tmp_path, filter="data")
    root = next(tmp_path.glob("skillc-*"))
    for needed in ("tests/conftest.py", "skills", "dist/_index.json", "skillc.yaml", "LICENSE"):
        assert (root / needed).exists(), needed
    proc = _python(
        installed,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/unit",
        "tests/e2e/test_severity.py",
        cwd=root,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout
