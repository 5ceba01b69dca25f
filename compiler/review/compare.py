"""Compare: what changed between two builds, in what an agent sees or may do.

Everything is read through the reader's public API (`skillc.reader`), never
from the index layout, so the review follows the artifact format. Changes
are values computed once; `render_text`, `render_markdown` and `render_json`
only print them. A change that is the same for several personas is one
change with the list of those personas.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .. import reader
from ..reader import EVERYWHERE as AS_BUILT  # the build as it was made, whatever this machine has
from .audit import audit
from .changes import Change, PersonaSummary, Review

if TYPE_CHECKING:
    from ..targets.view import Budget

# Frontmatter fields that grant or change what a skill may do: reported first and marked.
CAPABILITY_FIELDS = (
    "allowed-tools",
    "disallowed-tools",
    "model",
    "context",
    "agent",
    "hooks",
    "disable-model-invocation",
    "user-invocable",
    "user_invocable_only",
    "requires_bins",
    "requires_env",
)
_MAX_DIFF_LINES = 400  # per change: a generated file should not drown the review


# --- comparing two builds ----------------------------------------------------


def compare(old: reader.Dist, new: reader.Dist, targets: Sequence[tuple[str, Budget]] = ()) -> Review:
    """Every change between two builds; with `targets`, also each harness's listing (review/targets.py)."""
    changes: list[Change] = []
    changes += _skill_changes(old, new)
    changes += _audit_changes(old, new)
    changes += _persona_changes(old, new)
    changes += _grouped(_per_persona_changes(old, new))
    if targets:
        from .targets import target_changes  # reads every persona's listing: only when asked

        changes += _grouped(target_changes(old, new, targets))
    summaries = tuple(_summary(old, new, p) for p in sorted(set(old.personas()) | set(new.personas())))
    ordered = sorted(changes, key=lambda c: (not c.capability, _KIND_ORDER.index(c.kind), c.subject, c.field))
    return Review(tuple(ordered), summaries)


_KIND_ORDER = ("skill", "frontmatter", "audit", "resource", "persona", "access", "catalog", "body", "target")


def _skill_changes(old: reader.Dist, new: reader.Dist) -> list[Change]:
    a, b = set(old.all_commands()), set(new.all_commands())
    out = [Change("skill", c, new.skill_meta(c).path, "skill", None, "added") for c in sorted(b - a)]
    out += [Change("skill", c, old.skill_meta(c).path, "skill", "removed", None) for c in sorted(a - b)]
    for command in sorted(a & b):
        out += _one_skill(old, new, old.skill_meta(command), new.skill_meta(command))
    return out


def _one_skill(
    old: reader.Dist, new: reader.Dist, ma: reader.SkillMeta, mb: reader.SkillMeta
) -> list[Change]:
    c, where = mb.command, mb.path
    out: list[Change] = []
    if (ma.source, ma.path) != (mb.source, mb.path):
        out.append(Change("skill", c, where, "source", ma.path, mb.path))
    for key in sorted(set(ma.frontmatter) | set(mb.frontmatter)):
        va, vb = ma.frontmatter.get(key), mb.frontmatter.get(key)
        if va != vb:
            out.append(
                Change(
                    "frontmatter", c, where, key, _show(va), _show(vb), capability=key in CAPABILITY_FIELDS
                )
            )
    return out + _resource_changes(old, new, ma, mb)


