"""incremental/walk.py: what discover's walk saw, recorded, checked by one lstat of each path, and
renewed where an edit build asked discover again, on small trees built here."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.files import settle, write_tree

from skillc.incremental.session import walk_tops
from skillc.incremental.store import read_signed, write_signed
from skillc.incremental.walk import Walk, decode, encode, recorded, renewed, roots_now, stamp_now
from skillc.model import Config
from skillc.project import config as config_mod
from skillc.stages.discover import discover, discover_under
from skillc.stages.seen import Seen

FILES = {
    "skillc.yaml": "format: 1\nsources: [src]\npersonas: personas\noutput: dist\n",
    "src/alpha/SKILL.md": "---\nname: alpha\ndescription: A.\n---\nalpha\n",
    "src/alpha/references/guide.md": "guide\n",
    "src/alpha-x/SKILL.md": "---\nname: alpha-x\ndescription: X.\n---\nx\n",
    "src/beta/SKILL.md": "---\nname: beta\ndescription: B.\n---\nbeta\n",
    "src/beta/scripts/run.sh": "#!/bin/sh\n",
    "personas/base/manifest.yaml": "name: base\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "p", FILES)


def config_of(root: Path) -> Config:
    config, _ = config_mod.load(root / "skillc.yaml")
    assert config is not None
    return config


def through_store(data: Any) -> Any:
    """The data as the next build reads it: written to a signed file and read back (store.py)."""
    with tempfile.TemporaryDirectory() as d:
        write_signed(Path(d), "walk.json", b"k" * 32, data)
        return read_signed(Path(d), "walk.json", b"k" * 32)


def walked(root: Path, meanwhile: Callable[[], object] = lambda: None) -> Walk | None:
    """discover's walk of the tree, recorded as a build records it, and read back as the next one
    reads it; `meanwhile` is done between the stamp and the walk."""
    settle(root)
    config = config_of(root)
    tops = walk_tops(config)
    stamp, roots = stamp_now(root / ".skillc-cache"), roots_now(tops)
    assert stamp is not None and roots is not None
    meanwhile()
    seen = Seen()
    found = discover(config, seen.listdir, seen.lstat)
    ignore = [str(root / rel) for rel in found.ignore_files]
    walk = recorded(seen, tops, roots, stamp, ignore)
    return None if walk is None else decode(through_store(encode(walk)), walk.id)


def same_size_edit(p: Path) -> None:
    st = p.stat()
    p.write_bytes(p.read_bytes().upper())
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back: the ctime still moves


# Every change a build must see, at the level of the walk.
CHANGES: dict[str, Callable[[Path], object]] = {
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
    "a root removed": lambda r: shutil.rmtree(r / "personas"),
    "a root replaced by a link to its copy": lambda r: (
        shutil.copytree(r / "personas", r / "personas-copy", copy_function=shutil.copy2),
        shutil.rmtree(r / "personas"),
        (r / "personas").symlink_to("personas-copy"),
    ),
}


def test_an_untouched_tree_is_unchanged_without_listing_a_folder(root, monkeypatch):
    walk = walked(root)
    assert walk is not None and walk.paths and walk.names
    monkeypatch.setattr(os, "listdir", lambda *a: pytest.fail("listed"))
    monkeypatch.setattr(os, "scandir", lambda *a: pytest.fail("listed"))
    changes = walk.check()
    assert changes is not None and changes.none


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_change_is_seen(root, change):
    walk = walked(root)
    assert walk is not None
    CHANGES[change](root)
    changes = walk.check()
    assert changes is None or not changes.none


def test_a_path_changed_after_the_stamp_is_not_recorded(root):
    def edit() -> None:
        (root / "src/beta/SKILL.md").write_text("---\nname: beta\ndescription: B.\n---\nnew\n")

    assert walked(root, edit) is None


def test_a_name_that_is_not_utf8_is_not_recorded(root):
    (root / "src/alpha" / os.fsdecode(b"bad\xff.md")).write_text("x\n")
    assert walked(root) is None


def test_a_root_of_another_real_path_cannot_be_told(root):
    walk = walked(root)
    assert walk is not None
    (root / "src").rename(root / "src-moved")
    (root / "src").symlink_to("src-moved")
    assert walk.check() is None


def test_the_names_recorded_are_each_folders_listing(root):
    walk = walked(root)
    assert walk is not None
    for folder in (root / "src", root / "src/alpha", root / "personas"):
        assert sorted(walk.listing(str(folder)) or []) == sorted(os.listdir(folder))
    assert walk.listing(str(root / "nowhere")) is None


# What an edit build asks discover again below one folder (edit.py): the walk it renews is the
# walk a whole walk of the tree now records.
RENEWALS: dict[str, tuple[Callable[[Path], object], str]] = {
    "a file edited": (
        lambda r: (r / "src/alpha/SKILL.md").write_text(FILES["src/alpha/SKILL.md"] + "x\n"),
        "alpha",
    ),
    "a file added": (lambda r: (r / "src/alpha/notes.md").write_text("new\n"), "alpha"),
    "a folder removed": (lambda r: shutil.rmtree(r / "src/alpha/references"), "alpha"),
    "a skill removed": (lambda r: shutil.rmtree(r / "src/alpha"), "alpha"),
    "a skill added": (
        lambda r: write_tree(r, {"src/alpha-y/SKILL.md": "---\nname: alpha-y\ndescription: Y.\n---\ny\n"}),
        "alpha-y",
    ),
}


@pytest.mark.parametrize("change", sorted(RENEWALS))
def test_a_walk_renewed_below_a_folder_is_the_walk_of_the_tree_now(root, change):
    walk = walked(root)
    assert walk is not None
    edit, unit = RENEWALS[change]
    edit(root)
    settle(root)
    changes = walk.check()
    assert changes is not None and not changes.none
    stamp = stamp_now(root / ".skillc-cache")
    assert stamp is not None
    config = config_of(root)
    seen = Seen()
    assert discover_under(config, 0, unit, (seen.listdir, seen.lstat)) is not None
    src = root / "src"
    relisted = {str(src): ((0, *(lambda s: (s.st_ctime_ns, s.st_ino))(os.stat(src))), os.listdir(src))}
    made = renewed(walk, changes, [f"{src}/{unit}"], seen, relisted, stamp)
    now = walked(root)
    assert made is not None and now is not None
    assert made.paths == now.paths and made.names == now.names and made.root_names == now.root_names
    assert made.stats[1::3] == now.stats[1::3] and made.stats[2::3] == now.stats[2::3]
    again = made.check()
    assert again is not None and again.none


def test_a_recorded_walk_that_does_not_fit_is_not_used(root):
    walk = walked(root)
    assert walk is not None
    data = through_store(encode(walk))
    data = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in data.items()}
    assert decode(data, walk.id) is not None
    assert decode(data, "another walk") is None
    for spoil in (
        lambda d: d.pop("stats"),
        lambda d: d.update(stats=d["stats"][:-8]),  # a value short
        lambda d: d.update(names=d["names"][: d["names"].rindex(b"\0", 0, -1) + 1]),  # a folder short
        lambda d: d.update(base="relative/base"),
        lambda d: d.update(root_names=[]),
        lambda d: d.update(paths=d["paths"] + b"\xff\0"),  # not UTF-8
        lambda d: d.update(links=[["x", 1, 2]]),
    ):
        spoiled = dict(data)
        spoil(spoiled)
        assert decode(spoiled, walk.id) is None


LINK_CHANGES: dict[str, Callable[[Path], object]] = {
    "retargeted": lambda r: (
        (r / "src/alpha/shared.md").unlink(),
        (r / "src/alpha/shared.md").symlink_to("../../outside/shared-b.md"),
    ),
    "its file edited": lambda r: (r / "outside/shared-a.md").write_text("A, edited\n"),
    "its file chmod +x": lambda r: (r / "outside/shared-a.md").chmod(0o755),
    "its file removed": lambda r: (r / "outside/shared-a.md").unlink(),
    "its file replaced by another": lambda r: (r / "outside/shared-b.md").rename(r / "outside/shared-a.md"),
}


@pytest.mark.parametrize("change", sorted(LINK_CHANGES))
def test_a_link_to_a_file_is_checked_by_its_target_and_its_file(root, change):
    write_tree(root, {"outside/shared-a.md": "A\n", "outside/shared-b.md": "B\n"})  # same size
    (root / "src/alpha/shared.md").symlink_to("../../outside/shared-a.md")
    walk = walked(root)
    assert walk is not None and walk.links
    unchanged = walk.check()
    assert unchanged is not None and unchanged.none
    LINK_CHANGES[change](root)
    changes = walk.check()
    assert changes is None or not changes.none


def test_a_link_to_a_folder_is_not_recorded(root):
    (root / "src/alpha/more").symlink_to("../beta/scripts")
    assert walked(root) is None
