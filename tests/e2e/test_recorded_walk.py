"""The walk a build records (incremental/walk.py): what discover saw, recorded after the build when
it vouches for what discover read. What it records lets the next build be a no-op, and a change made
while the build ran is never taken for the tree the build read. And the memo saved by a forked
child while the build records itself (incremental/aside.py)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.edits import clean_build
from support.files import REPO
from support.files import snapshot as dist_bytes

from skillc.incremental import aside as aside_mod
from skillc.incremental import memo as memo_mod
from skillc.incremental import session as cache_session
from skillc.incremental import walk as walk_mod
from skillc.incremental.store import DIRNAME
from skillc.pipeline import build

sys.path.insert(0, str(REPO))
from bench.gen import generate


@pytest.fixture
def tree(tmp_path) -> Path:
    generate(tmp_path / "t", 30, n_personas=3, seed=5)
    return tmp_path / "t" / "skillc.yaml"


def first_skill(config: Path) -> Path:
    return sorted(config.parent.glob("skills/src-a/*/SKILL.md"))[0]


def while_building(monkeypatch, change) -> list[object]:
    """`change` made after discover read the inputs and before the build records its walk; the walks
    recorded are listed (None: it vouched for none)."""
    real, recorded = cache_session.recorded, []

    def spied(*args, **kwargs):
        change()
        recorded.append(real(*args, **kwargs))
        return recorded[-1]

    monkeypatch.setattr(cache_session, "recorded", spied)
    return recorded


def built_after(tree: Path, monkeypatch, change) -> tuple[list[object], Any]:
    """A first build with `change` made while it ran (`while_building`), then the next build,
    pruned (a clean build has no objects of the first): the walks recorded, and that next build."""
    recorded = while_building(monkeypatch, change)
    build(tree)
    monkeypatch.setattr(cache_session, "recorded", walk_mod.recorded)
    after, _ = build(tree, prune=True)
    return recorded, after


def test_a_first_build_records_its_walk_and_the_next_is_a_no_op(tree, monkeypatch):
    recorded = while_building(monkeypatch, lambda: None)
    first, written = build(tree)
    assert written is not None and not first.cache.replayed
    assert recorded and recorded[0] is not None
    assert (tree.parent / DIRNAME / walk_mod.NAME).exists()
    again, _ = build(tree)
    assert again.cache.replayed and again.cache.unread and again.cache.quick


@pytest.mark.parametrize("how", ["edited", "added", "removed"])
def test_a_change_while_the_build_ran_is_built_by_the_next(tree, tmp_path, monkeypatch, how):
    """A file edited, added or removed after discover read the tree: the walk recorded is what
    discover saw (the stat data it took before it read), so the next build sees the change."""
    target = first_skill(tree)

    def change() -> None:
        if how == "edited":
            target.write_text(target.read_text() + "\nWritten while the build ran.\n")
        elif how == "added":
            new = target.parent.parent / "added-meanwhile" / "SKILL.md"
            new.parent.mkdir()
            new.write_text("---\nname: added-meanwhile\ndescription: Added while the build ran.\n---\nNew.\n")
        else:
            shutil.rmtree(sorted(target.parent.parent.glob("*/SKILL.md"))[1].parent)

    _recorded, after = built_after(tree, monkeypatch, change)
    assert not after.cache.replayed  # the change is read and built
    assert dist_bytes(tree.parent / "dist") == clean_build(tree.parent, tmp_path / "fresh")[0]


# --- the memo saved by a forked child (incremental/aside.py) ------------------------------------------


@pytest.fixture
def saved_aside(monkeypatch) -> list[int]:
    """The memo saved by a forked child for any number of skills (from ASIDE_AT otherwise, and
    never while the test runner has another thread); the children's pids are listed."""
    monkeypatch.setattr(cache_session, "ASIDE_AT", 0)
    monkeypatch.setattr(aside_mod, "forkable", lambda: True)
    pids: list[int] = []
    real = aside_mod.Aside.__init__

    def spied(self, pid: int, answer: int) -> None:
        pids.append(pid)
        real(self, pid, answer)

    monkeypatch.setattr(aside_mod.Aside, "__init__", spied)
    return pids


