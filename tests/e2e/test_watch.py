"""`build --watch` and `check --watch`: a real process, real edits, Ctrl-C (issue 19 item 3).

Timeouts are generous (a loaded two-core machine); nothing here is timed: latency is a bench figure.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.project import skill_md
from support.project import src_project as project

from skillc import reader
from skillc.cli import watch

WAIT = 60.0


class Watcher:
    """`skillc build --watch` in a subprocess, its stderr read line by line on a thread."""

    def __init__(self, config: Path, command: str = "build", poll: bool = True) -> None:
        env = {**os.environ, "SKILLC_WATCH_POLL": "1" if poll else ""}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skillc", "--config", str(config), command, "--watch"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=config.parent,
            # A job started in the background inherits Ctrl-C ignored, and Python then leaves it so:
            # the watch must see the test's SIGINT as a terminal's Ctrl-C.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.seen: list[str] = []

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)

    def until(self, text: str) -> list[str]:
        """The lines up to and including the first that holds text."""
        got = []
        while True:
            line = self.lines.get(timeout=WAIT)
            got.append(line)
            self.seen.append(line)
            if text in line:
                return got

    def stop(self) -> int:
        """Ctrl-C, and its exit status; a watch that outlives it is killed, never left behind."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[Watcher]:
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a", description="First.")}, "sources: [src]\n")
    w = Watcher(config)
    yield w
    if w.proc.poll() is None:
        w.proc.kill()
        w.proc.wait()


def _description(dist: Path) -> str:
    return reader.open(dist).skill_meta("a").description


def test_an_edit_is_built_a_broken_file_reported_and_the_fix_built(watcher: Watcher, tmp_path: Path) -> None:
    watcher.until("watching for changes")
    assert _description(tmp_path / "dist") == "First."
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", description="Second."))
    watcher.until("watching for changes")
    assert _description(tmp_path / "dist") == "Second."
    (tmp_path / "src/a/SKILL.md").write_text("---\nname: a\ndescription: [oops\n---\nbody\n")
    broken = "".join(watcher.until("watching for changes"))
    assert "error[SKC203]" in broken and "build failed" in broken, broken
    assert _description(tmp_path / "dist") == "Second."  # the previous build is still served
    (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", description="Third."))
    watcher.until("watching for changes")
    assert _description(tmp_path / "dist") == "Third."
    assert watcher.stop() == 130
    assert "Traceback" not in "".join(watcher.seen)


def test_a_deleted_config_is_reported_and_its_return_rebuilds(watcher: Watcher, tmp_path: Path) -> None:
    watcher.until("watching for changes")
    config = tmp_path / "skillc.yaml"
    text = config.read_text()
    config.unlink()
    gone = "".join(watcher.until("watching for changes"))
    assert "config file not found" in gone, gone
    config.write_text(text + "output: out\n")
    watcher.until("watching for changes")
    assert reader.open(tmp_path / "out").all_commands() == ["a"]
    assert watcher.stop() == 130


def test_the_output_and_the_cache_never_trigger_a_run(tmp_path: Path) -> None:
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, "sources: [src]\noutput: src/out\n")
    plan = watch.plan_for(config)
    src = (tmp_path / "src").resolve()
    assert plan.wants(src / "a/SKILL.md") and plan.wants(config.resolve())
    assert not plan.wants(src / "out/_index.json")
    assert not plan.wants(src / "a/.skillc-cache/x") and not plan.wants(src / ".git/HEAD")
    assert not plan.wants(tmp_path.resolve() / "elsewhere.md")


def test_a_config_that_does_not_load_watches_the_config_alone(tmp_path: Path) -> None:
    config = project(tmp_path, {}, "sources: [src\n")
    assert watch.plan_for(config) == watch.Plan((), (config.resolve(),), ())


def test_check_watch_reports_each_run(tmp_path: Path) -> None:
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a")}, "sources: [src]\n")
    w = Watcher(config, "check")
    try:
        first = "".join(w.until("watching for changes"))
        assert "is stale" in first or "check failed" in first, first
    finally:
        assert w.stop() == 130


@pytest.mark.skipif(
    not __import__("importlib.util").util.find_spec("watchfiles"), reason="skillc[watch] not installed"
)
def test_notifications_from_watchfiles(tmp_path: Path) -> None:
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a", description="First.")}, "sources: [src]\n")
    w = Watcher(config, poll=False)
    try:
        w.until("watching for changes")
        (tmp_path / "src/a/SKILL.md").write_text(skill_md("a", description="Second."))
        w.until("watching for changes")
        assert _description(tmp_path / "dist") == "Second."
    finally:
        assert w.stop() == 130


