"""Claude Code 2.1.330: which project skills it lists for the model, and how.

Evidence: tests/harness/golden/claude@2.1.330/ (fields, discovery, many-<budget>).
Source: the JS bundle inside @anthropic-ai/claude-code-linux-x64@2.1.330 (the `claude` binary;
minified names as found there): the budget is `JZt`, the line renderer `r5n`, the 1,536 cap `o5n`
(`Gws=1536`), the `(name)` label `sOn`, description + when_to_use `QZt`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from . import collation
from .model import Entry, Issue, Listing, Skill, Status, Verdict, Verdicts

HEADER = "The following skills are available for use with the Skill tool:"
DEFAULT_WINDOW = 200_000  # `jws`: the window assumed when the model's is unknown
BUDGET_FRACTION = 0.01  # `Uws`, overridable by the skillListingBudgetFraction setting
CHARS_PER_TOKEN = 4  # `t5n`
MAX_DESCRIPTION = 1_536  # `Gws`, overridable by the skillListingMaxDescChars setting
# Each run of control characters and line or paragraph separators becomes one space, in the
# description and in when_to_use alike (golden spaces; golden injection: `\n`, `\r`, `\v`, NEL,
# LS and PS in either field are one space, never a line of the listing).
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
MAX_FOLDER = 256  # `fG`: a command (its folder's name) is at most this long, in UTF-16 units
# What a command may not hold (`s0o`, `nHr`, `De`, `lbr` in the bundle; golden folders: `lt<gt`,
# `two  spaces`, ` lead`, `trail:`, `a :b`, `nb\u00a0sp`, a leading combining accent not loaded).
_REFUSED = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029<>\ufffc]")
_COLON = re.compile(r"(?:^|:) | (?::|$)|^:|:$")
# Listing injection (targets/injection.py): none. Every line break of the description and of
# when_to_use is one space, < and > are escaped (golden injection: `later\n- evil: ...` in either
# field stays on its skill's line).
RAW: tuple[str, ...] = ()
_TRUE = frozenset({"true", "yes", "on", "1"})  # any case (golden fields: dmi-*/ui-*)

# What it does with each trait graded validation reports (docs/targets.md "Field reading").
VERDICTS: Verdicts = {
    Issue.UNQUOTED_COLON: Verdict.LOADS,  # golden fields: colon, shown verbatim
    Issue.FLAG_SPELLING: Verdict.LOADS,  # golden fields: dmi-*/ui-*; `flag` below reads any value
    Issue.NO_DESCRIPTION: Verdict.LOADS,  # golden fields: no-desc, the body's first line
    Issue.EMPTY_DESCRIPTION: Verdict.LOADS,  # golden fields: empty-desc, the body's first line
    Issue.NO_NAME: Verdict.LOADS,  # golden fields: no-name, by its folder
    Issue.NAME_MISMATCH: Verdict.LOADS,  # golden discovery: `folder-x (label-y)`, the command is the folder
    Issue.LONG_DESCRIPTION: Verdict.LOADS,  # golden fields: long1100 whole; over 1,536 cut (`o5n`)
    Issue.LONG_COMPATIBILITY: Verdict.LOADS,  # not a field it reads
    Issue.LINK_OUTSIDE: Verdict.LOADS,  # golden discovery: link-outside
    Issue.MODEL_INVOCATION_OFF: Verdict.HONOURS,  # golden fields: manual is a command, not listed
    Issue.SAME_NAME: Verdict.LOADS,  # golden duplicates: both listed, by folder, the second without its (name) label
    Issue.NAME_PATTERN: Verdict.LOADS,  # golden names: every odd name loaded; the label only when `Q_n` accepts it
    Issue.NAME_LENGTH: Verdict.LOADS,  # golden names: long65 listed
    Issue.HIDDEN_FOLDER: Verdict.LOADS,  # golden discovery: .hidden1 listed (one level: .hidden2 below a folder is not)
}


def budget(window: int | None = None, override: int | None = None) -> int:
    """Characters for the listing: SLASH_COMMAND_TOOL_CHAR_BUDGET, else window x 4 x 1%."""
    if override:
        return override
    return max(1, int((window or DEFAULT_WINDOW) * CHARS_PER_TOKEN * BUDGET_FRACTION))


def flag(value: object) -> bool:
    """A frontmatter boolean: true, yes, on, 1 in any case; everything else is false."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE if value is not None else False


def description(skill: Skill) -> str:
    """The description trimmed (`yRe`), else the body's first non-empty line (golden fields:
    no-desc, empty-desc). A run of line breaks and tabs becomes one space; spaces stay (golden spaces)."""
    text = (skill.description or "").strip()
    if text:
        return _BREAKS.sub(" ", text)
    return next((line.strip() for line in skill.body.splitlines() if line.strip()), "")


