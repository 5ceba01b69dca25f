"""ignorefiles: the ignore files of a walk, read as git reads them (the patterns: test_gitignore.py)."""

from __future__ import annotations

import os
from pathlib import Path

from skillc.project import ignorefiles


def test_a_folder_listed_without_ignore_files_is_not_asked(tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.log\n")
    rules = ignorefiles.rules_for(tmp_path, tmp_path, ())
    listed = rules.listing(lambda path: [] if path.endswith("sub") else ["sub"])
    listed(str(tmp_path))
    listed(str(tmp_path / "sub"))  # listed empty: the .gitignore on disk is not read
    assert not rules.ignored("sub/x.log", False) and rules.read == []


def test_a_symlinked_ignore_file_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("*\n")
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    os.symlink(outside, root / "sub" / ".gitignore")  # git: "unable to access", and the file is not read
    rules = ignorefiles.rules_for(root, root, ())
    assert not rules.ignored("sub/x.md", False)
    assert rules.read == []
    ((where, why),) = rules.problems
    assert where == "sub/.gitignore" and "symlink" in why and "git does not follow it" in why


def test_a_symlinked_ignore_file_above_the_root_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("*\n")
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    (top / "skills" / "a").mkdir(parents=True)
    os.symlink(outside, top / ".gitignore")
    found, problems = ignorefiles.outer_files(top, (top / "skills",))
    assert found == () and [where for where, _ in problems] == [".gitignore"]


def test_outer_and_inner_levels_read_paths_relative_to_their_folder(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("/skills/a/[[:digit:]]*\n")
    (tmp_path / "skills" / "a").mkdir(parents=True)
    (tmp_path / "skills" / "a" / ".gitignore").write_text("/x?\n")
    outer, _ = ignorefiles.outer_files(tmp_path, (tmp_path / "skills",))
    rules = ignorefiles.rules_for(tmp_path / "skills", tmp_path, outer)
    assert rules.ignored("a/1.md", False) and not rules.ignored("b/1.md", False)
    assert rules.ignored("a/xé", False) is False  # `?` is one byte; é is two
    assert rules.ignored("a/xy", False) and not rules.ignored("a/b/xy", False)


def _outer_rules(tmp_path: Path, gitignores: dict[str, str], root: str) -> ignorefiles.Rules:
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / root / "t" / "a").mkdir(parents=True)
    for folder, text in gitignores.items():
        (tmp_path / folder / ".gitignore").write_text(text)
    outer, _ = ignorefiles.outer_files(tmp_path, (tmp_path / root,))
    return ignorefiles.rules_for(tmp_path / root, tmp_path, outer)


def test_a_root_inside_a_folder_git_ignores_is_left_out_whole(tmp_path: Path) -> None:
    """git never enters an ignored folder: a source below one holds nothing git would clone, and
    the walk's own paths never name that folder (Pegasus's `data/skills` below `data/`)."""
    rules = _outer_rules(tmp_path, {".": "# runtime\ndata/\n"}, "data/skills")
    assert rules.ignored("t/a/SKILL.md", False) and rules.ignored("t", True)
    assert rules.why("t/a/SKILL.md", False) == (".gitignore", 2, "data/")


def test_a_root_taken_back_by_a_nearer_line_is_walked(tmp_path: Path) -> None:
    rules = _outer_rules(tmp_path, {".": "data/\n!data/\n"}, "data/skills")
    assert not rules.ignored("t/a/SKILL.md", False)
    rules = _outer_rules(tmp_path / "2", {".": "skills\n", "data": "!skills\n"}, "data/skills")
    assert not rules.ignored("t/a/SKILL.md", False)  # data/.gitignore is nearer the root
    rules = _outer_rules(tmp_path / "3", {".": "/data/skills/\n"}, "data/skills")
    assert rules.ignored("t/a/SKILL.md", False)  # the root itself
