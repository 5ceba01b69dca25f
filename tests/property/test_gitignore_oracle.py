"""Property: skillc leaves out of a walk exactly what git leaves out, git itself the oracle.

Random trees and random `.gitignore` files (wildcards, `**`, bracket expressions with ranges and
POSIX classes, escapes, negation, anchoring, trailing spaces, CRLF, a BOM, form feeds, non-ASCII
names) are written into a temporary repository; `git ls-files --others --ignored
--exclude-standard` lists what git ignores, and skillc's rules (ignorefiles.Rules, walked as
discover walks: a folder left out is not entered) must leave out the very same files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillc.project import ignorefiles

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is the oracle")

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Few, short names, so that patterns hit often; "é" is two bytes, as git counts.
NAME = st.text(
    st.sampled_from(["a", "b", "z", "1", "é", ".", "-", "[", "!", " ", "#"]), min_size=1, max_size=3
)
NAMES = NAME.filter(lambda n: n not in (".", "..") and not n.endswith(" "))
PIECES = st.sampled_from(
    [
        "a", "b", "z", "1", "é", ".", "-", "/", "*", "**", "?", "!", "#", " ", "\\", "\\ ",
        "[", "]", "^", "[a-z]", "[z-a]", "[!a]", "[^b]", "[]a]", "[a-]", "[\\]]", "[[:digit:]]",
        "[[:alpha:]]", "[[:punct:]]", "[[:space:]]", "[[:upper:]]", "[[:foo:]]", "[[:a]", "[é]",
        "\x0c", "\x0b", "\u2028", "\u0085",
    ]
)  # fmt: skip
LINE = st.lists(PIECES, min_size=1, max_size=5).map("".join)
ENDING = st.sampled_from(["\n", "\r\n"])


@st.composite
def ignore_file(draw: st.DrawFn) -> bytes:
    ending = draw(ENDING)
    text = ending.join(draw(st.lists(LINE, min_size=1, max_size=5)))
    if draw(st.booleans()):
        text += ending
    data = text.encode("utf-8")
    return b"\xef\xbb\xbf" + data if draw(st.booleans()) else data


@st.composite
def trees(draw: st.DrawFn) -> tuple[set[str], dict[str, bytes]]:
    paths = draw(st.lists(st.lists(NAMES, min_size=1, max_size=3).map("/".join), min_size=1, max_size=10))
    files: set[str] = set()
    for path in paths:  # a path that is a folder of another cannot also be a file
        if not any(f.startswith(path + "/") or path.startswith(f + "/") for f in files):
            files.add(path)
    folders = sorted({""} | {f.rsplit("/", 1)[0] for f in files if "/" in f})
    ignores = {}
    for folder in draw(st.lists(st.sampled_from(folders), min_size=1, max_size=3, unique=True)):
        ignores[f"{folder}/.gitignore" if folder else ".gitignore"] = draw(ignore_file())
    return files - set(ignores), ignores


def git_ignored(root: Path) -> set[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(root / ".git"),  # no global excludes file, no user config
        "XDG_CONFIG_HOME": str(root / ".git"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    subprocess.run(["git", "init", "-q", "--template=", str(root)], check=True, env=env)
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--others", "--ignored", "--exclude-standard"],
        check=True,
        env=env,
        capture_output=True,
    ).stdout
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


def skillc_ignored(root: Path) -> set[str]:
    """Every file the rules leave out, walking as discover does: a folder left out is not entered."""
    rules = ignorefiles.rules_for(root, root, ())
    left_out: set[str] = set()
    pending = [""]
    while pending:
        folder = pending.pop()
        for name in sorted(os.listdir(root / folder if folder else root)):
            rel = f"{folder}/{name}" if folder else name
            if rel == ".git":
                continue
            is_dir = (root / rel).is_dir()
            if rules.ignored(rel, is_dir):
                left_out.update(everything_below(root, rel) if is_dir else {rel})
            elif is_dir:
                pending.append(rel)
    return left_out


def everything_below(root: Path, rel: str) -> set[str]:
    return {
        Path(os.path.relpath(Path(dirpath, name), root)).as_posix()
        for dirpath, _dirs, names in os.walk(root / rel)
        for name in names
    }


@SETTINGS
@given(tree=trees())
def test_skillc_ignores_what_git_ignores(tree: tuple[set[str], dict[str, bytes]]) -> None:
    files, ignores = tree
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, data in [*((f, b"x") for f in files), *ignores.items()]:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        assert skillc_ignored(root) == git_ignored(root)
