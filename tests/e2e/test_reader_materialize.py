"""Claude Code's argument substitution and materialize(), table-driven."""

from __future__ import annotations

import os
import stat

import pytest
from support.cli import build
from support.project import project, skill_md

from skillc import reader
from skillc.reader import substitute

CASES = [
    # (body, args, names, expected)
    ("Fix $ARGUMENTS now", "42 high", (), "Fix 42 high now"),
    ("Fix $ARGUMENTS", "a  'b c'", (), "Fix a  'b c'"),  # as typed
    ("$0 from $1 to $2", "'search bar' React Vue", (), "search bar from React to Vue"),
    ("$ARGUMENTS[0]/$ARGUMENTS[1]", 'x "y z"', (), "x/y z"),
    ("cost is $5", "a", (), "cost is $5"),  # no such word: unchanged
    ("$ARGUMENTS[3]", "a", (), "$ARGUMENTS[3]"),
    ("issue $issue on $branch", "42", ("issue", "branch"), "issue 42 on "),  # missing named: empty
    ("$issuer $issue.", "7", ("issue",), "$issuer 7."),  # a longer word is not the name
    ("price \\$1.00", "a", (), "price $1.00\n\nARGUMENTS: a\n"),  # escaped, and no placeholder used
    ("\\\\$0", "a", (), "\\\\a"),  # a doubled backslash does not escape
    ("no placeholders", "x y", (), "no placeholders\n\nARGUMENTS: x y\n"),
    ("no placeholders", "", (), "no placeholders"),
    ("$" + "9" * 5000, "x", (), "$" + "9" * 5000),  # never int() a huge index
    ("body", None, (), "body"),
    ("$0 $1", ["a b", "c"], (), "a b c"),  # a list: already split
]


@pytest.mark.parametrize("body, args, names, expected", CASES)
def test_substitute(body, args, names, expected):
    assert substitute(body, args, names=names) == expected


def test_skill_dir_expands_only_when_given():
    assert substitute("${CLAUDE_SKILL_DIR}/x $0", "a", skill_dir="/w") == "/w/x a"
    assert substitute("${CLAUDE_SKILL_DIR}/x", None) == "${CLAUDE_SKILL_DIR}/x"
    assert substitute("\\${CLAUDE_SKILL_DIR}", None, skill_dir="/w") == "${CLAUDE_SKILL_DIR}"


def test_bad_args_are_a_reader_error():
    with pytest.raises(reader.ReaderError):
        substitute("$0", 5)  # type: ignore[arg-type]


def test_unbalanced_quotes_fall_back_to_words():
    assert substitute("$1", "a 'b") == "'b"


@pytest.fixture
def dist(tmp_path):
    md = skill_md(
        description="d", body="Run ${CLAUDE_SKILL_DIR}/scripts/go for $issue.\n", arguments="[issue]"
    )
    cfg = project(
        tmp_path, {"skills/a/SKILL.md": md, "skills/a/scripts/go": "#!/bin/sh\n", "skills/a/ref/r.md": "r\n"}
    )
    os.chmod(tmp_path / "skills/a/scripts/go", 0o755)
    assert build(cfg).exit_code == 0
    return reader.open(tmp_path / "dist")


def test_load_maps_named_arguments(dist):
    assert "for 42." in dist.load("default", "a", args="42").body


def test_materialize_writes_the_resolved_folder_with_exec_bits(dist, tmp_path):
    dest = tmp_path / "task" / "a"
    out = dist.materialize("default", "a", dest, args="7")
    text = (dest / "SKILL.md").read_text()
    assert out == dest and f"Run {dest}/scripts/go for 7." in text and text.startswith('---\nname: "a"')
    assert os.stat(dest / "scripts/go").st_mode & stat.S_IXUSR
    assert not os.stat(dest / "ref/r.md").st_mode & stat.S_IXUSR


def test_materialize_refuses_a_non_empty_destination(dist, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full/x").write_text("x")
    with pytest.raises(reader.ReaderError):
        dist.materialize("default", "a", tmp_path / "full")


@pytest.mark.parametrize("bad", ["../evil", "/abs", "a/../../x", "SKILL.md", "a//b"])
def test_materialize_never_writes_outside_dest(dist, tmp_path, bad):
    dist._skill("a")["resources"][0]["path"] = bad  # a tampered index, after it was validated
    with pytest.raises(reader.ReaderError):
        dist.materialize("default", "a", tmp_path / "out")
    assert not (tmp_path / "evil").exists()
