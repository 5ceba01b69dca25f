"""Which files of an output skillc may replace: those it wrote. skillc never deletes or overwrites
a file it did not write.

A build replaces the files of its output (write.py: in place, or a whole new tree swapped in), so
before it does, every file in the output must be skillc's own:

- a file this build writes, or the ownership marker;
- an object (`objects/...`): content-addressed, written only by builds, kept until `--prune`;
- a file the previous build's index lists (a persona's prompt copy, for a persona since removed);
- whatever stands at the name of one of skillc's folders (`objects`, `personas`);
- a temporary file of a killed build (`.skillc-tmp-*` at the top, see layout.TEMP_PREFIX), which the
  next build removes.

Anything else (a wheel in `dist/`, a README someone added) is foreign: the build is refused with
one error naming each such file, and nothing is removed. `ownership_problem` (write.py) already
refuses a whole directory skillc never wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .. import fs
from ..format.layout import INDEX, MAX_INDEX_BYTES, OBJECTS, OUTPUT_MARKER, PERSONAS, TEMP_PREFIX, is_object
from ..model import Artifacts


def foreign_files(dist: Path, art: Artifacts, present: Iterable[str] | None = None) -> list[str]:
    """The files below dist (relative, sorted) that neither this build nor the last one wrote.

    present: the files below dist, when the caller has just listed them (fs.scan_tree, list_tree)."""
    if present is None:
        present = fs.list_tree(dist) if dist.is_dir() else None
    if not present:
        return []
    # OBJECTS and PERSONAS are listed only when something not a folder took their name (a planted
    # symlink): the name is skillc's, and replacing a link removes the link, never what it points to.
    ours = {*art.files, OUTPUT_MARKER, OBJECTS, PERSONAS, *previous_copies(dist)}
    return sorted(
        rel for rel in present if rel not in ours and not is_object(rel) and not rel.startswith(TEMP_PREFIX)
    )


def previous_copies(dist: Path) -> set[str]:
    """The prompt copies the index on disk lists: the files the last build wrote besides objects."""
    try:
        index = json.loads(fs.read_regular(dist / INDEX, MAX_INDEX_BYTES, follow=False))
    except (OSError, ValueError):
        return {INDEX}  # unreadable or damaged: only its own name is known to be skillc's
    personas = index.get("personas") if isinstance(index, dict) else None
    copies = {INDEX}
    for entry in personas.values() if isinstance(personas, dict) else ():
        copy = entry.get("copy") if isinstance(entry, dict) else None
        if isinstance(copy, str):
            copies.add(copy)
    return copies


def refusal(output: str, foreign: list[str]) -> str:
    """The message for a build refused because of foreign files (one line per file follows it)."""
    return (
        f"{len(foreign)} file(s) in {output}/ were not written by skillc, which never deletes or "
        "overwrites a file it did not write: move them out of the output, or choose another output"
    )