def folder_problem(folder: str) -> str:
    """Why Claude Code loads no command from a folder of this name, or "" (golden folders)."""
    if len(folder.encode("utf-16-le", "surrogatepass")) > 2 * MAX_FOLDER:
        return f"longer than {MAX_FOLDER} characters"
    if _REFUSED.search(folder):
        return "it holds a control character, a line separator, < or >"
    if "  " in folder or folder != folder.strip(" "):
        return "two spaces in a row, or a space at an end"
    if any(unicodedata.category(c) == "Zs" and c != " " for c in folder):
        return "a space other than U+0020"
    if _COLON.search(folder):
        return "a colon at an end or beside a space"
    if folder and unicodedata.category(folder[0]).startswith("M"):
        return "it starts with a combining mark"
    return ""


def shown_description(skill: Skill) -> tuple[str, bool]:
    """`description - when_to_use`, cut to 1,535 characters plus an ellipsis; and whether it was cut."""
    text = description(skill)
    if skill.when_to_use:
        text = f"{text} - {_BREAKS.sub(' ', skill.when_to_use)}"
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) > 2 * MAX_DESCRIPTION:  # JavaScript's length: UTF-16 code units
        kept = units[: 2 * (MAX_DESCRIPTION - 1)].decode("utf-16-le", "surrogatepass")
        return kept + "\u2026", True
    return text, False


def width(text: str) -> int:
    """The columns a line takes, as the budget counts them (`oe`: `Bun.stringWidth` with
    `ambiguousIsNarrow`): two for wide and fullwidth characters (CJK, Hangul, most emoji), none
    for combining marks, format and control characters, one for the rest (golden wide-<budget>)."""
    return sum(_columns(c) for c in text)


