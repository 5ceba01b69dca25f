"""Issue 17 item 8: `diff` exit codes as `git diff` documents its own (0 no change, 1 changes with
--exit-code or --fail-on, 2 usage, 3 a side is not a build), and --skip-invalid with --git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

NO_BUILD = 3


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _built(root: Path) -> Path:
    config = project(root, {"src/a/SKILL.md": skill_md("a")}, "sources: [src]\n")
    assert run("build", "--config", str(config))[0] == 0
    return root / "dist"


def test_a_missing_directory_and_a_non_build_fail_alike(tmp_path: Path) -> None:
    dist = str(_built(tmp_path / "p"))
    (tmp_path / "plain").mkdir()
    missing = run("diff", dist, str(tmp_path / "nope"))
    plain = run("diff", dist, str(tmp_path / "plain"))
    assert missing[0] == plain[0] == NO_BUILD
    assert "is not a directory" in missing[1] and "is not a build" in plain[1]


def test_no_change_changes_and_usage(tmp_path: Path) -> None:
    dist = str(_built(tmp_path / "p"))
    assert run("diff", "--exit-code", dist, dist)[0] == 0
    other = project(
        tmp_path / "q", {"src/a/SKILL.md": skill_md("a", description="Other.")}, "sources: [src]\n"
    )
    assert run("build", "--config", str(other))[0] == 0
    assert run("diff", dist, str(tmp_path / "q/dist"))[0] == 0  # changes, but no gate asked for
    assert run("diff", "--exit-code", dist, str(tmp_path / "q/dist"))[0] == 1
    assert run("diff", dist)[0] == 2
    assert run("diff", "-q", dist, str(tmp_path / "q/dist")) == (1, "")  # --quiet: no review, a gate
    assert run("diff", "--quiet", dist, dist) == (0, "")
    assert run("diff", "--skip-invalid", dist, dist)[0] == 2  # it has nothing to build there


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A base commit that does not compile (a name that differs from its folder), fixed after."""
    root = tmp_path / "repo"
    files = {"src/a/SKILL.md": skill_md("a"), "src/b/SKILL.md": skill_md("bee")}
    project(root, files, "sources: [src]\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    (root / "src/b/SKILL.md").write_text(skill_md("b"))
    monkeypatch.chdir(root)
    return root


def test_a_base_that_does_not_compile_is_said_and_has_its_own_code(repo: Path) -> None:
    code, out = run("diff", "--git", "HEAD")
    assert code == NO_BUILD
    assert "the base 'HEAD': the project does not compile: 1 error(s)" in out
    assert "SKC206" in out and "--skip-invalid" in out


def test_skip_invalid_builds_what_can_be_built_and_says_what_it_left_out(repo: Path) -> None:
    code, out = run("diff", "--git", "HEAD", "--skip-invalid", "--exit-code")
    assert code == 1
    assert "warning[SKC314]: 1 skill(s) left out because they have errors (--skip-invalid): b" in out
    assert "skill 'b' added" in out
