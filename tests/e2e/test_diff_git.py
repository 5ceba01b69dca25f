"""diff --git reads only what a build needs from git: the config, its sources, personas and template,
at the ref (from git's objects, submodules followed, export-ignore not applied) or in the working tree
(only the files git lists under those paths)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import run
from support.project import SRC_CONFIG, skill_md
from support.project import src_project as project

from skillc import fs
from skillc.review import gitrefs

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "protocol.file.allow=always",
            *args,
        ],
        check=True,
        capture_output=True,
    )


NO_PERSONAS = "format: 1\nsources: [src]\n"  # git keeps no empty directory


def _repo(root: Path, files: dict[str, str], config: str = NO_PERSONAS) -> Path:
    cfg = project(root, files, config)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    return cfg


def _tree(root: Path, dest: Path, ref: str | None) -> set[str]:
    dest.mkdir()
    if ref is None:
        gitrefs.copy_worktree(root, dest, Path("skillc.yaml"))
    else:
        gitrefs.checkout(root, gitrefs.resolve_ref(root, ref), dest, Path("skillc.yaml"))
    return {p.relative_to(dest).as_posix() for p in dest.rglob("*") if not p.is_dir() or p.is_symlink()}


@pytest.mark.parametrize("ref", ["HEAD", None])
def test_only_the_config_sources_personas_and_template_are_taken(tmp_path: Path, ref: str | None) -> None:
    root = tmp_path / "repo"
    files = {"src/a/SKILL.md": skill_md("a"), "docs/big.md": "x\n", "personas/p/manifest.yaml": "name: P\n"}
    _repo(root, files, SRC_CONFIG)
    assert _tree(root, tmp_path / "t", ref) == {"skillc.yaml", "src/a/SKILL.md", "personas/p/manifest.yaml"}


def test_a_committed_symlink_out_of_the_repository_is_no_crash(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    cfg = _repo(root, {"src/a/SKILL.md": skill_md("a")})
    os.symlink("/etc", root / "docs-link")
    os.symlink("../../../../etc/passwd", root / "src/a/passwd")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "links")
    files = _tree(root, tmp_path / "t", "HEAD")
    assert "src/a/passwd" in files and "docs-link" not in files
    assert os.readlink(tmp_path / "t/src/a/passwd") == "../../../../etc/passwd"  # as committed, not followed
    _, out = run("--config", str(cfg), "diff", "--git", "HEAD")
    assert "Traceback" not in out and "SKC302" in out  # the build there reports the link, as it would here


def test_huge_and_odd_files_elsewhere_are_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    cfg = _repo(root, {"src/a/SKILL.md": skill_md("a")})
    with open(root / "huge.bin", "wb") as f:
        f.truncate(8 << 30)  # sparse: 8 GiB that a copy of the working tree would read
    os.mkfifo(root / "pipe")
    read: list[str] = []
    real = fs.read_regular

    def spy(path: str | os.PathLike[str], cap: int, **kw: object) -> bytes:
        read.append(os.fspath(path))
        return real(path, cap, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(fs, "read_regular", spy)
    code, out = run("--config", str(cfg), "diff", "--git", "HEAD")
    assert code == 0, out
    assert not [p for p in read if p.endswith(("huge.bin", "pipe"))]


def test_a_huge_input_in_the_working_tree_is_reported_not_copied(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    cfg = _repo(root, {"src/a/SKILL.md": skill_md("a")})
    with open(root / "src/a/huge.bin", "wb") as f:
        f.truncate((1 << 30) + 1)
    _, out = run("--config", str(cfg), "diff", "--git", "HEAD")
    assert "SKC207" in out and "Traceback" not in out


def test_export_ignore_does_not_hide_sources(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _repo(root, {"src/a/SKILL.md": skill_md("a"), ".gitattributes": "src/** export-ignore\n"})
    assert "src/a/SKILL.md" in _tree(root, tmp_path / "t", "HEAD")


def test_sources_in_a_submodule_are_followed(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "skills/b").mkdir(parents=True)
    (sub / "skills/b/SKILL.md").write_text(skill_md("b"))
    (sub / "other.txt").write_text("not needed\n")
    _git(sub, "init", "-q", "-b", "main")
    _git(sub, "add", "-A")
    _git(sub, "commit", "-qm", "sub")
    root = tmp_path / "repo"
    cfg = _repo(root, {"src/a/SKILL.md": skill_md("a")}, "format: 1\nsources: [src, vendor/sub/skills]\n")
    _git(root, "submodule", "add", "-q", str(sub), "vendor/sub")
    _git(root, "commit", "-qm", "submodule")
    for ref in ("HEAD", None):
        files = _tree(root, tmp_path / f"t{ref}", ref)
        assert "vendor/sub/skills/b/SKILL.md" in files and "vendor/sub/other.txt" not in files
    code, out = run("--config", str(cfg), "diff", "--git", "HEAD", "--exit-code")
    assert code == 0, out


def test_a_config_in_pyproject_names_the_paths(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    files = {"pyproject.toml": '[project]\nname = "x"\n\n[tool.skillc]\nformat = 1\nsources = ["src"]\n'}
    files |= {"src/a/SKILL.md": skill_md("a"), "docs/x.md": "x\n"}
    (root).mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    dest = tmp_path / "t"
    dest.mkdir()
    gitrefs.checkout(root, gitrefs.resolve_ref(root, "HEAD"), dest, Path("pyproject.toml"))
    assert (dest / "src/a/SKILL.md").is_file() and not (dest / "docs").exists()
