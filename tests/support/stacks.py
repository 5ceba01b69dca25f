"""Stacks of builds (docs/format.md §16) and what each is held equal to: a bundled tier built from
its config, a user's tier built with `skillc build SOURCE -o OUTPUT`, and one build of both sources."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from support.cli import build, run
from support.files import write_tree
from support.project import skill_md


def tier_skills(folder: str, count: int, *, long: bool = False) -> dict[str, str]:
    """`count` skills under `folder`, long descriptions or short; a user tier's first is `always`."""
    text = "Describes at length what this skill does, when, and how it goes about it" if long else "Short."
    return {
        f"{folder}/{folder}-{i}/SKILL.md": skill_md(
            description=f"{text} {i}.", always=(i == 0 and folder == "user")
        )
        for i in range(count)
    }


def stack_and_one(
    tmp: Path, config: str, bundled: Mapping[str, str], user: Mapping[str, str]
) -> tuple[list[Path], Path]:
    """The two tiers' dists (bundled with `config`, the user's skills/ built alone) and the dist
    of one build of both sources with that config."""
    write_tree(tmp / "bundled", {"skillc.yaml": config, **bundled})
    write_tree(tmp / "mine", user)
    write_tree(tmp / "one", {"skillc.yaml": config.replace("[skills]", "[skills, user]"), **bundled, **user})
    assert build(tmp / "bundled" / "skillc.yaml").exit_code == 0
    code, out = run("build", str(tmp / "mine" / "user"), "-o", str(tmp / "mine" / "dist"))
    assert code == 0, out
    assert build(tmp / "one" / "skillc.yaml").exit_code == 0
    return [tmp / "bundled" / "dist", tmp / "mine" / "dist"], tmp / "one" / "dist"
