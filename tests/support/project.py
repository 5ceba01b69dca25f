"""SKILL.md texts, configs and whole projects on disk."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from support.files import write_tree

# Sources under skills/, written byte for byte: the form of most tests.
CONFIG = "format: 1\nsources:\n  - skills\noutput: dist\n"
CONFIG_PERSONAS = CONFIG + "personas: personas\n"

# Sources under src/ beside personas/, both created empty: the form of `src_project`.
SRC_CONFIG = """\
format: 1
sources: [src]
personas: personas
output: dist
"""


def skill_md(
    name: str | None = None,
    /,
    description: str = "Does a thing.",
    body: str = "Do the thing.\n",
    **fields: object,
) -> str:
    """A SKILL.md: `name` (given by position) first, then the description, then `fields` as further
    frontmatter lines (`a__b` spells `a-b`, bools are YAML's); `name=` is one of those fields."""
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    lines.append(f"description: {description}")
    for key, value in fields.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        lines.append(f"{key.replace('__', '-')}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def project(root: Path, files: Mapping[str, str | bytes], config: str = CONFIG) -> Path:
    """A project written byte for byte: skillc.yaml plus files; returns the config path."""
    write_tree(root, {"skillc.yaml": config, **files}, exact=True)
    return root / "skillc.yaml"


def src_project(root: Path, files: Mapping[str, str | bytes], config: str = SRC_CONFIG) -> Path:
    """A project with src/ and personas/ (both made, even empty) and dedented files; returns the config path."""
    write_tree(root, {"skillc.yaml": config, **files})
    (root / "src").mkdir(exist_ok=True)
    (root / "personas").mkdir(exist_ok=True)
    return root / "skillc.yaml"
