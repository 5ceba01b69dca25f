"""incremental/manifest.py: the recorded walk checked by stat data alone, and its listings reused by the
next walk (snapshot.py), on small trees built here."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.files import settle, write_tree
from support.forks import split_lstats

from skillc.incremental import snapshot as snapshot_mod
from skillc.incremental.manifest import Manifest, Renewal, decode, decode_edited, encode
from skillc.incremental.snapshot import Snapshot, Tops, take_snapshot
from skillc.incremental.store import read_signed, write_signed

FILES = {
    "src/alpha/SKILL.md": "alpha\n",
    "src/alpha/references/guide.md": "guide\n",
    "src/beta/SKILL.md": "beta\n",
    "src/beta/scripts/run.sh": "#!/bin/sh\n",
    "personas/base/manifest.yaml": "name: base\n",
}


@pytest.fixture
def tops(tmp_path: Path) -> Tops:
    root = write_tree(tmp_path / "p", FILES)
    return (("src", str(root / "src")), ("personas", str(root / "personas")))


def through_store(data: Any) -> Any:
    """The data as the next build reads it: written to a signed file and read back (store.py)."""
    with tempfile.TemporaryDirectory() as d:
        write_signed(Path(d), "walk.json", b"k" * 32, data)
        return read_signed(Path(d), "walk.json", b"k" * 32)


def again_of(renewal: Renewal | None, inputs: str, snap: Snapshot, tops: Tops) -> Manifest:
    """What the next build reads of an edit build's renewal, both ways: walk.json written whole, and
    walk.json as it was (the walk `snap`) with walk-edits.json. The two are the same manifest; the
    journaled one (which knows its origin, for a renewal after it) is returned."""
    assert renewal is not None
    whole = decode(through_store(renewal.whole()), inputs)
    journal = renewal.journal()
    assert journal is not None
    base = encode(snap, tops, snap.digest)
    edited = decode_edited(through_store(base), through_store(journal), inputs)
    assert whole is not None and edited is not None
    assert [getattr(edited, f) for f in FIELDS] == [getattr(whole, f) for f in FIELDS]
    assert edited.origin is not None and edited.origin.inputs == snap.digest
    return edited


FIELDS = ("inputs", "base", "tops", "reals", "paths", "counts", "links", "names", "kinds")


def root_of(tops: Tops) -> Path:
    return Path(tops[0][1]).parent


def recorded(tops: Tops, tmp_path: Path) -> tuple[Snapshot, Manifest]:
    """A walk taken when the tree is older than its stamp, its manifest through JSON and back."""
    settle(root_of(tops))
    snap = take_snapshot(tops, tmp_path / "cache")
    assert snap is not None
    data = encode(snap, tops, snap.digest)
    assert data is not None
    found = decode(through_store(data), snap.digest)
    assert found is not None
    return snap, found


def fresh(tops: Tops, tmp_path: Path) -> Snapshot:
    snap = take_snapshot(tops, tmp_path / "cache")
    assert snap is not None
    return snap


def same_size_edit(p: Path) -> None:
    st = p.stat()
    data = p.read_bytes()
    p.write_bytes(data.upper())
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back: the ctime still moves


# Every change a build must see, at the level of the walk.
CHANGES: dict[str, Callable[[Path], None]] = {
    "append to a file": lambda r: (r / "src/alpha/SKILL.md").write_text("alpha, edited\n"),
    "same size, mtime put back": lambda r: same_size_edit(r / "src/beta/SKILL.md"),
    "chmod +x": lambda r: (r / "src/alpha/references/guide.md").chmod(0o755),
    "touch": lambda r: os.utime(r / "src/beta/scripts/run.sh", ns=(1, 10**18)),
    "add a file": lambda r: (r / "src/beta/notes.md").write_text("new\n"),
    "remove a file": lambda r: (r / "src/alpha/references/guide.md").unlink(),
    "rename a file": lambda r: (r / "src/beta/scripts/run.sh").rename(r / "src/beta/scripts/go.sh"),
    "add a folder": lambda r: (r / "src/gamma").mkdir(),
    "rename a folder": lambda r: (r / "src/alpha").rename(r / "src/alpha2"),
    "remove a folder": lambda r: shutil.rmtree(r / "src/beta/scripts"),
    "an ignored .git folder": lambda r: (r / "src/alpha/.git").mkdir(),
    "a file replaced by a folder": lambda r: (
        (r / "src/beta/SKILL.md").unlink(),
        (r / "src/beta/SKILL.md").mkdir(),
    ),
    "a root replaced by a link to its copy": lambda r: (
        shutil.copytree(r / "personas", r / "personas-copy", copy_function=shutil.copy2),
        shutil.rmtree(r / "personas"),
        (r / "personas").symlink_to("personas-copy"),
    ),
    "a root removed": lambda r: shutil.rmtree(r / "personas"),
}


def test_an_untouched_tree_is_unchanged_without_listing_a_folder(tops, tmp_path, monkeypatch):
    _snap, found = recorded(tops, tmp_path)
    monkeypatch.setattr(os, "scandir", lambda *a: pytest.fail("listed a folder"))
    assert found.unchanged()


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_change_is_seen(tops, tmp_path, change):
    _snap, found = recorded(tops, tmp_path)
    assert found.unchanged()
    CHANGES[change](root_of(tops))
    assert not found.unchanged()


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_walk_reusing_the_listings_sees_what_a_new_walk_sees(tops, tmp_path, change):
    _snap, found = recorded(tops, tmp_path)
    CHANGES[change](root_of(tops))
    assert not found.unchanged()  # what it took on the way is reused too
    new = take_snapshot(tops, tmp_path / "cache")
    reused = take_snapshot(tops, tmp_path / "cache", found.listings(), found.taken())
    assert (new is None) == (reused is None)
    if new is not None and reused is not None:
        assert (reused.roots, reused.dirs, reused.files) == (new.roots, new.dirs, new.files)
        assert reused.digest == new.digest
        assert reused.walked is not None and new.walked is not None
        assert reused.walked.listings == new.walked.listings


def test_only_the_changed_folder_is_listed_again(tops, tmp_path, monkeypatch):
    _snap, found = recorded(tops, tmp_path)
    root = root_of(tops)
    (root / "src/beta/notes.md").write_text("new\n")
    listed: list[str] = []
    real = os.scandir

    def counting(path):
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    assert take_snapshot(tops, tmp_path / "cache", found.listings()) is not None
    assert listed == [str(root / "src/beta")]


def test_what_the_check_took_is_not_asked_again(tops, tmp_path, monkeypatch):
    _snap, found = recorded(tops, tmp_path)
    *_, last = sorted(root_of(tops).rglob("*.*"), key=lambda p: found.paths.index(found_rel(found, p)))
    last.write_text(last.read_text() + "more\n")
    assert not found.unchanged()
    taken = found.taken()
    assert len(taken) == len(found.paths) - found.counts[0] - len(found.links)
    asked: list[str] = []
    real = os.lstat
    monkeypatch.setattr(os, "lstat", lambda path, *a, **k: asked.append(str(path)) or real(path, *a, **k))
    take_snapshot(tops, tmp_path / "cache", found.listings(), taken)
    assert not set(asked) & set(taken)


def test_a_listing_is_taken_on_its_folder_stat_data(tops, tmp_path):
    """What makes the shortcut: an unchanged folder is not listed, its recorded entries are used."""
    _snap, found = recorded(tops, tmp_path)
    known = dict(found.listings())
    alpha = str(root_of(tops) / "src/alpha")
    stat, names, kinds = known[alpha]
    known[alpha] = (stat, [*names, "phantom"], kinds + "o")
    snap = take_snapshot(tops, tmp_path / "cache", known)
    assert snap is not None and "ophantom" in snap.dirs["src/alpha"]


def test_a_folder_changed_in_the_stamps_tick_is_never_taken_as_unchanged(tops, tmp_path, monkeypatch):
    """Its stat data could stay the same through a second change in the same tick."""
    settle(root_of(tops))
    monkeypatch.setattr(snapshot_mod, "_fs_now", lambda directory: 0)  # every ctime is as new
    snap = take_snapshot(tops, tmp_path / "cache")
    assert snap is not None and snap.walked is not None
    assert all(folder[2] is None for folder in snap.walked.folders)
    found = decode(through_store(encode(snap, tops, snap.digest)), snap.digest)
    assert found is not None and not found.unchanged()
    monkeypatch.undo()
    listed: list[str] = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(str(path)) or real(path))
    take_snapshot(tops, tmp_path / "cache", found.listings())
    assert len(listed) == len(snap.walked.folders)  # every folder listed again


def test_changes_name_the_files_edited_and_the_folders_whose_entries_moved(tops, tmp_path):
    _snap, found = recorded(tops, tmp_path)
    root = root_of(tops)
    edited = sorted(root.rglob("*.*"))[0]
    edited.write_text(edited.read_text() + "more\n")
    changes = found.changes()
    assert changes is not None and changes.files == (str(edited),) and not changes.folders
    (root / "src/alpha/new.md").write_text("new\n")
    changes = found.changes()
    assert changes is not None and changes.folders == (str(root / "src/alpha"),)


def place(found: Manifest, path: Path) -> int:
    """A path's place past the roots, as lstats.look gives it to `changes`'s meanwhile."""
    roots = found.counts[0]
    return [found.where(p) for p in found.paths].index(str(path)) - roots


@pytest.mark.parametrize("how", ["in place", "through a rename"])
def test_the_guess_at_a_change_holds_what_was_saved_with_it(tops, tmp_path, how):
    """The first path found moved, as the quick path's guess at every change (an edit build made
    while the lstats run, edit._guessed): a file saved in place alone; saved through a new file and
    a rename, with its folder, whichever of the two was found first. What the lstats then find is
    the same."""
    _snap, found = recorded(tops, tmp_path)
    _roots, folders, files = found.counts
    assert not any(found._moved_now(i) for i in range(folders + files))  # each as recorded
    folder = root_of(tops) / "src" / "alpha"
    saved = folder / "SKILL.md"
    if how == "in place":
        saved.write_text("alpha, edited\n")
    else:
        (folder / "SKILL.md.new").write_text("alpha, edited\n")
        os.replace(folder / "SKILL.md.new", saved)
    want = ((str(folder),) if how != "in place" else (), (str(saved),))
    for first in [saved] if how == "in place" else [saved, folder]:
        guess = found._guess(place(found, first))
        assert (guess.folders, guess.files, guess.gone) == (*want, ())
    changes = found.changes()
    assert changes is not None and (changes.folders, changes.files) == want


def test_a_renewed_manifest_holds_the_stat_data_the_check_saw(tops, tmp_path):
    """An edit build records it: the next check finds nothing changed, and a later edit is seen."""
    snap, found = recorded(tops, tmp_path)
    edited = sorted(root_of(tops).rglob("*.*"))[0]
    edited.write_text(edited.read_text() + "more\n")
    assert found.changes() is not None
    again = again_of(found.renewed("next"), "next", snap, tops)
    assert again.unchanged()
    assert again.listings() == found.listings()
    edited.write_text(edited.read_text() + "again\n")
    changes = again.changes()
    assert changes is not None and changes.files == (str(edited),)
    third = again_of(again.renewed("third"), "third", snap, tops)  # a journal over the same walk.json
    assert third.unchanged() and third.listings() == again.listings()


def found_rel(found: Manifest, path: Path) -> str:
    return os.path.relpath(path, found.base)


def link_tree(tops: Tops) -> Path:
    """A symlink to a file outside the walked roots: no walked folder or file changes with it."""
    root = root_of(tops)
    write_tree(root, {"outside/shared-a.md": "A\n", "outside/shared-b.md": "B\n"})  # same size
    (root / "src/alpha/shared.md").symlink_to("../../outside/shared-a.md")
    return root


LINK_CHANGES: dict[str, Callable[[Path], None]] = {
    "retargeted": lambda r: (
        (r / "src/alpha/shared.md").unlink(),
        (r / "src/alpha/shared.md").symlink_to("../../outside/shared-b.md"),
    ),
    "its file edited": lambda r: (r / "outside/shared-a.md").write_text("A, edited\n"),
    "its file chmod +x": lambda r: (r / "outside/shared-a.md").chmod(0o755),
    "its file removed": lambda r: (r / "outside/shared-a.md").unlink(),
    "its file replaced by a folder": lambda r: (
        (r / "outside/shared-a.md").unlink(),
        (r / "outside/shared-a.md").mkdir(),
    ),
    "its file replaced by another": lambda r: (r / "outside/shared-b.md").rename(r / "outside/shared-a.md"),
}


@pytest.mark.parametrize("change", sorted(LINK_CHANGES))
def test_a_symlink_is_checked_by_its_target_and_its_file(tops, tmp_path, change):
    root = link_tree(tops)
    _snap, found = recorded(tops, tmp_path)
    assert found.links and found.unchanged()
    LINK_CHANGES[change](root)
    assert not found.unchanged()


def test_a_name_that_is_not_utf8_is_not_vouched_for(tops, tmp_path):
    """discover refuses it; the walk cannot take its digest (JSON holds no lone surrogate)."""
    root = root_of(tops)
    (root / "src/alpha" / os.fsdecode(b"bad\xff.md")).write_text("x\n")
    assert take_snapshot(tops, tmp_path / "cache") is None


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d.update(inputs="another walk"),
        lambda d: d.pop("files"),
        lambda d: d.update(files=d["files"][:-4]),
        lambda d: d.update(files=d["files"][:-8]),  # one int64 short: whole values, a row short
        lambda d: d.update(folders="not bytes"),
        lambda d: d.update(counts=[d["counts"][0], d["counts"][1] + 1, d["counts"][2]]),
        lambda d: d.update(base="relative/base"),
        lambda d: d.update(tops=[]),
        lambda d: d.update(paths=d["paths"][:-1]),  # the last path without its NUL
        lambda d: d.update(paths=d["paths"][: d["paths"].rindex(b"\0", 0, -1) + 1]),  # a path short
        lambda d: d.update(paths=d["paths"] + b"\xff\0"),  # not UTF-8
        lambda d: d.update(paths=d["paths"].decode().split("\0")[:-1]),  # a JSON list (format 10)
        lambda d: d.update(kinds=d["kinds"] + b"/"),
        lambda d: d.update(names=d["names"].decode()),  # a JSON string (format 10)
        lambda d: d.update(links=[["x", 1]]),
    ],
)
def test_a_manifest_that_does_not_fit_is_not_used(tops, tmp_path, spoil):
    snap, _found = recorded(tops, tmp_path)
    data = through_store(encode(snap, tops, snap.digest))
    data = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in data.items()}  # to spoil
    assert decode(data, snap.digest) is not None
    spoil(data)
    assert decode(data, snap.digest) is None


def test_listings_that_do_not_fit_are_not_used(tops, tmp_path):
    _snap, found = recorded(tops, tmp_path)
    assert found.listings()
    for broken in (
        Manifest(**{**found.__dict__, "names": found.names + "/extra"}),
        Manifest(**{**found.__dict__, "folders": "not bytes"}),
        Manifest(**{**found.__dict__, "folders": found.folders[:-1]}),  # not whole int64s
        Manifest(**{**found.__dict__, "folders": b""}),
    ):
        assert broken.listings() == {}


def test_one_folders_entries_are_its_listing(tops, tmp_path):
    _snap, found = recorded(tops, tmp_path)
    listings = found.listings()
    for where, (_stat, names, kinds) in listings.items():
        assert found.entries(where) == (names, kinds)
    assert found.entries(str(root_of(tops) / "nowhere")) is None


def test_paths_gone_are_named_and_the_rest_kept_in_step(tops, tmp_path, monkeypatch):
    """One lstat per path: a path that is not there is named, and the paths after it are asked on."""
    _snap, found = recorded(tops, tmp_path)
    victim = sorted(root_of(tops).rglob("*.*"))[1]
    victim.unlink()
    changes = found.changes()
    assert changes is not None and changes.gone == (str(victim),)
    assert len(found.seen) == found.counts[1] + found.counts[2] - found.counts[0]
    assert changes.folders == (str(victim.parent),)


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", ["zz-new", "aa-new"])
def test_a_renewed_manifest_with_paths_added_and_gone_is_the_walk_now(tops, tmp_path, which, name):
    """What an edit build records after a skill folder was added and another removed (the first or
    the last, each with a folder inside): the next check finds nothing changed, and each folder's
    entries are the ones a new walk lists."""
    from skillc.incremental.snapshot import _scan

    snap, found = recorded(tops, tmp_path)
    root = root_of(tops)
    gone = sorted(p for p in (root / "src").iterdir() if p.is_dir())[which]
    shutil.rmtree(gone)
    new = root / "src" / name
    (new / "refs").mkdir(parents=True)
    (new / "SKILL.md").write_text("new\n")
    (new / "refs" / "a.md").write_text("a\n")
    settle(root)
    changes = found.changes()
    assert changes is not None and changes.gone and str(root / "src") in changes.folders

    def stat4(p):
        st = os.lstat(p)
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    added = [
        (str(new), stat4(new), _scan(str(new))),
        (str(new / "refs"), stat4(new / "refs"), _scan(str(new / "refs"))),
    ]
    added += [(str(p), stat4(p), None) for p in (new / "SKILL.md", new / "refs" / "a.md")]
    renewed = found.renewed("next", {str(root / "src"): _scan(str(root / "src"))}, added)
    again = again_of(renewed, "next", snap, tops)
    assert again.unchanged()
    fresh = take_snapshot(tops, tmp_path / "cache")
    assert fresh is not None and fresh.walked is not None
    listed = {f[1]: sorted(zip(f[3], f[4], strict=True)) for f in fresh.walked.folders}
    assert {
        w: sorted(zip(names, kinds, strict=True)) for w, (_st, names, kinds) in again.listings().items()
    } == listed


def test_a_renewed_manifest_with_a_file_gone_is_the_walk_now(tops, tmp_path):
    """A file gone from a folder that stays, the folder listed again: the rest as recorded."""
    from skillc.incremental.snapshot import _scan

    snap, found = recorded(tops, tmp_path)
    folder = root_of(tops) / "src" / "alpha" / "references"
    (folder / "guide.md").unlink()
    (folder / "other.md").write_text("other\n")
    settle(root_of(tops))
    changes = found.changes()
    assert changes is not None and changes.gone == (str(folder / "guide.md"),)
    st = os.lstat(folder / "other.md")
    added = [(str(folder / "other.md"), (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino), None)]
    again = again_of(found.renewed("next", {str(folder): _scan(str(folder))}, added), "next", snap, tops)
    assert again.unchanged()
    walk = fresh(tops, tmp_path).walked
    assert walk is not None
    listed = {f[1]: sorted(zip(f[3], f[4], strict=True)) for f in walk.folders}
    assert {w: sorted(zip(n, k, strict=True)) for w, (_st, n, k) in again.listings().items()} == listed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the split is Linux's")
def test_changes_are_the_same_when_a_child_takes_half_the_lstats(tops, tmp_path, monkeypatch):
    _snap, found = recorded(tops, tmp_path)
    files = sorted(root_of(tops).rglob("*.*"))
    files[-1].write_text("edited\n")  # in the second half: the child's
    files[0].unlink()
    answers = []
    for split in (False, True):
        split_lstats(monkeypatch, split)
        changes = found.changes()
        answers.append((changes, found.now.tolist(), list(found.gone)))
    assert answers[0] == answers[1]
    changes = answers[0][0]
    assert changes is not None and str(files[-1]) in changes.files and changes.gone == (str(files[0]),)
