"""A build without the cache takes the objects its helper found whole (output/survey.py) as they
are, reads back the rest, and repairs any that do not hold what their names say."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

import pytest
from support.cli import build
from support.project import CONFIG_PERSONAS, project, skill_md

from skillc import pipeline
from skillc.output import survey, write


@pytest.fixture
def built(tmp_path: Path) -> Path:
    cfg = project(
        tmp_path,
        {
            **{f"skills/s{i}/SKILL.md": skill_md(body=f"Body {i}.\n") for i in range(6)},
            "skills/s0/scripts/run.sh": "echo hi\n",
            "personas/p/manifest.yaml": "name: P\n",
        },
        CONFIG_PERSONAS,
    )
    assert build(cfg).exit_code == 0
    return cfg


def _objects(dist: Path) -> list[Path]:
    return sorted(p for p in (dist / "objects").rglob("*") if p.is_file())


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the write stage reads back to compare; the helper let finish (not stopped at
    once), so that what it finds does not depend on the machine's load."""
    if (os.cpu_count() or 1) < 2 or not hasattr(os, "memfd_create"):
        pytest.skip("no helper on this machine")
    read: list[str] = []
    same = write._same

    def counted(path: Path, data: bytes, is_object: bool) -> bool:
        read.append(path.name)
        return same(path, data, is_object)

    monkeypatch.setattr(write, "_same", counted)
    monkeypatch.setattr(survey.Survey, "known", functools.partialmethod(survey.Survey.known, wait=True))
    return read


def test_no_object_the_helper_found_whole_is_read_back(built: Path, reads: list[str]) -> None:
    before = {p: p.read_bytes() for p in _objects(built.parent / "dist")}
    _, written = pipeline.build(built, cache=False)
    assert written is not None and not written.written
    assert not [name for name in reads if len(name) == 64]  # the index and the marker only
    assert {p: p.read_bytes() for p in _objects(built.parent / "dist")} == before


def test_a_cache_without_a_record_of_the_output_asks_the_helper(built: Path, reads: list[str]) -> None:
    shutil.rmtree(built.parent / ".skillc-cache")
    (built.parent / "skills/s5/SKILL.md").write_text(skill_md(body="Body 5, edited.\n"))
    _, written = pipeline.build(built)
    assert written is not None and written.written
    assert not [name for name in reads if len(name) == 64]  # the new body is missing, not compared


def test_an_object_edited_in_place_is_repaired(built: Path, reads: list[str]) -> None:
    dist = built.parent / "dist"
    victim = next(p for p in _objects(dist) if p.read_bytes().startswith(b"Body 3."))
    good, st = victim.read_bytes(), victim.stat()
    victim.write_bytes(good.upper())  # the same size, the mtime set back
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    _, written = pipeline.build(built, cache=False)
    assert written is not None and written.written
    assert victim.read_bytes() == good
    assert hashlib.sha256(good).hexdigest() == victim.name
    assert victim.name in reads  # the helper left it out: compared, found changed, rewritten


def test_an_object_edited_after_the_helper_read_it_is_repaired(
    built: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = built.parent / "dist"
    victim = next(p for p in _objects(dist) if p.read_bytes().startswith(b"Body 4."))
    good = victim.read_bytes()
    known = survey.Survey.known

    def then_edited(self: survey.Survey, wait: bool = False) -> dict[str, list[int]]:
        found = known(self, wait=True)
        assert f"objects/{victim.name[:2]}/{victim.name}" in found
        victim.write_bytes(good.upper())  # after the helper vouched for it: its ctime moves
        return found

    monkeypatch.setattr(survey.Survey, "known", then_edited)
    pipeline.build(built, cache=False)
    assert victim.read_bytes() == good


def test_check_reads_back_no_object_the_helper_found_whole(built: Path, reads: list[str]) -> None:
    _, cmp = pipeline.check(built)
    assert cmp is not None and cmp.current
    assert not [name for name in reads if len(name) == 64]


def test_check_sees_an_object_edited_in_place(built: Path, reads: list[str]) -> None:
    dist = built.parent / "dist"
    victim = next(p for p in _objects(dist) if p.read_bytes().startswith(b"Body 2."))
    st = victim.stat()
    victim.write_bytes(victim.read_bytes().upper())
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    _, cmp = pipeline.check(built)
    assert cmp is not None and cmp.changed == (f"objects/{victim.name[:2]}/{victim.name}",)


def test_a_build_interrupted_stops_and_reaps_its_helper(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[survey.Survey, int]] = []
    start = survey.start

    def kept(dist: str) -> survey.Survey | None:
        running = start(dist)
        if running is not None:
            started.append((running, running._pid))
        return running

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(survey, "start", kept)
    monkeypatch.setattr(pipeline, "_back", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pipeline.build(built, cache=False)
    if not started:
        pytest.skip("no helper on this machine")
    running, pid = started[0]
    assert running._pid == 0  # ended
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # and reaped: no zombie left
