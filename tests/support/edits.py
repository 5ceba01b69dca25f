"""Edits a random test makes to a bench/gen.py tree, one step at a time: the cache's and the
watch's random edit sequences share them (tests/property/test_incremental_sequences.py and
test_delta_sequences.py)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from skillc.pipeline import build
from support.files import REPO
from support.files import snapshot as dist_bytes

BUILTIN = REPO / "compiler" / "templates" / "catalog.xml.j2"


def skills(root: Path) -> list[Path]:
    return sorted(root.glob("skills/**/SKILL.md"))


def leaves(root: Path) -> list[Path]:
    """Skill folders holding no other skill (a source's root is none): removing or renaming one
    moves nothing else."""
    return [
        p.parent
        for p in skills(root)
        if p.parent.parent != root / "skills" and not any(p.parent.glob("*/SKILL.md"))
    ]


UNDO = ".step-undo.json"  # the last body edit's file and its text before it, for `undo`


def body_edit(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    text = target.read_text()
    (root / UNDO).write_text(json.dumps([str(target), text]))
    target.write_text(text + f"\nStep {rng.random()}.\n")


def undo(root: Path, rng: random.Random) -> None:
    """The last body edit undone, its file as it was (as `git checkout` leaves it): the build has the
    key of an earlier one, though files were written since (a body edit when there is none to undo)."""
    kept = root / UNDO
    if not kept.exists():
        return body_edit(root, rng)
    where, text = json.loads(kept.read_text())
    kept.unlink()
    if Path(where).exists():
        Path(where).write_text(text)


def description_edit(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    text = target.read_text()
    target.write_text(
        re.sub(r"^description: \"?", lambda m: f"{m[0]}Now {rng.randint(0, 99)}. ", text, count=1, flags=re.M)
    )


def add_skill(root: Path, rng: random.Random) -> None:
    name = f"late-{rng.randint(0, 10**6)}"
    new = root / "skills" / rng.choice(["src-a", "src-b"]) / name / "SKILL.md"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_text(f"---\nname: {name}\ndescription: Added at a step.\n---\nNew {name}.\n")


def delete_skill(root: Path, rng: random.Random) -> None:
    shutil.rmtree(rng.choice(leaves(root)))


def rename_skill(root: Path, rng: random.Random) -> None:
    old = rng.choice(leaves(root))
    new = old.with_name(f"{old.name}-r{rng.randint(0, 999)}")
    old.rename(new)
    text = (new / "SKILL.md").read_text()
    (new / "SKILL.md").write_text(
        re.sub(rf"^name: {re.escape(old.name)}$", f"name: {new.name}", text, count=1, flags=re.M)
    )


def persona_edit(root: Path, rng: random.Random) -> None:
    manifest = rng.choice(sorted(root.glob("personas/*/manifest.yaml")))
    text = manifest.read_text()
    manifest.write_text(
        re.sub(r"^name: (.*)$", lambda m: f"{m[0]} {rng.randint(0, 9)}", text, count=1, flags=re.M)
    )


def overlay_edit(root: Path, rng: random.Random) -> None:
    overlays = sorted(root.glob("personas/*/skill-overlays/**/*.md"))
    if overlays and rng.random() < 0.7:
        target = rng.choice(overlays)
        target.write_text(target.read_text() + "\nAlso this, at a step.\n")
        return
    persona = rng.choice(sorted(p.parent for p in root.glob("personas/*/manifest.yaml")))
    command = rng.choice(leaves(root)).name
    target = persona / "skill-overlays" / f"{command}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("An overlay added at a step.\n")


def config_edit(root: Path, rng: random.Random) -> None:
    config = root / "skillc.yaml"
    text = config.read_text()
    config.write_text(re.sub(r"catalog_chars: \d+", f"catalog_chars: {rng.choice([800, 3000, 30000])}", text))


def template_edit(root: Path, rng: random.Random) -> None:
    """The project's own template: its first appearance replaces the built-in one."""
    local = root / "templates" / "catalog.xml.j2"
    if not local.exists():
        local.parent.mkdir(exist_ok=True)
        local.write_text(BUILTIN.read_text())
    local.write_text(local.read_text() + f"<!-- step {rng.randint(0, 99)} -->\n")


def requires_edit(root: Path, rng: random.Random) -> None:
    """A skill's run-time requirements added or taken away: the index's requirements object, which
    an edit or delta build patches (a skill whose frontmatter has its own gets a body edit)."""
    target = rng.choice(skills(root))
    text = target.read_text()
    if "requires_env: [STEP_" in text:
        target.write_text(re.sub(r"^requires_env: \[STEP_\d+\]\n", "", text, count=1, flags=re.M))
    elif "requires_env" in text:
        target.write_text(text + f"\nStep {rng.random()}.\n")
    else:
        added = f"requires_env: [STEP_{rng.randint(0, 9)}]\ndescription: "
        target.write_text(re.sub(r"^description: ", added, text, count=1, flags=re.M))


def touch(root: Path, rng: random.Random) -> None:
    target = rng.choice(skills(root))
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def nothing(root: Path, rng: random.Random) -> None:
    pass


STEPS_BY_NAME: dict[str, Callable[[Path, random.Random], None]] = {
    f.__name__: f
    for f in (
        body_edit,
        description_edit,
        add_skill,
        delete_skill,
        rename_skill,
        persona_edit,
        overlay_edit,
        config_edit,
        template_edit,
        touch,
        nothing,
        undo,
    )
}


# --- what an author does while writing one skill (the watch's delta builds take these) --------------


def resource_edit(root: Path, rng: random.Random) -> None:
    """A file of a skill other than its SKILL.md: edited, or its executable bit flipped."""
    files = sorted(p for d in leaves(root) for p in d.rglob("*") if p.is_file() and p.name != "SKILL.md")
    if not files:
        return body_edit(root, rng)
    target = rng.choice(files)
    if rng.random() < 0.3:
        target.chmod(target.stat().st_mode ^ 0o111)
    else:
        target.write_bytes(target.read_bytes() + f"\n# step {rng.random()}\n".encode())


def flag_edit(root: Path, rng: random.Random) -> None:
    """A frontmatter flag that moves a skill in or out of catalogs, or changes how it is shown."""
    target = rng.choice(skills(root))
    text = target.read_text()
    line = rng.choice(["always: true", "disable-model-invocation: true", "user-invocable: false"])
    if f"\n{line}\n" in text:
        target.write_text(text.replace(f"\n{line}\n", "\n", 1))
    else:
        target.write_text(text.replace("\n---\n", f"\n{line}\n---\n", 1))


def body_cleared(root: Path, rng: random.Random) -> None:
    """A body emptied (a warning comes), or given back."""
    target = rng.choice(skills(root))
    head, sep, body = target.read_text().partition("\n---\n")
    target.write_text(head + sep + ("" if body.strip() else "Written again.\n"))


def frontmatter_broken(root: Path, rng: random.Random) -> None:
    """Bad input mid-edit: a frontmatter that does not parse, mended at a later step."""
    broken = [p for p in skills(root) if "name: [" in p.read_text()]
    if broken:
        target = rng.choice(broken)
        target.write_text(target.read_text().replace("name: [", "name: ", 1))
        return
    target = rng.choice(skills(root))
    target.write_text(target.read_text().replace("name: ", "name: [", 1))


def label_edit(root: Path, rng: random.Random) -> None:
    """A name made a display name (`name: Skill 3`, the skill's label, its id the folder's name:
    SKC219 ignored in the file), or given back."""
    target = rng.choice(skills(root))
    text = target.read_text()
    labelled = re.search(r"^name: (.*)\n# skillc: ignore\[SKC219\]\n", text, flags=re.M)
    if labelled:
        target.write_text(text.replace(labelled[0], f"name: {target.parent.name}\n", 1))
        return
    label = target.parent.name.replace("-", " ").title() + f" {rng.randint(0, 9)}"
    made = re.sub(r"^name: .*$", f"name: {label}\n# skillc: ignore[SKC219]", text, count=1, flags=re.M)
    target.write_text(made)


WRITING_STEPS: dict[str, Callable[[Path, random.Random], None]] = {
    f.__name__: f
    for f in (
        body_edit,
        description_edit,
        resource_edit,
        flag_edit,
        requires_edit,
        body_cleared,
        frontmatter_broken,
        label_edit,
        touch,
        undo,
    )
}


# --- what the sources' discovery rules decide (docs/config.md, Sources) -----------------------------


def _skill_text(name: str) -> str:
    return f"---\nname: {name}\ndescription: Found at a step.\n---\nBody of {name}.\n"


def _toggle(path: Path, text: str) -> None:
    """`path` written with `text`, or removed with the folders it leaves empty when it is there."""
    if path.exists():
        path.unlink()
        for folder in path.parents:
            if folder.name in ("skills", "src-a", "src-b") or any(folder.iterdir()):
                break
            folder.rmdir()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _folder(root: Path, rng: random.Random) -> Path:
    """A source's root or one of its skill folders."""
    return rng.choice([root / "skills" / "src-a", root / "skills" / "src-b", *leaves(root)])


def vendored(root: Path, rng: random.Random) -> None:
    """A SKILL.md in a folder a source's rules may never walk (node_modules, vendor, .git), put or
    taken away."""
    folder = _folder(root, rng) / rng.choice(["node_modules", "vendor", ".git"]) / "pkg"
    _toggle(folder / "SKILL.md", _skill_text("pkg"))


def deep_skill(root: Path, rng: random.Random) -> None:
    """A SKILL.md two folders below a skill or a source's root (deeper than a `depth` may allow: a
    file of the skill above it, or said), put or taken away."""
    where = _folder(root, rng) / "docs" / "inner"
    _toggle(where / "SKILL.md", _skill_text("inner"))


def case_twin(root: Path, rng: random.Random) -> None:
    """A skill folder whose command differs from another's only in case, in the other source (an
    error, or one left out with `duplicates: last-wins`), put or taken away."""
    twins = [p for p in root.glob("skills/*/*") if p.is_dir() and p.name != p.name.lower()]
    if twins and rng.random() < 0.6:
        shutil.rmtree(rng.choice(sorted(twins)))
        return
    leaf = rng.choice([p for p in leaves(root) if p.parent.name in ("src-a", "src-b")])
    other = "src-b" if leaf.parent.name == "src-a" else "src-a"
    twin = root / "skills" / other / leaf.name.title() / "SKILL.md"
    twin.parent.mkdir(parents=True, exist_ok=True)
    twin.write_text(_skill_text(leaf.name))


def root_skill_md(root: Path, rng: random.Random) -> None:
    """A SKILL.md at a source's root (ignored, with a warning, unless the source says `root_skill`),
    put or taken away."""
    source = root / "skills" / rng.choice(["src-a", "src-b"])
    _toggle(source / "SKILL.md", _skill_text(source.name))


CACHE_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n"


def cache_tagged(root: Path, rng: random.Random) -> None:
    """A folder tagged as a cache (CACHEDIR.TAG: never walked), or its tag taken away or made a
    plain file: a skill folder, one holding other skills, or a folder inside a skill."""
    tags = sorted(root.glob("skills/**/CACHEDIR.TAG"))
    if tags and rng.random() < 0.5:
        tag = rng.choice(tags)
        tag.unlink() if rng.random() < 0.7 else tag.write_text("Signature: not a cache\n")
        return
    folder = rng.choice([*leaves(root), *(p.parent for p in skills(root))])
    if rng.random() < 0.3:
        folder = folder / "build"
        folder.mkdir(exist_ok=True)
        (folder / "out.txt").write_text("made again at will\n")
    (folder / "CACHEDIR.TAG").write_text(CACHE_TAG)


DISCOVERY_STEPS: dict[str, Callable[[Path, random.Random], None]] = {
    f.__name__: f for f in (vendored, deep_skill, case_twin, root_skill_md, cache_tagged)
}


def drawn_rules(root: Path, rng: random.Random) -> str:
    """The config's sources given discovery rules drawn at random (docs/config.md, Sources); the
    rules, as written."""
    config = root / "skillc.yaml"
    lines = []
    for source in ("skills/src-a", "skills/src-b"):
        rules = {
            "depth": rng.choice([None, 1, 2]),
            "root_skill": rng.choice([None, "true"]),
            "duplicates": rng.choice([None, "last-wins"]),
            "skip_folders": rng.choice([None, "[]", "[vendor]", "[node_modules, vendor]"]),
            "git_ignored": rng.choice([None, "true"]),
            "optional": rng.choice([None, "true"]),
        }
        lines.append(f"  - path: {source}\n")
        lines += [f"    {key}: {value}\n" for key, value in rules.items() if value is not None]
    text = config.read_text().replace("  - skills/src-a\n  - skills/src-b\n", "".join(lines), 1)
    config.write_text(text)
    return "".join(lines)


def clean_build(root: Path, where: Path) -> tuple[dict[str, bytes], tuple[str, ...]]:
    """The reference: the same sources copied to `where` and built there without the cache."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, where, ignore=shutil.ignore_patterns("dist", ".skillc-cache"))
    result, _ = build(where / "skillc.yaml", cache=False)
    files = dist_bytes(where / "dist") if (where / "dist").exists() else {}
    return files, tuple(d.format() for d in result.diagnostics)