def test_a_memo_saved_aside_holds_every_check(tree, tmp_path, saved_aside):
    """The child writes every skill's check: the next build that cannot replay (a config edit)
    checks none again, and the parent reports the buckets the child wrote."""
    first, _ = build(tree)
    assert saved_aside and first.cache.checked > 0
    assert first.cache.buckets_written == len(list((tree.parent / DIRNAME).glob("skill-*.json"))) > 0
    tree.write_text(tree.read_text() + "\n# a comment: another config, the same build\n")
    again, _ = build(tree, prune=True)
    assert again.cache.checked == 0 and again.cache.reused == first.cache.checked
    assert dist_bytes(tree.parent / "dist") == clean_build(tree.parent, tmp_path / "fresh")[0]


def test_a_child_that_fails_leaves_the_save_to_the_build(tree, monkeypatch, saved_aside):
    """A child that dies before it answers: the build saves the memo itself."""
    real_save = memo_mod.Memo.save
    parent = os.getpid()

    def dying(self):
        if os.getpid() != parent:
            os._exit(9)
        return real_save(self)

    monkeypatch.setattr(memo_mod.Memo, "save", dying)
    first, _ = build(tree)
    assert saved_aside and first.cache.buckets_written > 0
    tree.write_text(tree.read_text() + "\n# another config\n")
    again, _ = build(tree)
    assert again.cache.checked == 0


