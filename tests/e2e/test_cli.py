"""The command line: exit codes, diagnostics format, check, explain, diff."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run
from support.files import GOLDEN_PROJECT, snapshot
from support.project import skill_md, src_project


def _golden(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN_PROJECT, tmp_path / "p")
    return tmp_path / "p" / "skillc.yaml"


def test_build_reports_all_errors_and_exits_1(tmp_path: Path) -> None:
    config = src_project(
        tmp_path,
        {
            "src/a/SKILL.md": skill_md("A"),
            "src/b/SKILL.md": skill_md("b", description="x" * 1025),
            "src/c/SKILL.md": "no frontmatter\n",
        },
    )
    code, out = run("build", "--config", str(config))
    assert code == 1
    assert "src/a/SKILL.md:2:7: error[SKC219]: name: 'A' must be lowercase" in out
    assert (
        "src/b/SKILL.md:3:14: error[SKC216]: description: is 1025 characters long; the limit is 1024" in out
    )
    assert "src/c/SKILL.md:1:1: error[SKC202]: no frontmatter: the file must start with a '---' line" in out
    assert "3 error(s)" in out
    assert not (tmp_path / "dist").exists()


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("build", "--config", str(tmp_path / "missing.yaml"))[0] == 2
    assert run("build", "--no-such-flag")[0] == 2
    assert run("explain", "only-one-arg")[0] == 2


def test_validate_writes_nothing(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    code, out = run("validate", "--config", str(config))
    assert code == 0 and "2 warning(s)" in out
    assert not (tmp_path / "p" / "dist").exists()


def test_check_fails_on_stale_or_missing_dist_and_writes_nothing(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    code, out = run("check", "--config", str(config))
    assert code == 1 and "dist/_index.json:1:1: error[SKC701]: missing" in out
    assert not (tmp_path / "p" / "dist").exists()
    assert run("build", "--config", str(config))[0] == 0
    assert run("check", "--config", str(config))[0] == 0
    (tmp_path / "p" / "base" / "alpha" / "SKILL.md").write_text(skill_md("alpha", description="changed"))
    before = snapshot(tmp_path / "p" / "dist")
    code, out = run("check", "--config", str(config))
    assert code == 1 and "base/alpha/SKILL.md:1:1: error[SKC701]: changed since the build (description" in out
    assert snapshot(tmp_path / "p" / "dist") == before


def test_check_flags_stray_files(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    run("build", "--config", str(config))
    (tmp_path / "p" / "dist" / "stray.txt").write_text("x")
    code, out = run("check", "--config", str(config))
    assert code == 1 and "dist/stray.txt:1:1: error[SKC701]: not written by a build: stray file" in out


def test_check_flags_an_edited_index_as_stale(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    run("build", "--config", str(config))
    index = tmp_path / "p" / "dist" / "_index.json"
    index.write_text(index.read_text().replace('"format": 3', '"format": 9'))
    code, out = run("check", "--config", str(config))
    assert code == 1
    # check compares bytes (no schema pass over the whole index: that cost six builds at 10,000 skills)
    assert "dist/_index.json:1:1: error[SKC701]: differs from what a build would write" in out
    index.write_text("{not json")
    code, out = run("check", "--config", str(config))
    assert code == 1 and "dist/_index.json:1:1: error[SKC701]: differs from what a build would write" in out


def test_explain_walks_through_the_resolution(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    code, out = run("explain", "--config", str(config), "pilot-x", "beta")
    assert code == 0
    assert "exclusivity: persona_exclusive 'pilot' matches fallback 'pilot': granted" in out
    assert "redirect: body loaded from personas/pilot-exclusive/beta.md" in out
    assert "catalog: left out: the catalog is over its budget (budget 500 characters, strategy drop)" in out
    code, out = run("explain", "--config", str(config), "pilot", "nope")
    assert code == 1 and "unknown skill 'nope'" in out
    code, out = run("explain", "--config", str(config), "nobody", "alpha")
    assert code == 1 and "unknown persona 'nobody'" in out


def test_diff_shows_prompt_and_body_changes_per_persona(tmp_path: Path) -> None:
    config = _golden(tmp_path)
    run("build", "--config", str(config))
    shutil.copytree(tmp_path / "p" / "dist", tmp_path / "old")
    (tmp_path / "p" / "personas" / "pilot" / "skill-overlays" / "alpha.md").write_text('Say "yo ho".\n')
    run("build", "--config", str(config))
    code, out = run("diff", str(tmp_path / "old"), str(tmp_path / "p" / "dist"))
    assert code == 0
    # one change, said once for both personas (pilot-x falls back to pilot's overlay)
    assert "base/alpha/SKILL.md: resolved body of 'alpha' changed (in 2 personas: pilot, pilot-x)\n" in out
    assert '    -Say "arr" a lot.\n    +Say "yo ho".\n' in out
    assert out.count("resolved body") == 1 and "catalog" not in out
    assert run("diff", "--exit-code", str(tmp_path / "old"), str(tmp_path / "p" / "dist"))[0] == 1
    assert run("diff", "--exit-code", str(tmp_path / "old"), str(tmp_path / "old"))[0] == 0


def test_codes_lists_every_code() -> None:
    code, out = run("codes")
    assert code == 0 and "SKC601" in out and "SKC305" in out


def test_console_entry_point_never_shows_a_traceback(tmp_path: Path) -> None:
    config = src_project(tmp_path, {"src/a/SKILL.md": b"---\ndescription: \xff\xfe\n---\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "skillc", "build", "--config", str(config)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "src/a/SKILL.md:2:14: error[SKC201]: not valid UTF-8 (byte 0xff)" in proc.stderr


def test_write_failure_reports_skc703(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillc.output import write as write_mod

    config = _golden(tmp_path)

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "p" / "dist"))

    monkeypatch.setattr(write_mod, "_fill", full_disk)
    code, out = run("build", "--no-cache", "--config", str(config))
    assert code == 1
    assert "dist:1:1: error[SKC703]: cannot write the output directory: No space left on device" in out


def test_source_symlinked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "x").mkdir(parents=True)
    (outside / "x" / "SKILL.md").write_text(skill_md("x"))
    root = tmp_path / "proj"
    config = src_project(root, {}, config="sources: [linked]\n")
    (root / "linked").symlink_to(outside)
    code, out = run("build", "--config", str(config))
    assert code == 1
    assert "skillc.yaml:1:11: error[SKC103]: sources 'linked' resolves outside the project" in out


def test_python_m_skillc_leaves_with_the_commands_status_and_all_its_output(tmp_path: Path) -> None:
    """`python -m skillc` (and the `skillc` script) end without Python's teardown (cli.run): the
    status is the command's, every line written reaches a pipe, and exit handlers still run."""
    good = src_project(tmp_path / "good", {f"src/s{i}/SKILL.md": skill_md(f"s{i}") for i in range(30)})
    bad = src_project(tmp_path / "bad", {f"src/s{i}/SKILL.md": "no frontmatter\n" for i in range(300)})
    hook = "import atexit, runpy, sys; atexit.register(lambda: print('handler ran', file=sys.stderr)); "
    run_m = hook + "sys.argv = ['skillc', *sys.argv[1:]]; runpy.run_module('skillc', run_name='__main__')"
    for config, status, lines in ((good, 0, 0), (bad, 1, 300)):
        done = subprocess.run(
            [sys.executable, "-c", run_m, "build", "--config", str(config), "--format", "json"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == status and "handler ran" in done.stderr
        assert [json.loads(line)["code"] for line in done.stdout.splitlines()] == ["SKC202"] * lines
    usage = subprocess.run(
        [sys.executable, "-m", "skillc", "build", "--nope"], capture_output=True, text=True
    )
    assert usage.returncode == 2 and "--nope" in usage.stderr