def _show(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _resource_changes(
    old: reader.Dist, new: reader.Dist, ma: reader.SkillMeta, mb: reader.SkillMeta
) -> list[Change]:
    ra, rb = {r.path: r for r in ma.resources}, {r.path: r for r in mb.resources}
    out: list[Change] = []
    for path in sorted(set(ra) | set(rb)):
        a, b = ra.get(path), rb.get(path)
        if a == b:
            continue
        risky = any(r is not None and _runnable(r) for r in (a, b))
        if a is not None and b is not None and a.executable != b.executable:
            out.append(
                Change(
                    "resource",
                    mb.command,
                    mb.path,
                    f"{path} (executable bit)",
                    str(a.executable).lower(),
                    str(b.executable).lower(),
                    capability=True,
                )
            )
        if a is None or b is None or a.sha256 != b.sha256:
            diff = _resource_diff(old, new, path, a, b)
            out.append(
                Change(
                    "resource", mb.command, mb.path, path, _label(a), _label(b), capability=risky, diff=diff
                )
            )
    return out


def _runnable(r: reader.ResourceMeta) -> bool:
    """A bundled file the model may run: executable, or a script by its folder."""
    return r.executable or r.path.startswith("scripts/")


def _label(r: reader.ResourceMeta | None) -> str | None:
    return (
        None
        if r is None
        else f"{r.size} bytes, sha256 {r.sha256[:12]}" + (", executable" if r.executable else "")
    )


def _resource_diff(
    old: reader.Dist,
    new: reader.Dist,
    path: str,
    a: reader.ResourceMeta | None,
    b: reader.ResourceMeta | None,
) -> tuple[str, ...]:
    texts = [_text_of(dist, r) for dist, r in ((old, a), (new, b))]
    if any(t is None and r is not None for t, r in zip(texts, (a, b), strict=True)):
        return ()  # binary: size and hash say it
    return _unified(texts[0] or "", texts[1] or "", f"a/{path}", f"b/{path}")


def _text_of(dist: reader.Dist, r: reader.ResourceMeta | None) -> str | None:
    if r is None:
        return ""
    data = dist.read_object(r.sha256)
    if b"\x00" in data:  # valid UTF-8 can hold NUL bytes; no text file does
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# Grants, hooks and executables are already frontmatter and resource changes; these only the audit sees.
_AUDIT_ONLY = frozenset({"injection", "hidden-unicode"})


def _audit_changes(old: reader.Dist, new: reader.Dist) -> list[Change]:
    before = {f for f in audit(old) if f.kind in _AUDIT_ONLY}
    after = {f for f in audit(new) if f.kind in _AUDIT_ONLY}
    added = [
        Change("audit", f.command, _path(new, f.command), f.kind, None, f.detail, capability=True)
        for f in sorted(after - before, key=lambda f: (f.command, f.kind, f.detail))
    ]
    gone = [
        Change("audit", f.command, _path(old, f.command), f.kind, f.detail, None)
        for f in sorted(before - after, key=lambda f: (f.command, f.kind, f.detail))
    ]
    return added + gone


def _path(dist: reader.Dist, command: str) -> str:
    return dist.skill_meta(command).path


def _persona_changes(old: reader.Dist, new: reader.Dist) -> list[Change]:
    a, b = set(old.personas()), set(new.personas())
    out = [Change("persona", p, p, "persona", None, "added") for p in sorted(b - a)]
    out += [Change("persona", p, p, "persona", "removed", None) for p in sorted(a - b)]
    for pid in sorted(a & b):
        ma, mb = old.persona_meta(pid), new.persona_meta(pid)
        for name, va, vb in (
            ("fallback chain", " -> ".join(ma.chain) or "none", " -> ".join(mb.chain) or "none"),
            ("unrestricted_skills", str(ma.unrestricted).lower(), str(mb.unrestricted).lower()),
            ("allowlist", _allow(ma.allowlist), _allow(mb.allowlist)),
            ("budget", str(ma.budget), str(mb.budget)),
            ("name", ma.name, mb.name),
        ):
            if va != vb:
                out.append(
                    Change("persona", pid, pid, name, va, vb, capability=name == "unrestricted_skills")
                )
    return out


def _allow(allowlist: tuple[str, ...] | None) -> str:
    return "every skill" if allowlist is None else ", ".join(allowlist) or "none"


def _per_persona_changes(old: reader.Dist, new: reader.Dist) -> list[Change]:
    out: list[Change] = []
    for pid in sorted(set(old.personas()) & set(new.personas())):
        out += _catalog_change(old, new, pid)
        out += _pair_changes(old, new, pid)
    return out


def _catalog_change(old: reader.Dist, new: reader.Dist, pid: str) -> list[Change]:
    a, b = old.catalog(pid, env=AS_BUILT), new.catalog(pid, env=AS_BUILT)
    if a == b:
        return []
    diff = _unified(a, b, "a/catalog", "b/catalog")
    return [Change("catalog", "catalog", "catalog", "catalog", None, None, personas=(pid,), diff=diff)]


def _pair_changes(old: reader.Dist, new: reader.Dist, pid: str) -> list[Change]:
    seen_a = {s.command for s in old.skills(pid, env=AS_BUILT)}
    seen_b = {s.command for s in new.skills(pid, env=AS_BUILT)}
    out: list[Change] = []
    for command in sorted(seen_a | seen_b):
        ra = old.resolution(pid, command) if command in seen_a else None
        rb = new.resolution(pid, command) if command in seen_b else None
        where = new.skill_meta(command).path if rb else old.skill_meta(command).path
        out += _resolution_changes(command, where, pid, ra, rb)
        if ra is not None and rb is not None and ra.body_sha256 != rb.body_sha256:
            body_a, body_b = _body(old, ra), _body(new, rb)
            diff = _unified(body_a, body_b, f"a/{where}", f"b/{where}")
            out.append(
                Change("body", command, where, "resolved body", None, None, personas=(pid,), diff=diff)
            )
    return out


def _body(dist: reader.Dist, r: reader.Resolution) -> str:
    """The resolved body of a pair, whoever may invoke it (a review reads every pair's)."""
    return dist.read_object(r.body_sha256).decode("utf-8")


def _resolution_changes(
    command: str, where: str, pid: str, ra: reader.Resolution | None, rb: reader.Resolution | None
) -> list[Change]:
    if ra is None or rb is None:
        old, new = ("visible", None) if rb is None else (None, "visible")
        return [Change("access", command, where, "visibility", old, new, personas=(pid,))]
    out = []
    for name, va, vb, capability in (
        ("access", ra.access, rb.access, True),
        ("overlay", ra.overlay or "none", rb.overlay or "none", False),
        ("model may invoke", str(ra.model).lower(), str(rb.model).lower(), True),
        ("user may invoke", str(ra.user).lower(), str(rb.user).lower(), True),
        ("in catalog", _in_catalog(ra), _in_catalog(rb), False),
    ):
        if va != vb:
            out.append(Change("access", command, where, name, va, vb, capability=capability, personas=(pid,)))
    return out


def _in_catalog(r: reader.Resolution) -> str:
    if r.in_catalog:
        return "listed"
    return "cut by the budget" if r.model else "not listed (model may not invoke)"


def _grouped(changes: Iterable[Change]) -> list[Change]:
    """Changes that differ only in their persona become one, listing every persona.

    Diffs are compared by their changed lines only: the same edit to ten catalogs sits at ten
    line numbers with ten different contexts, and is still one edit. The first persona's diff is shown.
    """
    groups: dict[tuple[Any, ...], list[str]] = {}
    first: dict[tuple[Any, ...], Change] = {}
    for c in changes:
        edits = tuple(line for line in c.diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        key = (c.kind, c.subject, c.where, c.field, c.old, c.new, c.capability, edits)
        groups.setdefault(key, []).extend(c.personas)
        first.setdefault(key, c)
    return [_with_personas(first[k], tuple(sorted(p))) for k, p in groups.items()]


def _with_personas(c: Change, personas: tuple[str, ...]) -> Change:
    return Change(c.kind, c.subject, c.where, c.field, c.old, c.new, c.capability, personas, c.diff)


def _summary(old: reader.Dist, new: reader.Dist, pid: str) -> PersonaSummary:
    ma = old.persona_meta(pid) if pid in old.personas() else None
    mb = new.persona_meta(pid) if pid in new.personas() else None
    inc_a, inc_b = set(ma.included) if ma else set(), set(mb.included) if mb else set()
    cut_a, cut_b = set(ma.left_out) if ma else set(), set(mb.left_out) if mb else set()
    return PersonaSummary(
        pid,
        (ma.catalog_chars if ma else None, mb.catalog_chars if mb else None),
        (ma.budget - ma.catalog_chars if ma else None, mb.budget - mb.catalog_chars if mb else None),
        tuple(sorted(inc_b - inc_a)),
        tuple(sorted(inc_a - inc_b)),
        tuple(sorted(cut_b - cut_a)),
    )


# difflib's matcher is quadratic in the worst case (47 s on a 12 MB resource): past this many bytes
# on either side, or this many lines, a change is reported by its size, not line by line.
MAX_DIFF_INPUT_BYTES = 256 << 10
MAX_DIFF_INPUT_LINES = 5_000


def _unified(a: str, b: str, label_a: str, label_b: str) -> tuple[str, ...]:
    if max(len(a), len(b)) > MAX_DIFF_INPUT_BYTES or max(a.count("\n"), b.count("\n")) > MAX_DIFF_INPUT_LINES:
        sizes = (
            f"{len(a.encode('utf-8', 'surrogatepass'))} -> {len(b.encode('utf-8', 'surrogatepass'))} bytes"
        )
        return (f"--- {label_a}", f"+++ {label_b}", f"large file changed ({sizes}); no line diff")
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), label_a, label_b, lineterm=""))
    if len(lines) > _MAX_DIFF_LINES:
        lines = [*lines[:_MAX_DIFF_LINES], f"... {len(lines) - _MAX_DIFF_LINES} more diff lines"]
    return tuple(lines)


# --- rendering ------------------------------------------------------------------
