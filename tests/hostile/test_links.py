"""Links and races: every symlink is resolved and its target checked wherever it points; a file
swapped after the walk is never read; configured directories that are links out of the project are
reported and never walked; nested inputs are read once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import run
from support.project import skill_md
from support.project import src_project as project

from skillc.pipeline import compile_project
from skillc.project import config as config_mod
from skillc.stages.discover import discover


def _codes(cfg: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for d in compile_project(cfg).diagnostics:
        found.setdefault(d.code, []).append(d.path)
    return found


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("../../.git/config", "SKC322"),
        ("../../.git", "SKC322"),
        ("../../dist", "SKC322"),
        ("../../dist/_index.json", "SKC322"),
        ("../../.skillc-cache", "SKC322"),
        ("../b/.git/HEAD", "SKC322"),  # a nested repository's metadata, anywhere in the project
    ],
)
def test_links_into_metadata_output_or_cache_are_refused(tmp_path: Path, target: str, code: str) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "src/b/SKILL.md": skill_md("b")})
    for made in (".git", "src/b/.git", "dist", ".skillc-cache"):
        (tmp_path / made).mkdir(exist_ok=True)
    for rel in (".git/config", "src/b/.git/HEAD", "dist/_index.json", ".skillc-cache/x"):
        (tmp_path / rel).write_text("[remote]\nurl = secret\n")
    os.symlink(target, tmp_path / "src/a/link")
    assert _codes(cfg).get(code) == ["src/a/link"]
    assert run("--config", str(cfg), "build")[0] == 1


def test_a_link_inside_the_project_is_still_followed(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "shared/ref.md": "shared\n"})
    os.symlink("../../shared/ref.md", tmp_path / "src/a/ref.md")
    result = compile_project(cfg)
    assert result.ok
    assert [r.path for r in result.program.skills["a"].resources] == ["ref.md"]


def _swapping_lstat(victim: str, swap: object) -> object:
    swapped: list[bool] = []

    def lstat(path: str) -> os.stat_result:
        st = os.lstat(path)
        if path == victim and not swapped:  # once: a second swap could free and reuse the inode
            swapped.append(True)
            swap()  # type: ignore[operator]
        return st

    return lstat


@pytest.mark.parametrize("into", ["symlink", "file"])
def test_a_file_swapped_after_the_walk_is_not_read(tmp_path: Path, into: str) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a"), "src/a/ref.md": "mine\n"})
    (tmp_path / "secret").write_text("SECRET\n")
    victim = str(tmp_path / "src/a/ref.md")

    def swap() -> None:
        os.replace(victim, victim + ".old")
        if into == "symlink":
            os.symlink(tmp_path / "secret", victim)
        else:
            Path(victim).write_text("SECRET\n")

    config, _ = config_mod.load(cfg)
    assert config is not None
    found = discover(config, lstat=_swapping_lstat(victim, swap))  # type: ignore[arg-type]
    problems = [d for s in found.skills for d in s.problems if d.path == "src/a/ref.md"]
    assert problems and "replaced" in problems[0].message
    assert all(b"SECRET" not in f.data for f in found.inputs)


@pytest.mark.parametrize("which", ["src", "personas"])
@pytest.mark.parametrize("target", ["outside", "/"])
def test_a_configured_directory_linked_out_is_reported_and_not_walked(
    tmp_path: Path, which: str, target: str
) -> None:
    outside = tmp_path / "outside"
    (outside / "x").mkdir(parents=True)
    (outside / "x/SKILL.md").write_text(skill_md("x"))
    root = tmp_path / "project"
    cfg = project(root, {"keep/a/SKILL.md": skill_md("a")}, "format: 1\nsources: [src]\npersonas: personas\n")
    (root / which).rmdir()
    os.symlink(outside if target == "outside" else "/", root / which)
    if which == "personas":
        (root / "src").mkdir(exist_ok=True)
    listed: list[str] = []

    def listdir(path: str) -> list[str]:
        listed.append(path)
        return os.listdir(path)

    started = time.monotonic()
    result = compile_project(cfg, listdir=listdir)
    assert time.monotonic() - started < 10
    assert any(d.code == "SKC103" and "outside the project" in d.message for d in result.diagnostics)
    assert not any(p.startswith(str(root / which)) for p in listed)


def test_an_output_linked_inside_the_project_is_refused(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, "format: 1\nsources: [src]\noutput: out\n")
    (tmp_path / "real").mkdir()
    os.symlink("real", tmp_path / "out")
    code, out = run("--config", str(cfg), "build")
    assert code == 1 and "symlink" in out
    assert os.listdir(tmp_path / "real") == [] and os.path.islink(tmp_path / "out")


def test_nested_sources_compile_each_skill_once(tmp_path: Path) -> None:
    config = "format: 1\nsources: [skills, skills/team]\n"
    cfg = project(
        tmp_path, {"skills/a/SKILL.md": skill_md("a"), "skills/team/b/SKILL.md": skill_md("b")}, config
    )
    result = compile_project(cfg)
    assert result.ok, result.diagnostics
    assert sorted(result.program.skills) == ["a", "b"]
    assert not [d for d in result.diagnostics if d.code == "SKC305"]  # no "overrides": read once
    assert [d.code for d in result.diagnostics if d.code == "SKC321"] == ["SKC321"]


def test_personas_inside_a_source_are_not_resources(tmp_path: Path) -> None:
    files = {
        "skills/a/SKILL.md": skill_md("a", persona_exclusive="p"),
        "skills/a/personas/p/manifest.yaml": "name: P\n",
        "skills/a/personas/p-exclusive/a.md": "The secret body.\n",
    }
    cfg = project(tmp_path, files, "format: 1\nsources: [skills]\npersonas: skills/a/personas\n")
    result = compile_project(cfg)
    assert result.ok, result.diagnostics
    assert [r.path for r in result.program.skills["a"].resources] == []


def test_excluding_md_never_drops_a_skill(tmp_path: Path) -> None:
    config = "format: 1\nsources: [src]\nresources:\n  exclude: ['*.md']\n"
    cfg = project(
        tmp_path, {"src/a/SKILL.md": skill_md("a"), "src/a/notes.md": "n\n", "src/a/x.txt": "x\n"}, config
    )
    result = compile_project(cfg)
    assert sorted(result.program.skills) == ["a"]
    assert [r.path for r in result.program.skills["a"].resources] == ["x.txt"]
    assert [d.code for d in result.diagnostics if d.code == "SKC323"] == ["SKC323"]


def test_a_removed_working_directory_is_a_clear_error(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    gone = str(tmp_path / "gone")
    script = f"import os; os.mkdir({gone!r}); os.chdir({gone!r}); os.rmdir({gone!r}); from skillc.cli import main; main()"
    for args in (["build"], ["--config", "../skillc.yaml", "build"]):
        done = subprocess.run(
            # -P, as the `skillc` entry point runs: no working directory on sys.path. With one, CPython
            # 3.13.0 raises SystemError importing rpds (jsonschema's) once that directory is gone.
            [sys.executable, "-P", "-c", script, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert "current directory no longer exists" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, "-P", "-c", script, "--config", str(cfg), "build"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_a_build_run_from_inside_its_output(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    assert run("--config", str(cfg), "build")[0] == 0
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", triggers="x"))  # a warning to print after the swap
    inside = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "skillc", "--config", "../skillc.yaml", "build"],
        cwd=inside,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "SKC205" in done.stderr and "Traceback" not in done.stderr
    again = subprocess.run(
        [sys.executable, "-m", "skillc", "--config", "../skillc.yaml", "build"],
        cwd=inside,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # The directory the first build replaced is gone only when the swap removed it; either way no traceback.
    assert "Traceback" not in again.stderr and again.returncode in (0, 2)
