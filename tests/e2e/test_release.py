"""The release path is real: one version, a changelog for it, and install recipes that work as written."""

from __future__ import annotations

import re
import tomllib

from support.files import REPO

import skillc

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_one_version_everywhere() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["version"] == skillc.__version__


def test_the_changelog_has_the_version_or_unreleased() -> None:
    headings = re.findall(r"^## (.+)$", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased" or headings[0].startswith(skillc.__version__)
    assert any(h.split()[0] == skillc.__version__ for h in headings)


def test_no_recipe_installs_from_pypi_or_pins_a_tag_that_was_never_made() -> None:
    """skillc is not on PyPI, and no release tag exists yet: recipes pin a commit (docs/releasing.md)."""
    for doc in DOCS:
        text = doc.read_text()
        assert not re.search(r"pip install (-\S+ )*skillc(\s|$|\")", text), doc
        assert not re.search(r"^\s*rev: v\d", text, re.M), doc


def test_the_sdist_ships_the_changelog() -> None:
    assert "CHANGELOG.md" in (REPO / "MANIFEST.in").read_text()
