"""The stat walk of a build the cache has no record for, taken after discover (incremental/latewalk.py):
what it records lets the next build be a no-op, and a change made while the build ran is never
taken for the tree the build read."""

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

from skillc import reap
from skillc.incremental import aside as aside_mod
from skillc.incremental import latewalk, manifest
from skillc.incremental import memo as memo_mod
from skillc.incremental import session as cache_session
from skillc.incremental import snapshot as snapshots
from skillc.incremental.store import DIRNAME
from skillc.pipeline import build

sys.path.insert(0, str(REPO))
from bench.gen import generate

REAL_START = latewalk.start


@pytest.fixture
def tree(tmp_path) -> Path:
    generate(tmp_path / "t", 30, n_personas=3, seed=5)
    return tmp_path / "t" / "skillc.yaml"


REAL_RESULT = latewalk.LateWalk.result


@pytest.fixture
def helper(monkeypatch) -> None:
    """The helper process for any number of inputs (it starts only past SPAWN_AT otherwise), its
    answer waited for (a build takes it only when the helper is done by then)."""
    monkeypatch.setattr(latewalk, "SPAWN_AT", 0)
    monkeypatch.setattr(latewalk.LateWalk, "result", lambda self, wait=False: REAL_RESULT(self, wait=True))


def walk_of(config: Path) -> tuple[snapshots.Tops, list[str], dict[str, str], int]:
    """What a late walk of the sources is given: the roots, every file as an input, the roots'
    real paths and a stamp, taken now."""
    root = config.parent
    tops = tuple((p.relative_to(root).as_posix(), str(p)) for p in sorted((root / "skills").iterdir()))
    inputs = [p.relative_to(root).as_posix() for p in sorted(root.glob("skills/**/*")) if p.is_file()]
    (root / DIRNAME).mkdir(exist_ok=True)
    roots, stamp = snapshots.roots_now(tops), snapshots._fs_now(root / DIRNAME)
    assert roots is not None and stamp is not None
    return tops, inputs, roots, stamp


def first_skill(config: Path) -> Path:
    return sorted(config.parent.glob("skills/src-a/*/SKILL.md"))[0]


def while_building(monkeypatch, change) -> list[object]:
    """`change` made after discover read the inputs and before the late walk starts; the walks
    started are listed (None: the build walked itself)."""
    real, started = latewalk.start, []

    def spied(*args, **kwargs):
        change()
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(latewalk, "start", spied)
    return started


def built_after(tree: Path, monkeypatch, change) -> tuple[list[object], Any]:
    """A first build with `change` made while it ran (`while_building`), then the next build,
    pruned (a clean build has no objects of the first): the walks started, and that next build."""
    started = while_building(monkeypatch, change)
    build(tree)
    monkeypatch.setattr(latewalk, "start", REAL_START)  # (undo would give the cache another key)
    after, _ = build(tree, prune=True)
    return started, after


@pytest.mark.parametrize("spawned", [True, False], ids=["helper", "in-process"])
def test_a_first_build_records_its_walk_and_the_next_is_a_no_op(tree, monkeypatch, spawned):
    if spawned:
        monkeypatch.setattr(latewalk, "SPAWN_AT", 0)
        monkeypatch.setattr(
            latewalk.LateWalk, "result", lambda self, wait=False: REAL_RESULT(self, wait=True)
        )
    answers: list[object] = []
    walked_here = latewalk.walk

    def walked(*args, **kwargs):
        answers.append("here")
        return walked_here(*args, **kwargs)

    monkeypatch.setattr(latewalk, "walk", walked)
    started = while_building(monkeypatch, lambda: None)
    first, written = build(tree)
    assert written is not None and not first.cache.replayed
    assert (started[0] is not None) == spawned  # the helper ran, or the build walked itself
    assert answers == ([] if spawned else ["here"])  # the helper's answer taken, not walked again
    assert (tree.parent / DIRNAME / manifest.NAME).exists()
    again, _ = build(tree)
    assert again.cache.replayed and again.cache.unread and again.cache.quick


@pytest.mark.usefixtures("helper")
@pytest.mark.parametrize("how", ["edited", "added", "removed"])
def test_a_change_while_the_build_ran_is_built_by_the_next(tree, tmp_path, monkeypatch, how):
    """A file edited, added or removed after discover read the tree: the walk sees a ctime as new
    as the stamp and vouches for nothing, so the next build reads the inputs and builds the change."""
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

    started, after = built_after(tree, monkeypatch, change)
    assert started[0] is not None
    assert not after.cache.replayed  # the change is read and built
    assert dist_bytes(tree.parent / "dist") == clean_build(tree.parent, tmp_path / "fresh")[0]


def test_settled_vouches_only_for_a_tree_unchanged_since_its_stamp(tree):
    os.utime(tree.parent / "skills", None)  # nothing below changes its ctime by this
    tops, inputs, roots, stamp = walk_of(tree)
    directory = tree.parent / DIRNAME
    walked = snapshots.walk_stat(tops, stamp)
    assert walked is not None and snapshots.settled(walked, roots, inputs)
    assert not snapshots.settled(walked, roots, [*inputs, "skills/src-a/never-read.md"])
    assert not snapshots.settled(walked, {**roots, "skills/src-a": "/elsewhere"}, inputs)
    target = first_skill(tree)
    target.write_text(target.read_text() + "\nLater.\n")
    assert not snapshots.settled(snapshots.walk_stat(tops, stamp), roots, inputs)  # a file moved
    stamp = snapshots._fs_now(directory)
    (target.parent / "new-file.md").write_text("new\n")  # its folder moves, and the file is new
    walked = snapshots.walk_stat(tops, stamp)
    assert walked is not None and not snapshots.settled(walked, roots, inputs)


