"""Where the output may go, and a damaged output repaired rather than trusted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.cli import run
from support.files import GOLDEN_PROJECT, snapshot
from support.project import skill_md, src_project

from skillc.pipeline import build


def _golden(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    return tmp_path / "p" / "skillc.yaml"


def test_build_repairs_a_tampered_object_instead_of_linking_it_back(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    build(config)
    good = snapshot(tmp_path / "p" / "dist")
    victim = next(p for p in sorted((tmp_path / "p" / "dist" / "objects").rglob("*")) if p.is_file())
    victim.write_bytes(bytes([victim.read_bytes()[0] ^ 1]) + victim.read_bytes()[1:])  # same size
    assert run("build", "--no-cache", "--config", str(config))[0] == 0
    assert snapshot(tmp_path / "p" / "dist") == good
    assert run("check", "--config", str(config))[0] == 0


@pytest.mark.parametrize(
    "config_text, message",
    [
        (
            "sources: [src]\noutput: t\ntemplate: t/c.xml.j2\n",
            "output 't' would replace the template 'c.xml.j2'",
        ),
        (
            "sources: [src]\noutput: skillc.yaml\n",
            "output 'skillc.yaml' would replace the config file 'skillc.yaml'",
        ),
    ],
)
def test_output_may_not_replace_the_config_or_the_template(
    tmp_path: Path, config_text: str, message: str
) -> None:
    from support.files import REPO

    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, config=config_text)
    (tmp_path / "t").mkdir()
    shutil.copy(REPO / "templates" / "catalog.xml.j2", tmp_path / "t" / "c.xml.j2")
    before = (config.read_bytes(), (tmp_path / "t" / "c.xml.j2").read_bytes())
    code, out = run("build", "--config", str(config))
    assert code == 1 and message in out
    assert (config.read_bytes(), (tmp_path / "t" / "c.xml.j2").read_bytes()) == before


def test_output_that_is_a_file_is_refused(tmp_path: Path) -> None:
    config = src_project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "dist": "not a directory\n"})
    code, out = run("build", "--config", str(config))
    assert code == 1 and "output 'dist' exists and is not a directory" in out
    assert (tmp_path / "dist").read_text() == "not a directory\n"


def test_output_through_a_symlink_out_of_the_project_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "proj"
    config = src_project(
        root, {"src/a/SKILL.md": skill_md("a")}, config="sources: [src]\noutput: link/dist\n"
    )
    (root / "link").symlink_to(elsewhere)
    code, out = run("build", "--config", str(config))
    assert code == 1 and "output 'link/dist' resolves outside the project" in out
    assert list(elsewhere.iterdir()) == []
