"""Tool results the reader renders: a loaded skill's <skill_content>, and argument substitution."""

from __future__ import annotations

from ..format.errors import ArgumentType
from ..format.escape import escape_attr, escape_delimiter, escape_text
from ..format.layout import MAX_FILES
from .record import dataclass
from .records import label_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from ..format.shapes import ResolutionDoc, SkillDoc


@dataclass(frozen=True)
class SubSkill:
    command: str
    name: str
    description: str
    label: str = ""  # what the skill is shown as (docs/format.md §7); the reader always sets it


@dataclass(frozen=True)
class KnowledgeDoc:
    """A knowledge doc a skill names (sven's `knowledge:`): its path (in the build's knowledge
    folder, when it has one) and its title, when the build found one."""

    path: str
    title: str | None


@dataclass(frozen=True)
class LoadedSkill:
    persona: str
    command: str
    name: str
    description: str
    body: str
    access: str
    overlay: str | None
    files: tuple[str, ...]
    sub_skills: tuple[SubSkill, ...]
    context: str
    agent: str | None
    model: str | None
    allowed_tools: tuple[str, ...]
    knowledge: tuple[str, ...]
    # The skill's folder on this machine, when known (the body then begins with Claude Code's
    # `Base directory for this skill:` line), and the knowledge docs with their titles.
    base: str | None = None
    knowledge_docs: tuple[KnowledgeDoc, ...] = ()
    label: str = ""  # what the skill is shown as (docs/format.md §7); the reader always sets it

    def render(self, base: str | None = None) -> str:
        """sven's <skill_content> tool result: body, bundled files, sub-skill hint; `base` as for
        render_skill."""
        return render_skill(self, base)


def loaded(
    persona: str,
    command: str,
    skill: SkillDoc,
    r: ResolutionDoc,
    body: str,
    children: Callable[[], tuple[SubSkill, ...]],
    args: str | Sequence[str] | None,
    params: Mapping[str, str] | None,
    base: str | None = None,
    knowledge: Any = None,
) -> LoadedSkill:
    """What load() returns for a pair it may serve: `body` is the resolved body's text (read before
    the children are, docs/format.md §12); `children` lists the sub-skills the persona's model sees;
    `base` the skill's folder (`${CLAUDE_SKILL_DIR}`, and the body's first line); `knowledge` the
    index's knowledge (its folder and the titles found there)."""
    fm = skill["frontmatter"]
    stub = r["access"] == "stub"  # the stub is all such a persona gets: no files, no knowledge docs
    listed = [] if stub else skill["resources"]
    text = substitute(body, args, names=_names(fm.get("arguments")), skill_dir=base, params=params)
    entries = () if stub else tuple(fm.get("knowledge", ()))
    return LoadedSkill(
        persona=persona,
        command=command,
        name=skill["name"],
        description=skill["description"],
        body=text if base is None else f"Base directory for this skill: {base}\n\n{text}",
        access=r["access"],
        overlay=r["overlay"],
        files=tuple(res["path"] for res in listed)[:MAX_FILES],
        sub_skills=() if stub else children(),
        context=fm.get("context", "inline"),
        agent=fm.get("agent"),
        model=fm.get("model"),
        allowed_tools=tuple(fm.get("allowed-tools", ())),
        knowledge=entries,
        base=base,
        knowledge_docs=tuple(_knowledge_doc(e, knowledge) for e in entries),
        label=label_of(skill),
    )


def _knowledge_doc(entry: str, knowledge: Any) -> KnowledgeDoc:
    """A `knowledge:` entry as a doc: in the build's knowledge folder, with the title found there."""
    if knowledge is None:
        return KnowledgeDoc(entry, None)
    return KnowledgeDoc(f"{knowledge['folder']}/{entry}", knowledge["titles"].get(entry))


def render_skill(s: LoadedSkill, base: str | None = None) -> str:
    """The <skill_content> block of a loaded skill (docs/format.md §10). `base`: the skill's folder,
    for a skill loaded without one (load(base=...) also sets `${CLAUDE_SKILL_DIR}`): the block's
    first line is then Claude Code's base directory line."""
    body = s.body
    if base is not None and s.base is None:
        if not isinstance(base, str):
            raise ArgumentType(f"base must be a str or None, not {type(base).__name__}")
        body = f"Base directory for this skill: {base}\n\n{body}"
    parts = [
        f'<skill_content command="{escape_attr(s.command)}" name="{escape_attr(s.label or s.name)}">',
        body.rstrip("\n"),
        "",
    ]
    if s.files:
        parts.append("Bundled files (load with the resource tool, paths relative to this skill):")
        parts.extend(f"  - {f}" for f in s.files)
        parts.append("")
    if s.sub_skills:
        parts.append("<sub_skills>")
        parts.append("<!-- Call load_skill(command) to load any sub-skill's full instructions. -->")
        parts.extend(
            f'  <sub_skill command="{escape_attr(c.command)}" name="{escape_attr(c.label or c.name)}">'
            f"{escape_text(c.description)}</sub_skill>"
            for c in s.sub_skills
        )
        parts.append("</sub_skills>")
    docs = s.knowledge_docs or tuple(KnowledgeDoc(k, None) for k in s.knowledge)  # a record made by hand
    if docs:
        parts.append("Relevant knowledge docs (use search_knowledge or read_file to load):")
        width = max((len(d.path) for d in docs if d.title is not None), default=0)
        parts.extend(
            f"  - {d.path}" if d.title is None else f"  - {d.path.ljust(width)} ({d.title})" for d in docs
        )
    parts.append("</skill_content>")
    return "\n".join(parts) + "\n"


