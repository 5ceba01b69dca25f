"""git's ignore-file language, as git reads and matches it: lines, patterns, verdicts.

A port of what git's `dir.c` (`add_patterns_from_buffer`, `trim_trailing_spaces`,
`parse_path_pattern`, `match_basename`, `match_pathname`) and `wildmatch.c` do, each pattern
translated into one regular expression that says the same. pathspec's GitIgnoreSpec reads
some lines otherwise than git, which is why skillc does not use it for ignore rules:

- a bracket expression is handed to `re` nearly as written: a POSIX class (`[[:digit:]]`) never
  matches and makes `re` print a FutureWarning on stderr, an empty range (`[z-a]`) is an
  internal error (`re.error`);
- a trailing backslash is an exception (git: a pattern that matches nothing);
- `?`, `*` and ranges count characters where git counts bytes (`?` is one byte of `é`);
- a literal before `**` (`a**/b`): git compares the literal part first and matches the rest as
  a pattern of its own, where `**/` is a run of folders (`ax/y/b`).

Matching runs over the bytes of a path (UTF-8), each byte one character of a latin-1 string, so
a pattern with bytes that are not UTF-8 means what it means to git. Case matters, as it does to
git with `core.ignorecase` false (the default where the file system tells case apart).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from ..dataclass import dataclass, field

_BOM = b"\xef\xbb\xbf"
# git's ctype (ctype.c: ASCII only, whatever the locale) for the classes wildmatch knows
_DIGIT = frozenset("0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_CLASSES: dict[str, frozenset[str]] = {
    "alnum": _DIGIT | _UPPER | _LOWER,
    "alpha": _UPPER | _LOWER,
    "blank": frozenset(" \t"),
    "cntrl": frozenset(map(chr, (*range(32), 127))),
    "digit": _DIGIT,
    "graph": frozenset(map(chr, range(33, 127))),
    "lower": _LOWER,
    "print": frozenset(map(chr, range(32, 127))),
    "punct": _PUNCT,
    "space": frozenset(" \t\n\r"),  # git's isspace: not \v nor \f
    "upper": _UPPER,
    "xdigit": _DIGIT | frozenset("abcdefABCDEF"),
}
_GLOB_SPECIAL = frozenset("*?[\\")


@dataclass(frozen=True)
class Pattern:
    """One line that is a pattern: `regex` is None for one that can never match (git keeps it,
    and it matches nothing)."""

    line: int  # 1-based, in its file (or its place in a list)
    text: str  # as git keeps it: trailing spaces trimmed, one latin-1 character a byte
    negative: bool  # `!`: a match takes the path back
    directory: bool  # a trailing `/`: matches folders only
    regex: str | None  # over the path relative to the pattern's folder


def lines(data: bytes) -> list[tuple[int, str]]:
    """The pattern lines of one ignore file, numbered, as git splits them: a UTF-8 byte order mark
    at the start skipped, lines ended by `\\n` only (one `\\r` before it dropped), blank lines and
    `#` comments left out, a line cut at a NUL byte, trailing spaces trimmed unless escaped."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    found = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw or raw.startswith(b"#"):
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        found.append((number, _trim(raw.partition(b"\0")[0].decode("latin-1"))))
    return found


def as_text(path: str) -> str:
    """A path as the matcher reads it: its UTF-8 bytes, one character each."""
    return path if path.isascii() else path.encode("utf-8", "surrogateescape").decode("latin-1")


def _trim(text: str) -> str:
    """git's trim_trailing_spaces: spaces at the end go, unless the first of them is escaped."""
    last_space = -1
    i = 0
    while i < len(text):
        char = text[i]
        if char == " ":
            last_space = i if last_space < 0 else last_space
        elif char == "\\":
            i += 1
            if i == len(text):
                return text
            last_space = -1
        else:
            last_space = -1
        i += 1
    return text[:last_space] if last_space >= 0 else text


