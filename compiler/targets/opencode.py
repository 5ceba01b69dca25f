"""opencode 1.18.33: which project skills it lists for the model, and how.

Evidence: tests/harness/golden/opencode@1.18.33/ (discovery, fields, roots, policy, export-odd-*).
Source: the JavaScript inside the opencode-linux-x64@1.18.33 binary (minified names as found there):
the skill listing `oA` (sorted by `localeCompare`, location escaped by `$A`), `Skill.available`
(`evaluate("skill", name, agent.permission)`), the rules `fromConfig` (`Object.entries` of each
`permission` object) and `evaluate` (the last matching rule wins), and `Wildcard.match`.
Same-name skills are not modelled: opencode picks one at random (docs/targets.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from . import collation
from .model import Entry, Issue, Listing, Skill, Status, Verdict, Verdicts

# What it does with each trait graded validation reports (docs/targets.md "Field reading").
VERDICTS: Verdicts = {
    Issue.UNQUOTED_COLON: Verdict.LOADS,  # golden fields: colon
    Issue.FLAG_SPELLING: Verdict.LOADS,  # golden fields: every dmi-*/ui-* listed (the flags are ignored)
    Issue.NO_DESCRIPTION: Verdict.UNLISTED,  # golden fields: no-desc in `debug skill`, not in the listing
    Issue.EMPTY_DESCRIPTION: Verdict.LOADS,  # golden fields: empty-desc, `<description></description>`
    Issue.NO_NAME: Verdict.SKIPS,  # golden fields: no-name absent
    Issue.NAME_MISMATCH: Verdict.LOADS,  # golden discovery: listed as label-y
    Issue.LONG_DESCRIPTION: Verdict.LOADS,  # golden fields: long1600 whole, no cap
    Issue.LONG_COMPATIBILITY: Verdict.LOADS,  # not a field it reads
    Issue.LINK_OUTSIDE: Verdict.LOADS,  # golden discovery: link-outside
    Issue.MODEL_INVOCATION_OFF: Verdict.IGNORES,  # golden fields: manual listed
    Issue.SAME_NAME: Verdict.SKIPS,  # docs/targets.md: one of the copies, picked at random, is loaded
    Issue.NAME_PATTERN: Verdict.LOADS,  # golden names: every odd name listed
    Issue.NAME_LENGTH: Verdict.LOADS,  # golden names: long65 listed
    Issue.HIDDEN_FOLDER: Verdict.SKIPS,  # golden discovery: hidden folders skipped
}
INTRO = (
    "Skills provide specialized instructions and workflows for specific tasks.\n"
    "Use the skill tool to load a skill when a task matches its description."
)
# The skill 1.18.33 always lists (evidence: golden discovery.json, location `<built-in>`, printed
# escaped in the prompt). A test holds it equal to the golden; it moves with the pinned version.
BUILTIN = Skill(
    folder="",
    name="customize-opencode",
    description="Use ONLY when the user is editing or creating opencode's own configuration: opencode.json,"
    " opencode.jsonc, files under .opencode/, or files under ~/.config/opencode/. Also use when creating or"
    " fixing opencode agents, subagents, skills, plugins, MCP servers, or permission rules. Do not use for"
    " the user's own application code, or for any project that is not configuring opencode itself.",
    root="<built-in>",
)
Permission = Mapping[str, str]  # permission.skill: {pattern: "allow" | "deny" | "ask"}
_INDEX = re.compile(r"0|[1-9][0-9]*")  # what JavaScript takes as an array index when a key
_MAX_INDEX = 2**32 - 2
# Listing injection (targets/injection.py): `oA` prints the name and the description raw in its
# XML-like block (golden injection: name-xml, desc-xml); the location is escaped (`$A`).
RAW = ("name", "description")
MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?]")
# What `Wildcard.match` makes of a pattern's characters (it escapes `.+^${}()|[]\\`).
_REGEX = {"*": ".*", "?": "."} | {c: "\\" + c for c in ".+^${}()|[]\\"}


def allowed(name: str, *rules: Permission) -> bool:
    """`evaluate`: the last matching rule decides, and later rule sets (an agent's) come after
    earlier ones; a rule set's rules in the order `Object.entries` gives its keys (`entries`)."""
    return Matcher(*rules).decision(name) != "deny"


class Matcher:
    """Rule sets read once, for many names: a key without `*` or `?` matches only its own name, so
    it is looked up; only wildcard keys are tried one by one (an export of 10,000 skills has a
    handful), newest first."""

    def __init__(self, *rules: Permission) -> None:
        self._actions: list[str] = []
        self._plain: dict[str, int] = {}  # a key, as matched, -> the place of its last rule
        self._wild: list[tuple[int, re.Pattern[str]]] = []
        for rule in rules:
            for pattern, action in entries(rule):
                place = len(self._actions)
                self._actions.append(action)
                if _home(pattern):
                    continue  # expanded to a folder: matches no skill name
                if "*" in pattern or "?" in pattern:
                    self._wild.append((place, _regex(pattern)))
                else:
                    self._plain[pattern.replace("\\", "/")] = place
        self._wild.reverse()

    def decision(self, name: str) -> str | None:
        """The action of the last rule matching `name`, or None when none does."""
        key = name.replace("\\", "/")
        best = self._plain.get(key, -1)
        for place, regex in self._wild:
            if place < best:
                break
            if regex.fullmatch(key):
                best = place
                break
        return self._actions[best] if best >= 0 else None


def entries(rule: Permission) -> list[tuple[str, str]]:
    """A JSON object's keys as JavaScript orders them: array indices (`"7"`, `"123"`) first, in
    numeric order, then the others as written (golden export-odd-*: an agent allowing the skill
    `7` after `"*": "deny"` still denies it)."""
    items = list(rule.items())
    first = sorted((kv for kv in items if index_like(kv[0])), key=lambda kv: int(kv[0]))
    return first + [kv for kv in items if not index_like(kv[0])]


def index_like(key: str) -> bool:
    return bool(_INDEX.fullmatch(key)) and int(key) <= _MAX_INDEX


def match(name: str, pattern: str) -> bool:
    """`Wildcard.match`: `*` any run, `?` any one character, every other character itself (no
    classes, no escape: a name holding `*` matches other names as a pattern); backslashes read as
    `/`; a pattern ending in ` *` also matches without it. A pattern `fromConfig` expands to a
    home folder (`~`, `~/...`, `$HOME...`) matches no skill name."""
    return not _home(pattern) and _regex(pattern).fullmatch(name.replace("\\", "/")) is not None


def _home(pattern: str) -> bool:
    return pattern == "~" or pattern.startswith(("~/", "$HOME"))


def _regex(pattern: str) -> re.Pattern[str]:
    body = "".join(_REGEX.get(c, c) for c in pattern.replace("\\", "/"))
    if body.endswith(" .*"):
        body = body[:-3] + "( .*)?"
    return re.compile(body, re.DOTALL)


def exact(name: str) -> str:
    """A key that matches `name` and, when the name holds no `*` or `?`, nothing else but
    `name ...`: an array index gets ` *` (it would come first, before the catch-all)."""
    return f"{name} *" if index_like(name) else name


Rules = tuple[tuple[str, str], ...]  # a permission.skill object's keys and actions, in order


def rules(skills: Sequence[tuple[str, bool]]) -> tuple[Rules, Rules]:
    """The rules an export writes for (name, may the model invoke it): the project-wide denies of
    the manual names whose key matches no other skill, and the persona agent's rules: `*` denied,
    each free name allowed by a key that matches it (`exact`), then each manual name an allow also
    matched denied again (the last match wins)."""
    free = sorted({n for n, model in skills if model})
    manual = sorted({n for n, model in skills if not model} - set(free))
    allows = [(exact(n), "allow") for n in free]
    keys, matched = dict(allows), Matcher(dict(allows))
    # A deny whose key is a free name's allow key (`7 *` beside `7`'s `7 *`) would take that allow
    # away: it is not written, and the manual name, which holds a wildcard, is left out (choose.py).
    again = [(exact(m), "deny") for m in manual if matched.decision(m) is not None and exact(m) not in keys]
    alone = _alone(manual, [n for n, _ in skills])
    return tuple((exact(m), "deny") for m in alone), (("*", "deny"), *allows, *again)


def _alone(manual: Sequence[str], names: Sequence[str]) -> list[str]:
    """The manual names whose key matches no other name of `names`: a plain key only equal ones
    (counted once), a wildcard key (a name holding `*` or `?`, few) tried on each."""
    count = Counter(n.replace("\\", "/") for n in names)
    out = []
    for m in manual:
        key = exact(m)
        if "*" not in key and "?" not in key:
            alone = count[key.replace("\\", "/")] == 1
        else:
            one = Matcher({key: "deny"})
            alone = not any(one.decision(n) for n in names if n != m)
        if alone:
            out.append(m)
    return out


def listing(
    skills: Sequence[Skill], builtins: Sequence[Skill] = (), permissions: Sequence[Permission] = ()
) -> Listing:
    """`<available_skills>` sorted by name; nothing escaped. `builtins` are listed like the rest."""
    rules = Matcher(*permissions)
    entries = [_entry(s, rules) for s in skills]
    shown = [e for e in entries if e.listed] + [_entry(b, rules) for b in builtins]
    ordered = sorted((e for e in shown if e.listed), key=lambda e: collation.key(e.name))
    blocks = [_block(e) for e in ordered]
    text = "\n".join([INTRO, "<available_skills>", *blocks, "</available_skills>"])
    shown_builtins = tuple(sorted(e.name for e in shown if e.listed and e.skill in builtins))
    return Listing(text, tuple(entries), shown_builtins)


def _entry(skill: Skill, permissions: Matcher) -> Entry:
    name = skill.name or ""
    if any(part.startswith(".") for part in skill.folder.split("/")):
        return Entry(skill, name, name, False, None, Status.SKIPPED, "in a hidden folder")
    if not skill.name:
        return Entry(skill, name, name, False, None, Status.SKIPPED, "no name")
    if skill.description is None:
        return Entry(skill, name, name, False, None, Status.NOT_LISTED, "no description")
    if permissions.decision(name) == "deny":
        return Entry(skill, name, name, False, None, Status.NOT_LISTED, "permission.skill: deny")
    return Entry(skill, name, name, True, skill.description, Status.FULL)


def _block(entry: Entry) -> str:
    skill = entry.skill
    location = escape_location(f"{skill.root}/{skill.folder}/SKILL.md" if skill.folder else skill.root)
    return (
        f"  <skill>\n    <name>{entry.name}</name>\n    <description>{entry.description}</description>\n"
        f"    <location>{location}</location>\n  </skill>"
    )


def escape_location(text: str) -> str:
    """`$A`: the location is HTML-escaped (`<built-in>` prints as `&lt;built-in&gt;`); name and
    description are not."""
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;")):
        text = text.replace(raw, escaped)
    return text