@pytest.mark.usefixtures("helper")
def test_the_helper_walks_as_the_build_would(tree):
    """The helper's answer is the walk this process takes: the same digest, the same manifest."""
    tops, inputs, roots, stamp = walk_of(tree)
    here = latewalk.walk(tops, stamp, roots, inputs)
    running = latewalk.start(tops, stamp, roots, inputs)
    assert here is not None and running is not None
    there = running.result(wait=True)
    assert there is not None and (there.digest, there.vouched) == (here.digest, True)
    assert there.manifest is not None and here.manifest is not None
    plain = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in there.manifest.items()}
    assert plain == here.manifest


@pytest.mark.usefixtures("helper")
def test_a_helper_that_fails_costs_only_the_saving(tree, monkeypatch):
    """A helper that answers nothing (it exits at once): the build walks itself and records it."""
    monkeypatch.setattr(latewalk, "_BOOT", "import sys; sys.exit(3)")
    started = while_building(monkeypatch, lambda: None)
    build(tree)
    assert started[0] is not None
    again, _ = build(tree)
    assert again.cache.replayed and again.cache.quick


@pytest.mark.parametrize("data", [None, [], {"$digest": 1, "$vouched": True}, {"$digest": "d"}])
def test_nonsense_from_the_helper_is_no_walk(data):
    assert latewalk._answer(data) is None


@pytest.mark.usefixtures("helper")
def test_a_build_that_fails_stops_its_helper(tree, monkeypatch):
    """A build with errors records nothing: the helper is stopped and reaped, not left to run."""
    target = first_skill(tree)
    target.write_text("---\nname: Not A Valid Name!\ndescription: x\n---\nBody.\n")
    started = while_building(monkeypatch, lambda: None)
    _result, written = build(tree)
    assert written is None
    running = started[0]
    assert isinstance(running, latewalk.LateWalk) and running._pid == 0 and running._out == -1


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


def test_aside_answers_the_childs_number_or_none(monkeypatch):
    monkeypatch.setattr(aside_mod, "forkable", lambda: True)
    done = aside_mod.aside(lambda: 41 + 1)
    assert done is not None and done.join() == 42
    failed = aside_mod.aside(lambda: 1 // 0)
    assert failed is not None and failed.join() is None
    monkeypatch.setattr(aside_mod, "forkable", lambda: False)
    assert aside_mod.aside(lambda: 1) is None  # the caller does the work


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


def test_a_helper_not_done_when_the_build_is_is_stopped_and_the_build_walks(tree, tmp_path, monkeypatch):
    """On a busy machine the helper (at the lowest priority) may get no core: the build does not
    wait for it, but stops it and walks itself."""
    done = tmp_path / "helper-done"
    monkeypatch.setattr(latewalk, "SPAWN_AT", 0)
    monkeypatch.setattr(latewalk, "_BOOT", f"import time; time.sleep(3); open({str(done)!r}, 'w')")
    started = while_building(monkeypatch, lambda: None)
    build(tree)
    running = started[0]
    assert isinstance(running, latewalk.LateWalk) and running._pid == 0
    time.sleep(3.5)
    assert not done.exists()  # stopped, not waited for
    again, _ = build(tree)
    assert again.cache.replayed and again.cache.quick


@pytest.mark.usefixtures("helper")
def test_the_helper_imports_nothing_from_the_working_folder(tree, tmp_path, monkeypatch):
    """A checkout's own module named like one the helper imports is never run by it."""
    planted = tmp_path / "planted"
    planted.mkdir()
    mark = tmp_path / "ran"
    (planted / "orjson.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    monkeypatch.chdir(planted)
    started = while_building(monkeypatch, lambda: None)
    build(tree)
    assert started[0] is not None and not mark.exists()


@pytest.mark.usefixtures("helper")
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

    _started, after = built_after(tree, monkeypatch, swap)
    assert not after.cache.replayed
    shutil.rmtree(root / "skills-before")
    assert dist_bytes(root / "dist") == clean_build(root, tmp_path / "fresh")[0]


@pytest.mark.usefixtures("helper")
def test_a_symlink_retargeted_outside_the_sources_while_the_build_ran_is_built_by_the_next(
    tree, tmp_path, monkeypatch
):
    """A SKILL.md that is a symlink through a folder outside the sources, retargeted there while
    the build ran: the link's text and its folder stay as they were, so a walk after discover
    vouches for no tree holding a symlink."""
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

    _started, after = built_after(tree, monkeypatch, retarget)
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


def test_a_helper_that_exited_is_never_signalled_again(tree, monkeypatch):
    """Once reaped, a helper's number may be another process's: it is not killed by it."""
    monkeypatch.setattr(latewalk, "SPAWN_AT", 0)
    monkeypatch.setattr(latewalk, "_BOOT", "import sys; sys.exit(3)")
    stopped: list[int] = []
    monkeypatch.setattr(reap, "stop", stopped.append)
    tops, inputs, roots, stamp = walk_of(tree)
    running = latewalk.start(tops, stamp, roots, inputs)
    assert running is not None and running.result(wait=True) is None
    assert stopped == [0]