def test_aside_answers_the_childs_bytes_or_none(monkeypatch):
    monkeypatch.setattr(aside_mod, "forkable", lambda: True)
    done = aside_mod.aside(lambda: b"forty-two")
    assert done is not None and done.join() == b"forty-two"
    failed = aside_mod.aside(lambda: bytes(1 // 0))
    assert failed is not None and failed.join() is None
    monkeypatch.setattr(aside_mod, "forkable", lambda: False)
    assert aside_mod.aside(lambda: b"") is None  # the caller does the work


def test_an_interrupted_build_stops_the_child_it_saved_with(tree, monkeypatch, saved_aside):
    """Ctrl-C while the build records itself: the child is stopped and reaped, and its work is not
    done again by the build on its way out."""
    saves: list[int] = []
    real_save = memo_mod.Memo.save

    def counted(self):
        saves.append(os.getpid())
        return real_save(self)

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    joined: list[bool] = []
    real_join = aside_mod.Aside.join

    def waited(self):
        joined.append(True)
        return real_join(self)

    monkeypatch.setattr(memo_mod.Memo, "save", counted)
    monkeypatch.setattr(cache_session.Session, "_record", interrupted)
    monkeypatch.setattr(aside_mod.Aside, "join", waited)
    with pytest.raises(KeyboardInterrupt):
        build(tree)
    assert saved_aside and os.getpid() not in saves and joined == []  # stopped, not waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(saved_aside[0], os.WNOHANG)


def test_the_memo_is_saved_aside_from_the_end_of_the_checks(tree, monkeypatch, saved_aside):
    """The child starts before the write (it saves beside the write and the record), and a write
    that fails stops it: reaped, and no temporary file of its left in the cache."""
    from skillc.output import write as write_mod

    begun: list[int] = []
    real_write = write_mod.write

    def writing(*args, **kwargs):
        begun.append(len(saved_aside))
        return real_write(*args, **kwargs)

    monkeypatch.setattr(write_mod, "write", writing)
    build(tree)
    assert begun == [1]  # the memo's child was forked before the write began
    saved_aside.clear()

    def slow_save(self):
        time.sleep(30)
        return 0

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(memo_mod.Memo, "save", slow_save)
    monkeypatch.setattr(write_mod, "write", full_disk)
    tree.write_text(tree.read_text() + "\n# another config: the build cannot replay\n")
    started = time.monotonic()
    with pytest.raises(OSError):
        build(tree)
    assert saved_aside and time.monotonic() - started < 20  # stopped, not waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(saved_aside[0], os.WNOHANG)
    cache = tree.parent / DIRNAME
    assert not [p for p in os.listdir(cache) if p.endswith(".tmp")]


def test_a_folder_above_the_sources_renamed_over_while_the_build_ran_is_built_by_the_next(
    tree, tmp_path, monkeypatch
):
    """The folder holding the sources swapped for another by two renames (a package manager's
    update): the sources' paths stay the same, and every file of the other tree is older than the
    stamp, but the roots are other folders: nothing is vouched for."""
    root = tree.parent
    shutil.copytree(root / "skills", root / "skills-next")  # before the build: older than its stamp
    edited = sorted((root / "skills-next").glob("src-a/*/SKILL.md"))[0]
    edited.write_text(edited.read_text() + "\nIn the other tree.\n")

    def swap() -> None:
        os.rename(root / "skills", root / "skills-before")
        os.rename(root / "skills-next", root / "skills")

    _recorded, after = built_after(tree, monkeypatch, swap)
    assert not after.cache.replayed
    shutil.rmtree(root / "skills-before")
    assert dist_bytes(root / "dist") == clean_build(root, tmp_path / "fresh")[0]


def test_a_symlink_retargeted_outside_the_sources_while_the_build_ran_is_built_by_the_next(
    tree, tmp_path, monkeypatch
):
    """A SKILL.md that is a symlink through a folder outside the sources, retargeted there while
    the build ran: the link's text and its folder stay as they were, but the file it leads to is
    another than the one recorded (as discover met it), which the next build sees."""
    root = tree.parent
    shared = root / "shared"  # in the project (a link out of it is refused), outside the sources
    for version in ("v1", "v2"):
        (shared / version).mkdir(parents=True)
        text = f"---\nname: linked-skill\ndescription: Version {version}.\n---\nBody {version}.\n"
        (shared / version / "SKILL.md").write_text(text)
    (shared / "current").symlink_to("v1")
    (root / "skills" / "src-a" / "linked-skill").mkdir()
    (root / "skills" / "src-a" / "linked-skill" / "SKILL.md").symlink_to(shared / "current" / "SKILL.md")

    def retarget() -> None:
        (shared / "next").symlink_to("v2")
        os.replace(shared / "next", shared / "current")

    _recorded, after = built_after(tree, monkeypatch, retarget)
    assert not after.cache.replayed
    assert b"Body v2." in b"".join(dist_bytes(root / "dist").values())


def test_a_child_stopped_while_it_wrote_leaves_no_temporary_file(tree, monkeypatch, saved_aside):
    """Ctrl-C while the memo's child writes: the child is killed, and the temporary file it was
    writing is removed with it."""
    directory = tree.parent / DIRNAME

    def writing(self):
        (directory / f".skill-00.json.{os.getpid()}.0badf00d.tmp").write_text("half")
        time.sleep(60)
        return 0

    def interrupted(self, *args, **kwargs):
        deadline = time.monotonic() + 10
        while not list(directory.glob(".*.tmp")) and time.monotonic() < deadline:
            time.sleep(0.01)
        raise KeyboardInterrupt

    monkeypatch.setattr(memo_mod.Memo, "save", writing)
    monkeypatch.setattr(cache_session.Session, "_record", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(tree)
    assert saved_aside and list(directory.glob(".*.tmp")) == []


def test_a_config_saved_while_the_build_ran_is_built_by_the_next(tree, tmp_path, monkeypatch):
    """The config edited after the build read it and before the build is recorded: the record does
    not take the new bytes for the ones the build read, so the next build parses and builds them."""
    real_save, edits = memo_mod.Memo.save, []

    def save_and_edit(self):
        if not edits:
            edits.append(True)
            tree.write_text(tree.read_text().replace("catalog_chars: 30000", "catalog_chars: 2000", 1))
        return real_save(self)

    assert "catalog_chars: 30000" in tree.read_text()
    monkeypatch.setattr(memo_mod.Memo, "save", save_and_edit)
    build(tree)
    assert edits
    monkeypatch.setattr(memo_mod.Memo, "save", real_save)
    after, _ = build(tree, prune=True)
    assert not after.cache.quick and not after.cache.replayed
    assert dist_bytes(tree.parent / "dist") == clean_build(tree.parent, tmp_path / "fresh")[0]
