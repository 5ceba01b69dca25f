"""`skillc init`: a commented skillc.yaml for the tree at hand, and finding the config later.

The presets are the layouts harnesses read: Claude Code's `.claude/skills`, the
cross-agent `.agents/skills`, Codex's `.codex/skills` (with `.agents/skills`
below it in precedence), and ARIA's sources plus personas.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import InitError

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


def detect(root: Path) -> Preset:
    """The preset whose folders the tree already has; Claude Code's when it has none."""
    if (root / "skills" / "personas").is_dir():
        return PRESETS["aria"]
    found = tuple(s for s in (".agents/skills", ".codex/skills", ".claude/skills") if (root / s).is_dir())
    if found == (".claude/skills",) or not found:
        return PRESETS["claude-code"]
    if found == (".agents/skills",):
        return PRESETS["agents"]
    return Preset("detected", "the skill folders found here", found)


def render(preset: Preset) -> str:
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
output: dist                   # skillc owns this directory and replaces it on every build
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
        fh.write(render(preset))
    return target, preset


def find_config(start: Path) -> Path | None:
    """skillc.yaml in start or the nearest parent, not above the repository root (a folder holding .git)."""
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists():
            return None
    return None
