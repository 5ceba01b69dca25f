"""The Unicode data the format pins (docs/format.md): the delimiter fold table and the white space."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
import unicodedata

import pytest
from conformance import fold_table

from skillc.format import escape as fmt
from skillc.format import foldtable

# docs/format.md, "White space": what splits arguments on the fallback path and what the fold drops.
WHITE_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
WHITE_SPACE += "\u2028\u2029\u202f\u205f\u3000"


def test_python_copy_is_the_table() -> None:
    text = fold_table.TABLE.read_text("utf-8")
    assert fold_table.PYTHON.read_text("utf-8") == fold_table.python_text(text)
    assert foldtable.FOLD_UNICODE == fold_table.UNICODE


def _python_313() -> str | None:
    """A Python 3.13 on this machine: pyenv's first (its shim may point elsewhere), then PATH's."""
    found = [*sorted(glob.glob("/root/.pyenv/versions/3.13*/bin/python")), shutil.which("python3.13") or ""]
    return next((p for p in found if p), None)


def test_table_is_unicodedata_at_its_version() -> None:
    """Regenerated from unicodedata at Unicode 15.1.0 (Python 3.13), the table is the same."""
    if unicodedata.unidata_version == fold_table.UNICODE:
        assert fold_table.main(check=True) == 0
        return
    python = _python_313()
    if python is None:
        pytest.skip("no Python 3.13 (Unicode 15.1.0) to regenerate the table with")
    done = subprocess.run([python, str(fold_table.__file__), "--check"], capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 2: not Unicode 15.1.0 after all; else it did not run
        pytest.skip(f"{python} cannot check the table: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr


def test_white_space_is_pinned() -> None:
    """str.isspace and str.split agree with the spec's list on this Python (3.11 to 3.13 all do)."""
    spaces = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    assert spaces == WHITE_SPACE
    assert f"a{WHITE_SPACE}b".split() == ["a", "b"]  # the fallback split of arguments


def test_every_white_space_is_dropped_by_the_fold() -> None:
    for ch in WHITE_SPACE:
        assert fmt.escape_delimiter(f"<{ch}untrusted-data") == f"&lt;{ch}untrusted-data"


def test_the_fold_ignores_this_pythons_unicode() -> None:
    """A combining mark added in Unicode 15.0 is dropped on every Python, 3.11 (Unicode 14) included."""
    assert fmt.escape_delimiter("<un\U0001e08ftrusted-data") == "&lt;un\U0001e08ftrusted-data"
