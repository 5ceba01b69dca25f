"""Git-ignored files never enter a build: .gitignore and .ignore at every level, as git and ripgrep read them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc import reader


def resources(dist: Path, command: str = "demo") -> list[str]:
    opened = reader.open(dist)
    return sorted(opened.resources(opened.personas()[0], command))


def build(config: Path, *extra: str) -> str:
    code, out = run("--config", str(config), "build", *extra)
    assert code == 0, out
    return out


def demo(root: Path, files: dict[str, str | bytes], *, repo: bool = True) -> Path:
    if repo:
        (root / ".git").mkdir()
    return project(root, {"src/demo/SKILL.md": skill_md("demo"), "src/demo/notes.txt": "kept\n", **files})


def test_ignored_files_at_every_level_are_left_out(tmp_path: Path) -> None:
    config = demo(
        tmp_path,
        {
            ".gitignore": "__pycache__/\n",  # the project's (here also the repository's) top
            "src/.gitignore": "*.log\n",  # a source root
            "src/demo/.gitignore": "node_modules/\n",  # inside the skill
            "src/demo/__pycache__/m.pyc": b"\x00",
            "src/demo/node_modules/x/index.js": "x\n",
            "src/demo/run.log": "log\n",
            "src/demo/deep/more.log": "log\n",
        },
    )
    build(config)
    assert resources(tmp_path / "dist") == [".gitignore", "notes.txt"]


def test_the_repository_above_the_project_counts(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n")
    root = tmp_path / "packages" / "agent"
    root.mkdir(parents=True)
    config = demo(root, {"src/demo/generated/out.txt": "x\n"}, repo=False)
    build(config)
    assert resources(root / "dist") == ["notes.txt"]


def test_nothing_above_the_repository_counts(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("notes.txt\n")  # outside the work tree: not git's rules here
    root = tmp_path / "repo"
    root.mkdir()
    build(demo(root, {}))
    assert resources(root / "dist") == ["notes.txt"]


def test_deeper_rules_and_ignore_files_win(tmp_path: Path) -> None:
    config = demo(
        tmp_path,
        {
            ".gitignore": "*.txt\n",
            "src/demo/.gitignore": "!notes.txt\n",  # a deeper folder brings it back
            "src/demo/.ignore": "extra.txt\n",
            "src/demo/extra.txt": "x\n",
            "src/demo/other.txt": "x\n",
        },
    )
    build(config)
    assert resources(tmp_path / "dist") == [".gitignore", ".ignore", "notes.txt"]


def test_a_folder_left_out_is_not_entered(tmp_path: Path) -> None:
    config = demo(
        tmp_path,
        {".gitignore": "cache/\n!cache/keep.txt\n", "src/demo/cache/keep.txt": "x\n"},
    )
    build(config)
    assert resources(tmp_path / "dist") == ["notes.txt"]


def test_exclude_cannot_bring_back_an_ignored_file(tmp_path: Path) -> None:
    config = demo(
        tmp_path,
        {".gitignore": "*.bin\n", "src/demo/data.bin": "x\n"},
    )
    text = config.read_text() + "resources:\n  exclude: ['!*.bin']\n"
    config.write_text(text)
    build(config)
    assert resources(tmp_path / "dist") == ["notes.txt"]


def test_a_skill_folder_ignored_whole_is_no_skill(tmp_path: Path) -> None:
    config = demo(tmp_path, {".gitignore": "scratch/\n", "src/scratch/SKILL.md": skill_md("scratch")})
    build(config)
    assert reader.open(tmp_path / "dist").all_commands() == ["demo"]


@pytest.mark.parametrize("where", [".gitignore", "src/demo/.gitignore"])
def test_an_edited_ignore_file_is_seen_by_the_cache(tmp_path: Path, where: str) -> None:
    config = demo(tmp_path, {where: "# nothing yet\n", "src/demo/data.bin": "x\n"})
    build(config)
    assert "data.bin" in resources(tmp_path / "dist")
    path = tmp_path / where
    path.write_text("*.bin\n")  # same folder listing; only the file's bytes and stat change
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    build(config)
    assert "data.bin" not in resources(tmp_path / "dist")


def test_an_unreadable_ignore_file_is_said(tmp_path: Path) -> None:
    config = demo(tmp_path, {})
    (tmp_path / "src" / "demo" / ".gitignore").mkdir()  # a folder by that name cannot be read
    out = build(config)
    assert "src/demo/.gitignore" in out and "SKC310" in out


def test_a_deep_tree_with_ignore_files_at_every_level(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 400)
    files: dict[str, str | bytes] = {f"src/demo/{deep}/keep.txt": "x\n", f"src/demo/{deep}/drop.log": "x\n"}
    files.update({f"src/demo/{'/'.join(['d'] * n)}/.gitignore": "*.log\n" for n in range(0, 400, 50)})
    build(demo(tmp_path, files))
    found = resources(tmp_path / "dist")
    assert f"{deep}/keep.txt" in found and f"{deep}/drop.log" not in found


def test_a_line_is_split_at_newlines_only(tmp_path: Path) -> None:
    # str.splitlines also splits at \x0b, \x0c, \x1c-\x1e, U+0085, U+2028, U+2029: `*.md` would be
    # a pattern of its own and leave out every SKILL.md
    config = demo(tmp_path, {".gitignore": b"notes\x0c*.md\nx\xe2\x80\xa8*.md\ny\xc2\x85*.md\n"})
    build(config)
    assert reader.open(tmp_path / "dist").all_commands() == ["demo"]


def test_a_byte_order_mark_is_skipped_as_git_skips_it(tmp_path: Path) -> None:
    config = demo(tmp_path, {".gitignore": b"\xef\xbb\xbfnotes.txt\n"})
    build(config)
    assert resources(tmp_path / "dist") == []


def test_hard_patterns_build_and_stderr_holds_diagnostics_only(tmp_path: Path) -> None:
    lines = b"[[:digit:]]*\n[z-a]\n[!z-a]ad\ntrailing\\\n[unclosed\n[[:nope:]]\n"
    config = demo(
        tmp_path, {".gitignore": lines, "src/demo/1.txt": "x\n", "src/demo/z": "x\n", "src/demo/bad": "x\n"}
    )
    done = subprocess.run(
        [sys.executable, "-m", "skillc", "--config", str(config), "build", "--no-cache"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "default"},  # every warning shown, as on a user's terminal
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[:-1] == []  # one summary line, no FutureWarning, no internal error
    assert resources(tmp_path / "dist") == ["notes.txt"]


def test_a_symlinked_gitignore_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("*\n")  # would leave out everything
    root = tmp_path / "repo"
    root.mkdir()
    config = demo(root, {})
    (root / ".gitignore").symlink_to(outside)
    out = build(config)
    assert ".gitignore" in out and "SKC310" in out and "git does not follow it" in out
    assert resources(root / "dist") == ["notes.txt"]


@pytest.mark.parametrize("key", ["resources:\n  exclude", "budgets:\n  priority"])
def test_hard_patterns_in_the_config_are_no_internal_error(tmp_path: Path, key: str) -> None:
    config = demo(tmp_path, {})
    config.write_text(config.read_text() + f"{key}: ['[z-a]', 'x\\\\', '[[:digit:]]*', notes.txt]\n")
    code, out = run("--config", str(config), "build", "--no-cache")
    assert code == 0 and "internal error" not in out, out


def test_hard_per_path_patterns_are_no_internal_error(tmp_path: Path) -> None:
    config = demo(tmp_path, {"src/empty/SKILL.md": skill_md("empty", body="")})  # SKC213, to be matched
    table = "".join(f"    '{p}': {{SKC213: warning}}\n" for p in ["[z-a]", "x\\\\", "[[:digit:]]*"])
    config.write_text(config.read_text() + "diagnostics:\n  per_path:\n" + table)
    code, out = run("--config", str(config), "build", "--no-cache")
    assert code == 0 and "internal error" not in out, out
