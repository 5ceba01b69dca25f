"""output/journal.py: renames done as one, undone after a failure or by the next run after a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.files import snapshot, write_tree

from skillc.output import journal


def test_a_failed_step_undoes_the_steps_done(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a/x": "old\n", ".stage-1/new/x": "new\n", ".stage-1/marker": "m\n"})
    before = snapshot(tmp_path)
    steps = journal.Journal(tmp_path, tmp_path / ".stage-1", ".stage-1/marker")
    steps.rename("a", ".stage-1/old")
    steps.rename(".stage-1/new", "a")
    steps.mkdir("made")
    steps.rename("missing", "nowhere")  # fails
    with pytest.raises(FileNotFoundError):
        steps.run()
    after = snapshot(tmp_path)
    after.pop(".stage-1/journal.json")
    assert after == before and not (tmp_path / "made").exists()


def test_recover_undoes_an_uncommitted_change_and_drops_a_committed_ones_stage(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a/x": "new\n", ".stage-1/old/x": "old\n", ".stage-1/marker": "m\n"})
    doc = {
        "commit": ".stage-1/marker",
        "steps": [["rename", "a", ".stage-1/old"], ["rename", ".stage-1/new", "a"]],
    }
    (tmp_path / ".stage-1/journal.json").write_text(json.dumps(doc))
    journal.recover(tmp_path, ".stage-")
    assert snapshot(tmp_path) == {"a/x": b"old\n"}
    write_tree(tmp_path, {".stage-2/old/x": "older\n"})  # committed (no staged marker left)
    (tmp_path / ".stage-2/journal.json").write_text(json.dumps(doc | {"commit": ".stage-2/marker"}))
    journal.recover(tmp_path, ".stage-")
    assert snapshot(tmp_path) == {"a/x": b"old\n"}


@pytest.mark.parametrize("path", ["../outside", "/abs", "a/../../x", ""])
def test_a_journal_naming_a_path_outside_is_not_followed(tmp_path: Path, path: str) -> None:
    write_tree(tmp_path, {"box/.stage-1/marker": "m\n", "box/.stage-1/old": "x\n", "outside": "keep\n"})
    doc = {"commit": ".stage-1/marker", "steps": [["rename", path, ".stage-1/old"]]}
    (tmp_path / "box/.stage-1/journal.json").write_text(json.dumps(doc))
    journal.recover(tmp_path / "box", ".stage-")
    assert snapshot(tmp_path) == {"outside": b"keep\n"}
