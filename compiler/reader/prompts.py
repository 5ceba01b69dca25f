"""Tool results the reader renders: a loaded skill's <skill_content>, and argument substitution."""

from __future__ import annotations

from ..format.errors import ArgumentType
from ..format.escape import escape_attr, escape_delimiter, escape_text
from .record import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Sequence
    from typing import Any


@dataclass(frozen=True)
class SubSkill:
    command: str
    name: str
    description: str


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

    def render(self) -> str:
        """sven's <skill_content> tool result: body, bundled files, sub-skill hint."""
        return render_skill(self)


def render_skill(s: LoadedSkill) -> str:
    parts = [
        f'<skill_content command="{escape_attr(s.command)}" name="{escape_attr(s.name)}">',
        s.body.rstrip("\n"),
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
            f'  <sub_skill command="{escape_attr(c.command)}" name="{escape_attr(c.name)}">'
            f"{escape_text(c.description)}</sub_skill>"
            for c in s.sub_skills
        )
        parts.append("</sub_skills>")
    if s.knowledge:
        parts.append("Relevant knowledge docs (use search_knowledge or read_file to load):")
        parts.extend(f"  - {k}" for k in s.knowledge)
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


def substitute(
    body: str, args: str | Sequence[str] | None, *, names: Sequence[str] = (), skill_dir: str | None = None
) -> str:
    """Claude Code's argument substitution.

    `$ARGUMENTS` is the argument string as typed; `$ARGUMENTS[N]` and `$N`
    (0-based) are its shell-style words, unchanged when there is no such
    word; `$name` for each name of the skill's `arguments:` list is the word
    at that position (empty when missing); `\\$1` stays `$1` (a doubled
    backslash does not escape). Without `$ARGUMENTS` in the body, given
    arguments are appended as `ARGUMENTS: <value>`. `${CLAUDE_SKILL_DIR}`
    becomes skill_dir when one is given.
    """
    if args is None and skill_dir is None:
        return body
    if args is None:
        raw, parts = "", []
    elif isinstance(args, str):
        raw, parts = args, _split(args)
    else:
        parts = _words(args)
        raw = " ".join(parts)
    raw = escape_delimiter(raw)
    parts = [escape_delimiter(p) for p in parts]
    named = {n: i for i, n in enumerate(names) if isinstance(n, str) and _name_arg(n)}
    pattern = _placeholders(tuple(sorted(named, key=len, reverse=True)))
    used = False

    def replace(slashes: str, m: re.Match[str]) -> str:
        nonlocal used
        token = m.group(0)
        if len(slashes) % 2 == 1:  # escaped: drop the escaping backslash, keep the placeholder
            return slashes[:-1] + token
        if m.group("dir") is not None:
            return slashes + (skill_dir if skill_dir is not None else token)
        if args is None:
            return slashes + token
        index = m.group("index") or m.group("num")
        if index is not None:
            used = True
            i = int(index) if len(index) < 10 else len(parts)  # a huge index has no word: never int() it
            return slashes + (parts[i] if i < len(parts) else token)
        name = m.group("name")
        if name is not None:
            i, used = named[name], True
            return slashes + (parts[i] if i < len(parts) else "")
        used = True
        return slashes + raw

    out = _each_placeholder(body, pattern, replace)
    if args is not None and not used and raw:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {raw}\n"
    return out


def _names(value: Any) -> tuple[str, ...]:
    """The `arguments:` frontmatter list (the build wrote a list; be lenient with a string)."""
    if isinstance(value, str):
        return tuple(value.split())
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_REST = _FIRST | frozenset("0123456789-")


def _name_arg(name: str) -> bool:
    """A usable `arguments:` name: `[A-Za-z_][A-Za-z0-9_-]*` (checked without `re`: see _placeholders)."""
    return bool(name) and name[0] in _FIRST and all(ch in _REST for ch in name)


_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _placeholders(names: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for every placeholder; named ones must not run on into a longer word.

    Digits are ASCII only (`\\d` would take other scripts' digits, a set that grows with Unicode)."""
    hit = _PATTERNS.get(names)
    if hit is None:
        import re  # only when arguments are substituted: `re` is most of a cold start's imports

        named = "|".join(re.escape(n) for n in names)
        hit = _PATTERNS[names] = re.compile(
            r"(?:\$\{(?P<dir>CLAUDE_SKILL_DIR)\}|\$ARGUMENTS\[(?P<index>[0-9]+)\]"
            + (rf"|\$(?P<name>{named})(?![A-Za-z0-9_-])" if names else "|(?P<name>(?!))")
            + r"|\$ARGUMENTS(?![A-Za-z0-9_])|\$(?P<num>[0-9]+))"
        )
    return hit


def _each_placeholder(
    body: str, pattern: re.Pattern[str], replace: Callable[[str, re.Match[str]], str]
) -> str:
    """body with every placeholder replaced, looking only where a `$` is (a regex scan of every
    character cost 400 us on an 8 KB body). `replace` gets the run of backslashes before the `$`
    and the match; a run starts after the previous placeholder, as a left-to-right regex
    substitution reads it."""
    out: list[str] = []
    last = 0
    at = body.find("$")
    while at >= 0:
        m = pattern.match(body, at)
        if m is None:
            at = body.find("$", at + 1)
            continue
        start = at
        while start > last and body[start - 1] == "\\":
            start -= 1
        out += (body[last:start], replace(body[start:at], m))
        last = m.end()
        at = body.find("$", last)
    out.append(body[last:])
    return "".join(out)


def _split(text: str) -> list[str]:
    import shlex  # only for arguments: kept out of the cold start

    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return text.split()