def pattern(number: int, text: str) -> Pattern:
    """git's parse_path_pattern, then match_basename or match_pathname as a regex."""
    body = text[1:] if text.startswith("!") else text
    directory = body.endswith("/")
    if directory:
        body = body[:-1]
    if "/" not in body:  # a name: matched against the last part of the path, at any depth
        glob = _glob(body, pathname=False)
        regex = None if glob is None else "(?:.*/)?" + glob
    else:
        literal = _simple_length(body)
        if body.startswith("/"):
            body, literal = body[1:], literal - 1
        # the literal part is compared first; the rest is a pattern of its own, so `**` right after
        # the literal part is at its start (`a**/b` is `a` then `**/b`)
        glob = _glob(body[literal:], pathname=True)
        regex = None if glob is None else re.escape(body[:literal]) + glob
    return Pattern(number, text, text.startswith("!"), directory, regex)


def _simple_length(text: str) -> int:
    return next((i for i, char in enumerate(text) if char in _GLOB_SPECIAL), len(text))


def _glob(pat: str, *, pathname: bool) -> str | None:
    """wildmatch over one pattern as a regex; None when it can never match (a trailing backslash,
    a bracket expression that does not end, an unknown `[:class:]`). Without `pathname` the text
    is one name (it holds no `/`), so `*` and `**` are alike."""
    out: list[str] = []
    i = 0
    while i < len(pat):
        char = pat[i]
        if char == "\\":
            if i + 1 == len(pat):
                return None  # wildmatch compares the text with the NUL that ends the pattern
            out.append(re.escape(pat[i + 1]))
            i += 2
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "*":
            end = i
            while end < len(pat) and pat[end] == "*":
                end += 1
            regex, i = _stars(pat, i, end, pathname)
            out.append(regex)
        elif char == "[":
            found = _bracket(pat[i:])
            if found is None:
                return None
            regex, length = found
            out.append(regex)
            i += length
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _stars(pat: str, start: int, end: int, pathname: bool) -> tuple[str, int]:
    """A run of `*` from start to end: `**` between slashes (or at either end) crosses folders,
    `**/` also matches no folder at all; anything else stays within one name."""
    if not pathname or end - start < 2 or not (start == 0 or pat[start - 1] == "/"):
        return "[^/]*", end
    if end == len(pat):
        return ".*", end
    if pat[end] == "/":
        return "(?:.*/)?", end + 1
    if pat.startswith("\\/", end):
        return ".*", end  # git tries no empty run of folders before an escaped slash
    return "[^/]*", end


@functools.lru_cache(maxsize=256)
def _bracket(pat: str) -> tuple[str, int] | None:
    """The bracket expression that starts `pat` as a regex, and its length; None where wildmatch
    gives up on the whole pattern. Decided byte by byte with wildmatch's own loop, so its quirks (a
    range's end escaped, `-` after a range, `[:x` without `:]`) come out as git's. Cached: the same
    few (`*.py[cod]`) recur in many files."""
    ends = set()
    members = []
    for code in range(1, 256):
        found = _class_match(pat, 0, chr(code))
        if found is None:
            return None
        matched, end = found
        ends.add(end)
        if matched and code != 0x2F:  # never `/`: with WM_PATHNAME, and a name holds none
            members.append(chr(code))
    (end,) = ends  # where an expression ends does not depend on the text
    return ("[" + "".join(map(re.escape, members)) + "]" if members else "(?!)"), end


