"""The reader's cold start: the single-file reader imports no `json`, `re` or `dataclasses` (their import
is most of a cold start; bench/targets.py has the figures). Its stand-ins have unit tests of their own:
unit/test_jsonio.py, unit/test_record.py and unit/test_prompts.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.files import GOLDEN_DIST

from skillc.reader import vendor

HEAVY = ("json", "re", "dataclasses", "inspect", "enum", "hashlib", "typing")


def test_open_catalog_and_load_import_nothing_heavy(tmp_path: Path) -> None:
    """The single-file reader, alone, without site: the cold path a deployed application takes."""
    (tmp_path / "reader.py").write_text(vendor.bundle(), "utf-8")
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import reader\n"
        f"d = reader.open({str(GOLDEN_DIST)!r})\n"
        "d.catalog('pilot'); d.load('pilot', 'alpha').render(); d.skill_meta('alpha')\n"
        # no `$` in the body: arguments and params cost nothing
        "d.load('pilot', 'alpha/child', args='a b', params={'CLAUDE_EFFORT': 'high'})\n"
        "reader.substitute('x $ARGUMENTS ${CLAUDE_EFFORT} $ARGUMENTS_x', 'a b', params={'CLAUDE_EFFORT': 'low'})\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_arguments_still_substitute_once_re_is_needed(tmp_path: Path) -> None:
    (tmp_path / "reader.py").write_text(vendor.bundle(), "utf-8")
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import reader\n"
        "print(reader.substitute('go $ARGUMENTS[1] $who', 'a b', names=('who',)))\n"
    )
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "go b a"