def test_a_delta_build_is_taken_and_a_failing_one_said_and_built_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The watch's runs in this process: the first builds and keeps its state, an edit is a delta
    build; a delta that fails (a bug) is said, and the whole build still runs."""
    from skillc.cli import build as build_cli
    from skillc.cli import building
    from skillc.incremental import delta

    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a", description="First.")}, "sources: [src]\n")
    run = build_cli._Watched(building.Run(config, (None, None, False, ()), False, True, True, "text", True))
    assert run(None) == 0 and run.state is not None
    target = (tmp_path / "src/a/SKILL.md").resolve()
    target.write_text(skill_md("a", description="Second."))
    taken: list[object] = []
    real = delta.rebuild
    monkeypatch.setattr(
        delta, "rebuild", lambda state, changed: taken.append(real(state, changed)) or taken[-1]
    )
    assert run([target]) == 0 and run.state is not None
    assert taken and taken[0] is not None and run.state is getattr(taken[0], "state", None)
    assert _description(tmp_path / "dist") == "Second."

    def boom(state: object, changed: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(delta, "rebuild", boom)
    target.write_text(skill_md("a", description="Third."))
    assert run([target]) == 0
    assert "internal error in the delta build" in capsys.readouterr().err
    assert _description(tmp_path / "dist") == "Third."


def test_after_a_replayed_first_run_an_edit_is_still_a_delta_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache replays the first run (nothing in memory): the watch compiles the sources to rebuild
    from, and the first edit is a delta build."""
    from skillc.cli import build as build_cli
    from skillc.cli import building
    from skillc.incremental import delta
    from skillc.pipeline import Replayed, build

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    config = project(tmp_path, {"src/a/SKILL.md": skill_md("a", description="First.")}, "sources: [src]\n")
    build(config)
    build(config)  # recorded twice: the next one is replayed
    taken: list[object] = []
    real = delta.rebuild
    monkeypatch.setattr(
        delta, "rebuild", lambda state, changed: taken.append(real(state, changed)) or taken[-1]
    )
    replayed = build_cli.pipeline.build
    results: list[object] = []
    monkeypatch.setattr(
        build_cli.pipeline, "build", lambda *a, **k: results.append(replayed(*a, **k)) or results[-1]
    )
    run = build_cli._Watched(building.Run(config, (None, None, False, ()), False, True, False, "text", True))
    assert run(None) == 0 and isinstance(results[0][0], Replayed) and run.state is not None  # type: ignore[index]
    target = (tmp_path / "src/a/SKILL.md").resolve()
    target.write_text(skill_md("a", description="Second."))
    assert run([target]) == 0 and taken and taken[0] is not None
    assert _description(tmp_path / "dist") == "Second."


WATCHFILES = bool(__import__("importlib.util").util.find_spec("watchfiles"))
MODES = [
    True,
    pytest.param(False, marks=pytest.mark.skipif(not WATCHFILES, reason="skillc[watch] not installed")),
]


@pytest.mark.parametrize("poll", MODES)
def test_a_file_the_template_includes_is_watched(tmp_path: Path, poll: bool) -> None:
    template = "{% macro entry(skill) %}- {{ skill.command }}{% endmacro %}{% include 'parts/head.j2' %}"
    template += "{% for s in skills %}{{ entry(s) }}\n{% endfor %}"
    files = {"src/a/SKILL.md": skill_md("a"), "t/catalog.md.j2": template, "t/parts/head.j2": "Skills:\n"}
    config = project(tmp_path, files, "sources: [src]\ntemplate: t/catalog.md.j2\n")
    w = Watcher(config, poll=poll)
    try:
        w.until("watching for changes")
        assert reader.open(tmp_path / "dist").catalog("default").startswith("Skills:")
        (tmp_path / "t/parts/head.j2").write_text("Tools:\n")
        w.until("watching for changes")
        assert reader.open(tmp_path / "dist").catalog("default").startswith("Tools:")
    finally:
        assert w.stop() == 130


@pytest.mark.parametrize("poll", MODES)
def test_an_ignore_file_above_the_project_is_watched(tmp_path: Path, poll: bool) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("# nothing yet\n")
    root = tmp_path / "packages" / "agent"
    config = project(root, {"src/a/SKILL.md": skill_md("a"), "src/a/notes.txt": "x\n"}, "sources: [src]\n")
    w = Watcher(config, poll=poll)
    try:
        w.until("watching for changes")
        assert reader.open(root / "dist").resources("default", "a") == ["notes.txt"]
        (tmp_path / ".gitignore").write_text("notes.txt\n")
        w.until("watching for changes")
        assert reader.open(root / "dist").resources("default", "a") == []
    finally:
        assert w.stop() == 130


def test_the_plan_holds_every_file_the_config_side_reads(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    root = tmp_path / "p"
    template = "{% macro entry(skill) %}{{ skill.command }}{% endmacro %}{% include 'inc/a.j2' %}"
    config = project(
        root,
        {"src/a/SKILL.md": skill_md("a"), "t/c.j2": template, "t/inc/a.j2": "x"},
        "sources: [src]\ntemplate: t/c.j2\n",
    )
    plan = watch.plan_for(config)
    top, here = tmp_path.resolve(), root.resolve()
    for path in (
        here / "t/inc/a.j2",
        here / "t/c.j2",
        top / ".gitignore",
        top / ".ignore",
        here / ".gitignore",
    ):
        assert path in plan.files and plan.wants(path), path
    assert not any(".git" in p.parts for p in plan.files)