def _words(args: object) -> list[str]:
    """A sequence of strings, as given. Bytes are refused, not iterated (b"x y" would be the byte
    values 120, 32, 121), and so is any item that is not a str: str() of an object is not an
    argument the caller typed."""
    bad = f"args must be a str or a sequence of str, not {type(args).__name__}"
    if isinstance(args, (bytes, bytearray, memoryview)) or not hasattr(args, "__iter__"):
        raise ArgumentType(bad)
    parts = list(args)
    for item in parts:
        if not isinstance(item, str):
            raise ArgumentType(f"{bad} (an item is {type(item).__name__})")
    return parts


# The variables a caller may give values for (`params`), besides CLAUDE_SKILL_DIR (`skill_dir`).
# Claude Code 2.1.330 always gives them (the session's id, the model's effort level, the project
# folder); tests/harness/golden/claude@2.1.330/args.json records what it substitutes.
PARAMS = ("CLAUDE_SESSION_ID", "CLAUDE_EFFORT", "CLAUDE_PROJECT_DIR")


def substitute(
    body: str,
    args: str | Sequence[str] | None,
    *,
    names: Sequence[str] = (),
    skill_dir: str | None = None,
    params: Mapping[str, str] | None = None,
) -> str:
    """Claude Code's argument substitution (2.1.330; docs/format.md §8).

    `${CLAUDE_SKILL_DIR}` becomes skill_dir, and `${NAME}` for each NAME of PARAMS becomes
    params[NAME], when given (else they stay as written); a backslash before them is kept. With
    args: `$ARGUMENTS` is the argument string as typed, even when a word follows (`$ARGUMENTS_x`);
    `$ARGUMENTS[N]` and `$N` (0-based) are its shell-style words, unchanged when there is no
    such word, and `$N` only when no word character follows (`$1x` stays); `$name` for each name
    of the skill's `arguments:` list is the word at that position (empty when missing), unless a
    word character or `[` follows. One backslash before such a placeholder, itself not after a
    backslash, escapes it (`\\$1` gives `$1`). When no placeholder used them, given arguments are
    appended as `\n\nARGUMENTS: <value>`.
    """
    variables = _variables(skill_dir, params)
    if args is None and not variables:
        return body
    if args is None:
        raw, words = "", None
    elif isinstance(args, str):
        raw, words = args, None  # split only when a placeholder needs a word
    else:
        words = _words(args)
        raw = " ".join(words)
    if "$" not in body:  # no placeholder: the body as it is, and the arguments appended
        return _appended(body, raw) if args is not None else body
    scan = _Scan(body, args is not None, raw, words, _named(names), variables)
    out = scan.run()
    if args is not None and not scan.used:
        out = _appended(out, raw)
    return out


def _appended(body: str, raw: str) -> str:
    """Unused arguments, appended as Claude Code does: the body as it is, no newline after."""
    return body + "\n\nARGUMENTS: " + escape_delimiter(raw) if raw else body


def _variables(skill_dir: str | None, params: Mapping[str, str] | None) -> dict[str, str]:
    """`${NAME}` -> value, for the variables given: skill_dir and params, checked."""
    out = {} if skill_dir is None else {"{CLAUDE_SKILL_DIR}": skill_dir}
    if params is None:
        return out
    if not hasattr(params, "items"):
        raise ArgumentType(f"params must be a mapping of str to str, not {type(params).__name__}")
    for key, value in params.items():
        if key not in PARAMS:
            raise ArgumentType(f"params: {key!r} is not one of {', '.join(PARAMS)}")
        if not isinstance(value, str):
            raise ArgumentType(f"params[{key!r}] must be a str, not {type(value).__name__}")
        out["{" + key + "}"] = escape_delimiter(value)  # as an argument: it may be text a user chose
    return out


def _named(names: Sequence[str]) -> list[tuple[str, int]]:
    """Usable names with their positions, in the order they are tried: longest first, and for a
    name given twice its first position (Claude Code replaces with the first and leaves none)."""
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if isinstance(n, str) and _name_arg(n) and n not in seen:
            seen[n] = i
    return sorted(seen.items(), key=lambda item: -len(item[0]))


# `\w` of Claude Code's JavaScript patterns (no `u` flag): ASCII letters, digits and `_`.
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset("0123456789")
_NAME_END = _WORD | {"["}


