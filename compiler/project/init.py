"""`skillc init`: a commented skillc.yaml for the tree at hand, and finding the config later.

The presets are the layouts harnesses read: Claude Code's `.claude/skills`, the
cross-agent `.agents/skills`, Codex's `.codex/skills` (with `.agents/skills`
below it in precedence), and ARIA's sources plus personas.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..dataclass import dataclass
from ..errors import InitError
from . import pyproject

CONFIG_NAME = "skillc.yaml"


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    sources: tuple[str, ...]  # lowest precedence first
    personas: str | None = None


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("claude-code", "Claude Code project skills", (".claude/skills",)),
        Preset("agents", "cross-agent project skills (.agents/skills)", (".agents/skills",)),
        Preset("codex", "Codex project skills over cross-agent ones", (".agents/skills", ".codex/skills")),
        Preset(
            "aria",
            "ordered sources plus personas, as in skillc's example tree",
            ("skills/core", "skills/project"),
            "skills/personas",
        ),
    )
}


# The hidden folders of an openai/skills-like checkout, lowest precedence first: for one name, a
# system skill wins over a curated one, which wins over an experimental one.
HIDDEN_ORDER = (".experimental", ".curated", ".system")
# Files that mean the project already has packaging, whose tools own `dist/` and `build/`.
PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg", "package.json")
PACKAGED_OUTPUT = "skillc-dist"
_SEARCH_LIMIT = 5000  # folders looked at per candidate: init answers at once on any tree


def detect(root: Path) -> Preset:
    """The preset whose folders the tree already has; Claude Code's when it has none.

    Skill collections come first (lowest precedence), then the harness folders found:
    `skills/` itself when it holds skills, else its hidden folders that do (openai/skills keeps
    its skills under `skills/.curated`, `.system` and `.experimental`, which a walk skips).
    """
    if (root / "skills" / "personas").is_dir():
        return PRESETS["aria"]
    collections = _collections(root)
    harness = tuple(s for s in (".agents/skills", ".codex/skills", ".claude/skills") if (root / s).is_dir())
    if not collections:
        if harness == (".claude/skills",) or not harness:
            return PRESETS["claude-code"]
        if harness == (".agents/skills",):
            return PRESETS["agents"]
    return Preset("detected", "the skill folders found here", (*collections, *harness))


def _collections(root: Path) -> tuple[str, ...]:
    skills = root / "skills"
    if not skills.is_dir():
        return ()
    if _holds_skill(skills, hidden=False):
        return ("skills",)
    hidden = [p.name for p in skills.iterdir() if p.name.startswith(".") and p.is_dir() and _holds_skill(p)]
    known = [name for name in HIDDEN_ORDER if name in hidden]
    others = sorted(set(hidden) - set(known))
    return tuple(f"skills/{name}" for name in (*others, *known))


def _holds_skill(folder: Path, hidden: bool = True) -> bool:
    """A SKILL.md somewhere below folder (hidden: also below dot-folders), looking at a bounded number."""
    for seen, (here, dirs, files) in enumerate(os.walk(folder)):
        found = "SKILL.md" in files and here != str(folder)  # a SKILL.md at the top is no skill
        if found or seen >= _SEARCH_LIMIT:
            return found
        dirs[:] = sorted(
            d for d in dirs if (hidden or not d.startswith(".")) and d not in ("node_modules", ".git")
        )
    return False


def output_for(root: Path) -> str:
    """`dist`, unless the project's packaging owns `dist/` (and `build/`): then `skillc-dist`."""
    packaged = any((root / name).exists() for name in PACKAGING)
    return PACKAGED_OUTPUT if packaged or (root / "dist").exists() else "dist"


def render(preset: Preset, output: str = "dist") -> str:
    """The config text: every setting the preset does not need is shown commented out, with its default."""
    sources = "\n".join(f"  - {s}" for s in preset.sources)
    personas = (
        f"personas: {preset.personas}"
        if preset.personas
        else "# personas: personas        # persona manifests, overlays and exclusive bodies"
    )
    return f"""# skillc configuration ({preset.summary}). Reference: https://github.com/skillc/skillc/blob/main/docs/config.md
format: 1
sources:                       # lowest precedence first; a later source wins for the same command
{sources}
{personas}
output: {output:<22} # written by `skillc build`; a file skillc did not write there stops the build
# template: templates/catalog.xml.j2   # default: skillc's built-in <available_skills> catalog
# strict: false                # warnings fail the build (same as --strict)
# skip_invalid: false          # leave out skills with errors instead of failing (--skip-invalid)
# budgets:
#   catalog_chars: 30000       # per-persona catalog budget
#   strategy: drop             # drop | shorten | names-only
# resources:
#   exclude: ["*.log"]         # gitignore-style globs of files not to bundle
#   max_bytes: 1048576
# diagnostics:                 # per-code severity: error | warning | ignore (`skillc codes`: which lower)
#   SKC305: ignore
#   per_path:                  # gitignore-style patterns: code -> level for the files they match
#     "skills/vendor/**": {{SKC206: warning}}
"""


def write(root: Path, preset_name: str | None) -> tuple[Path, Preset]:
    """Write root/skillc.yaml (never over an existing one) and make the preset's missing folders."""
    target = root / CONFIG_NAME
    if target.exists() or target.is_symlink():
        raise InitError(f"{target} already exists; skillc init never overwrites a config")
    if preset_name is not None and preset_name not in PRESETS:
        raise InitError(f"unknown preset {preset_name!r}; presets: {', '.join(PRESETS)}")
    preset = PRESETS[preset_name] if preset_name else detect(root)
    for folder in (*preset.sources, *([preset.personas] if preset.personas else [])):
        (root / folder).mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as fh:  # "x": a config made meanwhile is not overwritten either
        fh.write(render(preset, output_for(root)))
    return target, preset


def find_config(start: Path) -> Path | None:
    """The config of start or its nearest parent, not above the repository root (a folder holding .git).

    In one folder skillc.yaml comes first, then pyproject.toml when it has a [tool.skillc] table (as
    ruff reads its own table; config.load warns when both are there). A pyproject.toml without the
    table is no config: the search goes on upwards.
    """
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
        if _has_table(folder / pyproject.NAME):
            return folder / pyproject.NAME
        if (folder / ".git").exists():
            return None
    return None


def _has_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return False
    return text is not None and pyproject.claims(text)
