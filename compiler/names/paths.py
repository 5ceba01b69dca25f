"""Path safety rules shared by discovery and validation (ARIA's SEC-002, widened)."""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import diagnostics as dg
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..format.escape import hidden

if TYPE_CHECKING:  # the cache's quick path imports this module, and no model
    from ..model import Document

_DRIVE = re.compile(r"^[A-Za-z]:")
_BIDI_CONTROLS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})

# The build cache's directory below the project root (incremental/store.py keeps it there): never an
# output, never an input, and no symlink among the inputs may lead into it.
CACHE_DIRNAME = ".skillc-cache"


def unsafe_reason(rel: str) -> str | None:
    """Why a relative path from a config, manifest or file name is refused, or None."""
    if not rel:
        return "empty path"
    if "\x00" in rel:
        return "contains a NUL byte"
    if "\\" in rel:
        return "contains a backslash (use '/')"
    hidden = _character_problem(rel)
    if hidden:
        return hidden
    if _DRIVE.match(rel):
        return "is a Windows drive path"
    if rel.startswith("/"):
        return "is an absolute path"
    if rel.startswith("~"):
        return "starts with '~'"
    if any(part == ".." for part in rel.split("/")):
        return "contains '..'"
    return None


def unsafe_name(name: str) -> str | None:
    """Why a single directory or file name found on disk is refused, or None."""
    if "\\" in name:
        return "contains a backslash"
    hidden = _character_problem(name)
    if hidden:
        return hidden
    if _DRIVE.match(name):
        return "looks like a Windows drive"
    if name.startswith("~"):
        return "starts with '~'"
    return None


def _character_problem(name: str) -> str | None:
    """Characters no path may hold: undecodable bytes, control characters, and anything that
    displays as something else or breaks a line where the path is printed."""
    if name.isascii() and name.isprintable():  # the common case: skip the per-character scans
        return None
    if any(unicodedata.category(ch) == "Cs" for ch in name):
        # os.listdir hands undecodable bytes back as surrogates; they cannot be
        # written as UTF-8 into the index later, so refuse them here.
        return "is not valid UTF-8"
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        return "contains a control character"
    if any(unicodedata.bidirectional(ch) in _BIDI_CONTROLS for ch in name):
        return "contains a bidirectional control character"  # a name that displays reordered
    # Marks (U+200E, U+200F, U+061C), zero-width characters, line and paragraph separators:
    # a name that displays as another name, or that splits a line where it is printed.
    unseen = next((ch for ch in name if hidden(ch)), None)
    if unseen is not None:
        return f"contains the invisible or line-breaking character U+{ord(unseen):04X}"
    return None


def nfc(text: str) -> str:
    """macOS hands out decomposed names; normalise so builds agree across machines."""
    return unicodedata.normalize("NFC", text)


def sanitize_command(command: str) -> str:
    """sven's TUI id: per segment lowercase, runs of non-alphanumerics become '_'."""
    if _PLAIN_COMMAND.fullmatch(command):
        return command.replace("-", "_")  # what the rule gives a spec name (once per skill per build)
    return sanitize_each(command)


def sanitize_each(command: str) -> str:
    """sanitize_command segment by segment, for any command (a test holds the shortcut to it)."""
    return "/".join(_NOT_ALNUM.sub("_", seg.lower()).strip("_") for seg in command.split("/"))


def run_below(paths: Sequence[str], folder: str) -> tuple[int, int]:
    """Where the paths below `folder` are among sorted `paths`: [start, end), one run (each starts
    with folder + "/", which sorts after `folder` itself and before folder + "0", "0" following
    "/"). Two bisections instead of a test of every path."""
    start = bisect.bisect_left(paths, folder + "/")
    return start, bisect.bisect_left(paths, folder + "0", start)


def sanitize_joined(joined: str) -> str:
    """sanitize_command of each command in `joined`, "\0"-separated (no command holds one), joined
    the same way: for thousands of commands, one replace in C when each is plain (an edit build
    holds a new command to every other)."""
    if _plain_chars(joined) and not _breaks(f"\0{joined}\0".encode("ascii")):
        return joined.replace("-", "_")
    return "\0".join(sanitize_command(c) if c else c for c in joined.split("\0"))


_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
# A plain name: lowercase ASCII letters and digits in runs joined by single hyphens (what almost
# every skill is named; the spec's rules all pass it: frontmatter.name_problems).
PLAIN_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# Segments that are plain names: each hyphen is a run of one, between two alphanumerics, so it
# becomes one '_' and nothing is stripped.
_PLAIN_COMMAND = re.compile(f"{PLAIN_NAME}(?:/{PLAIN_NAME})*")
# _PLAIN_COMMAND for "\0"-joined commands, in scans that do not backtrack: the characters
# (`_plain_chars`), and no "-" or "/" beside another, a "\0" or an end (`_breaks`).
_PLAIN_BYTES = b"abcdefghijklmnopqrstuvwxyz0123456789/-\0"
_SEPARATORS = bytes.maketrans(b"-/", b"##")  # "#" is no plain character


def _breaks(framed: bytes) -> bool:
    """Whether a "-" or "/" of plain characters, "\0"-joined with a "\0" at each end, is beside
    another, a "\0" or an end: with both made "#", three searches in C (the eight pairs searched
    as they are took 3 ms for 10,000 commands, a regex of them 4-5)."""
    marked = framed.translate(_SEPARATORS)
    return b"##" in marked or b"#\0" in marked or b"\0#" in marked


def _plain_chars(joined: str) -> bool:
    """Whether `joined` holds only plain command characters (and "\0"): what is left when they are
    deleted in C (a regex's character class ran at 80 MB/s: 3 ms for 10,000 commands)."""
    return joined.isascii() and not joined.encode("ascii").translate(None, _PLAIN_BYTES)


def extension(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def unsafe_values(doc: Document, values: list[tuple[tuple[Any, ...], Any]]) -> tuple[Diagnostic, ...]:
    """The path rules (SKC301) for path-like values in frontmatter and manifests, each at its value."""
    found = []
    for key, value in values:
        reason = unsafe_reason(value) if isinstance(value, str) and value != "*" else None
        if reason:
            where = ".".join(map(str, key))
            found.append(dg.error(doc.rel, Code.UNSAFE_PATH, f"{where}: {value!r} {reason}", *doc.pos(*key)))
    return tuple(found)


# Version-control metadata is never part of a skill, whatever the excludes say.
IGNORED_DIRS = frozenset({".git", ".hg", ".svn"})


def ignored(name: str) -> bool:
    """Names (NFC) no walk ever enters: discover's and the build cache's stat walk alike."""
    return name in IGNORED_DIRS