def _class_match(pat: str, start: int, t: str) -> tuple[bool, int] | None:
    """wildmatch.c's `case '['`, for the one text character `t`: (matched, index past `]`)."""

    def at(k: int) -> str:
        return pat[k] if k < len(pat) else ""

    k = start + 1
    ch = "!" if at(k) == "^" else at(k)
    negated = ch == "!"
    if negated:
        k += 1
        ch = at(k)
    prev = ""
    matched = False
    while True:
        if not ch:
            return None
        if ch == "\\":
            k += 1
            ch = at(k)
            if not ch:
                return None
            matched = matched or t == ch
        elif ch == "-" and prev and at(k + 1) and at(k + 1) != "]":
            k += 1
            ch = at(k)
            if ch == "\\":
                k += 1
                ch = at(k)
                if not ch:
                    return None
            matched = matched or prev <= t <= ch
            ch = ""  # the next `-` starts no range
        elif ch == "[" and at(k + 1) == ":":
            s = k + 2
            k = s
            while at(k) and at(k) != "]":
                k += 1
            if not at(k):
                return None
            if k - s - 1 < 0 or pat[k - 1] != ":":  # no `:]`: the `[` is an ordinary member
                k = s - 2
                ch = "["
                matched = matched or t == ch
            else:
                members = _CLASSES.get(pat[s : k - 1])
                if members is None:
                    return None
                matched = matched or t in members
                ch = ""
        else:
            matched = matched or t == ch
        prev = ch
        k += 1
        ch = at(k)
        if ch == "]":
            return matched != negated, k + 1


@dataclass(frozen=True)
class _Alternatives:
    """Patterns as one regex whose groups are the patterns, the last first: the group that matches
    is the pattern git's reverse scan stops at; `negative[group]` whether it is a `!` line."""

    regex: re.Pattern[str]
    negative: tuple[bool, ...]  # 1-based, as the groups: [0] is never used


@dataclass(frozen=True)
class Spec:
    """The patterns of one folder (or one list): the last that matches a path decides."""

    patterns: tuple[Pattern, ...]
    files: _Alternatives | None = field(default=None, compare=False)
    dirs: _Alternatives | None = field(default=None, compare=False)

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True: left out; False: taken back (`!`); None: no pattern speaks of it. `path` is
        relative to the patterns' folder, in `as_text` form."""
        alternatives = self.dirs if is_dir else self.files
        if alternatives is None:
            return None
        found = alternatives.regex.fullmatch(path)
        if found is None:
            return None
        return not alternatives.negative[found.lastindex or 0]

    def excludes(self, path: str) -> bool:
        """Whether git leaves `path` out of a walk: it or a folder above it is matched last by a
        pattern that is not a `!` (a folder left out is not entered). An absolute path (a source
        outside the project: `/opt/skills/x/SKILL.md`) is read from `/`, so `/opt/skills/**` or
        `opt/skills/**` matches it."""
        parts = as_text(path.removeprefix("/")).split("/")
        return any(
            self.verdict("/".join(parts[:depth]), depth < len(parts)) for depth in range(1, len(parts) + 1)
        )


def compile_patterns(patterns: Iterable[Pattern]) -> Spec:
    kept = tuple(patterns)
    return Spec(kept, _alternatives(kept, files=True), _alternatives(kept, files=False))


def _alternatives(patterns: tuple[Pattern, ...], *, files: bool) -> _Alternatives | None:
    kept = [p for p in reversed(patterns) if p.regex is not None and not (files and p.directory)]
    if not kept:
        return None
    regex = re.compile("|".join(f"({p.regex})" for p in kept), re.DOTALL)
    return _Alternatives(regex, (False, *(p.negative for p in kept)))


def from_blobs(blobs: Iterable[bytes]) -> Spec | None:
    """The patterns of one folder's ignore files, in order; None when they hold none."""
    found = [pattern(number, text) for blob in blobs for number, text in lines(blob)]
    return compile_patterns(found) if found else None


def from_entries(entries: Iterable[str]) -> Spec:
    """Patterns written one per entry (`resources.exclude`, `per_path`, `budgets.priority`), each
    read as a line of an ignore file."""
    found = [
        pattern(number, text)
        for number, entry in enumerate(entries, start=1)
        for _line, text in lines(entry.encode("utf-8", "surrogateescape"))
    ]
    return compile_patterns(found)


def matcher(entry: str) -> Callable[[str], bool]:
    """One pattern as a test of a whole path."""
    return from_entries([entry]).excludes
