"""Why a committed build is stale, in source files: the skills, personas, config or template whose
change would make a build write something else (`skillc check`), one line per source.

The committed build and what a build would write are both read through the reader, entry by entry,
so every difference is traced to the file a person edits, never to an object hash.
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .. import reader
from ..dataclass import dataclass
from ..model import Artifacts, Config
from ..reader import EVERYWHERE as AS_BUILT  # the build as it was made, whatever this machine has


@dataclass(frozen=True, order=True)
class StaleSource:
    path: str  # relative to the project root, as diagnostics name files
    why: str


def stale_sources(config: Config, committed: Path, art: Artifacts) -> tuple[StaleSource, ...] | None:
    """The sources whose change made `committed` differ from `art`; None when the committed build
    cannot be read as one (then only its files can be named)."""
    try:
        old = reader.open(committed)
    except reader.ReaderError:
        return None
    with tempfile.TemporaryDirectory(prefix="skillc-check-") as tmp:
        try:
            _materialise(Path(tmp), art.files)
            new = reader.open(tmp)
            found = _skills(old, new) | _personas(config, old, new)
            found |= _build_wide(config, old, new, explained=bool(found))
        except (reader.ReaderError, OSError):  # a damaged committed build: its files are named instead
            return None
    return _one_line_per_source(found)


def _one_line_per_source(found: set[StaleSource]) -> tuple[StaleSource, ...]:
    by_path: dict[str, list[str]] = {}
    for s in sorted(found):
        by_path.setdefault(s.path, []).append(s.why)
    return tuple(StaleSource(path, "; ".join(whys)) for path, whys in sorted(by_path.items()))


def _materialise(root: Path, files: Mapping[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _skills(old: reader.Dist, new: reader.Dist) -> set[StaleSource]:
    found: set[StaleSource] = set()
    before, after = set(old.all_commands()), set(new.all_commands())
    for command in sorted(after - before):
        found.add(StaleSource(new.skill_meta(command).path, f"new skill {command!r}: not in the build"))
    for command in sorted(before - after):
        found.add(StaleSource(old.skill_meta(command).path, f"skill {command!r} is gone: still in the build"))
    for command in sorted(before & after):
        found |= _one_skill(old.skill_meta(command), new.skill_meta(command))
    return found


def _one_skill(a: reader.SkillMeta, b: reader.SkillMeta) -> set[StaleSource]:
    found: set[StaleSource] = set()
    facts = ("name", "description", "source", "path", "frontmatter", "body_sha256", "parent", "children")
    changed = [f for f in facts if getattr(a, f) != getattr(b, f)]
    if changed:
        what = ", ".join("body" if f == "body_sha256" else f for f in changed)
        found.add(StaleSource(b.path, f"changed since the build ({what})"))
    folder = posixpath.dirname(b.path)
    old_res = {r.path: r for r in a.resources}
    new_res = {r.path: r for r in b.resources}
    for rel in sorted(old_res.keys() | new_res.keys()):
        if old_res.get(rel) != new_res.get(rel):
            state = "new" if rel not in old_res else "gone" if rel not in new_res else "changed"
            found.add(StaleSource(posixpath.join(folder, rel), f"resource {state} since the build"))
    return found


def _personas(config: Config, old: reader.Dist, new: reader.Dist) -> set[StaleSource]:
    """A persona whose own settings differ: its folder (manifest, overlays, exclusive bodies)."""
    found: set[StaleSource] = set()
    before, after = set(old.personas()), set(new.personas())
    for pid in sorted(before ^ after):
        state = "new" if pid in after else "gone"
        found.add(StaleSource(_persona_path(config, pid), f"persona {pid!r} is {state} since the build"))
    for pid in sorted(before & after):
        a, b = old.persona_meta(pid), new.persona_meta(pid)
        settings = ("name", "faction", "fallback", "chain", "unrestricted", "allowlist")
        changed = [f for f in settings if getattr(a, f) != getattr(b, f)]
        if changed:
            manifest = _persona_path(config, pid) + ("manifest.yaml" if config.personas else "")
            found.add(StaleSource(manifest, f"persona {pid!r} changed ({', '.join(changed)})"))
        elif _overlays_or_bodies_differ(old, new, pid):
            why = f"persona {pid!r}: an overlay or exclusive body changed"
            found.add(StaleSource(_persona_path(config, pid), why))
        if a.budget != b.budget:  # budgets live in the config
            found.add(StaleSource(config.config_rel, f"budget of persona {pid!r} changed"))
    return found


def _persona_path(config: Config, pid: str) -> str:
    return f"{config.personas}/{pid}/" if config.personas else config.config_rel


def _overlays_or_bodies_differ(old: reader.Dist, new: reader.Dist, pid: str) -> bool:
    """What a persona gets per skill: overlays and exclusive bodies live in the persona's folder."""
    common = set(old.commands(pid, env=AS_BUILT)) & set(new.commands(pid, env=AS_BUILT))
    return any(
        (ra := old.resolution(pid, c)).overlay != (rb := new.resolution(pid, c)).overlay
        or (ra.access, ra.via) != (rb.access, rb.via)
        for c in sorted(common)
    )


def _build_wide(config: Config, old: reader.Dist, new: reader.Dist, *, explained: bool) -> set[StaleSource]:
    """The config's own settings, the template, and the compiler that wrote the build; a catalog
    that differs for none of those and no skill (`explained`) is the template's doing."""
    found: set[StaleSource] = set()
    a, b = old.index, new.index
    if a["config"] != b["config"]:
        changed = sorted(
            k for k in a["config"].keys() | b["config"].keys() if a["config"].get(k) != b["config"].get(k)
        )
        found.add(StaleSource(config.config_rel, f"config changed since the build ({', '.join(changed)})"))
    if a["generator"] != b["generator"]:
        found.add(StaleSource(config.config_rel, f"built by {a['generator']}; this is {b['generator']}"))
    catalogs = {
        p
        for p in set(old.personas()) & set(new.personas())
        if old.catalog(p, env=AS_BUILT) != new.catalog(p, env=AS_BUILT)
    }
    if catalogs and not found and not explained:
        found.add(
            StaleSource(
                config.template_rel,
                f"catalog of {', '.join(sorted(catalogs))} changed: the template or a skill's catalog entry",
            )
        )
    return found