class _Scan:
    """One pass over a body from `$` to `$` (nothing else starts a placeholder), replacing each
    placeholder as Claude Code's passes would; replaced text is never scanned again."""

    def __init__(
        self,
        body: str,
        given: bool,
        raw: str,
        words: list[str] | None,
        named: list[tuple[str, int]],
        variables: dict[str, str],
    ):
        self.body, self.given, self.raw, self.given_words = body, given, raw, words
        self.named, self.variables, self.used = named, variables, False
        self._words: tuple[str, ...] | None = None
        self._raw: str | None = None

    def words(self) -> tuple[str, ...]:
        """The words, split and delimiter-escaped on first use (a body may need none)."""
        if self._words is None:
            given = self.given_words
            self._words = tuple(escape_delimiter(w) for w in (_split(self.raw) if given is None else given))
        return self._words

    def run(self) -> str:
        body, out, last = self.body, [], 0
        at = body.find("$")
        while at >= 0:
            if self.given and at and body[at - 1] == "\\" and self.escaped(at):
                out.append(body[last : at - 1])  # drop the backslash; the `$` stays as written
                last = at
            else:
                found = self.at(at)
                if found is not None:
                    end, value = found
                    out += (body[last:at], value)
                    last = end
            at = body.find("$", last if last > at else at + 1)
        out.append(body[last:])
        return "".join(out)

    def at(self, at: int) -> tuple[int, str] | None:
        """(end, replacement) of the placeholder whose `$` is at `at`, tried in Claude Code's order:
        variables, names, `$ARGUMENTS[N]`, `$N`, `$ARGUMENTS`; None when nothing is replaced.
        The character after the `$` picks the candidates (this runs at every `$` of a body)."""
        body, start = self.body, at + 1
        first = body[start : start + 1]
        if first == "{":
            for token, value in self.variables.items():
                if body.startswith(token, start):
                    return start + len(token), value
            return None
        if not self.given:
            return None
        if first in _DIGITS:  # no usable name starts with a digit
            end = start + 1
            while end < len(body) and body[end] in _DIGITS:
                end += 1
            if end < len(body) and body[end] in _WORD:  # `$1x`: not a placeholder
                return None
            return self.indexed(body[start:end], at, end)
        if self.named:
            after = self.name_end(start)
            if after is not None:
                self.used = True  # a name is a use even when its word is missing
                i = next(i for n, i in self.named if n == body[start:after])
                words = self.words()
                return after, words[i] if i < len(words) else ""
        if first != "A" or not body.startswith("ARGUMENTS", start):
            return None
        if body.startswith("[", start + 9):
            close = _digit_run(body, start + 10)
            if close > start + 10 and body.startswith("]", close):
                return self.indexed(body[start + 10 : close], at, close + 1)
        self.used = True  # whatever follows (`$ARGUMENTS_x`)
        return start + 9, self.escaped_raw()

    def escaped_raw(self) -> str:
        if self._raw is None:
            self._raw = escape_delimiter(self.raw)
        return self._raw

    def indexed(self, digits: str, at: int, end: int) -> tuple[int, str]:
        """An indexed word; without one, the placeholder stays and is not a use."""
        i, words = _index(digits), self.words()
        if i >= len(words):
            return end, self.body[at:end]
        self.used = True
        return end, words[i]

    def name_end(self, start: int) -> int | None:
        """The end of the usable name at `start` (longest first), unless `[` or a word character
        follows it."""
        body = self.body
        for name, _ in self.named:
            end = start + len(name)
            if body.startswith(name, start) and (end == len(body) or body[end] not in _NAME_END):
                return end
        return None

    def escaped(self, at: int) -> bool:
        """Whether the `$` at `at` follows one backslash (itself not after a backslash) and starts
        what Claude Code escapes: a digit, `ARGUMENTS`, or a name."""
        body, start = self.body, at + 1
        if at == 0 or body[at - 1] != "\\" or (at > 1 and body[at - 2] == "\\"):
            return False
        if start < len(body) and body[start] in _DIGITS:
            return True
        return body.startswith("ARGUMENTS", start) or self.name_end(start) is not None


def _digit_run(body: str, start: int) -> int:
    """The end of the run of ASCII digits at start (only ASCII: other scripts' digits are a set that
    grows with Unicode)."""
    end = start
    while end < len(body) and body[end] in _DIGITS:
        end += 1
    return end


def _index(digits: str) -> int:
    """The value of an index as parseInt reads it ($01 is word 1); a huge one names no word."""
    if len(digits) < 10:
        return int(digits)
    significant = digits.lstrip("0") or "0"
    return int(significant) if len(significant) < 10 else 1 << 62


def _names(value: Any) -> tuple[str, ...]:
    """The `arguments:` frontmatter list (the build wrote a list; be lenient with a string)."""
    if isinstance(value, str):
        return tuple(value.split())
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_REST = _FIRST | frozenset("0123456789-")


def _name_arg(name: str) -> bool:
    """A usable `arguments:` name: `[A-Za-z_][A-Za-z0-9_-]*` (checked without `re`: cold start)."""
    return bool(name) and name[0] in _FIRST and all(ch in _REST for ch in name)


def _split(text: str) -> list[str]:
    import shlex  # only for arguments: kept out of the cold start

    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return text.split()