def _columns(c: str) -> int:
    if unicodedata.category(c) in ("Mn", "Me", "Cf", "Cc"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def escape(text: str) -> str:
    """Only < and > are escaped (golden fields: escape); & and quotes stay as they are."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def listing(skills: Sequence[Skill], chars: int, overrides: Mapping[str, str] | None = None) -> Listing:
    """The listing text and one entry per skill, for a budget of `chars` characters.

    `overrides` is the settings' skillOverrides by command: "off" and "user-invocable-only" hide a
    skill from the model, "name-only" lists it without description, outside the budget's greedy pass
    (golden policy; source `TLe`, `r5n`).
    """
    modes = dict(overrides or {})
    loaded = sorted((s for s in skills if _loads(s)), key=lambda s: collation.key(s.folder))
    listed = [s for s in loaded if _listed_reason(s, modes) == ""]
    labels = {s.folder: _label(s, loaded) for s in listed}
    for skill in listed:
        if modes.get(skill.folder) == "name-only":
            labels[skill.folder] = skill.folder  # `- ${name}`: the command, never a label
    keep = _kept_descriptions(
        [s for s in listed if modes.get(s.folder) != "name-only"], labels, chars, listed
    )
    lines, entries = [], {}
    for skill in listed:
        text, cut = shown_description(skill)
        kept = skill.folder in keep
        lines.append(f"- {labels[skill.folder]}: {text}" if kept else f"- {labels[skill.folder]}")
        status = (Status.CUT if cut else Status.FULL) if kept else Status.DROPPED
        reason = "" if kept else _dropped_reason(skill, modes)
        entries[skill.folder] = _entry(skill, True, escape(text) if kept else None, status, reason)
    for skill in skills:
        if skill.folder not in entries:
            entries[skill.folder] = _unlisted(skill, modes)
    text = f"{HEADER}\n\n" + escape("\n".join(lines))
    return Listing(text, tuple(entries[s.folder] for s in skills))


def name_only_for(skills: Sequence[Skill], chars: int, order: Sequence[str]) -> frozenset[str]:
    """The commands to list `name-only` (project skillOverrides) so that, at `chars`, descriptions
    are kept in the team's order (`order`: folders, first first; the rest follow in listing order).

    Claude Code's own pass keeps descriptions greedily in listing order (its usage scores are all 0
    for a new user), and a settings file cannot reorder it; but a `name-only` skill is a fixed line
    outside that pass, so marking every skill the team ranks too low to fit leaves exactly the ranked
    choice to the harness. Nothing is marked when every description fits.
    """
    loaded = [s for s in sorted(skills, key=lambda s: collation.key(s.folder)) if _loads(s)]
    listed = [s for s in loaded if _listed_reason(s, {}) == ""]
    # escaped lengths, as the harness measures them (see _kept_descriptions)
    full = {s.folder: width(escape(f"- {_label(s, loaded)}: {shown_description(s)[0]}")) for s in listed}
    bare = {s.folder: width(escape(f"- {s.folder}")) for s in listed}  # a name-only line: `- ${name}`
    separators = max(0, len(listed) - 1)
    if sum(full.values()) + separators <= chars:
        return frozenset()
    place = {folder: i for i, folder in enumerate(order)}
    ranked = sorted(listed, key=lambda s: place.get(s.folder, len(place)))  # stable: listing order
    cost, kept = sum(bare.values()) + separators, set()
    for skill in ranked:
        extra = full[skill.folder] - bare[skill.folder]
        if cost + extra <= chars:
            kept.add(skill.folder)
            cost += extra
    return frozenset(s.folder for s in listed if s.folder not in kept)


def _listed_reason(skill: Skill, modes: Mapping[str, str]) -> str:
    if modes.get(skill.folder) in ("off", "user-invocable-only"):
        return f"skillOverrides: {modes[skill.folder]}"
    if flag(skill.disable_model_invocation):
        return "disable-model-invocation: only the user can invoke it"
    if skill.paths:
        return "paths: listed only once a matching file is touched"
    return ""


def _dropped_reason(skill: Skill, modes: Mapping[str, str]) -> str:
    return (
        "skillOverrides: name-only" if modes.get(skill.folder) == "name-only" else "over the listing budget"
    )


def _loads(skill: Skill) -> bool:
    return "/" not in skill.folder and not folder_problem(skill.folder)


def _unlisted(skill: Skill, modes: Mapping[str, str]) -> Entry:
    if "/" in skill.folder:
        return _entry(skill, False, None, Status.SKIPPED, "nested below <root>/<dir>/: not loaded")
    if folder_problem(skill.folder):
        return _entry(skill, False, None, Status.SKIPPED, f"not loaded: {folder_problem(skill.folder)}")
    return _entry(skill, False, None, Status.NOT_LISTED, _listed_reason(skill, modes))


def _entry(skill: Skill, listed: bool, shown: str | None, status: Status, reason: str) -> Entry:
    command = skill.folder
    return Entry(skill, command, skill.name or command, listed, shown, status, reason)


def _label(skill: Skill, loaded: Sequence[Skill]) -> str:
    """`cmd (name)` when the name differs and names no other skill first (golden discovery,
    duplicates), among every skill loaded, listed or not (explore.py: a manual skill named `7`
    takes the label from a listed one of that name)."""
    name = skill.name
    if not name or name == skill.folder or not _labelable(name):
        return skill.folder
    # the command of that name first, then the first skill of that name (explore.py: `café`'s label
    # goes to the folder `café` itself before an earlier-listed skill named so)
    owner = next((s for s in loaded if s.folder == name), None) or next(
        (s for s in loaded if s.name == name), None
    )
    return f"{skill.folder} ({name})" if owner is skill else skill.folder


def _labelable(name: str) -> bool:
    """`Q_n`: letters, marks, digits, `_`, `:`, `.` and `-` only (`/^[\\p{L}\\p{M}\\p{N}_:.-]+$/u`);
    `two words` is no label (golden names: `- space: ...`)."""
    return all(c in "_:.-" or unicodedata.category(c)[0] in "LMN" for c in name)


def _kept_descriptions(
    flexible: Sequence[Skill], labels: dict[str, str], chars: int, listed: Sequence[Skill]
) -> set[str]:
    """Greedy first fit: every name stays; a description stays while the joined lines fit.

    `listed` are all the lines (name-only ones are fixed at their name); `flexible` may keep theirs.
    """
    # Lengths of the escaped lines: `<` and `>` count as `&lt;` and `&gt;` (golden
    # export-lead-2000: a description holding <b>bold</b> costs its escaped length).
    full = {s.folder: width(escape(f"- {labels[s.folder]}: {shown_description(s)[0]}")) for s in flexible}
    short = {s.folder: width(escape(f"- {labels[s.folder]}")) for s in listed}
    separators = max(0, len(listed) - 1)
    fixed = sum(short[s.folder] for s in listed if s.folder not in full)
    if sum(full.values()) + fixed + separators <= chars:
        return set(full)
    remaining = chars - sum(short.values()) - separators
    kept = set()
    for skill in flexible:  # in listing order: usage scores are all 0 in a fresh HOME
        extra = full[skill.folder] - short[skill.folder]
        if extra <= remaining:
            kept.add(skill.folder)
            remaining -= extra
    return kept
