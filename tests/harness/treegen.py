"""Random skillc projects for the harness exploration: nesting, odd names, collisions, budgets.

`project(root, seed)` writes a skillc project (skillc.yaml with every harness as a target, src/,
personas/) that a build with `--skip-invalid` takes, and names its personas; `budget(cli, seed)`
is the budget its exports run at. The same seed writes the same project on every machine. explore.py exports
each through every target and runs the real CLIs on it; what they disagree on becomes a rule in
compiler/targets/ and a golden of its own (exports.py's `odd` project).

Everything here is made up for these tests.
"""

from __future__ import annotations

import random
from pathlib import Path

CONFIG = """\
format: 1
sources: [src]
personas: personas
output: dist
targets: [claude-code, codex, gemini, opencode]
diagnostics:
  SKC205: warning
  SKC206: warning
  SKC213: warning
  SKC214: warning
  SKC216: warning
  SKC217: warning
  SKC218: warning
  SKC307: warning
"""
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "omega",
    "quartz",
    "ember",
    "nova",
    "tidal",
    "lumen",
    "vapor",
    "cobalt",
]
# Folder segments a harness may read its own way: glob characters, a colon (Gemini's `-`), a
# space, capitals, digits only (a JavaScript array index), markup and quotes, a dot, an underscore.
ODD_SEGMENTS = (
    "co:lon", "a*b", "q?x", "sp ace", "Upper", "123", "x.y", "under_s", "amp&er", "quo'te",
    "br[ack]", "lt<gt", "dash-", "-lead", "caf\u00e9", "a|b", 'dq"x',
)  # fmt: skip
ODD_NAMES = (
    "Sven Plan", "co:lon", "star*", "a?b", "UPPER", "7", "x.y", "under_score", "<b>bold</b>",
    "amp&name", "n" * 65, "tab\tname", "two  spaces", "caf\u00e9", "a/b", "$HOME", "~", "a\\b",
)  # fmt: skip


def _segment(rng: random.Random) -> str:
    return rng.choice(ODD_SEGMENTS) if rng.random() < 0.25 else f"{rng.choice(WORDS)}{rng.randrange(100)}"


def _text(rng: random.Random, length: int, odd: bool) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(length // 5 + 2))[:length].strip() or "x"
    if odd and rng.random() < 0.5:
        extra = rng.choice(["<b>bold</b>", " & amp", " \"q\" 'q'", "{brace} $dollar", "\u00e9\u65e5\u672c"])
        words = f"{words} {extra}"
    return words


def _quoted(value: str) -> str:
    """A YAML double-quoted scalar (JSON's form is one)."""
    import json

    return json.dumps(value, ensure_ascii=False)


def folders(rng: random.Random) -> list[str]:
    """Skill folders below src/: mostly one level, some nested up to eight, and collisions."""
    found: set[str] = set()
    for _ in range(rng.randrange(6, 30)):
        depth = rng.choice([1, 1, 1, 1, 2, 2, 3, 6, 7, 8])
        found.add("/".join(_segment(rng) for _ in range(depth)))
    if rng.random() < 0.5:  # a nested command beside the folder a one-level harness flattens it to
        found |= {"grp/inner", "grp-inner"}
    if rng.random() < 0.3:  # a skill folder holding another skill
        found |= {"outer", "outer/child"}
    return sorted(found)


def project(root: Path, seed: int) -> list[str]:
    """Write the project for `seed` below root; its personas."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "skillc.yaml").write_text(CONFIG, encoding="utf-8")
    skills = folders(rng)
    names = {}
    for folder in skills:
        last = folder.rsplit("/", 1)[-1]
        roll = rng.random()
        if roll < 0.15:
            names[folder] = rng.choice(ODD_NAMES)
        elif roll < 0.22 and names:
            names[folder] = rng.choice(sorted(names.values()))  # a name another skill has
        else:
            names[folder] = last
        front = [f"name: {_quoted(names[folder])}"] if rng.random() > 0.2 else []  # else: the folder's
        description = _text(rng, rng.choice([30, 60, 120, 300, 700, 1100]), odd=True)
        if rng.random() < 0.1:
            description = description.replace(" ", "\n", 2)  # line breaks a harness may collapse
        front.append(f"description: {_quoted(description)}")
        if rng.random() < 0.2:
            wtu = _text(rng, rng.choice([20, 200]), odd=True)
            front.append(
                f"when_to_use: {_quoted(wtu if rng.random() < 0.7 else wtu.replace(' ', chr(10), 1))}"
            )
        if rng.random() < 0.12:
            front.append("disable-model-invocation: true")
        if rng.random() < 0.08:
            front.append("user-invocable: false")
        if rng.random() < 0.05:
            front.append('paths: ["src/**"]')
        path = root / "src" / folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n" + "\n".join(front) + "\n---\nThe body of the skill.\n", encoding="utf-8")
    return _personas(root, rng, skills)


def _personas(root: Path, rng: random.Random, skills: list[str]) -> list[str]:
    count = rng.randrange(1, 4)
    for i in range(count):
        folder = root / "personas" / f"p{i}"
        folder.mkdir(parents=True, exist_ok=True)
        manifest = f"name: P{i}\n"
        if i and rng.random() < 0.6:  # an allowlist of some commands
            picked = sorted(rng.sample(skills, max(1, len(skills) // 2)))
            manifest += "skills: [" + ", ".join(_quoted(c) for c in picked) + "]\n"
        (folder / "manifest.yaml").write_text(manifest, encoding="utf-8")
    return [f"p{i}" for i in range(count)]


# Budgets per harness (Codex's window in tokens, Claude Code's characters; None: the default).
BUDGETS = {"codex": (None, 2_000, 8_000, 20_000), "claude": (None, 300, 2_000, 8_000), "gemini": (None,)}
BUDGETS["opencode"] = (None,)


def budget(cli: str, seed: int) -> int | None:
    return random.Random(seed * 31 + len(cli)).choice(BUDGETS[cli])
