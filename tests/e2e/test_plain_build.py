"""A plain `skillc build` (no option but --config) runs without click (cli/__init__.py `_plain`,
cli/building.py `plain`): it prints, exits and writes what click's run of the same build does.

Each case runs the `skillc` command twice on twin projects: as written (the plain path), and with
`--color auto`, the default said aloud, which only click parses. Their status, stdout, stderr (the
timing aside) and output are compared."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.files import snapshot
from support.project import skill_md, src_project

from skillc.cli import _plain

RUN = "from skillc.cli import run; import sys; sys.argv = ['skillc', *sys.argv[1:]]; run()"
# A Ctrl-C (SIGINT to this process) the first time one of $SEND_AT is imported: in the build
SEND_AT = (
    "import builtins, os, signal\n"
    "names, real = set(os.environ['SEND_AT'].split(',')), builtins.__import__\n"
    "def hooked(name, *args, **kwargs):\n"
    "    if name in names and not getattr(hooked, 'sent', False):\n"
    "        hooked.sent = True\n"
    "        os.kill(os.getpid(), signal.SIGINT)\n"
    "    return real(name, *args, **kwargs)\n"
    "builtins.__import__ = hooked\n"
)
CLICK_ON_EXIT = (
    "import atexit, sys; atexit.register(lambda: print('click:', 'click' in sys.modules, file=sys.stderr)); "
)
TIMING = re.compile(r" \(\d+\.\d\ds\)$", re.M)


def _skillc(cwd: Path, *args: str, code: str = RUN, **env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".xdg"), "NO_COLOR": "", **env}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not a background job's SIG_IGN
    )


def _twins(tmp_path: Path, files: dict[str, str | bytes]) -> tuple[Path, Path]:
    plain = tmp_path / "plain"
    src_project(plain, files)
    subprocess.run(["git", "init", "-q", str(plain)], check=True)  # one project boundary for each
    clicked = tmp_path / "clicked"
    shutil.copytree(plain, clicked, symlinks=True)
    return plain, clicked


def _same(
    plain: Path, clicked: Path, args: list[str], where: str = ".", code: str = RUN, **env: str
) -> subprocess.CompletedProcess[str]:
    a = _skillc(plain / where, *args, code=code, **env)
    b = _skillc(clicked / where, *args, "--color", "auto", code=code, **env)
    assert a.returncode == b.returncode, (a.stderr, b.stderr)
    assert a.stdout.replace(str(plain), "<root>") == b.stdout.replace(str(clicked), "<root>")
    assert TIMING.sub("", a.stderr.replace(str(plain), "<root>")) == TIMING.sub(
        "", b.stderr.replace(str(clicked), "<root>")
    )
    dist_a, dist_b = plain / "dist", clicked / "dist"
    assert dist_a.exists() == dist_b.exists()
    if dist_a.exists():
        assert snapshot(dist_a) == snapshot(dist_b)
    return a


SKILLS = {
    "src/a/SKILL.md": skill_md("a"),
    "src/b/SKILL.md": skill_md("b", description="x" * 1100),  # an error
}


def test_a_build_with_errors(tmp_path: Path) -> None:
    plain, clicked = _twins(tmp_path, SKILLS)
    done = _same(plain, clicked, ["build", "--config", "skillc.yaml"])
    assert done.returncode == 1 and "error[SKC216]" in done.stderr


def test_a_build_found_from_a_subfolder_then_replayed_then_edited(tmp_path: Path) -> None:
    files = {"src/a/SKILL.md": skill_md("a"), "src/b/SKILL.md": skill_md("b", colour="blue")}  # a warning
    plain, clicked = _twins(tmp_path, files)
    first = _same(plain, clicked, ["build"], where="src")  # paths shown from the working folder
    assert first.returncode == 0 and "written" in first.stderr
    assert _same(plain, clicked, ["build"], where="src").returncode == 0  # the cache's replay
    for root in (plain, clicked):
        (root / "src/a/SKILL.md").write_text(skill_md("a", description="Edited."))
    assert _same(plain, clicked, ["build", "--config=skillc.yaml"]).returncode == 0


@pytest.mark.parametrize("args", [["build"], ["build", "--config", "nothing.yaml"]], ids=["none", "missing"])
def test_no_config(tmp_path: Path, args: list[str]) -> None:
    for side in ("plain", "clicked"):
        (tmp_path / side).mkdir()
        subprocess.run(["git", "init", "-q", str(tmp_path / side)], check=True)
    done = _same(tmp_path / "plain", tmp_path / "clicked", args)
    assert done.returncode == 2 and done.stderr.startswith("skillc: error: ")


def test_a_ctrl_c_in_the_build(tmp_path: Path) -> None:
    """The same lines to the byte: click prints a blank line (after the terminal's ^C) first."""
    plain, clicked = _twins(tmp_path, SKILLS)
    done = _same(plain, clicked, ["build"], code=SEND_AT + RUN, SEND_AT="yaml")
    assert done.returncode == 130 and done.stderr.endswith("\nskillc: interrupted\n")


def test_a_plain_build_inside_another_click_command(tmp_path: Path) -> None:
    """`main` called from an application's own click command: the plain build consults none of the
    application's context (its obj is no config), and leaves it as it was."""
    import click

    from skillc.cli import invocation, main

    src_project(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    seen: list[object] = []

    @click.command()
    @click.pass_context
    def outer(ctx: click.Context) -> None:
        ctx.obj = {"tool": "mine"}
        try:
            main(["build"])
        except SystemExit as exc:
            seen.append(exc.code)
        seen.append(dict(ctx.meta))

    outer.main([], standalone_mode=False)
    assert seen == [0, {}]
    assert (tmp_path / "dist" / "_index.json").is_file()
    assert invocation.notes() == {} and invocation.project_root() is None  # nothing kept after it


def test_a_plain_build_does_not_import_click(tmp_path: Path) -> None:
    plain, _ = _twins(tmp_path, {"src/a/SKILL.md": skill_md("a")})
    done = _skillc(plain, "build", code=CLICK_ON_EXIT + RUN)
    assert done.returncode == 0 and "click: False" in done.stderr
    done = _skillc(plain, "build", "-q", code=CLICK_ON_EXIT + RUN)
    assert done.returncode == 0 and "click: True" in done.stderr


def test_which_command_lines_are_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "skillc.yaml").write_text("sources: [src]\n")
    assert _plain(["build"]) == (None,)
    assert _plain(["build", "--config", "skillc.yaml"]) == ("skillc.yaml",)
    assert _plain(["build", "--config=skillc.yaml"]) == ("skillc.yaml",)
    assert _plain(["build", "--config", "not-there.yaml"]) == ("not-there.yaml",)  # the build says so
    # click's to parse, or to refuse: any other option, a folder, an empty or dash value, the group's
    for argv in (
        ["build", "-q"],
        ["build", "--config", "skillc.yaml", "-v"],
        ["build", "--config", "folder"],
        ["build", "--config="],
        ["build", "--config", "-q"],
        ["--config", "skillc.yaml", "build"],
        ["check"],
        [],
    ):
        assert _plain(argv) is None, argv
    monkeypatch.setenv("_SKILLC_COMPLETE", "bash_source")  # click's shell completion asks
    assert _plain(["build"]) is None
